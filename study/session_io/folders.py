"""Where sessions live, and the one rule for finding them (status, audit and analysis use it).

``sessions/<model>/<condition>/seed-<n>/`` holds one session; exploratory ones go under
``sessions/exploratory/…`` (``seed-<n>-first-<N>`` for a prefix of the order). The rule:

- a session is a folder holding ``events.jsonl`` or ``meta.json`` (a folder with only
  ``meta.json`` is a session whose log is missing: readers list it, never drop it silently);
- ``attempt-<k>/`` folders inside a session are its earlier attempts (moved aside by
  ``--rerun-voided``), never sessions of their own, and nothing below them is one;
- a session below an ``exploratory/`` folder, or below the demo's output folder ``demo/`` at the
  top of the scanned folder, is exploratory by its location;
- ``.agents/`` at the top of a sessions folder holds the folders the agents of running sessions
  work in (``study.runner.agent_folder``: named by no model, condition, seed or task, linked from
  their session folders and moved into them when the sessions end): never a session.
"""

from __future__ import annotations

import os
from pathlib import Path

from study.caching import State, state_of

EVENTS_NAME = "events.jsonl"
META_NAME = "meta.json"
#: The Claude Code CLI's transcript of the session, moved into its folder by the runner.
TRANSCRIPT_NAME = "transcript.jsonl"
#: The simulator's ground truth, beside the log of a simulated session.
SIM_TRUTH_NAME = "sim_truth.jsonl"
#: The runner's claim on a session while it runs (``study.runner.claim``): no record.
CLAIM_NAME = "runner.claim"
#: The files a session's record rules read (the log, meta.json and the two witnesses of
#: ``simulated`` beside them, ``witnesses``): what the reading commands' caches key a session on.
RECORD_FILES = (EVENTS_NAME, META_NAME, TRANSCRIPT_NAME, SIM_TRUTH_NAME)
#: Folders of a session that no record rule reads: the CLI's HOME and working folder, the tool
#: server's state and the FSM's frames (``attempt-*`` folders are earlier attempts, never read).
NOT_EVIDENCE = ("home", "work", "tools", "fsm")
#: A session folder of more entries than this is never kept by a cache (its evidence is read each time).
EVIDENCE_ENTRIES_CAP = 100_000
ATTEMPT_PREFIX = "attempt-"
EXPLORATORY_FOLDER = "exploratory"
#: ``study demo`` writes to ``demo/`` at the project root (outside ``sessions/``); a ``demo`` folder
#: at the top of a scanned folder (older demos wrote ``sessions/demo``) is still exploratory.
DEMO_FOLDER = "demo"
#: Where the agents of running sessions work, at the top of a sessions folder (never a session).
AGENTS_FOLDER = ".agents"


def session_dir_for(out_root: Path, model_folder: str, condition: str, seed: int, *,
                    exploratory: bool, accounts: int | None) -> Path:
    """Where a session's files go."""
    base = Path(out_root) / EXPLORATORY_FOLDER if exploratory else Path(out_root)
    leaf = f"seed-{seed}" if accounts is None else f"seed-{seed}-first-{accounts}"
    return base / model_folder / condition / leaf


def record_states(folder: Path | str) -> tuple[State, ...]:
    """The state of each of a session folder's ``RECORD_FILES`` now (``study.caching.state_of``),
    then of its evidence (``evidence_states``): what the caches of the reading commands keep a value
    read from them under."""
    return tuple(state_of(os.path.join(folder, name)) for name in RECORD_FILES) + evidence_states(folder)


def evidence_states(folder: Path | str) -> tuple[State, ...]:
    """The state of every other file of a session folder, in path order: the evidence a family's
    verdict is re-derived from (``verdicts``: a benchmark's own record of the conversation, a run's
    working folder with its git history, the earlier contexts' transcripts), never the
    runner's scratch folders (``NOT_EVIDENCE``) or earlier attempts. A link or special file is
    None (never kept); so is a folder of more than ``EVIDENCE_ENTRIES_CAP`` entries. A file added,
    removed, renamed or written changes the tuple (its length, or a proof's inode or ctime)."""
    out: list[State] = []
    skip = set(RECORD_FILES) | set(NOT_EVIDENCE)

    def walk(where: str, top: bool) -> bool:
        try:
            with os.scandir(where) as found:
                entries = sorted(found, key=lambda e: e.name)
        except OSError:
            out.append(None)
            return True
        for entry in entries:
            if top and (entry.name in skip or is_attempt(entry.name) or entry.name == CLAIM_NAME):
                continue
            if len(out) >= EVIDENCE_ENTRIES_CAP:
                out.append(None)
                return False
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not walk(entry.path, False):
                        return False
                    continue
            except OSError:
                out.append(None)
                continue
            out.append(state_of(entry.path))
        return True

    walk(os.fspath(folder), True)
    return tuple(out)


def is_attempt(name: str) -> bool:
    return name.startswith(ATTEMPT_PREFIX)


def holds_session(folder: Path) -> bool:
    """``folder`` holds a session (started, perhaps unfinished): ``events.jsonl`` or ``meta.json``."""
    return (Path(folder) / EVENTS_NAME).exists() or (Path(folder) / META_NAME).exists()


def find_sessions(root: Path) -> list[Path]:
    """Every session folder under ``root`` (``root`` itself included), sorted; never an
    ``attempt-*`` folder or anything below one. Unreadable subfolders are skipped."""
    root = Path(root)
    found = []
    for folder, dirs, files in os.walk(root, onerror=lambda _: None):
        dirs[:] = sorted(d for d in dirs if not is_attempt(d) and d != AGENTS_FOLDER)
        if EVENTS_NAME in files or META_NAME in files:
            found.append(Path(folder))
    return sorted(found)


def attempts(session_dir: Path) -> list[Path]:
    """The earlier attempts kept inside a session folder, in order."""
    try:
        return sorted(p for p in Path(session_dir).iterdir() if is_attempt(p.name) and p.is_dir())
    except OSError:
        return []


def relative_parts(folder: Path, root: Path | None) -> tuple[str, ...]:
    if root is None:
        return ()
    for resolve in (False, True):
        try:
            if resolve:
                return Path(folder).resolve().relative_to(Path(root).resolve()).parts
            return Path(folder).relative_to(root).parts
        except ValueError:
            continue
    return ()


def exploratory_by_location(folder: Path, root: Path | None) -> bool:
    """The session at ``folder`` is exploratory because of where it is below ``root``: inside an
    ``exploratory/`` folder, or inside the demo output ``demo/`` at the top of ``root``."""
    return exploratory_location(folder, root) is not None


def exploratory_location(folder: Path, root: Path | None) -> str | None:
    """Why the session at ``folder`` is exploratory by where it is below ``root`` (None: it is not)."""
    parts = relative_parts(folder, root)
    if EXPLORATORY_FOLDER in parts:
        return f"below an {EXPLORATORY_FOLDER}/ folder"
    if len(parts) > 1 and parts[0] == DEMO_FOLDER:
        return "in the demo's output"
    return None
