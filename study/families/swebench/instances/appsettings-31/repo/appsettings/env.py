"""Typed reads of environment variables."""

import os


def env_str(name, default=None, environ=None):
    environ = os.environ if environ is None else environ
    return environ.get(name, default)


def env_int(name, default, environ=None):
    value = env_str(name, None, environ)
    if value is None or value.strip() == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, not {value!r}") from None


def env_flag(name, default=False, environ=None):
    """A yes/no setting: 1/0, true/false, yes/no, on/off."""
    value = env_str(name, None, environ)
    if value is None:
        return default
    return bool(value)
