"""Reading one session for the viewer: its meta, its log and its score with clause evidence.

Everything the viewer shows about compliance comes from ``analysis.scoring.score_log`` (with
``evidence=True``): the same code as the tables, never a second scorer. A session is read once
and kept (``Store``) until its files change, so paging through its events does not re-read it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from analysis.scoring import SessionScore, score_log
from study.session_io.folders import EVENTS_NAME, META_NAME, TRANSCRIPT_NAME, attempts
from study.session_io.issues import LogError, MetaError
from study.session_io.meta import SessionMeta
from study.session_io.reader import LogRead, SessionRead, read_session
from study.session_io.record import SessionRecord
from study.session_io.safe_files import LINE_CAP, TRANSCRIPT_CAP, UnsafeFile, read_capped

from study.transcripts import turns
from .paths import session_dir

#: A transcript line over ``LINE_CAP`` keeps only its first bytes (shown as unreadable).
TEXT_SHOWN = 4000


@dataclass
class Session:
    """One session as the viewer shows it; ``score`` is None when its records break a rule
    (``error`` says which), and the page then shows the error instead of metrics, and for a
    session of another task family than SOP-Bench's, which its family's outcome judges."""

    name: str
    path: Path
    meta: SessionMeta | None
    log: LogRead | None
    score: SessionScore | None
    error: str | None
    exploratory: bool
    #: Every rule the session's records break (``error`` is the first), each ``file:line: message``.
    problems: list[str] = field(default_factory=list)
    #: What the session is (identity, status, voided): ``study.session_io.record``.
    record: SessionRecord | None = None
    #: What the pages built from it once (a family session's conversation or contexts).
    cache: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.record is None:
            self.record = SessionRecord.of(SessionRead(self.path, self.meta, self.log, []))

    @property
    def events(self) -> list[dict[str, Any]]:
        return self.log.events if self.log else []

    @property
    def start(self) -> dict[str, Any]:
        return self.log.start if self.log else {}

    @property
    def attempts(self) -> list[str]:
        """The names of this session's earlier attempts (``attempt-<k>/`` inside it, moved aside
        by ``--rerun-voided``); each is browsable like a session."""
        return [f"{self.name}/{p.name}" for p in attempts(self.path)]

    @property
    def order(self) -> list[str]:
        """The batch (``session_start.order``); of a damaged log, only its account names."""
        order = self.start.get("order")
        return [a for a in order if isinstance(a, str)] if isinstance(order, list) else []

    @property
    def simulated(self) -> bool:
        if self.score is not None:
            return self.score.simulated
        return bool(self.start.get("simulated") or (self.meta and self.meta.simulated))

    def seconds(self, event: dict[str, Any]) -> float | None:
        """Seconds from the session's start to ``event``."""
        return _seconds(self.start.get("t"), event.get("t"))


def _seconds(origin: Any, t: Any) -> float | None:
    try:
        return round((datetime.fromisoformat(t) - datetime.fromisoformat(origin)).total_seconds(), 3)
    except (TypeError, ValueError):
        return None


def read(root: Path, name: str) -> Session:
    """Read and score session ``name`` of ``root`` (``paths.Refused`` outside it)."""
    path = session_dir(root, name)
    root = Path(root).resolve()
    try:
        read_ = read_session(path, strict=True)
    except (LogError, MetaError) as exc:
        loose = read_session(path, strict=False)
        record = SessionRecord.of(loose, root)
        return Session(name, path, loose.meta, loose.log, None, str(exc), record.exploratory,
                       [issue.describe(path) for issue in loose.errors], record)
    record = SessionRecord.of(read_, root)
    if record.family != "sopbench":    # its family's outcome is its verdict (family_docs), not SOP-Bench's scores
        return Session(name, path, read_.meta, read_.log, None, None, record.exploratory, record=record)
    try:
        score = score_log(read_.log, read_.meta, evidence=True)
    except (KeyError, TypeError, ValueError, IndexError) as exc:   # a record the rules let through
        return Session(name, path, read_.meta, read_.log, None,
                       f"the scorer cannot read this session ({type(exc).__name__}: {exc})", record.exploratory,
                       record=record)
    return Session(name, path, read_.meta, read_.log, score, None, record.exploratory, record=record)


def _stamp(path: Path) -> tuple[float, ...]:
    """When the session's files last changed (a running session's log grows)."""
    out = []
    for file in (EVENTS_NAME, META_NAME):
        try:
            st = (path / file).stat()
            out += [st.st_mtime, st.st_size]
        except OSError:
            out += [0.0, 0]
    return tuple(out)


class Store:
    """Sessions read so far, at most ``size`` of them, re-read when their files change."""

    def __init__(self, root: Path, size: int = 8) -> None:
        self.root = Path(root)
        self.size = size
        self._lock = threading.Lock()
        self._kept: OrderedDict[str, tuple[tuple[float, ...], Session]] = OrderedDict()
        self._transcripts: OrderedDict[Path, tuple[tuple[float, int], list[bytes]]] = OrderedDict()
        self._conversations: OrderedDict[Path, tuple[tuple[float, int], Any]] = OrderedDict()
        self._rows: OrderedDict[str, tuple[tuple[float, ...], dict[str, Any]]] = OrderedDict()

    def _keep(self, cache: OrderedDict, key: Any, stamp: tuple[float, ...], make: Callable[[], Any],
              size: int | None) -> Any:
        """``cache``'s value for ``key`` while its files' ``stamp`` is unchanged, else ``make()``
        (run outside the lock) kept in its place; past ``size`` entries the least recent goes."""
        with self._lock:
            kept = cache.get(key)
            if kept and kept[0] == stamp:
                cache.move_to_end(key)
                return kept[1]
        value = make()
        with self._lock:
            cache[key] = (stamp, value)
            while size is not None and len(cache) > size:
                cache.popitem(last=False)
        return value

    def session(self, name: str) -> Session:
        path = session_dir(self.root, name)
        return self._keep(self._kept, name, _stamp(path), lambda: read(self.root, name), self.size)

    def row(self, name: str, build: Callable[[Session], dict[str, Any]]) -> dict[str, Any]:
        """``build`` (the matrix's row) of session ``name``, kept for every session while its
        files are unchanged, so the matrix re-reads only the sessions that changed."""
        return self._keep(self._rows, name, _stamp(self.root / name),
                          lambda: build(read(self.root, name)), None)

    def transcript_lines(self, session: Session, context: int | None = None) -> tuple[list[bytes], str | None]:
        """The lines of the session's transcript (the CLI's own: read on first use, kept while
        unchanged), and why it is not shown if it is refused (not a regular file inside the
        session folder, or over a cap: ``safe_files``); no lines when the session has none.
        ``context``: an ended context's of a run of fresh contexts (``contexts/``)."""
        path = transcript_path(session, context)
        try:
            st = path.stat()
        except OSError:
            return [], None
        return self._keep(self._transcripts, path, (st.st_mtime, st.st_size),
                          lambda: _transcript(path, session.path), 2)

    def conversation(self, session: Session, context: int | None = None) -> tuple[tuple[list[dict[str, Any]], int], str | None]:
        """The transcript as a conversation (``conversation.turns``, kept while the transcript
        is unchanged), and why the transcript is not shown if it is refused."""
        lines, refused = self.transcript_lines(session, context)
        path = transcript_path(session, context)
        try:
            st = path.stat()
        except OSError:
            return ([], 0), refused
        return self._keep(self._conversations, path, (st.st_mtime, st.st_size), lambda: turns(session.record.runtime, lines), 2), refused


#: Where a run of fresh contexts keeps each ended context's transcript (docs/contracts.md).
CONTEXTS_DIR = "contexts"


def transcript_path(session: Session, context: int | None = None) -> Path:
    """The session's transcript, or context ``context``'s of a run of fresh contexts."""
    if context is None:
        return session.path / TRANSCRIPT_NAME
    return session.path / CONTEXTS_DIR / f"context-{int(context)}.transcript.jsonl"


def _transcript(path: Path, session: Path) -> tuple[list[bytes], str | None]:
    try:
        data = read_capped(path, within=session, max_bytes=TRANSCRIPT_CAP)
    except OSError as exc:
        return [], f"{exc}; it is not shown" if isinstance(exc, UnsafeFile) else f"{path.name} cannot be read ({exc.strerror})"
    lines = [line for line in data.split(b"\n") if line.strip()]
    return [line if len(line) <= LINE_CAP else line[:TEXT_SHOWN] for line in lines], None
