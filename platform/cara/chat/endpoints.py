"""POST /api/radiotherapy-chat/messages: the /radiotherapist-chat screen's conversation."""

from __future__ import annotations

from fastapi import APIRouter

from cara.auth.dependencies import DbSession
from cara.auth.principal import AnyPrincipal
from cara.chat import service
from cara.chat.schemas import ChatMessageIn, ChatReplyOut
from cara.clinical import service as clinical
from cara.config import get_settings
from cara.consultations import service as consultations
from cara.kit import throttle
from cara.kit.openapi import error_responses
from cara.live.permission import check_assistant_permission
from cara.plans.service import PLAN_REVIEW_CHAT

router = APIRouter(tags=["assistant"])


@router.post(
    "/radiotherapy-chat/messages",
    operation_id="radiotherapy_chat_message",
    response_model=ChatReplyOut,
    responses=error_responses(400, 401, 403, 404, 409, 413, 422, 429, 502, 503, 504),
)
def radiotherapy_chat_message(
    body: ChatMessageIn, principal: AnyPrincipal, session: DbSession
) -> ChatReplyOut:
    """Send a question to the radiotherapy assistant (Radiotherapists only); starts a chat without chatId.
    The model may run the dose-constraint check: its results come back in `toolResults` and in the
    history, and, with `consultationId`, the exchange is kept in that consultation's transcript.
    With `planReviewId`, the computed plan review's table is given to the model as a tool result."""
    check_assistant_permission(principal, "chat", needs=PLAN_REVIEW_CHAT)
    throttle.hit("chat", get_settings().rate_limit_chat, str(principal.id))
    if body.consultationId is not None:
        consultations.open_for_live(session, principal, body.consultationId)  # else 404, before the model
    plan_review = None
    if body.planReviewId is not None:
        table = clinical.chat_table(session, principal, body.planReviewId)  # 404, or 409 until computed
        plan_review = (clinical.chat_summary(table), table)
    # Nothing was written: ending the transaction returns the connection while the model answers.
    session.commit()
    chat_id, reply, history, tools = service.send(principal.id, body.chatId, body.message, plan_review)
    if body.consultationId is not None:
        lines = [
            ("user", (body.message or "").strip()),
            *(("tool", t.text) for t in tools),
            ("assistant", reply),
        ]
        consultations.add_assistant_lines(session, principal, body.consultationId, lines)
        session.commit()
    return ChatReplyOut(chatId=chat_id, reply=reply, messages=history, toolResults=tools)
