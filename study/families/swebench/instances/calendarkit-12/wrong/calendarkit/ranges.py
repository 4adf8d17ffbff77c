"""Date ranges. A range includes its first and its last day."""

from .days import is_weekend, iter_days
from .parse import as_date


def date_range(start, end):
    """Every date from ``start`` to ``end``, both included."""
    return list(iter_days(as_date(start), as_date(end)))


def business_days(start, end):
    """How many days from ``start`` to ``end`` (both included) fall on Monday to Friday."""
    start, end = as_date(start), as_date(end)
    count = sum(1 for day in iter_days(start, end) if not is_weekend(day))
    return count + (0 if is_weekend(end) else 1)
