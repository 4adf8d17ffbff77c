"""The live progress display of ``study run-all``.

It reads only the session folders (meta.json and the growing events.jsonl), so it shows the same
thing whatever the workers are doing: sessions done, the decisions of each running session and
the cost so far. On a terminal the block is redrawn in place; otherwise (a log file, CI) a line
is printed whenever something changed, at most every ``quiet_s`` seconds.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TextIO

from study.session_io.meta import effective_status, read_meta
from study.session_io.vocabulary import SessionStatus

from .status import LogProgress


class ProgressDisplay:
    def __init__(self, session_dirs: list[Path], root: Path, *, stream: TextIO | None = None,
                 quiet_s: float = 30.0):
        self.dirs = list(session_dirs)
        self.root = Path(root)
        self.stream = stream or sys.stdout
        self.tty = self.stream.isatty()
        self.quiet_s = quiet_s
        self.done: dict[Path, str] = {}
        self._progress = {d: LogProgress(d) for d in self.dirs}
        self._drawn_lines = 0
        self._last_text = ""
        self._last_print = 0.0

    def finished(self, session_dir: Path, status: str) -> None:
        self.done[session_dir] = status

    def _label(self, d: Path) -> str:
        try:
            return str(d.relative_to(self.root))
        except ValueError:
            return str(d)

    def render(self) -> str:
        running, cost = [], 0.0
        for d in self.dirs:
            progress = self._progress[d].update()
            cost += progress.cost_usd
            if d not in self.done and effective_status(read_meta(d)) == SessionStatus.RUNNING:
                total = progress.accounts if progress.accounts is not None else "?"
                running.append(f"  {self._label(d)}: {progress.decisions}/{total} decided, ${progress.cost_usd:.2f}")
        queued = len(self.dirs) - len(self.done) - len(running)
        head = (f"sessions: {len(self.done)}/{len(self.dirs)} done, {len(running)} running, {queued} queued; "
                f"cost so far ${cost:.2f}")
        return "\n".join([head, *running])

    def refresh(self, force: bool = False) -> None:
        text = self.render()
        if self.tty:
            if self._drawn_lines:
                self.stream.write(f"\x1b[{self._drawn_lines}F\x1b[J")
            self.stream.write(text + "\n")
            self._drawn_lines = text.count("\n") + 1
        elif force or (text != self._last_text and time.monotonic() - self._last_print >= self.quiet_s):
            self.stream.write(text + "\n")
            self._last_print = time.monotonic()
        self._last_text = text
        self.stream.flush()
