"""The sessions an export writes, read once: each session folder validated and scored as
``study score`` and ``study tables`` do, its transcript read as turns by its runtime's reader,
and the sessions grouped into one group per eval log.

Nothing here imports an export format's package: the formats (``inspect_log``) take what
``collect`` returns.

- A folder whose records break a rule of ``study.session_io.reader`` (or that has no log) is not
  exported: it is ``Skipped``, with the reason the tables' exclusion list gives
  (``SessionRecord.exclusion``).
- Voided and unfinished sessions are exported, marked (the format says how); exploratory and
  development-seed sessions are exported and marked exploratory.
- The transcript is read by the reader of the session's runtime (``study.transcripts``): its
  turns (the conversation) and its model responses (each with its usage).
- One group per (model, runtime, condition, task, batch size, exploratory): sessions of different
  batch sizes are different sessions (README, "Running the study"), and an exploratory session
  never shares a log with confirmatory ones.
- A session of another task family than SOP-Bench's (a conversation, a run of fresh contexts) is
  not scored by SOP-Bench's scorer: its family's ``outcome`` event is its verdict
  (``inspect_family``), its study stands for its task, and the transcript of a run of fresh
  contexts (its family's reading says so: ``CONTEXTS``) is every context's in order
  (``contexts/context-<n>.transcript.jsonl``, then ``transcript.jsonl``), each context's turns
  after a ``context`` turn that names it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from analysis.loading import sopbench_correct_count
from analysis.scoring import SessionScore, score_log
from study.families.registry import DEFAULT_FAMILY, part_of
from study.protocol.runtimes import DEFAULT_RUNTIME
from study.session_io.folders import TRANSCRIPT_NAME, find_sessions

#: Where a run of fresh contexts keeps each ended context's transcript (docs/contracts.md).
CONTEXTS_DIR = "contexts"
from study.session_io.issues import LogError
from study.session_io.meta import SessionMeta
from study.session_io.record import SessionRecord, read_record
from study.session_io.safe_files import TRANSCRIPT_CAP, UnsafeFile, read_capped
from study.transcripts import NoReader, reader_for


class GroupKey(NamedTuple):
    """What one eval log holds the sessions of."""

    model: str
    runtime: str
    condition: str
    task: str
    accounts: int
    exploratory: bool


@dataclass
class ExportSession:
    """One valid session: its record, score, events and conversation."""

    path: Path
    name: str                       # the folder below the sessions root (``.`` for the root itself)
    record: SessionRecord
    score: SessionScore | None      # SOP-Bench's scores; None for another family's session (``outcome``)
    meta: SessionMeta | None
    events: list[dict[str, Any]]
    runtime: str
    correct_sopbench: int
    #: the transcript as turns (whole texts), None when it cannot be read (``transcript_problem`` says why)
    turns: list[dict[str, Any]] | None = None
    #: the transcript's model responses with their usage (its reader's ``responses``), None as ``turns``
    responses: list[dict[str, Any]] | None = None
    other_records: int = 0
    transcript_problem: str | None = None

    @property
    def start(self) -> dict[str, Any]:
        return self.events[0] if self.events else {}

    @property
    def end(self) -> dict[str, Any] | None:
        last = self.events[-1] if self.events else None
        return last if last is not None and last.get("kind") == "session_end" else None

    @property
    def family(self) -> str:
        return self.record.family

    @property
    def seed(self) -> int:
        return self.score.seed if self.score is not None else (self.record.seed if self.record.seed is not None else 0)

    @property
    def simulated(self) -> bool:
        return self.score.simulated if self.score is not None else self.record.simulated

    @property
    def order(self) -> list[str]:
        if self.score is not None:
            return list(self.score.order)
        order = self.start.get("order")
        return [str(x) for x in order] if isinstance(order, list) else []

    @property
    def outcome(self) -> dict[str, Any] | None:
        """The family's verdict (the log's last ``outcome`` event), or None."""
        return next((e for e in reversed(self.events) if e.get("kind") == "outcome"), None)

    @property
    def key(self) -> GroupKey:
        if self.score is None:          # another family's session: its study is its task
            return GroupKey(self.record.model or "?", self.runtime, self.record.condition or "?", self.record.study,
                            len(self.order), self.record.exploratory)
        return GroupKey(self.score.model, self.runtime, self.score.condition, self.score.task,
                        len(self.score.order), self.record.exploratory)


@dataclass(frozen=True)
class Skipped:
    """A session folder that is not exported, and why."""

    path: Path
    name: str
    reason: str
    model: str | None = None
    condition: str | None = None
    task: str | None = None


@dataclass
class Collected:
    """Every session folder under a root: the groups of valid sessions, and those skipped."""

    root: Path
    groups: dict[GroupKey, list[ExportSession]] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def sessions(self) -> int:
        return sum(len(g) for g in self.groups.values())


def _name(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix() or "."
    except ValueError:
        return str(path)


class Transcript(NamedTuple):
    """A session's transcript as its runtime's reader reads it (``study.transcripts``); ``turns``
    and ``responses`` are None when it cannot be read, and ``problem`` says why."""

    turns: list[dict[str, Any]] | None
    responses: list[dict[str, Any]] | None
    other: int
    problem: str | None


def read_contexts(path: Path, runtime: str, events: list[dict[str, Any]]) -> Transcript:
    """A run of fresh contexts' transcripts, each context's turns after a ``context`` turn (its
    ``n`` and ``unit``): the ended contexts' kept in ``contexts/``, the last one's
    ``transcript.jsonl``; a context whose transcript cannot be read is named in ``problem``."""
    started = [e for e in events if e.get("kind") == "context_start"]
    turns: list[dict[str, Any]] = []
    responses: list[dict[str, Any]] = []
    other, problems = 0, []
    for i, start in enumerate(started):
        n = start.get("n") if isinstance(start.get("n"), int) and not isinstance(start.get("n"), bool) else i + 1
        file = TRANSCRIPT_NAME if i == len(started) - 1 else f"{CONTEXTS_DIR}/context-{n}.transcript.jsonl"
        one = read_transcript(path, runtime, file)
        turns.append({"role": "context", "n": n, "unit": start.get("unit"), "text": f"context {n}"})
        if one.turns is None:
            problems.append(f"context {n}: {one.problem}")
            continue
        turns += one.turns
        responses += one.responses or []
        other += one.other
    if not started:
        return read_transcript(path, runtime)
    if len(problems) == len(started):
        return Transcript(None, None, 0, "; ".join(problems))
    return Transcript(turns, responses, other, "; ".join(problems) or None)


def read_transcript(path: Path, runtime: str, name: str = TRANSCRIPT_NAME) -> Transcript:
    """The session's transcript (``name``, inside its folder) by its runtime's reader: its
    whole-text turns, its model responses (each with its usage), and how many records are not
    turns; or why not, when there is none, it is refused (a link out of the folder, a FIFO, over
    the cap: ``safe_files``) or no reader reads its runtime."""
    file = path / name
    try:
        reader = reader_for(runtime)
        data = read_capped(file, within=path, max_bytes=TRANSCRIPT_CAP)
    except NoReader as exc:
        return Transcript(None, None, 0, str(exc))
    except FileNotFoundError:
        return Transcript(None, None, 0, f"no {name} in the session folder")
    except UnsafeFile as exc:
        return Transcript(None, None, 0, f"{exc}; it is not read")
    except OSError as exc:
        return Transcript(None, None, 0, f"{name} cannot be read ({exc.strerror})")
    lines = [line for line in data.split(b"\n") if line.strip()]
    found, other = reader.turns(lines, cap=None)
    records = []
    for line in lines:
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue   # the CLI's own file: a torn line is no response
        if isinstance(record, dict):
            records.append(record)
    return Transcript(found, reader.responses(records), other, None)


def read_one(path: Path, root: Path) -> ExportSession | Skipped:
    """One session folder: valid and scored (as ``study score`` scores it), or why it is skipped."""
    record, session = read_record(path, root)
    name = _name(path, root)
    skipped = partial(Skipped, path, name, model=record.model, condition=record.condition, task=record.task)
    if not record.scorable:
        exclusion = record.exclusion()
        return skipped(exclusion.reason if exclusion else "its records cannot be scored")
    score = None
    if record.family == DEFAULT_FAMILY:   # another family's verdict is its outcome event (inspect_family)
        try:
            score = score_log(session.log, session.meta)
        except LogError as exc:           # a log the reader passed but the scorer cannot score
            return skipped(f"invalid records, never scored: {exc}")
    events = session.log.events
    runtime = events[0].get("runtime") or DEFAULT_RUNTIME
    in_contexts = record.family != DEFAULT_FAMILY and getattr(part_of(record.family, "reading"), "CONTEXTS", False)
    transcript = read_contexts(path, runtime, events) if in_contexts else read_transcript(path, runtime)
    return ExportSession(path=path, name=name, record=record, score=score, meta=session.meta, events=events,
                         runtime=runtime, correct_sopbench=sopbench_correct_count(score) if score is not None else 0,
                         turns=transcript.turns,
                         responses=transcript.responses, other_records=transcript.other,
                         transcript_problem=transcript.problem)


def collect(root: Path) -> Collected:
    """Every session under ``root``, read, validated and grouped (groups and their sessions in a
    fixed order: by key, then by seed and folder)."""
    found = Collected(Path(root))
    groups: dict[GroupKey, list[ExportSession]] = defaultdict(list)
    for path in find_sessions(root):
        one = read_one(path, Path(root))
        if isinstance(one, Skipped):
            found.skipped.append(one)
        else:
            groups[one.key].append(one)
    for key in sorted(groups):
        found.groups[key] = sorted(groups[key], key=lambda s: (s.seed, s.name))
    return found
