"""A live frame: a persisted :class:`~study.fsm.frames.Frame` together with its workflow and the
trackers of the named checks its guards use, fed with every event of the frame's history."""

from __future__ import annotations

from typing import Any

from .checks import tracker_key
from .frames import Frame
from .workflow import NamedCheck, Workflow


class _Live:
    """A frame plus what the runtime derives from it: its workflow and the checks' trackers."""

    def __init__(self, frame: Frame, workflow: Workflow):
        self.frame = frame
        self.workflow = workflow
        self.trackers: dict[Any, Any] = {}
        for transition in workflow.transitions.values():
            for check in transition.hard:
                if isinstance(check, NamedCheck):
                    key = tracker_key(check.registered, check.params)
                    if key is not None and key not in self.trackers:
                        self.trackers[key] = check.registered.tracker(check.params)
        for position, event in enumerate(frame.history):
            self._feed(position, event)

    def append(self, event: dict[str, Any]) -> None:
        self.frame.history.append(event)
        self._feed(len(self.frame.history) - 1, event)

    def _feed(self, position: int, event: dict[str, Any]) -> None:
        for tracker in self.trackers.values():
            tracker.add(position, event)
