"""A family's verdict re-derived from its evidence, never taken as written (issue 50): the rule
``verdict`` of a session of another study than the main one.

A family session's ``outcome`` event says what the family's evaluator made of the work (a
benchmark's reward of a conversation, a protocol's scorer's verdict on a run's files). Nothing in
the log proves it: an edit of the event moves a table. So every reader (``read_session``: status,
audit, tables, score, view, export) asks the session's family to work the outcome out again from
its evidence, and compares:

- the family's ``evidence`` part (``part(family)``: the module ``study.families.<family>.evidence``,
  asked of the families' registry by role, never imported by name here) gives
  ``rederive(session_dir, events, study) -> (fields | None, problems)``: the outcome's fields as
  its evidence gives them (None: the evidence says there is nothing to score, e.g. a voided
  conversation), or the problems that stop it (evidence missing, unreadable, of another session);
  its ``INFORMATIONAL`` names the outcome's fields it records but does not re-derive (none that a
  table counts);
- the log must hold exactly that: one ``outcome`` event (a second is never silently the verdict),
  whose every field equals the re-derived one (a number to 1e-9, each field of its JSON type: a
  ``true`` is no ``1``), and no field the evidence does not give; an outcome where the evidence
  says there is none, or none where it says there is one, breaks the rule too.

Any disagreement is an ``Issue`` of rule ``verdict``: the session's records are invalid, excluded
from every table with the reason, and the audit fails it naming the field.

Re-deriving costs (a benchmark's evaluator may import much and take a while), so its result is kept
(``verdicts/`` of the cache folder, one entry per session folder) under the proofs of everything
it read: the log, every file of the session folder but the runner's scratch folders
(``folders.evidence_states``: the family's record of the work, its working folder and git history), every file of
the study's folder in the preregistration, the source of the family's folder and of the modules
named in ``CODE``, and the installed distributions. A kept result is used only while every proof
holds; it is written only when every file had settled (``RACY_S``) before it was read and was
unchanged after. Deleting the cache changes no verdict, only the time.
"""

from __future__ import annotations

import hashlib
import math
import os
import pickle
import re
import threading
import time
from pathlib import Path
from typing import Any

from study.caching import all_settled, cache_root, distributions, state_of, write_atomic
from study.families.registry import DEFAULT_FAMILY, part_of
from study.paths import prereg_dir

from .folders import EVENTS_NAME, META_NAME, evidence_states
from .issues import Issue, Rule

#: The study of a session that names none.
MAIN_STUDY = "main"
#: Fields of an ``outcome`` event that are the log's own, not the family's verdict.
OWN_FIELDS = ("seq", "t", "kind", "family")
#: Bump to drop every kept result of an older layout.
FORMAT = 1
#: Modules (besides the family's own folder) whose source a kept result depends on.
CODE = ("study/session_io/verdicts.py", "study/session_io/safe_files.py", "study/session_io/folders.py",
        "study/session_io/git_evidence.py", "study/protocol/evidence_study.py",
        "study/protocol/studies.py", "study/protocol/yaml_file.py", "study/protocol/yaml_lines.py")
#: A family's name: a plain identifier (a log is untrusted: never a path, never a dotted name).
_FAMILY = re.compile(r"[a-z][a-z0-9_]{0,40}")
#: A study's name (``study.protocol.studies``' rule).
_STUDY = re.compile(r"[a-z0-9][a-z0-9-]{0,40}")
#: Numbers are equal within this (the scorers round to 6 decimals; JSON keeps every digit).
TOLERANCE = 1e-9

_lock = threading.Lock()
#: What a process finds once: each family's code digest, the installed distributions, the project's
#: preregistration folder per working folder.
_code: dict[Any, Any] = {}


def part(family: str) -> Any | None:
    """The family's ``evidence`` part (``study.families.registry.part_of``: looked up by role for a
    name read from a log, so anything that is no family's name has none), or None when the family
    has none."""
    return part_of(family, "evidence")


def applies(start: dict[str, Any], meta: Any) -> bool:
    """Whether the rule applies: a session of another family or study than the main one's."""
    family = _either(start.get("family"), meta.get("family") if meta is not None else None)
    study = _either(start.get("study"), meta.get("study") if meta is not None else None)
    return family not in (None, DEFAULT_FAMILY) or study not in (None, MAIN_STUDY)


def verdict_issues(session_dir: Path, log: Any, meta: Any = None) -> list[Issue]:
    """The ``verdict`` rule's issues of the session at ``session_dir`` (its ``log`` read, its
    ``meta`` as read): none for a main-study session, for a session still running (no
    ``session_end`` and no ``outcome``) and for one whose outcome its evidence re-derives."""
    start = log.start
    if not start or not applies(start, meta):
        return []
    events = [e for e in log.events if isinstance(e, dict)]
    lines = log.lines
    outcomes = [(lines[i] if i < len(lines) else None, e) for i, e in enumerate(events) if e.get("kind") == "outcome"]
    ended = any(e.get("kind") == "session_end" for e in events)
    if not outcomes and not ended:
        return []                # running, or crashed: incomplete, and nothing claims a verdict yet
    path = Path(session_dir)
    file = path / EVENTS_NAME

    def issue(line: int | None, message: str) -> Issue:
        return Issue(Rule.VERDICT, file, line, message)

    found: list[Issue] = []
    if len(outcomes) > 1:
        found.append(issue(outcomes[1][0], f"a second outcome event (the first is on line {outcomes[0][0]}): a "
                                           "session has one verdict, never the last one written"))
    family = _either(start.get("family"), meta.get("family") if meta is not None else None) or DEFAULT_FAMILY
    study = _either(start.get("study"), meta.get("study") if meta is not None else None) or MAIN_STUDY
    for line, outcome in outcomes:
        if outcome.get("family") != family:
            found.append(issue(line, f"the outcome names family {outcome.get('family')!r}, the session {family!r}"))
    if not _FAMILY.fullmatch(family) or family == DEFAULT_FAMILY:
        found.append(issue(None, f"family {family!r} has no evidence to re-derive a verdict from: no outcome of a "
                                 f"session of study {study!r} can be checked, so none is counted"))
        return found
    if not isinstance(study, str) or not _STUDY.fullmatch(study) or study == MAIN_STUDY:
        found.append(issue(None, f"study {study!r} is not a study's name: its verdict cannot be re-derived"))
        return found
    fields, problems, informational = rederived(path, events, family, study)
    if problems:
        return found + [issue(outcomes[0][0] if outcomes else None, p) for p in problems]
    if fields is None:
        for line, _outcome in outcomes[:1]:
            found.append(issue(line, "the log holds an outcome, but its evidence says the session has none to score "
                                     "(no conversation or run was finished)"))
        return found
    if not outcomes:
        return found + [issue(None, "the evidence holds a finished, scored session, but the log has no outcome event")]
    line, outcome = outcomes[0]
    differ = [f"{key} {_shown(outcome.get(key, _MISSING))} where the evidence gives {_shown(value)}"
              for key, value in fields.items() if not same(outcome.get(key, _MISSING), value)]
    extra = sorted(k for k in outcome if k not in fields and k not in OWN_FIELDS and k not in informational)
    if differ:
        more = f" (and {len(differ) - 1} more)" if len(differ) > 1 else ""
        found.append(issue(line, f"the outcome disagrees with its evidence: {differ[0]}{more}"))
    if extra:
        found.append(issue(line, f"the outcome holds fields its evidence does not give: {', '.join(extra[:5])}"))
    return found


# ----- comparing ---------------------------------------------------------------------------------

class _Missing:
    def __repr__(self) -> str:
        return "(absent)"


_MISSING = _Missing()


def same(logged: Any, derived: Any) -> bool:
    """Whether the logged value is the derived one: the same JSON type (a bool is no number, an
    integer and a float are both numbers) and value, numbers within ``TOLERANCE``."""
    if isinstance(derived, bool) or isinstance(logged, bool):
        return type(logged) is type(derived) and logged == derived
    if isinstance(derived, (int, float)):
        return (isinstance(logged, (int, float)) and math.isfinite(logged) and math.isfinite(derived)
                and abs(logged - derived) <= TOLERANCE * max(1.0, abs(derived)))
    if isinstance(derived, (list, tuple)):
        return (isinstance(logged, list) and len(logged) == len(derived)
                and all(same(a, b) for a, b in zip(logged, derived)))
    if isinstance(derived, dict):
        return (isinstance(logged, dict) and set(logged) == set(derived)
                and all(same(logged[k], derived[k]) for k in derived))
    return type(logged) is type(derived) and logged == derived


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _either(*values: Any) -> Any:
    return next((v for v in values if isinstance(v, str)), None)


# ----- the kept results --------------------------------------------------------------------------

def _code_digest(family: str) -> str:
    """sha256 of the family's folder (every file but caches) and of ``CODE``, found on disk without
    importing anything; once per process and family."""
    with _lock:
        if family in _code:
            return _code[family]
    study_dir = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(family.encode())
    files = [study_dir.parent / rel for rel in CODE]
    for folder, dirs, names in os.walk(study_dir / "families" / family):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        files += [Path(folder) / n for n in sorted(names) if not n.endswith(".pyc")]
    for file in files:
        try:
            digest.update(str(file).encode() + b"\0" + file.read_bytes() + b"\0")
        except OSError:
            digest.update(str(file).encode() + b"\0(none)\0")
    value = digest.hexdigest()
    with _lock:
        _code[family] = value
    return value


def _prereg() -> Path:
    """The project's preregistration folder (``study.paths``), found once per working folder and
    ``STUDY_ROOT`` (finding the project walks up the folders)."""
    where = (os.getcwd(), os.environ.get("STUDY_ROOT"))
    with _lock:
        found = _code.get(where)       # type: ignore[call-overload]
    if found is None:
        found = prereg_dir()
        with _lock:
            _code[where] = found       # type: ignore[index]
    return found                       # type: ignore[return-value]


def _study_states(study: str) -> tuple[Any, ...]:
    folder = _prereg() / "studies" / study
    out: list[Any] = [str(folder)]
    for where, dirs, names in os.walk(folder):
        dirs.sort()
        out += [(os.path.join(where, n), state_of(os.path.join(where, n))) for n in sorted(names)]
    return tuple(out)


def _states(path: Path) -> tuple[Any, ...]:
    return (state_of(path / EVENTS_NAME), state_of(path / META_NAME), *evidence_states(path))


def _installed() -> tuple[str, ...]:
    """The installed distributions (every ``.dist-info`` beside the project's dependencies: the
    family's benchmark packages among them), once per process."""
    with _lock:
        if "installed" not in _code:
            _code["installed"] = distributions(("msgspec", "click"))     # type: ignore[assignment]
        return _code["installed"]     # type: ignore[return-value]


def _key(where: str, family: str, study: str) -> tuple[Any, ...]:
    return (FORMAT, where, family, study, _code_digest(family), _installed(), _study_states(study))


def _entry(where: str) -> Path:
    return cache_root() / "verdicts" / f"{hashlib.sha256(where.encode()).hexdigest()[:40]}.pickle"


def rederived(path: Path, events: list[dict[str, Any]], family: str, study: str
              ) -> tuple[dict[str, Any] | None, list[str], tuple[str, ...]]:
    """The family's evidence part's answer for the session (``rederive``'s fields and problems, and
    its ``INFORMATIONAL`` fields), from the kept results while everything it was made from holds
    (module docstring: a kept answer imports nothing of the family), else computed and kept."""
    where = os.path.realpath(path)
    key = _key(where, family, study)
    states = _states(path)
    study_files = [s for _p, s in key[-1][1:]]
    try:
        kept_key, kept_states, value = pickle.loads(_entry(where).read_bytes())
        if kept_key == key and kept_states == states:
            return value
    except Exception:           # absent, torn or foreign: not kept
        pass
    began = time.time_ns()
    try:
        evidence = part(family)
        if evidence is None:
            return None, [f"family {family!r} has no evidence to re-derive a verdict from: no outcome of a session of "
                          f"study {study!r} can be checked, so none is counted"], ()
        fields, problems = evidence.rederive(path, events, study)
        value = (fields, list(problems), tuple(getattr(evidence, "INFORMATIONAL", ())))
    except Exception as exc:    # a defect of the family's part, or evidence it did not foresee: never a verdict
        return None, [f"its verdict could not be re-derived from its evidence ({type(exc).__name__}: {exc})"], ()
    if _states(path) == states and all_settled([*states, *study_files], began) and _key(where, family, study) == key:
        write_atomic(_entry(where), pickle.dumps((key, states, value), protocol=pickle.HIGHEST_PROTOCOL))
    return value


__all__ = ["applies", "part", "rederived", "same", "verdict_issues"]
