"""/api/admin/invitations: an admin invites the next admin."""

from __future__ import annotations

from datetime import datetime, timedelta

from fastapi import APIRouter, status
from pydantic import BaseModel

from cara.audit import service as audit
from cara.auth import repository
from cara.auth.principal import AdminPrincipal
from cara.auth.schemas import _In
from cara.auth.service import new_invitation_token
from cara.config import get_settings
from cara.kit.deps import DbSession
from cara.kit.errors import Conflict, ValidationFailed
from cara.kit.openapi import error_responses
from cara.kit.validation import email_error, normalise_email
from cara.models import AdminInvitation
from cara.models.base import utcnow
from workers.queue import enqueue_after_commit

router = APIRouter(prefix="/admin", tags=["admin"])


class InvitationIn(_In):
    email: str | None = None


class InvitationOut(BaseModel):
    email: str
    expiresAt: datetime
    invitationUrl: str


@router.post(
    "/invitations",
    operation_id="admin_invite",
    status_code=status.HTTP_201_CREATED,
    response_model=InvitationOut,
    responses=error_responses(401, 403, 409, 422),
)
def invite_admin(body: InvitationIn, principal: AdminPrincipal, session: DbSession) -> InvitationOut:
    """Invite someone to become an admin. The link is emailed and also returned to the
    inviting admin, who may prefer to hand it over another way."""
    problem = email_error(body.email)
    if problem:
        raise ValidationFailed({"email": problem})
    email = normalise_email(body.email or "")
    if repository.email_taken(session, email):
        raise Conflict("An account with this email already exists.", fields={"email": "Already registered"})
    token, token_hash = new_invitation_token()
    settings = get_settings()
    invitation = AdminInvitation(
        email=email,
        token_hash=token_hash,
        invited_by=principal.id,
        expires_at=utcnow() + timedelta(hours=settings.admin_invitation_ttl_hours),
    )
    session.add(invitation)
    session.flush()
    audit.record_platform(
        session,
        action="admin.invited",
        actor_id=principal.id,
        actor_role=principal.role,
        target_type="admin_invitation",
        target_id=invitation.id,
    )
    enqueue_after_commit(session, "mail.admin_invitation", invitation_id=str(invitation.id), token=token)
    session.commit()
    return InvitationOut(
        email=email,
        expiresAt=invitation.expires_at,
        invitationUrl=f"{settings.public_base_url}/admin-register?invitation={token}",
    )
