"""Request and response of POST /api/radiotherapy-chat/messages."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

MAX_MESSAGE_CHARS = 8000


class ChatMessageIn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    message: str | None = Field(default=None, max_length=MAX_MESSAGE_CHARS, description="the question")
    chatId: str | None = Field(default=None, max_length=64, description="omit to start a new chat")

    @field_validator("message", "chatId", mode="before")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        if isinstance(value, str) and "\x00" in value:
            raise ValueError("Must not contain NUL characters")
        return value


class ChatTurn(BaseModel):
    role: Literal["user", "assistant"]
    text: str


class ChatReplyOut(BaseModel):
    chatId: str
    reply: str
    messages: list[ChatTurn] = Field(description="the whole conversation so far, oldest first")
