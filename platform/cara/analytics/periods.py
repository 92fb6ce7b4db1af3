"""Calendar periods for rollups: ISO weeks (Monday start), months, years (UTC)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Literal

Granularity = Literal["week", "month", "year"]
GRANULARITIES: tuple[Granularity, ...] = ("week", "month", "year")
MONTH_LABELS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def period_start(granularity: Granularity, day: date) -> date:
    if granularity == "week":
        return day - timedelta(days=day.weekday())
    if granularity == "month":
        return day.replace(day=1)
    return day.replace(month=1, day=1)


def next_start(granularity: Granularity, start: date) -> date:
    if granularity == "week":
        return start + timedelta(days=7)
    if granularity == "month":
        return date(start.year + (start.month == 12), start.month % 12 + 1, 1)
    return date(start.year + 1, 1, 1)


def previous_start(granularity: Granularity, start: date) -> date:
    if granularity == "week":
        return start - timedelta(days=7)
    if granularity == "month":
        return date(start.year - (start.month == 1), (start.month - 2) % 12 + 1, 1)
    return date(start.year - 1, 1, 1)


def shift_months(start: date, months: int) -> date:
    """The first of the month `months` after (or before, if negative) `start`'s month."""
    index = start.year * 12 + start.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def last_starts(granularity: Granularity, today: date, count: int) -> list[date]:
    """The `count` most recent period starts, oldest first, ending with today's period."""
    starts = [period_start(granularity, today)]
    while len(starts) < count:
        starts.append(previous_start(granularity, starts[-1]))
    return list(reversed(starts))


def label(granularity: Granularity, start: date) -> str:
    if granularity == "month":
        return MONTH_LABELS[start.month - 1]
    if granularity == "week":
        return f"{MONTH_LABELS[start.month - 1]} {start.day}"
    return str(start.year)
