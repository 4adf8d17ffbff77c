"""Keeping voided attempts (paper appendix A).

An API, quota or server error, or a crash of the runtime (the CLI process, the tool server,
the FSM, this runner) makes the session an ``infrastructure_failure``: it is kept, marked voided
in meta.json and never deleted, and ``study run-all --rerun-voided`` reruns it from scratch
after moving the voided attempt aside (``attempt-1/``, ``attempt-2/``, ...). Which error is which
is decided from the error alone by the session's runtime adapter (``classify_error`` of
``study.runtimes``: a limit, a model outcome such as a context overflow, or an infrastructure
failure); nothing looks at decisions. A session ended by SIGINT or SIGTERM to its runner is
``interrupted``: voided the same way (``void_kind: interrupted``, see ``ending.py``) and rerun
from scratch by ``--rerun-voided``.
"""

from __future__ import annotations

import os
from pathlib import Path

from study.session_io.folders import ATTEMPT_PREFIX, is_attempt

from .agent_folder import settle
from .claim import CLAIM_NAME


def archive_attempt(session_dir: Path) -> Path:
    """Move a voided or unfinished session's files into ``attempt-<k>/`` inside its folder, so the
    rerun starts from scratch and the earlier attempt is kept. Returns the attempt folder."""
    session_dir = Path(session_dir)
    settle(session_dir)   # a runner killed mid-session left its agent's folders linked: moved in first
    k = 1
    while (session_dir / f"{ATTEMPT_PREFIX}{k}").exists():
        k += 1
    target = session_dir / f"{ATTEMPT_PREFIX}{k}"
    target.mkdir()
    for entry in sorted(session_dir.iterdir()):
        if is_attempt(entry.name) or entry.name == CLAIM_NAME:  # the rerun's claim stays
            continue
        os.replace(entry, target / entry.name)
    return target
