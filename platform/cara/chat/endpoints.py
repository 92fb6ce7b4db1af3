"""POST /api/radiotherapy-chat/messages: the /radiotherapist-chat screen's conversation."""

from __future__ import annotations

from fastapi import APIRouter

from cara.auth.principal import AnyPrincipal
from cara.chat import service
from cara.chat.schemas import ChatMessageIn, ChatReplyOut
from cara.config import get_settings
from cara.kit import throttle
from cara.kit.openapi import error_responses
from cara.live.permission import check_assistant_permission

router = APIRouter(tags=["assistant"])


@router.post(
    "/radiotherapy-chat/messages",
    operation_id="radiotherapy_chat_message",
    response_model=ChatReplyOut,
    responses=error_responses(400, 401, 403, 413, 422, 429, 502, 503, 504),
)
def radiotherapy_chat_message(body: ChatMessageIn, principal: AnyPrincipal) -> ChatReplyOut:
    """Send a question to the radiotherapy assistant (Radiotherapists only); starts a chat without chatId."""
    check_assistant_permission(principal, "chat")
    throttle.hit("chat", get_settings().rate_limit_chat, str(principal.id))
    chat_id, reply, history = service.send(principal.id, body.chatId, body.message)
    return ChatReplyOut(chatId=chat_id, reply=reply, messages=history)
