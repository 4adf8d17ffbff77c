from datetime import date

import pytest

from calendarkit import business_days, date_range


def test_range_starts_on_its_first_day():
    assert date_range("2024-03-01", "2024-03-10")[0] == date(2024, 3, 1)


def test_reversed_range_is_an_error():
    with pytest.raises(ValueError):
        date_range(date(2024, 3, 2), date(2024, 3, 1))


def test_weekend_has_no_business_days():
    assert business_days("2024-03-09", "2024-03-10") == 0


def test_range_includes_its_last_day():
    assert date_range(date(2024, 3, 1), date(2024, 3, 3)) == [date(2024, 3, 1), date(2024, 3, 2), date(2024, 3, 3)]


def test_single_day_range():
    assert date_range("2024-03-05", "2024-03-05") == [date(2024, 3, 5)]


def test_full_working_week():
    assert business_days("2024-03-04", "2024-03-08") == 5
