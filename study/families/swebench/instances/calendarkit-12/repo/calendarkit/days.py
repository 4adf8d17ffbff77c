"""Stepping through days."""

from datetime import timedelta

ONE_DAY = timedelta(days=1)


def iter_days(start, end):
    """Yield every day from ``start`` to ``end``."""
    if end < start:
        raise ValueError(f"range ends before it starts: {start} > {end}")
    current = start
    while current < end:
        yield current
        current += ONE_DAY


def is_weekend(day):
    return day.weekday() >= 5
