"""What a model was shown of where its CLI runs (issue 49, item 5): every path under the sessions
folder in the requests the simulator received, and the check that none of them names the
session's model, condition, seed, task or study (the CLI runs in ``<sessions>/.agents/<id>/``,
``study.runner.agent_folder``)."""

from __future__ import annotations

import re
from pathlib import Path

from study.runner.agent_folder import ID_BYTES
from study.session_io.folders import AGENTS_FOLDER


def paths_seen(requests: str, root: Path) -> set[str]:
    """Every path under ``root`` in ``requests`` (the request log's text: JSON, so a path ends at a
    quote, a backslash of an escape, or a space)."""
    return set(re.findall(re.escape(str(root)) + r"[^\s\"'\\<>`]*", requests))


def assert_the_model_saw_no_session_name(requests: str, root: Path, session: Path) -> set[str]:
    """The paths under ``root`` the model was sent are all in one agent folder, whose path holds
    none of the names of ``session``'s folder below ``root`` (study, model, condition, unit, the
    exploratory folder); returns them (at least one: the CLI shows where it runs)."""
    seen = paths_seen(requests, root)
    assert seen, "the model was shown no path under the sessions folder (where does the CLI run?)"
    names = [part for part in Path(session).relative_to(root).parts]
    folders = set()
    for path in seen:
        below = path[len(str(root)):]
        parts = Path(below.lstrip("/")).parts
        assert parts[:1] == (AGENTS_FOLDER,) and re.fullmatch(f"[0-9a-f]{{{2 * ID_BYTES}}}", parts[1]), path
        folders.add(parts[1])
        for name in names:
            assert name not in below, f"the model was shown {path}, which names {name!r} of {session}"
    assert len(folders) == 1, seen
    return seen
