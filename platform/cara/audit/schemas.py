"""The hospital's own audit log, as its security page reads it."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

# What the page filters by: the first part of an action name.
AuditGroup = Literal["doctor", "consultation", "record_settings", "profile", "recording"]


class AuditEntry(BaseModel):
    id: str
    at: datetime
    action: str = Field(description="e.g. doctor.created, doctor.deactivated, consultation.export")
    actorId: str | None = None
    actorName: str | None = Field(default=None, description="null once the account is gone")
    targetType: str | None = None
    targetId: str | None = None
    targetName: str | None = Field(
        default=None, description="the doctor's or account's name, for those targets; null once removed"
    )
    detail: dict[str, Any] = Field(
        default_factory=dict, description="ids and field names, never clinical text"
    )


class AuditPage(BaseModel):
    """Newest first; `nextCursor` asks for the older entries (null on the last page)."""

    items: list[AuditEntry]
    nextCursor: str | None = None
