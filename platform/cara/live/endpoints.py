"""/api/live: the live assistant's WebSocket, and what the consoles need to know before connecting.

`GET /api/live/status` tells whether the AI service is configured (and
whether it is the local demo peer), so a console can say so before the
doctor presses connect.

`WS /api/live?specialty=<console>` (console: radiologist, radiotherapist,
cardiologist, general-practitioner, nurse or generic; default: the doctor's
own specialty). The access token is the first frame, `{"type": "auth",
"token": ..., "consultationId": ...}`: never in the URL, so it cannot end up in
an access log or a proxy's. The consultation was started with the patient's
consent (`POST /api/consultations`); the same id rejoins it after a drop.
The same check runs again every `LIVE_RECHECK_SECONDS` while the
consultation lasts (the relay's re-check), so a doctor who is deactivated,
removed, signed out or whose subscription lapses does not keep an open
consultation. Protocol: cara.live.messages.
"""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import redis
from fastapi import APIRouter, WebSocket
from pydantic import BaseModel
from sqlalchemy import exc as sa_exc

from cara.auth.principal import (
    NO_PERMISSION,
    NO_TOKEN,
    AsyncAnyPrincipal,
    authenticate_token,
    session_for_token,
    tenant_role,
)
from cara.config import get_settings
from cara.consultations.service import open_for_live
from cara.kit import gemini, lifecycle, throttle
from cara.kit.errors import CaraError, Forbidden, NotFound, ServiceUnavailable, Unauthorized
from cara.kit.openapi import error_responses
from cara.live import messages as m
from cara.live.assistant_profiles import ASSISTANT_PROFILES, assistant_profile_for
from cara.live.browser import BrowserGone, BrowserLink
from cara.live.permission import check_assistant_permission
from cara.live.relay import LiveRelay, Refused
from cara.plans.service import CAMERA_AND_SCREEN
from tenants.sessions import TenantScope

router = APIRouter(tags=["live"])
UNKNOWN_CONSOLE = "Unknown assistant console."
UNAVAILABLE = "Service temporarily unavailable. Please try again shortly."


class LiveStatusOut(BaseModel):
    configured: bool
    demo: bool
    message: str | None
    consoles: list[str]


@router.get(
    "/live/status",
    operation_id="live_status",
    response_model=LiveStatusOut,
    responses=error_responses(401, 403),
)
async def live_status(principal: AsyncAnyPrincipal) -> LiveStatusOut:
    """Whether the AI service is configured (and is the local demo peer); the console names."""
    # async: settings only, no I/O (no hand-off to the thread pool).
    settings = get_settings()
    configured = gemini.ai_configured()
    return LiveStatusOut(
        configured=configured,
        demo=configured and settings.cara_demo_ai,
        message=None if configured else gemini.AI_NOT_CONFIGURED,
        consoles=sorted(ASSISTANT_PROFILES),
    )


@dataclass(frozen=True)
class Doctor:
    specialty: str | None
    scope: TenantScope
    consultation_id: uuid.UUID | None = None
    audio: str = "pcm"  # what the browser asked for in its first frame: "pcm" or "opus"
    camera_and_screen: bool = True  # the plan includes camera and screen sharing


_KINDS: dict[type[CaraError], str] = {
    Unauthorized: "unauthorized",
    Forbidden: "forbidden",
    ServiceUnavailable: "unavailable",
    NotFound: "not_found",
}
# The database or Redis not answering, as the HTTP handlers classify it (cara.kit.handlers):
# the check could not run, which is not a refusal.
_OUTAGES = (sa_exc.OperationalError, sa_exc.TimeoutError, redis.ConnectionError, redis.TimeoutError)


def _load_doctor(token: str, consultation_id: str | None = None, *, running: bool = False) -> Doctor:
    """Authenticate the token like any request, and check the doctor may use the assistant.

    The one check of the live socket: when it opens, and again every `LIVE_RECHECK_SECONDS`
    while the consultation runs, so both apply the same rules. With `consultation_id`, also
    that the consultation is this doctor's own, with consent and not signed (else "not_found").
    Raises Refused; kind "unavailable" when the database or Redis could not answer."""
    try:
        session = session_for_token(token, running=running)
        try:
            principal = authenticate_token(session, token, running=running)
            allowed = check_assistant_permission(principal, "live")
            if principal.tenant_schema is None:
                raise Forbidden(NO_PERMISSION)
            scope = TenantScope(
                schema=principal.tenant_schema,
                role=tenant_role(principal.tenant_schema),
                account_id=principal.id,
            )
            consultation = (
                open_for_live(session, principal, consultation_id).id if consultation_id is not None else None
            )
            return Doctor(
                specialty=principal.account.specialty,
                scope=scope,
                consultation_id=consultation,
                camera_and_screen=CAMERA_AND_SCREEN in allowed,
            )
        finally:
            session.close()
    except CaraError as exc:
        raise Refused(_KINDS.get(type(exc), "unauthorized"), exc.message) from exc
    except _OUTAGES as exc:
        raise Refused("unavailable", UNAVAILABLE) from exc


async def _authenticate(link: BrowserLink) -> tuple[str, Doctor]:
    """The token of the first frame and the doctor it names; Refused otherwise."""
    try:
        raw = await asyncio.wait_for(link.receive(), m.AUTH_TIMEOUT_SECONDS)
    except TimeoutError:
        raise Refused("unauthorized", NO_TOKEN) from None
    try:
        first = m.parse(raw)
    except m.BadFrame:
        raise Refused("unauthorized", NO_TOKEN) from None
    if not isinstance(first, m.AuthIn):
        raise Refused("unauthorized", NO_TOKEN)
    doctor = await asyncio.to_thread(_load_doctor, first.token, first.consultationId)
    return first.token, dataclasses.replace(doctor, audio=first.audio)


def _recheck(token: str) -> Callable[[], object]:
    """The relay's periodic re-check: the connect check again, with the token the socket opened
    with. A closure, not functools.partial, whose repr would show the token."""
    # A browser session's token still counts past its minutes while its session lives.
    return lambda: _load_doctor(token, running=True)


@router.websocket("/live")
async def live(websocket: WebSocket, specialty: str | None = None) -> None:
    await websocket.accept()
    if lifecycle.is_draining():
        # This replica is shutting down: the browser reconnects and reaches another one.
        await _close(websocket, m.SERVICE_RESTART, m.RESTARTING)
        return
    link = BrowserLink(websocket)
    try:
        token, doctor = await _authenticate(link)
        # Consultations opened per doctor (the periodic re-check does not count).
        limit = get_settings().rate_limit_live_connects
        if not await asyncio.to_thread(throttle.allow, "live", limit, str(doctor.scope.account_id)):
            raise Refused("unavailable", throttle.TOO_MANY.format(wait="a few minutes"))
        profile = assistant_profile_for(specialty, doctor.specialty)
        if profile is None:
            raise Refused("not_found", UNKNOWN_CONSOLE)
        if not gemini.ai_configured():
            raise Refused("not_configured", gemini.AI_NOT_CONFIGURED)
        await link.send(m.status("connecting", m.CONNECTING, console=profile.key))
        if doctor.consultation_id is None:
            # Nothing is relayed or stored without a consultation the patient consented to.
            raise Refused("bad_request", m.NO_CONSULTATION)
        relay = LiveRelay(
            link,
            profile,
            doctor.scope,
            get_settings(),
            consultation_id=doctor.consultation_id,
            recheck=_recheck(token),
            audio=doctor.audio,
            video_allowed=doctor.camera_and_screen,
        )
        ending = await relay.run()
        if ending is not None:
            await _close(websocket, ending.code, ending.message)
    except Refused as refused:
        try:
            await link.send(m.status("error", refused.message, code=refused.kind))
        except BrowserGone:
            return
        await _close(websocket, m.CLOSE_CODES[refused.kind], refused.message)
    except BrowserGone:
        return


async def _close(websocket: WebSocket, code: int, reason: str) -> None:
    # A close reason is limited to 123 bytes.
    reason = reason.encode()[:120].decode(errors="ignore")
    try:
        await websocket.close(code=code, reason=reason)
    except Exception:  # already closed by the browser
        return
