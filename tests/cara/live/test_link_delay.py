"""The server measures the doctor's link in its pings: `lag` (the oldest unanswered ping's wait) and `rtt`.

The console adapts its uplink to them (camera frames smaller, then paused): a pong stuck behind
camera frames on a slow uplink shows as a growing lag within a second, whatever the socket's own
buffers say.
"""

from __future__ import annotations

from typing import Any

from cara_doubles.gemini import GeminiDouble
from tests.cara.live.conftest import doctor_token
from tests.cara.live.test_relay import Open, connect, is_type


def test_pings_carry_the_lag_of_unanswered_pings_and_the_round_trip(
    client: Any, gemini: GeminiDouble, open_console: Open
) -> None:
    browser, _ = connect(open_console, doctor_token(client, "Radiologist"))
    pings = [browser.until(is_type("ping"), timeout=3) for _ in range(4)]
    # Nothing answered: each ping says how long the first one has waited.
    assert pings[0]["lag"] == 0
    assert "rtt" not in pings[0]
    assert pings[1]["lag"] >= 900
    assert pings[3]["lag"] >= 2900
    assert pings[3]["lag"] == pings[3]["at"] - pings[0]["at"]
    # The newest ping answered: every older one is settled too, and its round trip is measured.
    browser.send({"type": "pong", "at": pings[3]["at"]})
    after = browser.until(is_type("ping"), timeout=3)
    assert after["lag"] == 0
    assert 0 <= after["rtt"] < after["at"] - pings[3]["at"] + 1
    # Answered at once from now on: no lag, a small round trip.
    browser.send({"type": "pong", "at": after["at"]})
    prompt = browser.until(is_type("ping"), timeout=3)
    assert prompt["lag"] == 0
    assert prompt["rtt"] < 500


def test_a_pong_without_its_ping_changes_nothing(
    client: Any, gemini: GeminiDouble, open_console: Open
) -> None:
    browser, _ = connect(open_console, doctor_token(client, "Radiologist"))
    first = browser.until(is_type("ping"), timeout=3)
    browser.send({"type": "pong"})  # an older console's pong, no `at`
    browser.send({"type": "pong", "at": first["at"] - 5000})  # before any ping of this socket
    second = browser.until(is_type("ping"), timeout=3)
    assert second["lag"] >= 900  # the first ping is still unanswered
    assert "rtt" not in second
