"""The live domain's storage: consultations and their transcript lines, in the doctor's
tenant schema, each write through a session running under the tenant's database role."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import select, update

from cara.consultations.service import index_for_search
from cara.kit.db import restrict_to_tenant_role, tenant_session
from cara.models import Consultation, TranscriptLine
from cara.models.base import utcnow

if TYPE_CHECKING:
    from cara.live.transcript import Line


@dataclass(frozen=True)
class TenantScope:
    """Where a doctor's rows live and the database role that confines them."""

    schema: str
    role: str
    account_id: uuid.UUID


def start_consultation(scope: TenantScope, console: str, model: str) -> uuid.UUID:
    with tenant_session(scope.schema) as session:
        restrict_to_tenant_role(session, scope.role)
        consultation = Consultation(doctor_account_id=scope.account_id, console=console, model=model)
        session.add(consultation)
        session.commit()
        return consultation.id


@dataclass(frozen=True)
class StoredLine:
    seq: int
    speaker: str
    text: str
    at: datetime


def rejoin_consultation(scope: TenantScope, consultation_id: uuid.UUID) -> list[StoredLine]:
    """A consultation the doctor comes back to (cara.consultations.service.open_for_live has checked
    it is theirs): open again (no end time), with its transcript so far in order."""
    with tenant_session(scope.schema) as session:
        restrict_to_tenant_role(session, scope.role)
        session.execute(
            update(Consultation)
            .where(Consultation.id == consultation_id, Consultation.doctor_account_id == scope.account_id)
            .values(ended_at=None)
        )
        rows = session.execute(
            select(TranscriptLine.seq, TranscriptLine.speaker, TranscriptLine.text, TranscriptLine.spoken_at)
            .where(TranscriptLine.consultation_id == consultation_id)
            .order_by(TranscriptLine.seq)
        ).all()
        session.commit()
        return [StoredLine(seq=r.seq, speaker=r.speaker, text=r.text, at=r.spoken_at) for r in rows]


def store_lines(scope: TenantScope, consultation_id: uuid.UUID, lines: Iterable[Line]) -> None:
    with tenant_session(scope.schema) as session:
        restrict_to_tenant_role(session, scope.role)
        session.add_all(
            TranscriptLine(
                consultation_id=consultation_id,
                seq=line.seq,
                speaker=line.speaker,
                text=line.text,
                spoken_at=line.at,
            )
            for line in lines
        )
        session.flush()
        index_for_search(session, consultation_id)
        session.commit()


def end_consultation(scope: TenantScope, consultation_id: uuid.UUID, reconnects: int) -> None:
    with tenant_session(scope.schema) as session:
        restrict_to_tenant_role(session, scope.role)
        session.execute(
            update(Consultation)
            .where(Consultation.id == consultation_id, Consultation.doctor_account_id == scope.account_id)
            .values(ended_at=utcnow(), reconnects=reconnects)
        )
        # Gathered after the end time is set, so the document is not behind it.
        index_for_search(session, consultation_id)
        session.commit()
