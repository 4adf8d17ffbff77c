"""The one error of the checks before a run (``study.runner.preflight``, ``study.runner.endpoints``)."""

from __future__ import annotations

from study.errors import StudyError


class PreflightError(StudyError, ValueError):
    """A bad input, found before anything was created; the message is one line saying what to do."""
