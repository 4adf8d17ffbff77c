"""Reading and validating a session's ``events.jsonl`` (with its ``meta.json``).

Two modes, one set of rules (docs/contracts.md, "Validation of a log"):

- strict (the analysis): ``read_log(path)`` / ``read_session(dir)`` raise ``LogError`` (or
  ``MetaError``) naming the file, the line and the rule of the first error;
- reporting (status, audit): ``read_log(path, strict=False)`` / ``read_session(dir,
  strict=False)`` never raise; every issue is returned, and the events that could be read.

The rules: every line one JSON object in UTF-8 (a torn last line, cut short by a crash and
without its newline, is the one tolerated defect: a warning, skipped); every event of a known
kind with its required fields of the right types (``events``); ``seq`` 0, 1, 2, … in file
order, and ``t`` never going back by more than ``CLOCK_SLACK_S`` (the writer stamps both under
one lock, so a line moved and renumbered still shows); exactly one ``session_start``, first, of a schema this package reads; at most one
``session_end``, last; every successful ``sopbench`` tool call's account in
``session_start.order`` or null; and ``meta.json`` consistent with the log (model, condition,
seed, simulated, exploratory, and its status once the log has ended: ``meta_rules``).

Two readings of those rules: the fast path (``_typed_read``) decodes the file into the structs of
``typed_events``, whose decoding checks every field, and checks the other rules on them; a log it
does not accept is read the reference way (``log_lines`` into dicts, then ``validate_log``), which
names every issue. They agree on every log (``tests/session_io/test_typed_reading.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from operator import attrgetter
from pathlib import Path
from typing import Any, Callable

import msgspec

from .events import READABLE_SCHEMAS, SINCE_SCHEMA, event_problems, runtime_problem
from .folders import EVENTS_NAME
from .issues import Issue, LogError, Rule, first_error
from .log_lines import JSON, parse_lines
from .meta import SessionMeta, read_meta
from .meta_rules import meta_issues
from .typed_events import UNSET, SessionStart, ToolCall, decode_lines, from_dicts
from .safe_files import LINE_CAP, LOG_CAP, UnsafeFile, long_line, read_capped
from .values import VALUED_KINDS, value_issues
from .witnesses import contradiction, folder_witnesses, log_witnesses
from .vocabulary import EventKind

_ADVICE = ("The log was damaged after it was written; it is never scored. Restore it from the "
           "published session archive; do not edit it by hand")
_META_ADVICE = ("meta.json and events.jsonl must describe the same session; it is never scored. "
                "Restore both from the published session archive; do not edit them by hand")

_VERDICT_ADVICE = ("The outcome is re-derived from the session's evidence (the family's record of the work) and "
                   "must be what that gives; it is never counted. Restore the session folder from its archive")


class _Checked:
    """A read with ``issues``: its errors (warnings aside) and whether it has none."""

    issues: list[Issue]

    @property
    def errors(self) -> list[Issue]:
        return [i for i in self.issues if not i.warning]

    @property
    def valid(self) -> bool:
        return not self.errors


class LogRead(_Checked):
    """The events of one log that could be read, in file order, and what was found on the way.

    ``events`` are dicts, as the file spells them; ``typed`` the same events as the structs of
    ``typed_events`` (what the scorer reads). A log read through the typed fast path holds only
    its structs and its bytes until ``events`` is first asked for (the analysis never asks)."""

    def __init__(self, path: Path, events: list[dict[str, Any]] | None = None, issues: list[Issue] | None = None,
                 lines: list[int] | None = None, *, data: bytes | None = None, typed: list[Any] | None = None,
                 start: dict[str, Any] | None = None, end: dict[str, Any] | None = None) -> None:
        if events is None and (data is None or typed is None):
            events = []
        self.path = path
        self.issues: list[Issue] = [] if issues is None else issues
        self._events, self._lines, self._data, self._typed = events, lines, data, typed
        self._start, self._end = start, end

    def __repr__(self) -> str:
        return f"LogRead({str(self.path)!r}, {len(self.events)} events, {len(self.issues)} issues)"

    @property
    def events(self) -> list[dict[str, Any]]:
        if self._events is None:        # a typed read: the same bytes, parsed as dicts
            self._events, _, self._lines = parse_lines(self.path, self._data)
        return self._events

    @property
    def lines(self) -> list[int]:
        """The file line of each event."""
        if self._lines is None:
            events = self.events        # a typed read: parsing its bytes gives its lines too
            if self._lines is None:     # a log built in code from events alone
                self._lines = list(range(1, len(events) + 1))
        return self._lines

    @property
    def typed(self) -> list[Any]:
        """The events as ``typed_events`` structs; raises ``LogError`` for an event that is not one
        of the contract's (only a log built in code can hold one: a read log that breaks a rule
        is never scored)."""
        if self._typed is None:
            try:
                self._typed = from_dicts(self.events)
            except msgspec.ValidationError as exc:
                raise LogError(f"{self.path}: an event is not one of docs/contracts.md's ({exc}); "
                               "it cannot be scored") from None
        return self._typed

    @property
    def warnings(self) -> list[str]:
        return [str(i) if i.rule != Rule.TORN else i.message for i in self.issues if i.warning]

    @property
    def start(self) -> dict[str, Any]:
        """The ``session_start`` event (first line of a valid log), or an empty dict."""
        if self._start is not None:
            return self._start
        return next((e for e in self.events if e.get("kind") == EventKind.SESSION_START), {})

    @property
    def end(self) -> dict[str, Any] | None:
        """The (last) ``session_end`` event, or None while the session runs or after a crash (the
        last line of a valid log)."""
        if self._events is None:
            return self._end
        return next((e for e in reversed(self.events) if e.get("kind") == EventKind.SESSION_END), None)


def read_log(path: Path, *, strict: bool = True, meta: SessionMeta | None = None) -> LogRead:
    """Read and validate ``events.jsonl`` (and its consistency with ``meta`` if given)."""
    path = Path(path)
    try:
        data = read_capped(path, within=path.parent, max_bytes=LOG_CAP)
        if (long := long_line(data, LINE_CAP)) is not None:
            raise UnsafeFile(path, f"line {long[0]} is {long[1]:,} bytes, over the cap of {LINE_CAP:,} bytes per line")
    except UnsafeFile as exc:
        issue = Issue(Rule.FILE, path, None, f"{exc}; it is not read")
        if strict:
            raise LogError.of(issue, _ADVICE) from None
        return LogRead(path, [], [issue])
    except OSError as exc:
        issue = Issue(Rule.NO_LOG, path, None, "no session log here" if isinstance(exc, FileNotFoundError)
                      else f"the session log cannot be read ({exc.strerror})")
        if strict:
            raise LogError(f"{issue}. Point the command at a session folder "
                           "(sessions/<model>/<condition>/seed-<n>/) that holds events.jsonl.", issue) from None
        return LogRead(path, [], [issue])
    log = _typed_read(path, data, meta)
    if log is not None:
        return log
    log = _parse(path, data)
    log.issues += validate_log(log, meta)
    if strict and (error := first_error(log.issues)):
        advice = {Rule.SCHEMA: "", Rule.EMPTY: "", Rule.META_LOG: _META_ADVICE}.get(error.rule, _ADVICE)
        raise LogError.of(error, advice)
    return log


_ACCOUNT = attrgetter("account")


def _typed_read(path: Path, data: bytes, meta: SessionMeta | None) -> LogRead | None:
    """The log through the typed fast path (``typed_events``) when it breaks no rule, else None
    (the reference reading then finds and names each issue). Every rule of ``validate_log`` is
    checked here on the structs; the field rules are msgspec's decoding itself."""
    if not data.endswith(b"\n"):
        return None                     # a torn last line: the reference reading reports it
    events = decode_lines(data)
    # one event per line: decode_lines reads any run of JSON values, so two events on one line
    # (which the reference reading refuses) or a blank line (which it skips) differ in the count
    if not events or len(events) != data.count(b"\n"):
        return None
    start = events[0]
    if type(start) is not SessionStart or start.schema not in READABLE_SCHEMAS:
        return None
    batch = frozenset(start.order)
    if len(batch) != len(start.order) or [e.seq for e in events] != list(range(len(events))):
        return None
    kinds = [e.kind for e in events]
    ends = kinds.count(EventKind.SESSION_END)
    if kinds.count(EventKind.SESSION_START) != 1 or ends > 1 or (ends and kinds[-1] != EventKind.SESSION_END):
        return None
    if any(k in kinds for k, since in SINCE_SCHEMA.items() if start.schema < since):
        return None
    if runtime_problem(start.schema, None if start.runtime is UNSET else start.runtime) is not None:
        return None
    times = [e.t for e in events]
    if times != sorted(times):
        return None
    calls = [e for e in events if type(e) is ToolCall]
    accounts = set(map(_ACCOUNT, calls))        # every call's account first (one C-level pass):
    accounts.discard(None)                      # when all are in the batch, so are the successful ones'
    if not accounts <= batch:
        accounts = {e.account for e in calls if e.ok and e.allowed and e.server == "sopbench"}
        accounts.discard(None)
        if not accounts <= batch:
            return None
    # session_start and session_end as dicts too (what the records and meta.json are compared
    # with): the first and the last line, unless a blank line stands there
    try:
        first = JSON.decode(data[:data.index(b"\n")])
        end = JSON.decode(data[data.rindex(b"\n", 0, len(data) - 1) + 1:]) if ends else None
    except msgspec.DecodeError:
        return None
    if first.get("kind") != EventKind.SESSION_START or (ends and end.get("kind") != EventKind.SESSION_END):
        return None
    # the figures' rules (``values``) on the very dicts the reference reading checks: the lines of
    # the valued kinds decoded again, whole (the structs skip the fields the contract does not name)
    valued = [i for i, kind in enumerate(kinds) if kind in VALUED_KINDS]
    if valued:
        rows = data.split(b"\n")
        try:
            if value_issues(first, [(i + 1, JSON.decode(rows[i])) for i in valued]):
                return None
        except msgspec.DecodeError:
            return None
    log = LogRead(path, data=data, typed=events, start=first, end=end)
    if meta is not None and meta_issues(log.path, log.start, log.end, meta):
        return None
    return log


def _parse(path: Path, data: bytes) -> LogRead:
    """The reference reading's first step: every line that is one JSON object, as a dict (``log_lines``)."""
    events, issues, lines = parse_lines(path, data)
    return LogRead(path, events, issues, lines)


def validate_log(log: LogRead, meta: SessionMeta | None = None) -> list[Issue]:
    """The issues of a parsed log by the rules of the module docstring (parse issues excluded)."""
    path, issues = log.path, []

    def add(rule: Rule, line: int | None, message: str) -> None:
        issues.append(Issue(rule, path, line, message))

    if not log.events:
        if not log.issues:
            add(Rule.EMPTY, None, "the log holds no events; the session never started. Rerun it or remove the folder")
        return issues
    start = log.events[0]
    schema = start.get("schema")
    if start.get("kind") != EventKind.SESSION_START:
        add(Rule.START, log.lines[0], f"the first event is {start.get('kind')!r}, not 'session_start'; "
                                      "this is not a complete session log")
    elif schema not in READABLE_SCHEMAS or isinstance(schema, bool):
        add(Rule.SCHEMA, log.lines[0],
            f"session log schema {schema!r}, but this analysis reads schema "
            f"{' or '.join(map(str, READABLE_SCHEMAS))}. Use the version of the package that wrote the "
            f"log (its code_version is {start.get('code_version')!r})")
    elif (problem := runtime_problem(schema, start.get("runtime"))) is not None:
        add(Rule.SCHEMA, log.lines[0], problem)
    order = start.get("order") if isinstance(start.get("order"), list) else []
    batch = frozenset(a for a in order if isinstance(a, str))
    if len(batch) != len(order) and start.get("kind") == EventKind.SESSION_START:
        add(Rule.BATCH, log.lines[0], "session_start.order lists an account more than once")
    _check_each_event(log, schema, batch, add)
    if start.get("kind") == EventKind.SESSION_START:
        valued = [(line, e) for e, line in zip(log.events, log.lines)
                  if type(e) is dict and e.get("kind") in VALUED_KINDS]
        for rule, line, message in value_issues(start, valued):
            add(rule, line, message)
    if meta is not None:
        issues += meta_issues(log.path, log.start, log.end, meta)
    return _capped(issues)


def _check_each_event(log: LogRead, schema: Any, batch: frozenset[str],
                      add: Callable[[Rule, int | None, str], None]) -> None:
    """Every per-event rule, event by event, naming each line that breaks one."""
    end_line: int | None = None
    latest = ""
    for index, (event, line) in enumerate(zip(log.events, log.lines)):
        for problem in event_problems(event):
            add(Rule.EVENT, line, problem)
        kind = event.get("kind") if isinstance(event.get("kind"), str) else None
        seq = event.get("seq")
        if seq != index or isinstance(seq, bool):
            add(Rule.SEQ, line, f"seq {seq!r} where {index} was due: seq must be 0, 1, 2, … in file order "
                                "(a duplicated, moved or renumbered line)")
        t = event.get("t")
        if isinstance(t, str):
            if t < latest and _seconds_between(t, latest) > CLOCK_SLACK_S:
                add(Rule.TIME, line, f"t {t} is before an earlier line's {latest}: the writer stamps "
                                     "events in file order (a moved line)")
            latest = max(latest, t)
        if kind == EventKind.SESSION_START and index > 0:
            add(Rule.START, line, f"a second session_start (the first is on line {log.lines[0]}): "
                                  "e.g. two runs wrote into one session folder")
        if end_line is not None:
            add(Rule.END, line, f"an event after session_end (line {end_line})")
        if kind == EventKind.SESSION_END and end_line is None:
            end_line = line
        since = SINCE_SCHEMA.get(kind)
        if since is not None and isinstance(schema, int) and schema < since:
            add(Rule.SCHEMA, line, f"a {kind} event in a schema {schema} log (it exists from schema {since})")
        if (kind == EventKind.TOOL_CALL and event.get("ok") is True and event.get("allowed", True) is True
                and event.get("server", "sopbench") == "sopbench" and isinstance(event.get("account"), str)
                and event.get("account") not in batch):
            add(Rule.BATCH, line, f"a successful {event.get('tool')} call for account "
                                  f"{event.get('account')!r}, which is not in session_start.order")


#: How far ``t`` may go back between lines (a wall-clock step) before it is a moved line.
CLOCK_SLACK_S = 5.0


def _seconds_between(earlier: str, later: str) -> float:
    """Seconds from ``earlier`` to ``later`` (both ISO 8601); 0 if either does not parse."""
    try:
        return (datetime.fromisoformat(later) - datetime.fromisoformat(earlier)).total_seconds()
    except (TypeError, ValueError):
        return 0.0


#: At most this many issues of one rule are listed; the rest are counted.
_PER_RULE = 3


def _capped(issues: list[Issue]) -> list[Issue]:
    """The first ``_PER_RULE`` issues of each rule, then one line counting the rest (a log with
    every line doubled breaks the seq rule on every line)."""
    out, seen = [], {}
    for issue in issues:
        seen[issue.rule] = seen.get(issue.rule, 0) + 1
        if seen[issue.rule] <= _PER_RULE:
            out.append(issue)
    for rule, count in seen.items():
        if count > _PER_RULE:
            first = next(i for i in issues if i.rule == rule)
            out.append(Issue(rule, first.file, None, f"{count - _PER_RULE} more line(s) break the {rule} rule"))
    return out


@dataclass
class SessionRead(_Checked):
    """One session folder read: its meta (None without meta.json), its log (None without
    events.jsonl) and every issue of both."""

    path: Path
    meta: SessionMeta | None
    log: LogRead | None
    issues: list[Issue]


def read_session(session_dir: Path, *, strict: bool = True) -> SessionRead:
    """Read and validate a session folder's meta.json and events.jsonl together.

    strict: raises ``MetaError``/``LogError`` for the first error (a missing events.jsonl
    included); otherwise never raises."""
    session_dir = Path(session_dir)
    meta = read_meta(session_dir, strict=strict)
    log = read_log(session_dir / EVENTS_NAME, strict=strict, meta=meta)
    if (issue := simulated_issue(session_dir, log)) is not None:
        if strict:
            raise LogError.of(issue, _META_ADVICE)
        log.issues.append(issue)
    if log.start and not log.errors:    # a family's verdict, re-derived from its evidence (``verdicts``)
        from .verdicts import verdict_issues

        found = verdict_issues(session_dir, log, meta)
        if found and strict:
            raise LogError.of(found[0], _VERDICT_ADVICE)
        log.issues.extend(found)
    issues = list(meta.problems if meta else []) + log.issues
    if log.issues and log.issues[0].rule == Rule.NO_LOG:
        return SessionRead(session_dir, meta, None, issues)
    return SessionRead(session_dir, meta, log, issues)


def simulated_issue(session_dir: Path, log: LogRead) -> Issue | None:
    """The ``simulated`` rule (``witnesses``): the log's witnesses, then the folder's (the truth
    file, the transcript, read only when the log's do not already disagree), must agree."""
    start = log.start
    if start.get("kind") != EventKind.SESSION_START:
        return None
    if log._typed is not None:
        ids = [e.call_id for e in log._typed if type(e) is ToolCall]
    else:
        ids = [e.get("call_id") for e in log.events if type(e) is dict and e.get("kind") == EventKind.TOOL_CALL]
    witnesses = log_witnesses(start, ids)
    found = contradiction(witnesses)
    if found is None:
        runtime = start.get("runtime") if isinstance(start.get("runtime"), str) else None
        found = contradiction(witnesses + folder_witnesses(session_dir, runtime))
    return None if found is None else Issue(Rule.SIMULATED, log.path, None, found)


def log_events(path: Path) -> list[dict[str, Any]]:
    """Every event of a log that could be read, in file order, whatever its issues (a reporting
    read for tests and exploration; the analysis uses ``read_log``)."""
    return read_log(path, strict=False).events
