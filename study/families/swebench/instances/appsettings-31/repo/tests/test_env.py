import pytest

from appsettings.env import env_flag, env_int


def test_int_reads_a_number():
    assert env_int("N", 3, {"N": "12"}) == 12


def test_int_unset_is_the_default():
    assert env_int("N", 3, {}) == 3


def test_int_rejects_words():
    with pytest.raises(ValueError):
        env_int("N", 3, {"N": "many"})


def test_flag_unset_is_the_default():
    assert env_flag("F", True, {}) is True


def test_flag_one_is_true():
    assert env_flag("F", False, {"F": "1"}) is True
