"""Moving running frames to the current version of their workflow (``study fsm migrate``).

A frame runs under the version it was entered under until it is migrated explicitly. The rule:
a frame may move to the new version only if its current state exists there; otherwise the
migration is refused, naming the state and the new version's states, and nothing changes (for
any frame of the stack). A migrated frame keeps its state, history and variables; variables the
new version declares and the frame lacks get their defaults. The guards of the new version read
the same history from then on. Each migration is recorded in the proposals ledger.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .frames import FrameStore
from .ledger import Ledger
from .versions import VersionStore, utc_stamp
from .workflow import Workflow


class MigrationRefused(RuntimeError):
    """The frames cannot move to the new version (says why); nothing was changed."""


@dataclass(frozen=True)
class Moved:
    depth: int
    state: str
    from_sha256: str
    to_sha256: str
    added_variables: tuple[str, ...]


def refusal(state: str, new: Workflow) -> str | None:
    """Why a frame in ``state`` cannot move to ``new`` (None: it can)."""
    if state not in new.states:
        return (f"state '{state}' does not exist in the new version of workflow {new.name} "
                f"(its states: {', '.join(new.states)}); finish or leave the workflow under the old version, "
                "or accept a version that keeps the state")
    return None


def migrate(frames_dir: Path, agent: str, new: Workflow, *, fsync: bool = True) -> list[Moved]:
    """Move every frame of ``new``'s workflow in ``agent``'s stack that runs under another version
    to ``new``; all or none (MigrationRefused). Returns the frames moved ([]: none needed to)."""
    store = FrameStore(Path(frames_dir), agent, fsync=fsync)
    ledger = Ledger(frames_dir)
    with store.locked():
        stack = store.load()
        todo = [(i, f) for i, f in enumerate(stack, start=1) if f.workflow == new.name and f.workflow_sha256 != new.sha256]
        problems = [f"frame {i}: {why}" for i, f in todo if (why := refusal(f.state, new))]
        if problems:
            raise MigrationRefused("; ".join(problems))
        moved = []
        for depth, frame in todo:
            added = tuple(k for k in new.variables if k not in frame.variables)
            for key in added:
                frame.variables[key] = new.variables[key]
            moved.append(Moved(depth, frame.state, frame.workflow_sha256, new.sha256, added))
            frame.workflow_sha256 = new.sha256
        if moved:
            store.save(stack)
            with ledger.locked():
                for m in moved:
                    ledger.append({"kind": "migrated", "at": utc_stamp(), "agent": agent, "workflow": new.name,
                                   "depth": m.depth, "state": m.state, "from_sha256": m.from_sha256,
                                   "to_sha256": m.to_sha256, "added_variables": list(m.added_variables)})
    return moved


def describe(moved: list[Moved], store: VersionStore) -> list[str]:
    """One line per moved frame, with version numbers where the chain knows them."""
    def name(sha: str) -> str:
        number = store.number_of(sha)
        return f"version {number}" if number else f"sha256 {sha[:12]}..."

    return [f"frame {m.depth} (state {m.state}): {name(m.from_sha256)} -> {name(m.to_sha256)}"
            + (f"; new variables {list(m.added_variables)} set to their defaults" if m.added_variables else "")
            for m in moved]
