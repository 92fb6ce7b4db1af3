"""/api/auth/doctor/profile and certificate files. Thin routers; rules in the services."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Depends, File, Form, Response, UploadFile, status

from cara.auth import service as auth_service
from cara.auth.dependencies import DbSession
from cara.auth.principal import Authenticator, DoctorPrincipal, Principal
from cara.config import get_settings
from cara.kit import throttle
from cara.kit.openapi import error_responses
from cara.profiles import certificates, service
from cara.profiles.schemas import CertificateFileOut, ProfileUpdate, ProfileUpdated

router = APIRouter(tags=["profile"])

DoctorOrHospital = Annotated[Principal, Depends(Authenticator("doctor", "hospital"))]


@router.put(
    "/auth/doctor/profile",
    operation_id="doctor_profile_update",
    response_model=ProfileUpdated,
    responses=error_responses(401, 403, 404, 409, 422),
)
def update_profile(body: ProfileUpdate, principal: DoctorPrincipal, session: DbSession) -> ProfileUpdated:
    """Save the signed-in doctor's details, certifications, work history and availability.
    Certification files no longer listed are deleted."""
    service.update_profile(session, principal, body)
    session.commit()
    return ProfileUpdated(
        message="Profile updated successfully", user=auth_service.load_user(session, principal.account)
    )


@router.post(
    certificates.CERTIFICATE_UPLOAD_PATH.removeprefix("/api"),
    operation_id="doctor_certificate_upload",
    status_code=status.HTTP_201_CREATED,
    response_model=CertificateFileOut,
    responses=error_responses(401, 403, 409, 413, 422, 429),
)
async def upload_certificate(
    principal: DoctorPrincipal,
    session: DbSession,
    file: Annotated[UploadFile, File(description="PDF, PNG or JPEG, at most 5 MB")],
    name: Annotated[str | None, Form(max_length=255)] = None,
) -> CertificateFileOut:
    """Store a certificate file for the signed-in doctor; reference it from a certification
    (`fileId`) and save the profile to keep it."""
    throttle.hit("certificate-upload", get_settings().rate_limit_certificate_upload, str(principal.id))
    # Read one byte past the limit: enough to know it is too large without holding more.
    content = await file.read(certificates.MAX_CERTIFICATE_BYTES + 1)
    record = certificates.store(session, principal, name or file.filename, content)
    session.commit()
    return CertificateFileOut(
        id=str(record.id), fileName=record.file_name, contentType=record.content_type, size=record.size_bytes
    )


@router.get(
    "/certificates/{file_id}",
    operation_id="certificate_download",
    response_class=Response,
    responses={
        200: {"content": {"application/pdf": {}, "image/png": {}, "image/jpeg": {}}},
        **error_responses(401, 403, 404),
    },
)
def download_certificate(file_id: str, principal: DoctorOrHospital, session: DbSession) -> Response:
    """A certificate file, for the doctor who uploaded it and that doctor's hospital."""
    record = certificates.fetch(session, principal, file_id)
    return Response(
        content=record.content,
        media_type=record.content_type,
        headers={
            "Content-Disposition": f"attachment; filename*=UTF-8''{quote(record.file_name)}",
            "X-Content-Type-Options": "nosniff",
            "Cache-Control": "private, no-store",
        },
    )
