from datetime import date, datetime

import pytest

from calendarkit.parse import as_date, parse_date


def test_iso_format():
    assert parse_date("2024-02-29") == date(2024, 2, 29)


def test_european_format():
    assert parse_date(" 01.03.2024 ") == date(2024, 3, 1)


def test_not_a_date():
    with pytest.raises(ValueError):
        parse_date("March the first")


def test_as_date_accepts_datetimes():
    assert as_date(datetime(2024, 3, 1, 12, 30)) == date(2024, 3, 1)
