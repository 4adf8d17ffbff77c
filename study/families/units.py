"""What a session's units are called, in its family's words: what every reader asks before it
counts them.

A session's work is a list of units (``session_start``'s ``order``; meta.json's ``accounts`` is its
length), of which ``decisions`` are done and ``accounts_left`` are not (the log's and meta.json's
names, the main study's; ``study.families.base.Work``). What a unit is, and what being done is, is
the family's: SOP-Bench's batches decide accounts (or the task's items); a benchmark's session may
be one conversation or one task, which the session does not decide (its verdict says how it went);
a staged run's units may be its contexts or its periods. The family's ``reading`` part
says it: ``UNITS`` (one, many, done: the word of a done unit, None where a session decides
nothing), or ``units(record)`` where its protocol decides, asked through the registry, so no
reader names a family. The readers: the live display and the end-of-session line of ``study run``
and ``run-all``, ``run-all``'s summary, ``study status``, the viewer, the Inspect export.

The main study's words are what its outputs have always said: the task's plural, singular or not
(``1 accounts left``), and its count ``3/200 decided``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .registry import DEFAULT_FAMILY, part_of

__all__ = ["Units", "item_plural", "main_units", "of_start", "of_study"]


@dataclass(frozen=True)
class Units:
    """A session's units in its family's words: ``one`` and ``many`` (``period``, ``periods``),
    ``done`` the word of a done one (``decided``, ``done``, ``used``; None: a session decides none,
    its verdict says how its one unit went); ``main``: the main study's words (its count is
    ``3/200 decided``)."""

    one: str
    many: str
    done: str | None
    main: bool = False

    @property
    def decides(self) -> bool:
        """Whether a count of done units says anything (else the family's verdict does)."""
        return self.done is not None

    @property
    def label(self) -> str:
        """The words of a count of done units: ``decided`` (the main study's), ``periods done``;
        a session that decides nothing: its unit (``conversation``)."""
        if self.done is None:
            return self.one
        return self.done if self.main else f"{self.many} {self.done}"

    def size(self, n: Any) -> str:
        """``6 periods``, ``1 conversation``, ``200 accounts`` (``?`` for a number not known)."""
        return f"{n if isinstance(n, int) else '?'} {self.one if n == 1 else self.many}"

    def count(self, done: Any, total: Any) -> str | None:
        """``3/200 decided``, ``2/6 periods done``; None for a session that decides nothing."""
        if self.done is None:
            return None
        known = lambda n: str(n) if isinstance(n, int) else "?"   # noqa: E731
        return f"{known(done)}/{known(total)} {self.label}"

    def left(self, n: Any) -> str:
        """``1 accounts left`` (the main study's, as always), ``0 periods left``."""
        return f"{n} {self.one if n == 1 else self.many} left"

    def words(self) -> tuple[str, str, str | None]:
        """(one, many, done): the plain data a record keeps (a status row, an export's metadata)."""
        return (self.one, self.many, self.done)


#: A family whose reading says nothing of its units (or an unknown one): units done.
GENERIC = Units("unit", "units", "done")


def item_plural(task: Any) -> str:
    """What task ``task`` (a session_start's ``task``; None: the referral study) calls its items;
    "items" for a task that cannot be loaded (the log is untrusted input)."""
    if task is None:
        return "accounts"
    from sopbench_tools.tasks import TaskError, resolve_task

    try:
        return resolve_task(str(task)).item.plural
    except (TaskError, OSError, ValueError):
        return "items"


@functools.lru_cache(maxsize=64)
def _main(task: str | None) -> Units:
    plural = item_plural(task)
    return Units(plural, plural, "decided", main=True)


def main_units(task: Any = None) -> Units:
    """The main study's words, of its task ``task`` (None: the project's referral study)."""
    return _main(None if task is None else str(task))


def _of_reading(reading: Any, record: Mapping[str, Any]) -> Units:
    words = getattr(reading, "units", None)
    found = words(dict(record)) if callable(words) else getattr(reading, "UNITS", None)
    if isinstance(found, tuple) and len(found) == 3 and all(isinstance(w, str) for w in found[:2]) \
            and (found[2] is None or isinstance(found[2], str)):
        return Units(*found)
    return GENERIC


def of_start(start: Any) -> Units:
    """The units of the session whose ``session_start`` is ``start`` (its family, its protocol, its
    task; an untrusted record: anything that is no family's is the generic words)."""
    start = start if isinstance(start, Mapping) else {}
    family = start.get("family")
    if family is None or family == DEFAULT_FAMILY:
        return main_units(start.get("task"))
    return _of_reading(part_of(family, "reading"), start)


def of_study(study: Any, task: Any = None) -> Units:
    """The units of a study's sessions (``study.protocol.studies``; None or the main one: the main
    study's, of ``task``), before any has started: its family's words by its params (its protocol)."""
    if study is None or getattr(study, "main", True):
        return main_units(task)
    params = study.params if isinstance(getattr(study, "params", None), Mapping) else {}
    return _of_reading(part_of(study.family, "reading"), {**params, "family": study.family})
