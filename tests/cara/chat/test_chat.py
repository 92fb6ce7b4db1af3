"""The radiotherapy chat: server-side history, the dosimetry instruction, search, Radiotherapists only."""

from __future__ import annotations

from typing import Any

import pytest

from cara_doubles.gemini import GeminiDouble, GenerateRequest
from tests.factories import auth, doctor_payload, signup

URL = "/api/radiotherapy-chat/messages"


@pytest.fixture
def radiotherapist(client: Any) -> dict[str, str]:
    return auth(signup(client, doctor_payload(specialty="Radiotherapist"))["token"])


def reply_with_turns(request: GenerateRequest) -> str:
    return f"answer to turn {len(request.body['contents'])}"


def test_conversation_is_kept_on_the_server(
    client: Any, radiotherapist: dict[str, str], gemini: GeminiDouble
) -> None:
    gemini.generate = reply_with_turns
    first = client.post(URL, json={"message": "Cord tolerance for 8 Gy x 1?"}, headers=radiotherapist)
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["reply"] == "answer to turn 1"
    second = client.post(
        URL, json={"message": "And for 20 Gy in 5?", "chatId": body["chatId"]}, headers=radiotherapist
    )
    assert second.status_code == 200, second.text
    assert second.json()["chatId"] == body["chatId"]
    assert second.json()["reply"] == "answer to turn 3"
    assert [(t["role"], t["text"]) for t in second.json()["messages"]] == [
        ("user", "Cord tolerance for 8 Gy x 1?"),
        ("assistant", "answer to turn 1"),
        ("user", "And for 20 Gy in 5?"),
        ("assistant", "answer to turn 3"),
    ]
    request = gemini.generate_requests[1]
    assert [c["role"] for c in request.body["contents"]] == ["user", "model", "user"]
    instruction = request.body["systemInstruction"]["parts"][0]["text"]
    assert "dosimetry" in instruction and "resource-limited centres in Africa" in instruction
    assert request.body["tools"] == [{"googleSearch": {}}]


def test_chats_are_per_doctor(client: Any, radiotherapist: dict[str, str], gemini: GeminiDouble) -> None:
    chat_id = client.post(URL, json={"message": "hello"}, headers=radiotherapist).json()["chatId"]
    other = auth(signup(client, doctor_payload(specialty="Radiotherapist"))["token"])
    r = client.post(URL, json={"message": "hi", "chatId": chat_id}, headers=other)
    assert r.status_code == 200 and r.json()["chatId"] != chat_id
    assert len(gemini.generate_requests[-1].body["contents"]) == 1


def test_blank_message(client: Any, radiotherapist: dict[str, str], gemini: GeminiDouble) -> None:
    r = client.post(URL, json={"message": "   "}, headers=radiotherapist)
    assert r.status_code == 422 and r.json()["message"] == "Please type a question."


def test_provider_error(client: Any, radiotherapist: dict[str, str], gemini: GeminiDouble) -> None:
    gemini.fail_next_generate(400, "INVALID_ARGUMENT", "Search grounding is not supported for this model.")
    r = client.post(URL, json={"message": "hello"}, headers=radiotherapist)
    assert r.status_code == 502
    assert (
        r.json()["message"]
        == "The assistant could not answer: Search grounding is not supported for this model."
    )


def test_radiotherapists_only(client: Any, gemini: GeminiDouble) -> None:
    radiologist = auth(signup(client, doctor_payload(specialty="Radiologist"))["token"])
    r = client.post(URL, json={"message": "hello"}, headers=radiologist)
    assert r.status_code == 403
    assert r.json()["message"] == "The radiotherapy chat is available to Radiotherapists only."
    assert client.post(URL, json={"message": "hello"}).status_code == 401
    assert gemini.generate_requests == []


def test_without_a_key(client: Any, radiotherapist: dict[str, str], no_ai: None) -> None:
    r = client.post(URL, json={"message": "hello"}, headers=radiotherapist)
    assert r.status_code == 503
    assert r.json()["message"] == "The AI service is not configured. Please contact your administrator."
