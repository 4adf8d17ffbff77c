"""Frames and their persistence: one JSON file per agent, replaced atomically on every commit.

A *frame* is one active workflow of one agent: the workflow's name (and the sha256 of the file
it was entered under), the current state, the history (tool calls and transitions, in order)
and the variables. An agent has a *stack* of frames: entering a workflow pushes one, exiting
pops it.

``<frames_dir>/<agent>.json`` holds the whole stack. It is written by writing a temporary file
in the same folder, fsync-ing it, renaming it over the old file and fsync-ing the folder, so a
crash at any moment leaves either the previous or the new stack on disk, never a torn file.
``<agent>.lock`` serialises processes that share the folder (the hook commands and the MCP
server of a Claude Code project).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import orjson

from study.errors import StudyError

FRAME_SCHEMA = 1
_AGENT_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")


class FrameStoreError(StudyError, RuntimeError):
    """The frames file exists but cannot be used (names the file and what to do)."""


@dataclass
class Frame:
    workflow: str
    workflow_sha256: str
    state: str
    variables: dict[str, Any]
    history: list[dict[str, Any]] = field(default_factory=list)
    #: number of commits (transitions) so far; tokens are bound to it
    commits: int = 0

    def to_json(self) -> dict[str, Any]:
        """The frame as JSON-ready data (shares the history list: serialise it, do not mutate it)."""
        return {
            "workflow": self.workflow,
            "workflow_sha256": self.workflow_sha256,
            "state": self.state,
            "variables": self.variables,
            "history": self.history,
            "commits": self.commits,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Frame":
        return cls(
            workflow=str(data["workflow"]),
            workflow_sha256=str(data["workflow_sha256"]),
            state=str(data["state"]),
            variables=dict(data["variables"]),
            history=list(data["history"]),
            commits=int(data["commits"]),
        )


class FrameStore:
    """Reads and atomically writes one agent's frame stack."""

    def __init__(self, frames_dir: Path, agent: str = "main", *, fsync: bool = True):
        if not _AGENT_NAME.match(agent):
            raise ValueError(f"agent name {agent!r} must be 1-100 letters, digits, '_', '.' or '-'")
        self.dir = Path(frames_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.agent = agent
        self.path = self.dir / f"{agent}.json"
        self.fsync = fsync

    def load(self) -> list[Frame]:
        """The stack on disk ([] if nothing was written yet)."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        try:
            data = orjson.loads(text)
            if data.get("schema") != FRAME_SCHEMA:
                raise ValueError(f"schema {data.get('schema')!r}, expected {FRAME_SCHEMA}")
            return [Frame.from_json(f) for f in data["stack"]]
        except (orjson.JSONDecodeError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise FrameStoreError(
                f"the frames file {self.path} cannot be read ({exc}). It is only ever replaced "
                "atomically, so it was edited by hand or by another program: restore it, or move it "
                "away to start with no active workflow."
            ) from None

    def save(self, stack: list[Frame]) -> None:
        """Replace the file with ``stack`` atomically (temp file, fsync, rename, fsync folder)."""
        payload = orjson.dumps(
            {"schema": FRAME_SCHEMA, "agent": self.agent, "stack": [f.to_json() for f in stack]},
            default=str,
        )
        tmp = self.dir / f".{self.agent}.json.{os.getpid()}.tmp"
        with open(tmp, "wb") as fh:
            fh.write(payload)
            fh.flush()
            if self.fsync:
                os.fsync(fh.fileno())
        os.replace(tmp, self.path)
        if self.fsync:
            dir_fd = os.open(self.dir, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)

    def signature(self) -> tuple[int, int, int] | None:
        """(inode, size, mtime) of the file, to notice that another process replaced it."""
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold an exclusive lock shared by every process using this folder and agent."""
        with open(self.dir / f"{self.agent}.lock", "a") as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
