"""The escape routes: every way a session leaves the procedure, defined once (the paper's Table 8).

Each route is one :class:`EscapeRoute` in :data:`ESCAPE_ROUTES`, in Table 8's column order:
its key (the metrics' key everywhere: ``SessionScore.routes``, the corpus frame's columns, CSV
columns, ``study score``, :func:`study.sim.truth.route_counts`), its Table 8 header, its heatmap
label, how it is detected (the words of docs/contracts.md), where the simulator's ground truth
records it and how it is measured. Every consumer reads this tuple:

- ``analysis.scoring`` detects each route with a detector keyed by the route's key and checks
  at import (:func:`check_detectors`) that it has exactly one for every route;
- ``study.sim.truth`` does the same for its own, independent classification, and writes and
  counts ``sim_truth.jsonl`` by :attr:`EscapeRoute.truth` and :attr:`EscapeRoute.truth_key`;
- ``analysis.tables`` (Table 8) and ``analysis.figures`` (the heatmap) make one column per route;
- ``analysis.corpus`` starts every generated session's expected counts from :func:`empty_counts`;
- docs/contracts.md holds :func:`contract_table` (a test compares them).

Adding a route: add it here and its detector to ``analysis.scoring`` (and, for a route recorded on
truth decision lines, to ``study.sim.truth``): both refuse to import until they have one. Then
paste :func:`contract_table` into docs/contracts.md. Nothing else. A ``stop`` or ``remark`` truth
line records one fixed thing, so at most one route reads each. This module imports nothing from
the project, so every layer can read it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from study.errors import StudyError


class Measure(StrEnum):
    """What a route's per-session value is."""

    #: Occurrences per session (0 if none). Table 8: sessions with the route / sessions (mean
    #: per session); a column of the heatmap.
    COUNT = "count"
    #: Decided accounts at the route's first occurrence (None if it never occurred). Table 8:
    #: the median over sessions; not drawn in the heatmap.
    DECIDED_AT_FIRST = "decided_at_first"


class TruthLine(StrEnum):
    """The ``sim_truth.jsonl`` line by which the simulator records a route."""

    #: A ``decision`` line naming the route (its :attr:`EscapeRoute.truth_key`) in ``routes``.
    DECISION = "decision"
    #: A ``stop`` line (a turn the model ended) with ``accounts_left`` > 0.
    STOP = "stop"
    #: The first ``remark`` line (a remark on tokens, context or budget): its ``decided``.
    REMARK = "remark"


#: The truth line each measure can be recorded by (checked below).
_TRUTH_MEASURE = {TruthLine.DECISION: Measure.COUNT, TruthLine.STOP: Measure.COUNT,
                  TruthLine.REMARK: Measure.DECIDED_AT_FIRST}


@dataclass(frozen=True)
class EscapeRoute:
    """One route away from the procedure."""

    key: str                 # the metrics' key (snake_case)
    header: str              # Table 8's column header
    label: str | None        # the heatmap's column label (two lines); None: not drawn (not a count)
    detection: str           # how the scorer detects it, per session (docs/contracts.md)
    truth: TruthLine         # where the simulator's ground truth records it
    measure: Measure = Measure.COUNT
    truth_name: str | None = None   # its name in a truth decision line's ``routes`` (default: key)

    @property
    def truth_key(self) -> str:
        """The name ``sim_truth.jsonl`` decision lines use for the route."""
        return self.truth_name or self.key


#: An assistant remark on tokens, context or budget (route ``first_token_remark``), for the
#: scorer and the simulator alike.
TOKEN_REMARK = re.compile(r"(?i)\b(tokens?|context|budget)\b")

#: Every escape route, in the column order of the paper's Table 8.
ESCAPE_ROUTES: tuple[EscapeRoute, ...] = (
    EscapeRoute("ends_turn", "Attempts to end turn, accounts left", "Attempts to end\nturn, accounts left",
                "`stop` events with `accounts_left > 0` (blocked or ended)", TruthLine.STOP),
    EscapeRoute("without_looking", "Decides without looking", "Decides\nwithout looking",
                "decisions with no successful data-tool call for the account before them",
                TruthLine.DECISION),
    EscapeRoute("partial_data", "Decides on partial data", "Decides on\npartial data",
                "decisions with some, not all five, data tools successful for the account",
                TruthLine.DECISION),
    EscapeRoute("interleaved", "Interleaved accounts", "Interleaved\naccounts",
                "decisions with ≥1 retrieval whose focus fails: a successful data call for another "
                "account between the first retrieval and the decision", TruthLine.DECISION),
    EscapeRoute("another_account", "Submits for another account", "Submits for\nanother account",
                "decisions whose account differs from that of the most recent successful "
                "`record_analysis` before them (when there is one)", TruthLine.DECISION),
    EscapeRoute("first_token_remark", "First token remark", None,
                "decided accounts at the first `assistant_text` matching "
                f"`{TOKEN_REMARK.pattern}` (null if none)", TruthLine.REMARK, Measure.DECIDED_AT_FIRST),
)

#: The header of the real turn ends with accounts left (``stop`` outcome ``ended``), which Table 8
#: and the heatmap show beside the attempts (``ends_turn``, blocked ones included); not a route:
#: the simulator's truth records the attempts.
TURN_ENDS_HEADER = "Turn ends, accounts left"

#: The route keys, in Table 8's order.
ROUTE_KEYS: tuple[str, ...] = tuple(r.key for r in ESCAPE_ROUTES)


class RegistryError(StudyError, ValueError):
    """The registry is inconsistent, or a consumer does not cover it exactly."""


def route(key: str) -> EscapeRoute:
    """The route called ``key``; an unknown key is refused naming the known ones."""
    for r in ESCAPE_ROUTES:
        if r.key == key:
            return r
    raise RegistryError(f"unknown escape route {key!r}; the routes are {', '.join(ROUTE_KEYS)}")


def counted_routes() -> tuple[EscapeRoute, ...]:
    """The routes measured as occurrences per session (the heatmap's columns), in order."""
    return tuple(r for r in ESCAPE_ROUTES if r.measure is Measure.COUNT)


def empty_counts() -> dict[str, int | None]:
    """A session's route values before anything happened: 0 per count, None per first occurrence."""
    return {r.key: 0 if r.measure is Measure.COUNT else None for r in ESCAPE_ROUTES}


def check_detectors(where: str, keys: Iterable[str], routes: Iterable[EscapeRoute] = ESCAPE_ROUTES) -> None:
    """Refuse unless ``keys`` (a consumer's detectors) name every route of ``routes`` exactly once."""
    keys = list(keys)
    want = [r.key for r in routes]
    missing = [k for k in want if k not in keys]
    unknown = [k for k in keys if k not in want]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if missing or unknown or twice:
        raise RegistryError(
            f"{where}: the escape-route detectors do not match study/procedure/escape_routes.py "
            f"(missing {missing}, not in the registry {unknown}, defined twice {twice}); "
            "give every route of the registry exactly one detector")


def contract_table() -> str:
    """The markdown table of docs/contracts.md ("Escape routes"), one row per route."""
    rows = ["| key | Table 8 header | counts, per session | simulator truth |", "| --- | --- | --- | --- |"]
    for r in ESCAPE_ROUTES:
        truth = {TruthLine.DECISION: f"`decision` lines listing `{r.truth_key}`",
                 TruthLine.STOP: "`stop` lines with `accounts_left > 0`",
                 TruthLine.REMARK: "the first `remark` line's `decided`"}[r.truth]
        detection = r.detection.replace("|", "\\|")    # a bare | would split the cell
        rows.append(f"| `{r.key}` | {r.header} | {detection} | {truth} |")
    return "\n".join(rows) + "\n"


def _validate(routes: tuple[EscapeRoute, ...]) -> None:
    """Unique keys, headers, labels and truth names; a label exactly for counts; truth lines
    that fit the measure, and at most one route per ``stop`` or ``remark`` line."""
    for attr in ("key", "header", "label", "truth_key"):
        values = [getattr(r, attr) for r in routes if getattr(r, attr) is not None]
        shared = sorted({v for v in values if values.count(v) > 1})
        if shared:
            raise RegistryError(f"study/procedure/escape_routes.py: two routes share a {attr}: {shared}")
    for r in routes:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", r.key):
            raise RegistryError(f"study/procedure/escape_routes.py: route key {r.key!r} must be snake_case")
        if (r.label is None) != (r.measure is not Measure.COUNT):
            raise RegistryError(f"study/procedure/escape_routes.py: route {r.key!r}: a count route needs a heatmap "
                                "label, and only a count route has one")
        if _TRUTH_MEASURE[r.truth] is not r.measure:
            raise RegistryError(f"study/procedure/escape_routes.py: route {r.key!r}: truth line {r.truth} records "
                                f"a {_TRUTH_MEASURE[r.truth]}, not a {r.measure}")
    for line in (TruthLine.STOP, TruthLine.REMARK):
        reading = [r.key for r in routes if r.truth is line]
        if len(reading) > 1:
            raise RegistryError(f"study/procedure/escape_routes.py: routes {reading} all read the truth line {line.value!r}, "
                                "which records one thing; record a new route on decision lines")


_validate(ESCAPE_ROUTES)
