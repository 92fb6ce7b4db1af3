"""Model usage per tenant per day: the provider's token counts and connected time, without text."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from cara.live import usage
from cara_doubles.gemini import GeminiDouble
from tests.cara.live.conftest import doctor_token
from tests.cara.live.test_relay import connect, is_type


def test_tokens_of_a_consultation_are_counted_for_its_tenant(
    client: Any, gemini: GeminiDouble, open_console: Any
) -> None:
    browser, _ = connect(open_console, doctor_token(client, "Cardiologist"))
    session = gemini.session(0)
    session.send(
        {"usageMetadata": {"promptTokenCount": 90, "responseTokenCount": 30, "totalTokenCount": 120}}
    )
    session.send({"usageMetadata": {"promptTokenCount": 10, "responseTokenCount": 5}})
    session.send_turn_complete()
    browser.until(is_type("turnComplete"))
    time.sleep(1.1)  # a whole second connected
    browser.close()
    today = datetime.now(UTC).date()
    deadline = time.monotonic() + 5
    while usage.of_day(today).get("independent", {}).get("tokens", 0) < 135:
        assert time.monotonic() < deadline, usage.of_day(today)
        time.sleep(0.05)
    counted = usage.of_day(today)["independent"]
    assert counted["tokens"] == 135 and counted["seconds"] >= 1


def test_tokens_of_a_usage_message() -> None:
    assert usage.tokens_of({"totalTokenCount": 7, "promptTokenCount": 3}) == 7
    assert usage.tokens_of({"promptTokenCount": 3, "responseTokenCount": 4}) == 7
    assert usage.tokens_of({"promptTokenCount": "x"}) == 0
