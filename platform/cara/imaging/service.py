"""The imaging rules: which PACS a tenant uses, and who may see which study.

- **The PACS.** A hospital may name its own PACS over DICOMweb (base URL, username, password,
  kept server-side, the password encrypted); every other tenant, and a hospital that names
  none, uses the platform's (`PACS_URL`: the embedded Orthanc in development).
- **Who sees a study.** The tenant's `imaging_studies` row for a StudyInstanceUID names the
  doctor who brought it in; a doctor sees only the studies whose row is theirs, in any tenant.
  Searches go to the PACS (QIDO-RS) restricted to those UIDs, so neither a client's UID nor the
  PACS's own contents decide what is shown. On the platform's PACS, shared by every tenant, a
  study already there and held by no one here is refused, so no one can join another tenant's
  study by sending a file with its UID.
- **An upload** is checked whole before anything is stored (every file DICOM, complete, within
  the limits); a refusal names the file.
"""

from __future__ import annotations

import ipaddress
import socket
from collections import defaultdict
from datetime import date, datetime
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy.orm import Session

from cara.audit.service import record_tenant
from cara.auth.principal import Principal
from cara.config import get_settings
from cara.consultations import service as consultations
from cara.imaging import credentials, dicomweb, repository
from cara.imaging.dicomfiles import Budget, Instance, StudyFacts, UploadTooLarge, read_upload
from cara.imaging.dicomweb import PacsError, PacsTarget
from cara.imaging.schemas import (
    FailedFile,
    PacsSettingsIn,
    PacsSettingsOut,
    PacsTestIn,
    PacsTestOut,
    StudyList,
    StudyOut,
    StudyUploadOut,
)
from cara.kit.errors import Conflict, FailedDependency, Forbidden, PayloadTooLarge, ValidationFailed
from cara.models.tenant import ImagingStudy

HOSPITALS_ONLY = "Only a hospital sets its PACS."
NOT_CONFIGURED = "No PACS is configured: a hospital names its own PACS, or the platform's PACS_URL names one."
HELD_ELSEWHERE = "holds a study that is already on the PACS for someone else; it cannot be added to"
# QIDO-RS matching: these have a meaning in a search value, so a client's text never carries them.
_QIDO_SPECIAL = set("*?\\,")
_UIDS_PER_SEARCH = 50
_LIST_LIMIT = 500
_FIELDS_SHOWN = ("00081030", "00201206", "00201208", "00080061")


# ---------------------------------------------------------------- the PACS a tenant uses


def _where(target: PacsTarget) -> str:
    if target.source == "hospital":
        return "the hospital's PACS settings"
    return "the platform's PACS_URL, PACS_USERNAME and PACS_PASSWORD settings"


def pacs_error_text(error: PacsError, target: PacsTarget) -> str:
    host = urlsplit(target.base_url).netloc or target.base_url
    timeout = get_settings().pacs_timeout_seconds
    where = _where(target)
    if error.kind == "unauthorized":
        credentials_text = f"Cara's username and password ({error.status})"
        return f"The PACS at {host} refused {credentials_text}: check them in {where}."
    if error.kind == "timeout":
        return (
            f"The PACS at {host} did not answer within {timeout:g} s: check the base URL in {where}, "
            "or try again."
        )
    if error.kind == "unreachable":
        return f"The PACS at {host} could not be reached: check the base URL in {where}."
    if error.kind == "not_dicomweb":
        return (
            f"{target.base_url} answered, but not as DICOMweb: the base URL in {where} should be the "
            "PACS's DICOMweb root (for Orthanc, http://host:8042/dicom-web)."
        )
    return f"The PACS at {host} refused the request (HTTP {error.status}); see {where}."


def _host_allowed(base_url: str) -> str | None:
    """Why this address may not be used (None: it may)."""
    try:
        parts = urlsplit(base_url)
        parts.port  # noqa: B018 - raises on a port that is not a number in range
    except ValueError:
        return "Enter the PACS's DICOMweb address, starting with https:// or http://"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "Enter the PACS's DICOMweb address, starting with https:// or http://"
    if parts.username or parts.password:
        return "Put the username and password in their own fields, not in the address"
    if parts.query or parts.fragment:
        return "The address cannot have a query (?...) or a fragment (#...)"
    if get_settings().pacs_allow_loopback:
        return None
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(parts.hostname, parts.port or 443)}
    except (socket.gaierror, UnicodeError, ValueError):
        return None  # cannot be resolved now; the connection test says so
    for address in addresses:
        ip = ipaddress.ip_address(str(address).split("%")[0])
        if ip.is_loopback or ip.is_link_local or ip.is_unspecified:
            return "This address is on Cara's own machine or a link-local network, which a PACS cannot use"
    return None


def _clean_url(value: str | None) -> str | None:
    text = (value or "").strip()
    return text.rstrip("/") or None


def _platform_target() -> PacsTarget | None:
    settings = get_settings()
    if not settings.pacs_url:
        return None
    return PacsTarget(
        base_url=settings.pacs_url.rstrip("/"),
        username=settings.pacs_username,
        password=settings.pacs_password,
        shared=True,
        source="platform",
    )


def _hospital_target(session: Session) -> PacsTarget | None:
    row = repository.pacs_settings(session)
    if row is None:
        return None
    password = credentials.decrypt(row.password_encrypted) if row.password_encrypted else None
    return PacsTarget(row.base_url, row.username, password, shared=False, source="hospital")


def pacs_target(session: Session, principal: Principal) -> PacsTarget:
    """The PACS of the caller's tenant: the hospital's own, else the platform's."""
    found = _hospital_target(session) if principal.tenant_kind == "hospital" else None
    found = found or _platform_target()
    if found is None:
        raise FailedDependency(NOT_CONFIGURED)
    if found.source == "hospital":
        problem = _host_allowed(found.base_url)
        if problem:
            raise FailedDependency(f"{problem}: see {_where(found)}.")
    return found


def _require_hospital(principal: Principal) -> None:
    if principal.role != "hospital":
        raise Forbidden(HOSPITALS_ONLY)


def read_pacs_settings(session: Session, principal: Principal) -> PacsSettingsOut:
    _require_hospital(principal)
    row = repository.pacs_settings(session)
    available = _platform_target() is not None
    if row is None:
        return PacsSettingsOut(
            source="platform", baseUrl=None, username=None, passwordSet=False, platformAvailable=available
        )
    return PacsSettingsOut(
        source="hospital",
        baseUrl=row.base_url,
        username=row.username,
        passwordSet=bool(row.password_encrypted),
        platformAvailable=available,
    )


def change_pacs_settings(session: Session, principal: Principal, body: PacsSettingsIn) -> PacsSettingsOut:
    _require_hospital(principal)
    base_url = _clean_url(body.baseUrl)
    if base_url is None:
        repository.delete_pacs_settings(session)
        _audit_pacs_change(session, principal, None)
        return read_pacs_settings(session, principal)
    problem = _host_allowed(base_url)
    if problem:
        raise ValidationFailed({"baseUrl": problem})
    current = repository.pacs_settings(session)
    if body.password is None:
        stored = current.password_encrypted if current is not None else None
    else:
        stored = credentials.encrypt(body.password) if body.password else None
    username = (body.username or "").strip() or None
    repository.save_pacs_settings(session, base_url, username, stored)
    _audit_pacs_change(session, principal, base_url)
    return read_pacs_settings(session, principal)


def _audit_pacs_change(session: Session, principal: Principal, base_url: str | None) -> None:
    """Which PACS the hospital now uses (its host, never the credentials)."""
    record_tenant(
        session,
        action="pacs_settings.update",
        actor_id=principal.id,
        target_type="pacs_settings",
        target_id="hospital",
        detail={
            "source": "hospital" if base_url else "platform",
            "host": urlsplit(base_url).netloc if base_url else None,
        },
    )


def test_pacs(session: Session, principal: Principal, body: PacsTestIn) -> PacsTestOut:
    """Try a PACS (the one given, else the one in use) with a QIDO-RS search; a clear result."""
    _require_hospital(principal)
    base_url = _clean_url(body.baseUrl)
    if base_url is None:
        target = _hospital_target(session) or _platform_target()
        if target is None:
            return PacsTestOut(result="not_configured", message=NOT_CONFIGURED)
    else:
        password = body.password
        if password is None:
            saved = _hospital_target(session)
            password = saved.password if saved is not None and saved.base_url == base_url else None
        target = PacsTarget(base_url, (body.username or "").strip() or None, password, False, "hospital")
    if target.source == "hospital":
        problem = _host_allowed(target.base_url)
        if problem:
            raise ValidationFailed({"baseUrl": problem})
    timeout = min(get_settings().pacs_timeout_seconds, 10.0)
    try:
        dicomweb.probe(target, timeout)
    except PacsError as error:
        kind = error.kind if error.kind in ("unauthorized", "timeout", "unreachable") else "not_dicomweb"
        return PacsTestOut(result=kind, message=pacs_error_text(error, target), status=error.status)  # type: ignore[arg-type]
    return PacsTestOut(
        result="ok", message=f"Connected: {target.base_url} answers DICOMweb searches.", status=200
    )


# ---------------------------------------------------------------- studies


def _study_date(value: str | None) -> date | None:
    if not value or len(value) < 8:
        return None
    try:
        return datetime.strptime(value[:8], "%Y%m%d").date()
    except ValueError:
        return None


def _from_facts(
    row: ImagingStudy, facts: StudyFacts, modalities: list[str], series: int, count: int
) -> StudyOut:
    return StudyOut(
        studyInstanceUid=row.study_instance_uid,
        patientName=facts.patient_name,
        patientId=facts.patient_id,
        accessionNumber=facts.accession_number,
        studyDate=_study_date(facts.study_date),
        modalities=modalities,
        description=facts.description,
        seriesCount=series,
        instanceCount=count,
        consultationId=row.consultation_id,
        broughtInAt=row.created_at,
    )


def too_large(kind: str, name: str = "") -> PayloadTooLarge:
    """The refusal of an upload past a limit, naming the file where it was reached."""
    settings = get_settings()
    at = f" ({name})" if name else ""
    if kind == "files":
        return PayloadTooLarge(
            f"An upload holds at most {settings.imaging_max_files} files{at}; send the study in parts."
        )
    megabytes = settings.imaging_max_unpacked_bytes // (1024 * 1024)
    return PayloadTooLarge(
        f"{name or 'The upload'} expands past {megabytes} MB once unzipped; send it in parts."
    )


def upload_studies(
    session: Session, principal: Principal, consultation_id: object, files: list[tuple[str, bytes]]
) -> StudyUploadOut:
    """Store the upload's instances in the tenant's PACS (STOW-RS), held by the caller and
    attached to their consultation. Checked whole first: a bad file stores nothing."""
    consultation = consultations.own_consultation(session, principal, consultation_id)
    settings = get_settings()
    if not files:
        raise ValidationFailed({"files": "Choose the DICOM files (or a zip of them) to bring in"})
    budget = Budget(files=settings.imaging_max_files, unpacked_bytes=settings.imaging_max_unpacked_bytes)
    try:
        instances, problems = read_upload(files, budget)
    except UploadTooLarge as exc:
        raise too_large(exc.kind, exc.name) from None
    if problems:
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ValidationFailed(
            {p.name: p.problem for p in problems[:50]},
            message=f"Nothing was stored: {first.name} {first.problem}{more}.",
        )
    if not instances:
        raise ValidationFailed({"files": "The upload holds no DICOM image"})
    unique: dict[str, Instance] = {}
    for instance in instances:
        unique.setdefault(instance.sop_uid, instance)
    by_study: dict[str, list[Instance]] = defaultdict(list)
    for instance in unique.values():
        by_study[instance.study_uid].append(instance)

    target = pacs_target(session, principal)
    timeout = settings.pacs_timeout_seconds
    held = repository.studies_by_uid(session, list(by_study))
    for study_uid, members in by_study.items():
        row = held.get(study_uid)
        if row is not None and row.doctor_account_id != principal.id:
            raise Conflict(f"{members[0].name} {HELD_ELSEWHERE}.", fields={members[0].name: HELD_ELSEWHERE})
        if row is None and target.shared:
            try:
                found = dicomweb.search_studies(target, timeout, {"StudyInstanceUID": study_uid})
            except PacsError as error:
                raise FailedDependency(pacs_error_text(error, target)) from None
            if found:
                raise Conflict(
                    f"{members[0].name} {HELD_ELSEWHERE}.", fields={members[0].name: HELD_ELSEWHERE}
                )

    try:
        result = dicomweb.store(target, timeout, [instance.data for instance in unique.values()])
    except PacsError as error:
        raise FailedDependency(pacs_error_text(error, target)) from None
    failed = [
        FailedFile(
            file=instance.name, reason=f"the PACS refused it (reason {result.failed.get(instance.sop_uid)})"
        )
        for instance in unique.values()
        if instance.sop_uid not in result.stored
    ]
    if not result.stored:
        raise ValidationFailed(
            {item.file: item.reason for item in failed[:50]},
            message=f"Nothing was stored: the PACS refused {failed[0].file}"
            if failed
            else "Nothing was stored.",
        )

    studies: list[StudyOut] = []
    for study_uid, members in by_study.items():
        stored = [m for m in members if m.sop_uid in result.stored]
        if not stored:
            continue
        row = held.get(study_uid)
        if row is None:
            row = repository.add_study(
                session,
                study_uid=study_uid,
                doctor_id=principal.id,
                consultation_id=consultation.id,
                pacs=target.source,
                instance_count=len(stored),
            )
        else:
            row.instance_count += len(stored)
            row.consultation_id = consultation.id
            row.pacs = target.source
        record_tenant(
            session,
            action="imaging.study_added",
            actor_id=principal.id,
            target_type="imaging_study",
            target_id=str(row.id),
            detail={"instances": len(stored), "consultationId": str(consultation.id)},
        )
        modalities = sorted({m.facts.modality for m in members if m.facts.modality})
        series = len({m.series_uid for m in members})
        studies.append(_from_facts(row, members[0].facts, modalities, series, row.instance_count))
    return StudyUploadOut(studies=studies, storedInstances=len(result.stored), failedFiles=failed)


def _search_text(field: str, value: str | None, *, limit: int) -> str | None:
    text = (value or "").strip()
    if not text:
        return None
    if len(text) > limit or _QIDO_SPECIAL & set(text) or not text.isprintable():
        raise ValidationFailed({field: f"Use at most {limit} letters, digits and spaces (no * ? \\ ,)"})
    return text


def _value(item: dict[str, Any], tag: str) -> Any:
    values = item.get(tag, {}).get("Value") or [None]
    return values[0]


def _person_name(item: dict[str, Any]) -> str | None:
    value = _value(item, "00100010")
    if isinstance(value, dict):
        value = value.get("Alphabetic")
    return str(value) if value else None


def _int(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def search_studies(
    session: Session,
    principal: Principal,
    *,
    patient: str | None = None,
    patient_id: str | None = None,
    accession: str | None = None,
    date_from: date | None = None,
    date_to: date | None = None,
    modality: str | None = None,
    consultation_id: object = None,
) -> StudyList:
    """The caller's studies on the tenant's PACS matching the filters (QIDO-RS)."""
    if principal.role != "doctor":
        raise Forbidden("Studies are shown to the doctor who brought them in.")
    params: dict[str, str] = {}
    name = _search_text("patient", patient, limit=64)
    if name:
        params["PatientName"] = f"*{name}*"
    pid = _search_text("patientId", patient_id, limit=64)
    if pid:
        params["PatientID"] = pid
    number = _search_text("accession", accession, limit=16)
    if number:
        params["AccessionNumber"] = number
    kind = _search_text("modality", modality, limit=4)
    if kind:
        if not kind.isalpha():
            raise ValidationFailed({"modality": "A modality is a DICOM code such as CT, MR, US or CR"})
        params["ModalitiesInStudy"] = kind.upper()
    if date_from or date_to:
        if date_from and date_to and date_from > date_to:
            raise ValidationFailed({"dateTo": "The end date is before the start date"})
        start = date_from.strftime("%Y%m%d") if date_from else ""
        end = date_to.strftime("%Y%m%d") if date_to else ""
        params["StudyDate"] = start if start == end else f"{start}-{end}"
    consultation = None
    if consultation_id is not None:
        consultation = consultations.own_consultation(session, principal, consultation_id).id
    rows = repository.doctor_studies(session, principal.id, consultation_id=consultation, limit=_LIST_LIMIT)
    if not rows:
        return StudyList(studies=[])
    target = pacs_target(session, principal)
    timeout = get_settings().pacs_timeout_seconds
    by_uid = {row.study_instance_uid: row for row in rows}
    found: list[StudyOut] = []
    uids = list(by_uid)
    for start_at in range(0, len(uids), _UIDS_PER_SEARCH):
        chunk = uids[start_at : start_at + _UIDS_PER_SEARCH]
        query = {**params, "StudyInstanceUID": ",".join(chunk), "includefield": ",".join(_FIELDS_SHOWN)}
        try:
            answers = dicomweb.search_studies(target, timeout, query)
        except PacsError as error:
            raise FailedDependency(pacs_error_text(error, target)) from None
        for item in answers:
            uid = _value(item, "0020000D")
            row = by_uid.get(str(uid)) if uid else None
            if row is None:  # the PACS answered a study this doctor does not hold: never shown
                continue
            modalities = [str(m) for m in (item.get("00080061", {}).get("Value") or []) if m]
            facts = StudyFacts(
                patient_name=_person_name(item),
                patient_id=_value(item, "00100020"),
                accession_number=_value(item, "00080050"),
                study_date=_value(item, "00080020"),
                modality=None,
                description=_value(item, "00081030"),
            )
            found.append(
                _from_facts(
                    row,
                    facts,
                    modalities,
                    _int(_value(item, "00201206")) or 0,
                    _int(_value(item, "00201208")) or row.instance_count,
                )
            )
    found.sort(key=lambda s: (s.studyDate or date.min, s.broughtInAt), reverse=True)
    return StudyList(studies=found)
