"""The range of dates the API accepts (cara.kit.validation): checked without overflowing."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from cara.kit.validation import DAY_RANGE_TEXT, FUTURE_TEXT, day_error, moment_error

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("day", "ok"),
    [
        (date(2000, 1, 1), True),
        (date(2100, 12, 31), True),
        (date(1999, 12, 31), False),
        (date(2101, 1, 1), False),
        (date.min, False),
        (date.max, False),
    ],
)
def test_days(day: date, ok: bool) -> None:
    assert day_error(day) == (None if ok else DAY_RANGE_TEXT)
    assert day_error(None) is None


@pytest.mark.parametrize(
    ("moment", "problem"),
    [
        (datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=14))), DAY_RANGE_TEXT),
        (datetime(9999, 12, 31, 23, 59, tzinfo=timezone(timedelta(hours=-14))), DAY_RANGE_TEXT),
        (datetime(2000, 1, 1, 5, tzinfo=timezone(timedelta(hours=14))), DAY_RANGE_TEXT),  # 1999 in UTC
        (datetime(2000, 1, 1, 0, 0), None),  # no zone: UTC
        (NOW + timedelta(hours=23), None),
        (NOW + timedelta(days=1, minutes=1), FUTURE_TEXT),
        (NOW - timedelta(days=3000), None),
    ],
)
def test_moments(moment: datetime, problem: str | None) -> None:
    assert moment_error(moment, now=NOW, past_only=True) == problem


def test_a_future_moment_is_allowed_unless_it_must_have_happened() -> None:
    assert moment_error(datetime(2090, 1, 1, tzinfo=UTC), now=NOW) is None
