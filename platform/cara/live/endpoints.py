"""/api/live: the live assistant's WebSocket, and what the consoles need to know before connecting.

`GET /api/live/status` tells whether the AI service is configured (and
whether it is the local demo peer), so a console can say so before the
doctor presses connect.

`WS /api/live?specialty=<console>` (console: radiologist, radiotherapist,
cardiologist, general-practitioner, nurse or generic; default: the doctor's
own specialty). The access token is the first frame, `{"type": "auth",
"token": ...}`: never in the URL, so it cannot end up in an access log or a
proxy's. Protocol: cara.live.messages.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from fastapi import APIRouter, WebSocket
from pydantic import BaseModel

from cara.auth.principal import (
    NO_PERMISSION,
    NO_TOKEN,
    AnyPrincipal,
    authenticate_token,
    session_for_token,
    tenant_role,
)
from cara.config import get_settings
from cara.kit import gemini
from cara.kit.errors import CaraError, Forbidden, ServiceUnavailable, Unauthorized
from cara.kit.openapi import error_responses
from cara.live import messages as m
from cara.live.access import check_assistant_access
from cara.live.profiles import PROFILES, profile_for
from cara.live.relay import BrowserGone, BrowserLink, LiveRelay
from cara.live.transcript import TenantScope

router = APIRouter(tags=["live"])
UNKNOWN_CONSOLE = "Unknown assistant console."


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
def live_status(principal: AnyPrincipal) -> LiveStatusOut:
    """Whether the AI service is configured (and is the local demo peer); the console names."""
    settings = get_settings()
    configured = gemini.ai_configured()
    return LiveStatusOut(
        configured=configured,
        demo=configured and settings.cara_demo_ai,
        message=None if configured else gemini.AI_NOT_CONFIGURED,
        consoles=sorted(PROFILES),
    )


class Refused(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


@dataclass(frozen=True)
class Doctor:
    specialty: str | None
    scope: TenantScope


def _load_doctor(token: str) -> Doctor:
    """Authenticate the token like any request, and check the doctor may use the assistant."""
    session = session_for_token(token)
    try:
        principal = authenticate_token(session, token)
        check_assistant_access(principal, "live")
        if principal.tenant_schema is None:
            raise Forbidden(NO_PERMISSION)
        scope = TenantScope(
            schema=principal.tenant_schema, role=tenant_role(principal.tenant_schema), account_id=principal.id
        )
        return Doctor(specialty=principal.account.specialty, scope=scope)
    finally:
        session.close()


_KINDS: dict[type[CaraError], str] = {
    Unauthorized: "unauthorized",
    Forbidden: "forbidden",
    ServiceUnavailable: "unavailable",
}


async def _authenticate(link: BrowserLink) -> Doctor:
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
    try:
        return await asyncio.to_thread(_load_doctor, first.token)
    except CaraError as exc:
        raise Refused(_KINDS.get(type(exc), "unauthorized"), exc.message) from None


@router.websocket("/live")
async def live(websocket: WebSocket, specialty: str | None = None) -> None:
    await websocket.accept()
    link = BrowserLink(websocket)
    try:
        doctor = await _authenticate(link)
        profile = profile_for(specialty, doctor.specialty)
        if profile is None:
            raise Refused("not_found", UNKNOWN_CONSOLE)
        if not gemini.ai_configured():
            raise Refused("not_configured", gemini.AI_NOT_CONFIGURED)
        await link.send(m.status("connecting", m.CONNECTING, console=profile.key))
        ending = await LiveRelay(link, profile, doctor.scope, get_settings()).run()
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
