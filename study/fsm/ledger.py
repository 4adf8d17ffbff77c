"""The proposals ledger: an append-only JSONL file beside a workflow's frames.

``<frames_dir>/proposals.jsonl`` holds one JSON object a line, of four kinds:

- ``proposal``: a change an agent proposed (``proposals.py``): its ``id`` (``p1``, ``p2``, ...),
  time, session, agent, state, workflow (name, file, the sha256 it was made against), reason,
  evidence, the change (``text`` or ``edits``), the complete proposed text, and whether it passed
  the loader's checks (``valid``, ``problems``);
- ``accepted`` / ``rejected``: a person's decision on one (``study fsm accept|reject``);
- ``migrated``: a frame moved to another version (``study fsm migrate``).

Lines are only ever appended, under ``proposals.lock``. The file may come from an untrusted
sessions folder: every line is checked when read, and a bad one stops the reading with its line.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from study.errors import StudyError

LEDGER_NAME = "proposals.jsonl"
KINDS = ("proposal", "accepted", "rejected", "migrated")
#: The largest ledger read (bytes): a longer one is refused rather than read into memory.
MAX_LEDGER_BYTES = 64 * 1024 * 1024


class LedgerError(StudyError, RuntimeError):
    """The ledger cannot be read, or a proposal id is unknown (names the file and what to do)."""


@dataclass(frozen=True)
class Proposal:
    """A proposal record with the decision on it (None while open)."""

    record: dict[str, Any]
    decision: dict[str, Any] | None

    @property
    def id(self) -> str:
        return self.record["id"]

    @property
    def status(self) -> str:
        return "open" if self.decision is None else self.decision["kind"]


class Ledger:
    """One frames folder's proposals ledger."""

    def __init__(self, frames_dir: Path):
        self.dir = Path(frames_dir)
        self.path = self.dir / LEDGER_NAME

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        self.dir.mkdir(parents=True, exist_ok=True)
        with open(self.dir / "proposals.lock", "a") as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)

    def records(self) -> list[dict[str, Any]]:
        """Every record, checked ([] when there is no ledger yet)."""
        try:
            if self.path.stat().st_size > MAX_LEDGER_BYTES:
                raise LedgerError(f"{self.path}: larger than {MAX_LEDGER_BYTES} bytes; this is not a proposals ledger")
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except (OSError, UnicodeDecodeError) as exc:
            raise LedgerError(f"{self.path}: cannot be read ({exc})") from None
        out = []
        for n, line in enumerate(text.splitlines(), start=1):
            try:
                record = json.loads(line)
            except ValueError:
                raise LedgerError(f"{self.path}:{n}: not a JSON object; the ledger is append-only: restore it") from None
            problem = _problem(record)
            if problem:
                raise LedgerError(f"{self.path}:{n}: {problem}; the ledger is append-only: restore it")
            out.append(record)
        return out

    def append(self, record: dict[str, Any]) -> None:
        """Append one record (the caller holds :meth:`locked`)."""
        line = json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n"
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())

    def next_id(self) -> str:
        return f"p{sum(1 for r in self.records() if r['kind'] == 'proposal') + 1}"

    def proposals(self, workflow: str | None = None) -> list[Proposal]:
        """The proposals in order, each with its decision; only ``workflow``'s (name or file) if given."""
        records = self.records()
        decisions = {r["id"]: r for r in records if r["kind"] in ("accepted", "rejected")}
        out = [Proposal(r, decisions.get(r["id"])) for r in records if r["kind"] == "proposal"]
        if workflow is not None:
            wanted = {workflow, str(Path(workflow).resolve())}
            out = [p for p in out if p.record["workflow"] in wanted or p.record["workflow_file"] in wanted]
        return out

    def get(self, proposal_id: str) -> Proposal:
        for proposal in self.proposals():
            if proposal.id == proposal_id:
                return proposal
        known = ", ".join(p.id for p in self.proposals()) or "none yet"
        raise LedgerError(f"no proposal {proposal_id!r} in {self.path} (proposals: {known}); list them with `study fsm proposals --frames {self.dir}`")


_REQUIRED = {
    "proposal": {"id": str, "at": str, "workflow": str, "workflow_file": str, "base_sha256": str, "sha256": str,
                 "reason": str, "evidence": list, "change": dict, "text": str, "valid": bool, "problems": list},
    "accepted": {"id": str, "at": str, "version": int, "sha256": str},
    "rejected": {"id": str, "at": str, "why": str},
    "migrated": {"at": str, "agent": str, "workflow": str, "from_sha256": str, "to_sha256": str, "state": str},
}


def _problem(record: Any) -> str | None:
    if not isinstance(record, dict):
        return "not a JSON object"
    kind = record.get("kind")
    if kind not in KINDS:
        return f"unknown record kind {kind!r} (kinds: {', '.join(KINDS)})"
    for key, typ in _REQUIRED[kind].items():
        if not isinstance(record.get(key), typ) or (typ is int and isinstance(record.get(key), bool)):
            return f"{kind} record lacks {key!r} ({typ.__name__})"
    if kind == "proposal":
        if not all(isinstance(e, str) for e in record["evidence"]):
            return "proposal record's 'evidence' must be a list of texts"
        if not all(isinstance(p, dict) and isinstance(p.get("message"), str) for p in record["problems"]):
            return "proposal record's 'problems' must be a list of {line, message, source}"
        change = record["change"]
        if not (isinstance(change.get("text"), str) or isinstance(change.get("edits"), list)):
            return "proposal record's 'change' must hold 'text' or 'edits'"
    return None
