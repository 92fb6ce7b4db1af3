"""The queries of plan reviews (cara.clinical): the only place with SQL for their tables."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import String, delete, func, literal, select, update
from sqlalchemy.orm import Session, load_only

from cara.models import Consultation, PlanReview, PlanReviewFile, RecordSettings, StructureNameMapping
from cara.models.base import utcnow


def add_review(session: Session, review: PlanReview) -> PlanReview:
    session.add(review)
    session.flush()
    return review


def doctor_review(
    session: Session, doctor_id: uuid.UUID, review_id: uuid.UUID, *, for_update: bool = False
) -> PlanReview | None:
    query = select(PlanReview).where(PlanReview.id == review_id, PlanReview.doctor_account_id == doctor_id)
    if for_update:
        query = query.with_for_update()
    return session.scalars(query).first()


def reviews_of(session: Session, doctor_id: uuid.UUID, consultation_id: uuid.UUID) -> Sequence[PlanReview]:
    return session.scalars(
        select(PlanReview)
        .where(PlanReview.doctor_account_id == doctor_id, PlanReview.consultation_id == consultation_id)
        .order_by(PlanReview.created_at.desc(), PlanReview.id)
    ).all()


def file_headers(session: Session, review_ids: Sequence[uuid.UUID]) -> Sequence[PlanReviewFile]:
    """The files of reviews without their bytes."""
    if not review_ids:
        return []
    return session.scalars(
        select(PlanReviewFile)
        .options(
            load_only(
                PlanReviewFile.review_id,
                PlanReviewFile.kind,
                PlanReviewFile.filename,
                PlanReviewFile.size_bytes,
                PlanReviewFile.sha256,
                PlanReviewFile.created_at,
            )
        )
        .where(PlanReviewFile.review_id.in_(review_ids))
        .order_by(PlanReviewFile.kind)
    ).all()


def files(session: Session, review_id: uuid.UUID) -> Sequence[PlanReviewFile]:
    return session.scalars(select(PlanReviewFile).where(PlanReviewFile.review_id == review_id)).all()


def put_file(session: Session, file: PlanReviewFile) -> None:
    session.execute(
        delete(PlanReviewFile).where(
            PlanReviewFile.review_id == file.review_id, PlanReviewFile.kind == file.kind
        )
    )
    session.add(file)
    session.flush()


def review_for_job(session: Session, review_id: uuid.UUID) -> PlanReview | None:
    return session.scalars(select(PlanReview).where(PlanReview.id == review_id).with_for_update()).first()


def set_progress(session: Session, review_id: uuid.UUID, done: int, total: int) -> None:
    session.execute(
        update(PlanReview)
        .where(PlanReview.id == review_id, PlanReview.state == "computing")
        .values(progress=done, progress_total=total, updated_at=utcnow())
    )


def saved_names(session: Session, scope: str) -> dict[str, str | None]:
    rows = session.scalars(select(StructureNameMapping).where(StructureNameMapping.scope == scope)).all()
    return {row.name_key: row.organ_key for row in rows}


def replace_names(session: Session, scope: str, names: dict[str, str | None], account_id: uuid.UUID) -> None:
    session.execute(delete(StructureNameMapping).where(StructureNameMapping.scope == scope))
    session.add_all(
        StructureNameMapping(scope=scope, name_key=key, organ_key=organ, saved_by_account_id=account_id)
        for key, organ in names.items()
    )
    session.flush()


def delete_expired(session: Session, now: datetime, *, hospital: bool, default_days: int) -> int:
    """Delete the plan reviews (and their files) of consultations never signed, once the record's
    retention period has passed: the same period and clock as the consultation's transcript
    (read here, never written: the record's tables are cara.consultations')."""
    owner = literal("hospital") if hospital else func.cast(Consultation.doctor_account_id, String)
    days = func.coalesce(RecordSettings.retention_days, default_days)
    expired = (
        select(Consultation.id)
        .outerjoin(RecordSettings, RecordSettings.owner == owner)
        .where(
            Consultation.state != "signed",
            func.coalesce(Consultation.ended_at, Consultation.started_at)
            < now - func.make_interval(0, 0, 0, days),
        )
    )
    result = session.execute(delete(PlanReview).where(PlanReview.consultation_id.in_(expired)))
    return int(getattr(result, "rowcount", 0) or 0)
