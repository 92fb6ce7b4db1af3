"""The radiotherapy chat: history in Redis, answers from Gemini with Google Search and the
dose-constraint tool (the one the radiotherapist's live console has).

The server holds the conversation (Redis, per doctor and chat id, expiring
after two idle hours), so the system instruction and the tools are the
server's alone and a browser cannot rewrite earlier turns. Each message is
one generateContent call with the history; it runs in the request because a
chat reply is what the doctor is waiting for, bounded by a timeout.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from typing import Any

import redis
from google.genai import types

from cara.chat.schemas import ChatTurn
from cara.clinical import tool as dose_tool
from cara.clinical.service import PLAN_REVIEW_FUNCTION
from cara.config import get_settings
from cara.kit import gemini
from cara.kit.errors import CaraError, ServiceUnavailable, ValidationFailed
from cara.kit.redis import get_redis

log = logging.getLogger("cara.chat")

EMPTY_MESSAGE = "Please type a question."
UNAVAILABLE = "Service temporarily unavailable. Please try again shortly."
TIMED_OUT = "The assistant took too long to answer. Please try again."
REPLY_TIMEOUT_SECONDS = 60.0
HISTORY_TTL_SECONDS = 2 * 60 * 60
MAX_TURNS = 40  # older turns drop out of the model's context
# Tool calls answered per message before the model must reply in words.
MAX_TOOL_ROUNDS = 3
_CHAT_ID = re.compile(r"^[0-9a-f]{32}$")


class ChatFailed(CaraError):
    status_code = 502


class ChatTimedOut(CaraError):
    status_code = 504


def system_instruction() -> str:
    lab = get_settings().ai_lab_name
    return (
        f"You are Cara, a radiotherapy dosimetry assistant developed by {lab}. You help radiation "
        "oncologists, medical physicists and dosimetrists in resource-limited centres in Africa: review "
        "treatment plans against normal-tissue dose constraints (QUANTEC; AAPM TG-101 and the UK SABR "
        "consensus for stereotactic treatments), analyse dose-volume histograms, compare plans, and advise "
        "on plan adaptation. Convert doses to EQD2 with the linear-quadratic model when fractionation is not "
        "conventional and show the arithmetic. Prefer techniques and schedules feasible with the equipment "
        "common there (cobalt-60 units, older linacs, 3D-conformal planning, hypofractionation to save "
        "machine time) and say when advice assumes more. Use Google Search for current guidance and cite "
        "sources. To check an organ-at-risk dose or dose-volume value against QUANTEC, call "
        f"{dose_tool.FUNCTION_NAME} and wait for its result before answering; quote its source row. "
        f"A {PLAN_REVIEW_FUNCTION} result is the plan's dose-volume table computed by the server from its "
        "RTSTRUCT, RTDOSE and RTPLAN (EQD2 with the plan's own fractions, QUANTEC checks pass / fail / not "
        "assessable): discuss those figures, never invent others, and say which checks failed and why. "
        "You give decision support, not a prescription: the clinician decides. "
        f"When asked who developed you, say {lab}."
    )


def _key(account_id: uuid.UUID, chat_id: str) -> str:
    return f"cara:chat:{account_id}:{chat_id}"


def _load(account_id: uuid.UUID, chat_id: str | None) -> tuple[str, list[ChatTurn]]:
    """The chat's history; an unknown, expired or malformed id starts a new chat."""
    if chat_id and _CHAT_ID.match(chat_id):
        raw = get_redis().get(_key(account_id, chat_id))
        if raw is not None:
            return chat_id, [ChatTurn.model_validate(turn) for turn in json.loads(raw)]
    return uuid.uuid4().hex, []


def send(
    account_id: uuid.UUID,
    chat_id: str | None,
    message: str | None,
    plan_review: tuple[str, dict[str, Any]] | None = None,
) -> tuple[str, str, list[ChatTurn], list[ChatTurn]]:
    """Add the doctor's message, ask the model (which may run the dose-constraint tool), store the
    turns; returns (chat id, reply, history, this answer's tool turns).

    `plan_review` (a summary line and the table): a computed plan review handed to the model as the
    result of `get_plan_review`, before the message, unless this chat already has that table."""
    text = (message or "").strip()
    if not text:
        raise ValidationFailed({"message": EMPTY_MESSAGE}, message=EMPTY_MESSAGE)
    gemini.require_ai()
    try:
        chat_id, history = _load(account_id, chat_id)
    except redis.RedisError as exc:
        raise ServiceUnavailable(UNAVAILABLE) from exc
    given: list[ChatTurn] = []
    if plan_review is not None and not _has_table(history, plan_review[1]):
        given.append(
            ChatTurn(role="tool", tool=PLAN_REVIEW_FUNCTION, text=plan_review[0], result=plan_review[1])
        )
    history = [*history, *given, ChatTurn(role="user", text=text)][-MAX_TURNS:]
    reply, tools = _ask(history)
    tools = [*given, *tools]
    history = [*history, *tools[len(given) :], ChatTurn(role="assistant", text=reply)][-MAX_TURNS:]
    try:
        get_redis().set(
            _key(account_id, chat_id), json.dumps([t.model_dump() for t in history]), ex=HISTORY_TTL_SECONDS
        )
    except redis.RedisError as exc:
        raise ServiceUnavailable(UNAVAILABLE) from exc
    return chat_id, reply, history, tools


def _has_table(history: list[ChatTurn], table: dict[str, Any]) -> bool:
    """Whether this chat was already handed this very table (the same review, computed the same)."""
    return any(t.tool == PLAN_REVIEW_FUNCTION and t.result == table for t in history)


def _contents(turn: ChatTurn) -> list[types.Content]:
    if turn.tool == PLAN_REVIEW_FUNCTION and turn.result is not None:
        # The server's own call, answered: the model sees the table as a tool result.
        review_id = str(turn.result.get("planReviewId", ""))
        call = types.FunctionCall(
            id=f"plan-{review_id}", name=PLAN_REVIEW_FUNCTION, args={"planReviewId": review_id}
        )
        answer = types.FunctionResponse(id=call.id, name=PLAN_REVIEW_FUNCTION, response=turn.result)
        return [
            types.Content(role="model", parts=[types.Part(function_call=call)]),
            types.Content(role="user", parts=[types.Part(function_response=answer)]),
        ]
    return [_content(turn)]


def _content(turn: ChatTurn) -> types.Content:
    if turn.role == "tool":
        # An earlier check stays in the model's context as what it was told then.
        return types.Content(
            role="model", parts=[types.Part(text=f"({dose_tool.FUNCTION_NAME}) {turn.text}")]
        )
    return types.Content(role="user" if turn.role == "user" else "model", parts=[types.Part(text=turn.text)])


def _run_calls(calls: list[types.FunctionCall], tools: list[ChatTurn]) -> types.Content:
    """Run the model's tool calls (only the dose-constraint check exists) and answer them."""
    parts: list[types.Part] = []
    for call in calls:
        name = call.name or ""
        if name == dose_tool.FUNCTION_NAME:
            outcome = dose_tool.run(dict(call.args) if call.args else None)
            tools.append(
                ChatTurn(
                    role="tool",
                    tool=dose_tool.FUNCTION_NAME,
                    text=outcome.transcript,
                    result=outcome.response,
                )
            )
            response = outcome.response
        else:
            response = {"error": f"Unknown function '{name}'."}
        parts.append(
            types.Part(function_response=types.FunctionResponse(id=call.id, name=name, response=response))
        )
    return types.Content(role="user", parts=parts)


def _ask(history: list[ChatTurn]) -> tuple[str, list[ChatTurn]]:
    client = gemini.client(timeout_seconds=REPLY_TIMEOUT_SECONDS)
    contents = [content for turn in history for content in _contents(turn)]
    config = types.GenerateContentConfig(
        system_instruction=system_instruction(),
        tools=[
            types.Tool(function_declarations=[dose_tool.declaration()]),
            types.Tool(google_search=types.GoogleSearch()),
        ],
        # The server runs the tool itself, and the model waits for its result.
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    tools: list[ChatTurn] = []
    try:
        for round_ in range(MAX_TOOL_ROUNDS + 1):
            response = gemini.generate_content(
                client,
                model=get_settings().gemini_text_model,
                contents=contents,
                config=config,
                purpose="chat",
            )
            calls = response.function_calls or []
            if not calls or round_ == MAX_TOOL_ROUNDS:
                break
            if response.candidates and response.candidates[0].content is not None:
                contents.append(response.candidates[0].content)
            contents.append(_run_calls(calls, tools))
    except Exception as exc:
        log.warning("chat reply failed", extra={"error": type(exc).__name__})
        if "timeout" in type(exc).__name__.lower():
            raise ChatTimedOut(TIMED_OUT) from exc
        raise ChatFailed(f"The assistant could not answer: {gemini.provider_message(exc)}") from exc
    finally:
        client.close()
    reply = _text(response)
    if not reply:
        raise ChatFailed("The assistant could not answer: the AI service returned no text.")
    return reply, tools


def _text(response: types.GenerateContentResponse) -> str:
    """The answer's text parts (a response that also holds calls has no `.text` of its own)."""
    content = response.candidates[0].content if response.candidates else None
    parts = content.parts if content is not None else None
    return "".join(part.text for part in parts or [] if part.text and not part.thought).strip()
