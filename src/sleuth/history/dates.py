"""Dates for --since / --until: ISO dates and times, or 'N units ago', in local time."""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta

from ..errors import QueryError

_RELATIVE = re.compile(r"^(\d+)\s*(second|minute|hour|day|week|month|year)s?\s+ago$", re.IGNORECASE)
_SECONDS = {
    "second": 1,
    "minute": 60,
    "hour": 3600,
    "day": 86400,
    "week": 7 * 86400,
    "month": 30 * 86400,
    "year": 365 * 86400,
}


def parse_date(text: str, end_of_day: bool = False, now: datetime | None = None) -> int:
    """Unix time for ``text``. A bare date means its first second (its last with
    ``end_of_day``, so ``--until 2024-03-01`` includes that day)."""
    try:
        return _unix_time(text, end_of_day, now)
    except (OverflowError, OSError, ValueError):  # year 0 in local time, 10^12 days ago
        raise QueryError(f"the date {text!r} is out of range") from None


def _unix_time(text: str, end_of_day: bool, now: datetime | None) -> int:
    value = text.strip()
    current = now or datetime.now().astimezone()
    match = _RELATIVE.match(value)
    if match:
        amount, unit = int(match.group(1)), match.group(2).lower()
        return int((current - timedelta(seconds=amount * _SECONDS[unit])).timestamp())
    lowered = value.lower()
    if lowered in ("today", "yesterday"):
        day = current.date() - timedelta(days=1 if lowered == "yesterday" else 0)
        moment = datetime.combine(day, time.max if end_of_day else time.min)
        return int(moment.astimezone().timestamp())
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise QueryError(
            f"could not read the date {text!r}: use YYYY-MM-DD, an ISO 8601 time "
            "or a relative date like '3 weeks ago'"
        ) from None
    if len(value) <= 10 and end_of_day:  # a bare date: include the whole day
        parsed = datetime.combine(parsed.date(), time.max)
    if parsed.tzinfo is None:
        parsed = parsed.astimezone()  # local time, as git reads dates
    return int(parsed.timestamp())
