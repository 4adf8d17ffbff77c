"""``StudyError``: the one root of the package's own errors.

Every error the package raises on purpose, a refused input or a record that cannot be used,
derives from ``StudyError``; its message says what is wrong and what to do, and ``data`` holds
the facts it was raised with (the file, the line, the problems, ...), so a caller reads them
instead of parsing the message. Most also derive from ``ValueError`` (or ``RuntimeError``) as
they always did, so code that catches those keeps working. The command line treats a
``StudyError`` as a setup error (one line, no traceback) and anything else as a bug.
"""

from __future__ import annotations

from typing import Any


class StudyError(Exception):
    """A refused input or an unusable record; ``data`` carries what it was raised with."""

    def __init__(self, message: Any = "", *args: Any, **data: Any):
        super().__init__(message, *args)
        for key, value in data.items():
            setattr(self, key, value)

    @property
    def data(self) -> dict[str, Any]:
        """The error's public attributes (``line``, ``problems``, ``file``, ...)."""
        return {key: value for key, value in vars(self).items() if not key.startswith("_")}
