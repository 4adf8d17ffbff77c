import pytest

from ledgerexport import page_count, paginate


def test_exact_pages():
    assert paginate(range(6), 3) == [[0, 1, 2], [3, 4, 5]]


def test_exact_page_count():
    assert page_count(1000, 500) == 2


def test_no_records_no_pages():
    assert paginate([], 10) == []


def test_page_size_must_be_positive():
    with pytest.raises(ValueError):
        page_count(10, 0)


def test_last_partial_page_is_kept():
    assert paginate(range(7), 3) == [[0, 1, 2], [3, 4, 5], [6]]


def test_page_count_counts_a_partial_page():
    assert page_count(25, 10) == 3
