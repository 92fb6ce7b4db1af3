"""Radiotherapy plan reviews: a consultation's RTSTRUCT, RTDOSE and RTPLAN, their DVHs computed by
a worker (`clinical.compute_plan_review`) and checked against QUANTEC (cara.clinical.dvh).

Rules:

- Radiotherapists with clinical access only (spec §6), on their own consultation (consented, not
  signed, in the radiotherapist console); another doctor's or tenant's review is 404.
- Files are stored in the tenant's own schema, one of each kind, at most `plan_file_max_bytes`
  each; each is read when it arrives, so a file that is not DICOM, is cut short or is of the
  wrong kind is refused at once (422, naming the file) and nothing stored is touched.
- Computing takes seconds on a large grid: a job of its own, which counts the structures done
  (`progress` / `progressTotal`); its refusals (frames of reference, fractionation) are the
  review's `error`, naming the file.
- Structure names the hospital saved map names to organs for every plan; the physicist corrects
  them per plan (`structureOrgans`). An independent doctor's saved names are their own.

Never logged: file names, structure names or values (a file name may carry a patient's name).
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import uuid
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from cara.auth.principal import NO_PERMISSION, Principal
from cara.clinical import repository
from cara.clinical.dose_constraints import load_table
from cara.clinical.dvh import dicom_files, review
from cara.clinical.dvh.dicom_files import PlanFileError
from cara.clinical.schemas import (
    OrganCatalogue,
    OrganOut,
    PlanFileOut,
    PlanReviewCreate,
    PlanReviewList,
    PlanReviewOut,
    PlanReviewSettings,
    StructureName,
    StructureNames,
)
from cara.config import get_settings
from cara.consultations import service as consultations
from cara.kit.errors import Conflict, Forbidden, NotFound, PayloadTooLarge, ValidationFailed
from cara.kit.jobs import enqueue_after_commit
from cara.models import PlanReview, PlanReviewFile
from cara.models.base import utcnow
from cara.subscriptions.service import grants_clinical_access
from tenants.naming import INDEPENDENT_SCHEMA
from tenants.sessions import TenantTransactions

log = logging.getLogger("cara.clinical")

ACTOR = "clinical.compute_plan_review"
RETENTION_ACTOR = "clinical.apply_retention"
# The tool result the radiotherapy chat hands the model a computed table as.
PLAN_REVIEW_FUNCTION = "get_plan_review"
RADIOTHERAPY_CONSOLE = "radiotherapist"
RADIOTHERAPIST = "Radiotherapist"
RADIOTHERAPISTS_ONLY = "Plan reviews are available to Radiotherapists only."
NEEDS_SUBSCRIPTION = "An active subscription is required to use Cara. Please choose a plan."
NOT_FOUND = "Plan review not found."
NOT_RADIOTHERAPY = "Plans are reviewed in a radiotherapy consultation."
BUSY = "The plan is being computed; change it once the computation has finished."
NEEDS_FILES = "Upload the RTSTRUCT and the RTDOSE first."
NEEDS_FRACTIONS = "Upload the RTPLAN, or give the number of fractions."
HOSPITAL_KEEPS_NAMES = "Your hospital saves the structure names of its plans."
NAME_ROLES = "Structure names are kept by hospitals and doctors."
COULD_NOT_COMPUTE = "The plan could not be computed. Please try again."
MODALITY = {"rtstruct": "RTSTRUCT", "rtdose": "RTDOSE", "rtplan": "RTPLAN"}
_FILENAME = re.compile(r"[^\w .()+-]")


# ------------------------------------------------------------------ who may


def require_radiotherapist(session: Session, principal: Principal) -> None:
    if principal.role != "doctor":
        raise Forbidden(NO_PERMISSION)
    if principal.account.specialty != RADIOTHERAPIST:
        raise Forbidden(RADIOTHERAPISTS_ONLY)
    if not grants_clinical_access(session, principal.account):
        raise Forbidden(NEEDS_SUBSCRIPTION)


def _parse_id(value: object) -> uuid.UUID:
    try:
        return uuid.UUID(str(value))
    except (TypeError, ValueError) as exc:
        raise NotFound(NOT_FOUND) from exc


def _own(
    session: Session, principal: Principal, review_id: object, *, for_update: bool = False
) -> PlanReview:
    found = repository.doctor_review(session, principal.id, _parse_id(review_id), for_update=for_update)
    if found is None:
        raise NotFound(NOT_FOUND)
    return found


# ------------------------------------------------------------------ the review and its files


def create(session: Session, principal: Principal, body: PlanReviewCreate) -> PlanReviewOut:
    require_radiotherapist(session, principal)
    consultation = consultations.open_for_live(session, principal, body.consultationId)
    if consultation.console != RADIOTHERAPY_CONSOLE:
        raise ValidationFailed({"consultationId": NOT_RADIOTHERAPY}, message=NOT_RADIOTHERAPY)
    found = repository.add_review(
        session,
        PlanReview(
            consultation_id=consultation.id,
            doctor_account_id=principal.id,
            state="receiving",
            progress=0,
            progress_total=0,
            settings={},
        ),
    )
    return review_out(session, found)


def read(session: Session, principal: Principal, review_id: object) -> PlanReviewOut:
    require_radiotherapist(session, principal)
    return review_out(session, _own(session, principal, review_id))


def list_for(session: Session, principal: Principal, consultation_id: object) -> PlanReviewList:
    require_radiotherapist(session, principal)
    consultation = consultations.own_consultation(session, principal, consultation_id)
    found = repository.reviews_of(session, principal.id, consultation.id)
    headers = repository.file_headers(session, [r.id for r in found])
    return PlanReviewList(items=[review_out(session, r, headers) for r in found])


def clean_filename(filename: str | None, kind: str) -> str:
    name = _FILENAME.sub("_", (filename or "").strip().split("/")[-1].split("\\")[-1])[:200].strip()
    return name or f"{kind}.dcm"


def store_file(
    session: Session, principal: Principal, review_id: object, kind: str, filename: str | None, data: bytes
) -> PlanReviewOut:
    """Read the file as its kind (refused with a message naming it), then keep it in place of any
    earlier file of that kind; the review waits for a new computation."""
    require_radiotherapist(session, principal)
    found = _own(session, principal, review_id, for_update=True)
    if found.state in ("queued", "computing"):
        raise Conflict(BUSY)
    name = clean_filename(filename, kind)
    limit = get_settings().plan_file_max_bytes
    if len(data) > limit:
        raise PayloadTooLarge(f"{name}: the file is larger than {math.ceil(limit / 1024 / 1024)} MB.")
    try:
        check_file(kind, name, data)
    except PlanFileError as exc:
        raise ValidationFailed({"file": str(exc)}, message=str(exc)) from None
    repository.put_file(
        session,
        PlanReviewFile(
            review_id=found.id,
            kind=kind,
            filename=name,
            size_bytes=len(data),
            sha256=hashlib.sha256(data).hexdigest(),
            data=data,
        ),
    )
    _reset(found)
    found.state = "receiving"
    return review_out(session, found)


def check_file(kind: str, name: str, data: bytes) -> None:
    """The checks a file passes before it is kept (PlanFileError otherwise)."""
    ds = dicom_files.read_dataset(data, name)
    found = dicom_files.modality(ds)
    if found != MODALITY[kind]:
        raise PlanFileError(name, f"expected an {MODALITY[kind]} file, found modality '{found or 'none'}'.")
    if kind == "rtstruct":
        dicom_files.structures_from_dataset(ds, name)
    elif kind == "rtdose":
        dicom_files.dose_from_dataset(ds, name)
    else:
        dicom_files.fractionation_from_dataset(ds, name)


def request_compute(
    session: Session, principal: Principal, review_id: object, body: PlanReviewSettings
) -> PlanReviewOut:
    require_radiotherapist(session, principal)
    found = _own(session, principal, review_id, for_update=True)
    if found.state in ("queued", "computing"):
        raise Conflict(BUSY)
    kinds = {f.kind for f in repository.file_headers(session, [found.id])}
    if not {"rtstruct", "rtdose"} <= kinds:
        raise ValidationFailed({"files": NEEDS_FILES}, message=NEEDS_FILES)
    if "rtplan" not in kinds and body.fractions is None:
        raise ValidationFailed({"fractions": NEEDS_FRACTIONS}, message=NEEDS_FRACTIONS)
    _check_settings(body)
    found.settings = body.model_dump()
    _reset(found)
    found.state = "queued"
    assert principal.tenant_schema is not None  # a doctor always has a tenant
    enqueue_after_commit(
        session,
        ACTOR,
        tenant=principal.tenant_schema,
        schema=principal.tenant_schema,
        review_id=str(found.id),
    )
    return review_out(session, found)


def _check_settings(body: PlanReviewSettings) -> None:
    known = review.organ_keys()
    for name, organ in body.structureOrgans.items():
        if organ is not None and organ not in known:
            message = f"'{name}' is mapped to '{organ}', which is not a QUANTEC organ."
            raise ValidationFailed({"structureOrgans": message}, message=message)
    low, high = review.ALPHA_BETA_RANGE
    for organ, value in body.alphaBeta.items():
        if organ not in known:
            message = f"alpha/beta is set for '{organ}', which is not a QUANTEC organ."
            raise ValidationFailed({"alphaBeta": message}, message=message)
        if not (math.isfinite(value) and low <= value <= high):
            message = f"alpha/beta for '{organ}' must be between 0.5 and 20 Gy."
            raise ValidationFailed({"alphaBeta": message}, message=message)


def _reset(found: PlanReview) -> None:
    found.result = None
    found.error = None
    found.progress = 0
    found.progress_total = 0
    found.updated_at = utcnow()


def review_out(
    session: Session, found: PlanReview, headers: list[PlanReviewFile] | Any = None
) -> PlanReviewOut:
    files = headers if headers is not None else repository.file_headers(session, [found.id])
    return PlanReviewOut(
        id=found.id,
        consultationId=found.consultation_id,
        state=found.state,  # type: ignore[arg-type]
        progress=found.progress,
        progressTotal=found.progress_total,
        files=[
            PlanFileOut(
                kind=f.kind,  # type: ignore[arg-type]
                filename=f.filename,
                sizeBytes=f.size_bytes,
                sha256=f.sha256,
                uploadedAt=f.created_at,
            )
            for f in files
            if f.review_id == found.id
        ],
        settings=PlanReviewSettings.model_validate(found.settings or {}),
        error=found.error,
        result=found.result,
        createdAt=found.created_at,
        updatedAt=found.updated_at,
    )


# ------------------------------------------------------------------ the job


def names_scope(schema: str, doctor_id: uuid.UUID) -> str:
    """Whose saved names apply: the hospital's, or, in the shared independent schema, the doctor's."""
    return str(doctor_id) if schema == INDEPENDENT_SCHEMA else "tenant"


def _claim(session: Session, review_id: uuid.UUID, schema: str) -> dict[str, Any] | None:
    found = repository.review_for_job(session, review_id)
    if found is None or found.state != "queued":
        return None  # changed or computed since: at-least-once delivery
    found.state = "computing"
    found.updated_at = utcnow()
    return {
        "files": {f.kind: (f.filename, bytes(f.data)) for f in repository.files(session, review_id)},
        "settings": dict(found.settings or {}),
        "saved": repository.saved_names(session, names_scope(schema, found.doctor_account_id)),
    }


def _finish(session: Session, review_id: uuid.UUID, result: dict[str, Any] | None, error: str | None) -> None:
    found = repository.review_for_job(session, review_id)
    if found is None or found.state != "computing":
        return
    found.state = "done" if error is None else "failed"
    found.result = result
    found.error = error
    found.updated_at = utcnow()


def compute(transactions: TenantTransactions, review_id: str) -> None:
    """The job: read the files, compute every structure (progress kept per structure), store."""
    rid = uuid.UUID(review_id)
    claimed = transactions.run(_claim, rid, transactions.schema)
    if claimed is None:
        return
    result: dict[str, Any] | None = None
    error: str | None = None
    try:
        result = compute_table(
            claimed, lambda done, total: transactions.run(repository.set_progress, rid, done, total)
        )
    except (PlanFileError, ValueError) as exc:
        error = str(exc)[:1000]
    except Exception as exc:
        log.warning("plan review failed", extra={"error": type(exc).__name__})
        error = COULD_NOT_COMPUTE
    transactions.run(_finish, rid, result, error)


def compute_table(claimed: dict[str, Any], progress: Any = None) -> dict[str, Any]:
    files: dict[str, tuple[str, bytes]] = claimed["files"]
    settings = PlanReviewSettings.model_validate(claimed["settings"])
    structures = dicom_files.read_structures(files["rtstruct"][1], files["rtstruct"][0])
    dose = dicom_files.read_dose(files["rtdose"][1], files["rtdose"][0])
    plan = None
    if "rtplan" in files and settings.fractions is None:
        plan = dicom_files.read_fractionation(files["rtplan"][1], files["rtplan"][0])
    elif "rtplan" in files:
        try:  # entered fractions win, but the plan's frame of reference is still checked
            plan = dicom_files.read_fractionation(files["rtplan"][1], files["rtplan"][0])
        except PlanFileError:
            plan = None
    outcome = review.review_plan(
        structures,
        dose,
        plan,
        fractions=settings.fractions,
        plan_mapping=settings.structureOrgans,
        saved_mapping=claimed.get("saved") or {},
        alpha_beta=settings.alphaBeta,
        progress=progress,
    )
    table = outcome.as_dict()
    table["files"] = {kind: name for kind, (name, _) in files.items()}
    return table


# ------------------------------------------------------------------ retention


def apply_retention(session: Session, schema: str, now: datetime | None = None) -> int:
    """In one tenant schema: the plan reviews of consultations never signed go, files and table,
    once the record's retention period has passed (their headers name the patient). Returns how
    many went."""
    return repository.delete_expired(
        session,
        now or utcnow(),
        hospital=schema != INDEPENDENT_SCHEMA,
        default_days=consultations.DEFAULT_RETENTION_DAYS,
    )


# ------------------------------------------------------------------ for the chat


def chat_table(session: Session, principal: Principal, review_id: object) -> dict[str, Any]:
    """The computed table as the radiotherapy chat hands it to the model: every figure and check,
    no curve, no file name (a file name may carry the patient's)."""
    require_radiotherapist(session, principal)
    found = _own(session, principal, review_id)
    if found.state != "done" or not found.result:
        raise Conflict("The plan review has not been computed yet.")
    result = found.result
    structures = []
    for s in result.get("structures", []):
        entry = {k: v for k, v in s.items() if k not in ("curve",)}
        structures.append(entry)
    return {
        "planReviewId": str(found.id),
        "fractions": result.get("fractions"),
        "fractionsSource": "RTPLAN" if result.get("fractionsSource") != "entered" else "entered",
        "prescriptionGy": result.get("prescriptionGy"),
        "dosePerFractionGy": result.get("dosePerFractionGy"),
        "structures": structures,
        "checks": result.get("checks", []),
        "summary": result.get("summary"),
        "warnings": [w for w in result.get("warnings", [])],
        "source": result.get("source"),
        "caution": result.get("caution"),
    }


def chat_summary(table: dict[str, Any]) -> str:
    """One line for the transcript: what the model was given."""
    summary = table.get("summary") or {}
    return (
        f"Plan review (DVH, {table.get('fractions')} fractions):"
        f" {len(table.get('structures', []))} structures,"
        f" QUANTEC checks {summary.get('pass', 0)} pass, {summary.get('fail', 0)} fail,"
        f" {summary.get('notAssessable', 0)} not assessable."
    )


# ------------------------------------------------------------------ organs and saved names


def organ_catalogue() -> OrganCatalogue:
    table = load_table()
    return OrganCatalogue(
        organs=[
            OrganOut(
                key=o.key,
                label=o.label,
                alphaBetaGy=o.alpha_beta_gy,
                metrics=[r.metric for r in table.rows if r.organ == o],
            )
            for o in table.organs
        ],
        citation=table.citation,
        table=table.table,
        note=table.note,
    )


def _names_scope_of(principal: Principal) -> str:
    if principal.role not in ("doctor", "hospital") or principal.tenant_schema is None:
        raise Forbidden(NAME_ROLES)
    return names_scope(principal.tenant_schema, principal.id)


def read_names(session: Session, principal: Principal) -> StructureNames:
    saved = repository.saved_names(session, _names_scope_of(principal))
    return StructureNames(names=[StructureName(name=k, organKey=v) for k, v in sorted(saved.items())])


def save_names(session: Session, principal: Principal, body: StructureNames) -> StructureNames:
    """Replace the saved names: a hospital's for its doctors, an independent doctor's for themself."""
    scope = _names_scope_of(principal)
    if principal.role == "doctor" and principal.tenant_schema != INDEPENDENT_SCHEMA:
        raise Forbidden(HOSPITAL_KEEPS_NAMES)
    known = review.organ_keys()
    names: dict[str, str | None] = {}
    for item in body.names:
        key = review.name_key(item.name)
        if not key:
            raise ValidationFailed({"names": f"'{item.name}' is not a structure name."})
        if item.organKey is not None and item.organKey not in known:
            message = f"'{item.name}' is mapped to '{item.organKey}', which is not a QUANTEC organ."
            raise ValidationFailed({"names": message}, message=message)
        names[key] = item.organKey
    repository.replace_names(session, scope, names, principal.id)
    return read_names(session, principal)
