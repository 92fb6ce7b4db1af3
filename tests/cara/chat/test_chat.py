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
    assert {"googleSearch": {}} in request.body["tools"]


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


def dose_check_then_answer(request: GenerateRequest) -> Any:
    """Calls the dose-constraint tool for the question, then answers with what it was told."""
    last = request.body["contents"][-1]
    answered = [p["functionResponse"] for p in last["parts"] if "functionResponse" in p]
    if answered:
        result = answered[0]["response"]
        return f"Within QUANTEC: {result.get('withinLimit')}"
    args = {"organ": "spinal cord", "metric": "Dmax", "value": 30, "fractions": 10}
    return {
        "role": "model",
        "parts": [{"functionCall": {"id": "c1", "name": "check_dose_constraint", "args": args}}],
    }


def test_the_chat_runs_the_dose_constraint_tool(
    client: Any, radiotherapist: dict[str, str], gemini: GeminiDouble
) -> None:
    """The same check as the radiotherapist's console: declared to the model, run by the server,
    its result shown (toolResults, a tool turn in the history) and answered back to the model."""
    gemini.generate = dose_check_then_answer
    r = client.post(URL, json={"message": "Cord Dmax 30 Gy in 10 fractions?"}, headers=radiotherapist)
    assert r.status_code == 200, r.text
    body = r.json()
    [tool] = body["toolResults"]
    assert tool["role"] == "tool" and "spinal cord" in tool["text"].lower()
    assert tool["result"]["organ"] == "Spinal cord" and tool["result"]["eqd2Gy"] == 36.0
    assert [t["role"] for t in body["messages"]] == ["user", "tool", "assistant"]
    assert body["reply"].startswith("Within QUANTEC:")
    first, second = gemini.generate_requests
    declared = [d["name"] for t in first.body["tools"] for d in t.get("functionDeclarations", [])]
    assert declared == ["check_dose_constraint"] and {"googleSearch": {}} in first.body["tools"]
    assert "check_dose_constraint" in first.body["systemInstruction"]["parts"][0]["text"]
    answer = second.body["contents"][-1]["parts"][0]["functionResponse"]
    assert answer["name"] == "check_dose_constraint" and answer["response"] == tool["result"]
    # The next question carries the earlier check in the model's context.
    gemini.generate = reply_with_turns
    r = client.post(URL, json={"message": "Thanks", "chatId": body["chatId"]}, headers=radiotherapist)
    assert [c["role"] for c in gemini.generate_requests[-1].body["contents"]] == [
        "user",
        "model",
        "model",
        "user",
    ]
    assert [t["role"] for t in r.json()["messages"]] == ["user", "tool", "assistant", "user", "assistant"]


def test_bad_tool_arguments_are_answered_not_raised(
    client: Any, radiotherapist: dict[str, str], gemini: GeminiDouble
) -> None:
    def bad_call(request: GenerateRequest) -> Any:
        if "functionResponse" in request.body["contents"][-1]["parts"][0]:
            return "Could not check."
        return {
            "role": "model",
            "parts": [{"functionCall": {"name": "check_dose_constraint", "args": {"organ": 3}}}],
        }

    gemini.generate = bad_call
    r = client.post(URL, json={"message": "check?"}, headers=radiotherapist)
    assert r.status_code == 200, r.text
    assert r.json()["toolResults"][0]["result"] == {"error": "'organ' must be a short text."}


def test_the_exchange_is_kept_with_the_consultation(
    client: Any, radiotherapist: dict[str, str], gemini: GeminiDouble
) -> None:
    gemini.generate = dose_check_then_answer
    cid = client.post(
        "/api/consultations", json={"console": "radiotherapist", "consent": True}, headers=radiotherapist
    ).json()["id"]
    r = client.post(
        URL,
        json={"message": "Cord Dmax 30 Gy in 10 fractions?", "consultationId": cid},
        headers=radiotherapist,
    )
    assert r.status_code == 200, r.text
    lines = client.get(f"/api/consultations/{cid}", headers=radiotherapist).json()["lines"]
    assert [(line["seq"], line["speaker"]) for line in lines] == [(0, "user"), (1, "tool"), (2, "assistant")]
    assert lines[1]["text"] == r.json()["toolResults"][0]["text"]
    found = client.get("/api/consultations", params={"q": "fractions"}, headers=radiotherapist).json()[
        "items"
    ]
    assert [c["id"] for c in found] == [cid]
    # Another doctor's consultation, an unknown id or a signed one: 404 before the model is asked.
    asked = len(gemini.generate_requests)
    other = auth(signup(client, doctor_payload(specialty="Radiotherapist"))["token"])
    for consultation_id in (cid, "nope"):
        r = client.post(URL, json={"message": "x", "consultationId": consultation_id}, headers=other)
        assert r.status_code == 404
    assert len(gemini.generate_requests) == asked
