"""SIGINT, SIGTERM, SIGHUP and SIGQUIT to a runner end its session properly instead of killing it.

``Interruption`` is a context manager held around one session (``session.run_session``) or one
matrix (``matrix.run_matrix``). While it is held, those signals (``SIGNALS``: Ctrl-C, ``kill``,
a closed terminal's hang-up, Ctrl-\\) only record which signal came; the session's driver sees
it (``attach()`` gives an ``asyncio.Event`` that is set when a signal arrives, also one that
arrived before the event loop started), stops the CLI's process group first, and ends the
session with ``interrupted``: ``session_end`` with the cost priced so far and a final, voided
``meta.json`` whose ``void_reason`` says what came (``reason``: the signal, and in a run-all
worker whether it was run-all's, passed on, or the kernel's because run-all died). The previous
handlers are restored on exit. Signal handlers can only be installed from the main thread;
elsewhere the guard does nothing (the signals keep their default effect).
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from typing import Any, Callable

#: The signals that end a session as ``interrupted`` (SIGKILL cannot be caught: see launcher.py).
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)

#: How long a worker's SIGTERM waits to tell whether its run-all died (see ``reason``).
_REPARENT_WAIT_S = 0.3


class Interruption:
    def __init__(self, parent: int | None = None, relayed: Callable[[], str | None] | None = None) -> None:
        self.signal: str | None = None          # the name of the first signal received
        self.parent = parent                    # a run-all worker: the pid of its run-all
        self.relayed = relayed                  # a worker: the signal run-all received and passed on, if any
        self.orphaned = False                   # the signal came once that parent had died
        self.to_parent = False                  # the signal was run-all's, passed on as SIGINT
        self._saved: dict[int, Any] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._event: asyncio.Event | None = None

    def __enter__(self) -> "Interruption":
        if threading.current_thread() is threading.main_thread():
            for sig in SIGNALS:
                self._saved[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._saved.items():
            signal.signal(sig, handler)
        self._saved.clear()
        self._loop = self._event = None

    def _handle(self, signum: int, frame: Any) -> None:
        if self.signal is None:
            self.signal = signal.Signals(signum).name
            self.orphaned = self.parent is not None and os.getppid() != self.parent
            passed_on = self.relayed() if self.relayed is not None and signum == signal.SIGINT else None
            if passed_on is not None:
                self.signal, self.to_parent = passed_on, True
        if self._loop is not None and self._event is not None:
            self._loop.call_soon_threadsafe(self._event.set)

    @property
    def reason(self) -> str | None:
        """What stopped the session, for its ``void_reason``: ``SIGTERM to the runner``, or for a
        worker whose run-all died (the kernel's parent-death signal) that too; None: no signal."""
        if self.signal is None:
            return None
        if self.parent is not None and self.signal == "SIGTERM" and not self.orphaned:
            # the kernel sends the death signal as the parent's first thread exits, which can be
            # a moment before the parent process is gone and this one reparented
            deadline = time.monotonic() + _REPARENT_WAIT_S
            while not (orphaned := os.getppid() != self.parent) and time.monotonic() < deadline:
                time.sleep(0.01)
            self.orphaned = orphaned
        if self.orphaned:
            return f"{self.signal}: its run-all (pid {self.parent}) died"
        if self.to_parent:
            return f"{self.signal} to run-all (pid {self.parent})"
        return f"{self.signal} to the runner"

    def attach(self) -> asyncio.Event:
        """An event of the running loop that is set once a signal has arrived. The loop's own
        signal handling takes over (it wakes the loop at once, whichever thread the signal hit);
        closing the loop hands the signals back, and ``__exit__`` restores the earlier handlers."""
        self._loop = asyncio.get_running_loop()
        self._event = asyncio.Event()
        if self._saved:
            for sig in SIGNALS:
                self._loop.add_signal_handler(sig, self._handle, sig, None)
        if self.signal is not None:
            self._event.set()
        return self._event
