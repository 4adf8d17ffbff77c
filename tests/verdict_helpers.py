"""For tests of a table's or a page's arithmetic on logs written by hand: such a log has no
evidence (no ``tau2_run.json``, no workspace), so the ``verdict`` rule (``study.session_io.verdicts``)
would exclude it. ``outcomes_as_written`` makes the rule take each outcome as written, for the
test only; the rule itself is tested on real evidence (tests/session_io/test_verdicts.py,
tests/families/test_tampered_verdicts.py)."""

from __future__ import annotations

from typing import Any


def as_written(path: Any, events: list[dict], family: str, study: str):
    from study.session_io.verdicts import OWN_FIELDS

    outcome = next((e for e in events if e.get("kind") == "outcome"), None)
    if outcome is None:
        return None, [], ()
    return {k: v for k, v in outcome.items() if k not in OWN_FIELDS}, [], ()


def outcomes_as_written(monkeypatch, only: list | None = None) -> None:
    """Take every family session's outcome as written for the rest of the test (``only``: those of
    these session folders; the others' are re-derived as always)."""
    from pathlib import Path

    from study.session_io import verdicts

    rederived = verdicts.rederived
    chosen = None if only is None else {Path(p).resolve() for p in only}

    def maybe_as_written(path, events, family, study):
        if chosen is None or Path(path).resolve() in chosen:
            return as_written(path, events, family, study)
        return rederived(path, events, family, study)

    monkeypatch.setattr(verdicts, "rederived", maybe_as_written)
