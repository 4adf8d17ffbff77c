"""SIGINT and SIGTERM to a runner end its session properly instead of killing it.

``Interruption`` is a context manager held around one session (``session.run_session``) or one
matrix (``matrix.run_matrix``). While it is held, SIGINT and SIGTERM only record which signal
came; the session's driver sees it (``attach()`` gives an ``asyncio.Event`` that is set when a
signal arrives, also one that arrived before the event loop started), stops the CLI's process
group first, and ends the session with ``interrupted``: ``session_end`` with the cost priced so
far and a final, voided ``meta.json``. The previous handlers are restored on exit. Signal
handlers can only be installed from the main thread; elsewhere the guard does nothing (the
signals keep their default effect).
"""

from __future__ import annotations

import asyncio
import signal
import threading
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interruption:
    def __init__(self) -> None:
        self.signal: str | None = None          # the name of the first signal received
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
        if self._loop is not None and self._event is not None:
            self._loop.call_soon_threadsafe(self._event.set)

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
