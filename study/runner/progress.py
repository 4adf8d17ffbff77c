"""What a session has done so far, read from its growing ``events.jsonl`` alone.

``LogProgress`` reads a session's log incrementally (only the lines added since the last read;
a line being written is left for next time) and keeps what the live display (``display.py``)
and ``study status`` show: decisions, the spend as streamed (the ``usage`` event the runner
logs after each model response, then ``call_end`` and ``session_end``) beside the session's
spending cap, when it started, resumes, stop-gate blocks, gate denials (and those since the last
new decision, beside the exploratory conditions' ``gate_refusals`` limit), compactions, API
errors the CLI retried and how it ended; for another task family's session, its fresh contexts,
how many events of each of the family's own kinds it logged and the last of each (which the
family's ``reading`` part reads: ``study.families.registry``), the unit its kind that ends one
marks done, and the family's ``outcome``; what its units are called (``study.families.units``: its
family's words). From these, the rate of decisions and the time left at that rate, and a family
session's progress in its family's words (``done_words``, ``family_progress``).
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sopbench_tools.tool_definitions import DECISION_TOOL
from study.families.registry import DEFAULT_FAMILY, part_of
from study.families.units import Units, main_units, of_start
from study.session_io.folders import EVENTS_NAME
from study.session_io.vocabulary import EventKind, SessionStatus

#: The ``outcome`` of a ``stop`` event whose end of turn the stop gate blocked.
BLOCKED = "blocked"
#: The kinds every family's log may hold: any other is a family's own (counted, its last kept).
_COMMON = frozenset(EventKind)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def family_progress(family: str, progress: "LogProgress") -> str:
    """A family session in a few words: its family's verdict once its log holds one
    (``study.transcripts.outcomes``), else where it is: the family's own words when its
    ``reading`` part has them (``running(progress)``), else the running context and its unit."""
    from study.transcripts.outcomes import verdict

    if progress.outcome is not None:
        return verdict(progress.outcome)["text"]
    if progress.ended is not None:
        return "no outcome"
    running = getattr(part_of(family, "reading"), "running", None)
    if running is not None:
        return running(progress)
    if progress.contexts:
        return f"context {progress.contexts}" + (f" ({progress.unit})" if progress.unit and progress.unit != f"context {progress.contexts}" else "")
    return "starting"


def wall_clock() -> datetime:
    """The display's clock, an aware ``datetime`` (the log's timestamps are the strings of
    ``study.session_io.writer.utc_now``; this is the time to compare them with)."""
    return datetime.now(timezone.utc)


class LogProgress:
    """Decisions, spend and counters of one session so far, read from its events.jsonl
    incrementally. Lines that are not JSON objects (a line being written, damaged bytes) are skipped."""

    def __init__(self, session_dir: Path):
        self.path = Path(session_dir) / EVENTS_NAME
        self._reset()

    def _reset(self) -> None:
        self._offset = 0
        self._file: tuple[int, int] | None = None   # (device, inode) of the log read so far
        self.final_decisions: int | None = None   # meta.json's count once the session ended (``settle``)
        self.decided: set[str] = set()
        self.cost_usd = 0.0
        self.accounts: int | None = None
        self.start: dict | None = None            # the session_start event (``study status``'s identity of a running session)
        #: what the session's units are called (its family's words; the referral study's accounts by default)
        self.units: Units = main_units()
        self.cap_usd: float | None = None
        self.simulated = False
        self.priced = True        # False: the model has no list prices (its spend is not known while it runs)
        self.model_id: str | None = None
        self.started: datetime | None = None
        self.last_event: datetime | None = None
        self.ended: str | None = None
        self.duration_s: float | None = None
        self.resumes = 0
        self.blocks = 0           # stop-gate blocks (the end of a turn refused)
        self.denied = 0           # tool calls the gate refused
        self.refusals = 0         # ... since the last new decision
        self.refusal_cap: int | None = None   # the gate_refusals limit (exploratory conditions), if any
        self.compactions = 0
        self.api_retries = 0      # transient API errors the CLI retried (api_retry)
        # another task family's session: its fresh contexts (the last one's unit), how many events
        # of each of its own kinds and the last of each (its reading part reads them), the kind
        # whose event marks its one unit done (its reading's UNIT_END) and its verdict (outcome)
        self.contexts = 0
        self.unit: str | None = None
        self.counts: dict[str, int] = {}
        self.lasts: dict[str, dict] = {}
        self.unit_end: str | None = None
        self.outcome: dict | None = None

    def update(self) -> "LogProgress":
        """Read what was added to the log. A log that was replaced (``--rerun-voided`` moved the
        earlier attempt aside and a new one began) or cut shorter is read again from its start."""
        try:
            with open(self.path, "rb") as fh:
                st = os.fstat(fh.fileno())
                if self._file is not None and ((st.st_dev, st.st_ino) != self._file or st.st_size < self._offset):
                    self._reset()
                self._file = (st.st_dev, st.st_ino)
                fh.seek(self._offset)
                chunk = fh.read()
        except FileNotFoundError:
            if self._file is not None:   # moved aside: what was read is no longer this session's
                self._reset()
            return self
        except OSError:
            return self
        complete = chunk[: chunk.rfind(b"\n") + 1]  # leave a line being written for next time
        self._offset += len(complete)
        for line in complete.splitlines():
            try:
                event = json.loads(line)
            except ValueError:  # not JSON, or not UTF-8
                continue
            self.feed(event)
        return self

    def feed(self, event: Any) -> None:
        """Count one event."""
        if not isinstance(event, dict):
            return
        kind = event.get("kind")
        self.last_event = _time(event.get("t")) or self.last_event
        if kind == EventKind.SESSION_START:
            self._start(event)
        elif (kind == EventKind.TOOL_CALL and event.get("tool") == DECISION_TOOL and event.get("ok") is True
              and isinstance(event.get("account"), str)):
            if event["account"] not in self.decided:
                self.refusals = 0
            self.decided.add(event["account"])
        elif kind == EventKind.TOOL_CALL and event.get("allowed") is False:
            self.denied += 1
            self.refusals += 1
        elif kind in (EventKind.CALL_END, EventKind.USAGE):
            cost = _number(event.get("session_cost_usd"))
            self.cost_usd = cost if cost is not None else self.cost_usd
        elif kind == EventKind.RESUME:
            self.resumes += 1
        elif kind == EventKind.STOP and event.get("outcome") == BLOCKED:
            self.blocks += 1
        elif kind == EventKind.COMPACTION:
            self.compactions += 1
        elif kind == EventKind.API_RETRY:
            self.api_retries += 1
        elif kind == EventKind.CONTEXT_START:
            self.contexts += 1
            self.unit = event.get("unit") if isinstance(event.get("unit"), str) else None
        elif kind == EventKind.CONTEXT_END:
            self.decided.add(f"context {event.get('n')}")     # a run's unit (a context) is done
        elif kind == EventKind.OUTCOME:
            self.outcome = event
        elif kind == EventKind.SESSION_END:
            self.ended = event.get("status") if isinstance(event.get("status"), str) else None
            cost = _number(event.get("cost_usd"))
            self.cost_usd = cost if cost is not None else self.cost_usd
            self.duration_s = _number(event.get("duration_s"))
        elif isinstance(kind, str) and kind not in _COMMON:    # a family's own kind
            self.counts[kind] = self.counts.get(kind, 0) + 1
            self.lasts[kind] = event
            if kind == self.unit_end:
                self.decided.add(kind)           # the session's one unit is done

    def _start(self, event: dict) -> None:
        self.start = event
        if isinstance(event.get("order"), list):
            self.accounts = len(event["order"])
        self.units = of_start(event)
        limits = event.get("limits") if isinstance(event.get("limits"), dict) else {}
        self.cap_usd = _number(limits.get("spending_usd"))
        cap = _number(limits.get("gate_refusals"))
        self.refusal_cap = int(cap) if cap is not None else None
        self.simulated = event.get("simulated") is True
        self.priced = event.get("prices_per_mtok", {}) is not None
        self.model_id = event.get("model_id") if isinstance(event.get("model_id"), str) else None
        self.started = _time(event.get("t"))
        self.unit_end = getattr(part_of(event.get("family"), "reading"), "UNIT_END", None)

    def settle(self, meta: Any) -> None:
        """The session has ended: show what its meta.json says (the record ``study status``
        reads): status, decisions and cost, over the counts read from the log."""
        if meta is None or not isinstance(meta.status, SessionStatus) or not meta.status.final:
            return
        self.ended = str(meta.status)
        if isinstance(meta.decisions, int):
            self.final_decisions = meta.decisions
        if _number(meta.cost_usd) is not None:
            self.cost_usd = float(meta.cost_usd)

    @property
    def decisions(self) -> int:
        return self.final_decisions if self.final_decisions is not None else len(self.decided)

    @property
    def family(self) -> str:
        """The session's family (its session_start's; the main study's before it is read)."""
        family = self.start.get("family") if self.start is not None else None
        return family if isinstance(family, str) else DEFAULT_FAMILY

    def done_words(self) -> str:
        """Its units done so far in its family's words (``3/200 decided``, ``2/6 periods done``); for
        a session that decides nothing, where it is or its verdict (``family_progress``)."""
        counted = self.units.count(self.decisions, self.accounts)
        return counted if counted is not None else family_progress(self.family, self)

    def elapsed_s(self, now: datetime | None = None) -> float | None:
        """Seconds since the session started (its duration once it ended); None before it started."""
        if self.ended is not None and self.duration_s is not None:
            return self.duration_s
        if self.started is None:
            return None
        end = self.last_event if self.ended is not None and self.last_event else (now or wall_clock())
        return max((end - self.started).total_seconds(), 0.0)

    def rate_per_min(self, now: datetime | None = None) -> float | None:
        """Decisions (units done) per minute since the start; None before the first, and for a
        session that decides nothing."""
        elapsed = self.elapsed_s(now)
        if not self.decisions or not elapsed or not self.units.decides:
            return None
        return self.decisions / (elapsed / 60)

    def eta_s(self, now: datetime | None = None) -> float | None:
        """Seconds until the last account is decided at the rate so far (0 once ended)."""
        if self.ended is not None:
            return 0.0
        rate = self.rate_per_min(now)
        if rate is None or self.accounts is None:
            return None
        return max(self.accounts - self.decisions, 0) / rate * 60
