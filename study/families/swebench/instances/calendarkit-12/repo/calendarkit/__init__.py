"""Small helpers for working with calendar dates."""

from .parse import parse_date
from .ranges import business_days, date_range

__all__ = ["business_days", "date_range", "parse_date"]
__version__ = "0.3.0"
