"""Parsing dates written by people."""

from datetime import date, datetime

FORMATS = ("%Y-%m-%d", "%d.%m.%Y", "%Y/%m/%d")


def parse_date(text):
    """Parse ``text`` in one of ``FORMATS`` and return a ``date``."""
    text = text.strip()
    for fmt in FORMATS:
        try:
            return datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    raise ValueError(f"not a date: {text!r}")


def as_date(value):
    """A ``date`` from a ``date``, a ``datetime`` or a string."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return parse_date(value)
