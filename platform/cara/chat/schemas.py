"""Request and response of POST /api/radiotherapy-chat/messages."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

MAX_MESSAGE_CHARS = 8000


class ChatMessageIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    message: str | None = Field(default=None, max_length=MAX_MESSAGE_CHARS, description="the question")
    chatId: str | None = Field(default=None, max_length=64, description="omit to start a new chat")
    consultationId: str | None = Field(
        default=None,
        max_length=64,
        description="the doctor's own consultation (consented, not signed) that keeps this exchange in "
        "its transcript: the question, the dose-constraint tool's results and the answer",
    )

    planReviewId: str | None = Field(
        default=None,
        max_length=64,
        description="a computed plan review of the doctor's (cara.clinical): its DVH table and QUANTEC"
        " checks are handed to the model as a tool result, once per chat, for it to discuss",
    )

    @field_validator("message", "chatId", "consultationId", "planReviewId", mode="before")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        if isinstance(value, str) and "\x00" in value:
            raise ValueError("Must not contain NUL characters")
        return value


class ChatTurn(BaseModel):
    role: Literal["user", "assistant", "tool"] = Field(
        description="user: the clinician; assistant: Cara; tool: a tool's result (the dose-constraint"
        " check, or a plan review's DVH table)"
    )
    text: str
    result: dict[str, Any] | None = Field(
        default=None, description="a tool turn: what the tool answered the model"
    )
    tool: str | None = Field(
        default=None,
        description="a tool turn: its function (check_dose_constraint, get_plan_review); older turns: none",
    )


class ChatReplyOut(BaseModel):
    chatId: str
    reply: str
    messages: list[ChatTurn] = Field(description="the whole conversation so far, oldest first")
    toolResults: list[ChatTurn] = Field(
        default_factory=list, description="the dose-constraint checks the model ran for this answer"
    )
