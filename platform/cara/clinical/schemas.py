"""Request and response bodies of /api/plan-reviews: a radiotherapy plan's DVHs checked against QUANTEC."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

PlanFileKind = Literal["rtstruct", "rtdose", "rtplan"]
PlanReviewState = Literal["receiving", "queued", "computing", "done", "failed"]


class PlanReviewCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    consultationId: uuid.UUID = Field(
        description="the radiotherapist's own consultation (consented, not signed)"
    )


class PlanReviewSettings(BaseModel):
    """The physicist's choices for one computation; every field optional."""

    model_config = ConfigDict(extra="forbid")

    fractions: int | None = Field(
        default=None, ge=1, le=100, description="number of fractions; omit to use the RTPLAN's"
    )
    structureOrgans: dict[str, str | None] = Field(
        default_factory=dict,
        max_length=500,
        description="structure name -> QUANTEC organ key (null: not an organ): this plan's corrections",
    )
    alphaBeta: dict[str, float] = Field(
        default_factory=dict, max_length=100, description="QUANTEC organ key -> alpha/beta in Gy (0.5 to 20)"
    )


class PlanFileOut(BaseModel):
    kind: PlanFileKind
    filename: str
    sizeBytes: int
    sha256: str
    uploadedAt: datetime


class PlanReviewOut(BaseModel):
    id: uuid.UUID
    consultationId: uuid.UUID
    state: PlanReviewState = Field(
        description="receiving (files being added), queued, computing, done (`result`), failed (`error`)"
    )
    progress: int = Field(description="structures computed so far")
    progressTotal: int = Field(description="structures to compute (0 before the computation starts)")
    files: list[PlanFileOut]
    settings: PlanReviewSettings
    error: str | None = None
    result: dict[str, Any] | None = Field(
        default=None,
        description="the DVH table: per structure its volume, Dmean, Dmax, D0.03cc, Dx%, Dxcc, Vx Gy, EQD2"
        " and cumulative curve; the QUANTEC checks (pass / fail / not assessable) with their citation",
    )
    createdAt: datetime
    updatedAt: datetime


class PlanReviewList(BaseModel):
    items: list[PlanReviewOut]


class OrganOut(BaseModel):
    key: str
    label: str
    alphaBetaGy: float
    metrics: list[str]


class OrganCatalogue(BaseModel):
    organs: list[OrganOut]
    citation: str
    table: str
    note: str


class StructureName(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(
        min_length=1, max_length=200, description="a structure name as planning systems write it"
    )
    organKey: str | None = Field(description="the QUANTEC organ it is; null: never an organ")


class StructureNames(BaseModel):
    model_config = ConfigDict(extra="forbid")

    names: list[StructureName] = Field(max_length=500)
