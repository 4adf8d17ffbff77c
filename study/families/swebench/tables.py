"""Tables 3 and 9 of the paper (Analysis 1, SWE-bench Verified) from the session logs of SWE-bench studies.

Each analysed session is one task under Plain or FSM. Everything comes from its log: the
``outcome`` event (the official harness's verdict on the final patch and the process measures of
``measures.py``), ``session_start`` (the task set, the half of Hard-100) and ``session_end`` (time,
cost, turns, how it ended). Per model (on its runtime) and task set, the two agents are paired by
task: a task counts when both agents have a verdict on it (a session the harness could not grade
is voided and never counted; a task run by one agent only is unpaired, and noted).

Table 3 (the paper's, one row per agent): Resolved, New tests, Time (s), Cost ($), with the tasks.
Table 9 (the paper's detail, pairs of values Plain / FSM): per task set and, for Hard-100, per
50-task half: Plain and FSM resolved, discordant tasks (resolved under FSM only / Plain only) with
the exact two-sided McNemar p, new tests, empty patches, median time and mean cost, and the
paper's process measures: time-outs, mean turns, procedure followed.

Column definitions are under each table (``DEFINITIONS``).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from analysis.render import Cell, Column, Table, csv_number

PLAIN, FSM = "Plain", "FSM"
SIMULATED_TITLE = "SIMULATED (made by the simulator; not results) - "
SET_NAMES = {"hard-100": "Hard-100", "easy-100": "Easy-100", "local": "Local instances"}
SET_ORDER = ("hard-100", "easy-100", "local")
HALF_NAMES = {1: "first 50", 2: "second 50"}
TIME_OUT = "limit:wall_time"

DEFINITIONS = {
    "Task set": "the study's task set (Hard-100, Easy-100, the package's own instances) and, for Hard-100, its "
                "50-task halves (the first and the second 50 of its frozen list)",
    "Model": "the agent's model (one on another runtime than Claude Code is named with its runtime)",
    "Agent": "Plain (the procedure in the prompt) or FSM (the procedure enforced by the workflow SWEDebug)",
    "Tasks": "tasks with a verdict of the official harness under both agents (paired)",
    "Resolved": "of those tasks, those whose final patch the official harness resolved (every FAIL_TO_PASS and "
                "PASS_TO_PASS test passed on a freshly built image)",
    "Plain": "tasks the Plain agent resolved",
    "FSM": "tasks the FSM agent resolved",
    "Discordant": "tasks resolved under FSM only / under Plain only",
    "p": "exact two-sided McNemar test on the discordant tasks (binomial, 1/2)",
    "New tests": "patches that add a function named test_* (a def on an added line of a .py file), Plain / FSM in "
                 "Table 9",
    "Empty": "empty patches: no change to the repository beyond the two notes, Plain / FSM",
    "Time (s)": "median wall time per task: the session's duration without the grading, time-outs included "
                "(at the limit)",
    "Cost ($)": "mean cost per task at list price, over the tasks that finished within the time limit",
    "Time-outs": "sessions ended by the time limit (limit:wall_time), Plain / FSM",
    "Turns": "mean model turns per task over the tasks that finished within the time limit, Plain / FSM",
    "Procedure followed": "of the attempts that produced a patch, those whose commits complete investigate "
                          "(investigation.md), root cause (root_cause.md) and fix (a Python file) in that order, no "
                          "Python file changed before the root cause, Plain / FSM",
}


@dataclass(frozen=True)
class Verdict:
    """One session's task and what came of it."""

    model: str
    task_set: str
    half: int | None
    instance_id: str
    condition: str
    resolved: bool
    new_tests: bool
    empty: bool
    followed: bool
    seconds: float | None
    cost: float | None
    turns: int | None
    timed_out: bool


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def verdict_of(session: Any) -> Verdict | None:
    """The session's verdict (None: its log holds no outcome)."""
    outcome = session.last("outcome")
    if outcome is None:
        return None
    start, end = session.start, session.last("session_end") or {}
    duration, grading = _number(end.get("duration_s")), _number(outcome.get("grading_s")) or 0.0
    turns = end.get("turns")
    return Verdict(session.model, str(start.get("task_set") or "?"),
                   start.get("half") if isinstance(start.get("half"), int) else None,
                   str(outcome.get("instance_id") or "?"), session.record.condition or "?",
                   outcome.get("resolved") is True, bool(outcome.get("new_tests")), outcome.get("empty_patch") is True,
                   outcome.get("procedure_followed") is True,
                   max(0.0, duration - grading) if duration is not None else None, _number(end.get("cost_usd")),
                   turns if isinstance(turns, int) and not isinstance(turns, bool) else None,
                   end.get("status") == TIME_OUT)


def mcnemar_exact(fsm_only: int, plain_only: int) -> float | None:
    """The exact two-sided McNemar p of the discordant counts (None without a discordant task)."""
    n = fsm_only + plain_only
    if n == 0:
        return None
    from scipy.stats import binomtest

    return float(binomtest(fsm_only, n, 0.5, alternative="two-sided").pvalue)


@dataclass
class Group:
    """The paired tasks of one model and task set (or half)."""

    model: str
    label: str
    pairs: list[dict[str, Verdict]]

    def side(self, condition: str) -> list[Verdict]:
        return [p[condition] for p in self.pairs]


def _groups(found: Any) -> tuple[list[Group], list[Group], dict[str, int]]:
    """(Table 3's groups: model x task set; Table 9's: the same and each Hard-100 half; counts
    for the notes)."""
    verdicts = [v for v in (verdict_of(s) for s in found.sessions) if v is not None]
    counts = {"no_outcome": len(found.sessions) - len(verdicts)}
    by_task: dict[tuple, dict[str, Verdict]] = {}
    for v in verdicts:
        by_task.setdefault((v.model, v.task_set, v.instance_id), {})[v.condition] = v
    counts["unpaired"] = sum(1 for pair in by_task.values() if set(pair) != {PLAIN, FSM})
    order = {s: i for i, s in enumerate(SET_ORDER)}
    sets: dict[tuple[str, str], list[dict[str, Verdict]]] = {}
    for (model, task_set, _task), pair in sorted(by_task.items()):
        if set(pair) == {PLAIN, FSM}:
            sets.setdefault((model, task_set), []).append(pair)
    table3, table9 = [], []
    for (model, task_set), pairs in sorted(sets.items(), key=lambda kv: (kv[0][0], order.get(kv[0][1], 99), kv[0][1])):
        name = SET_NAMES.get(task_set, task_set)
        table3.append(Group(model, name, pairs))
        table9.append(Group(model, name, pairs))
        halves = sorted({p[PLAIN].half for p in pairs if p[PLAIN].half is not None})
        for half in halves:
            table9.append(Group(model, f"  {HALF_NAMES.get(half, f'half {half}')}",
                                [p for p in pairs if p[PLAIN].half == half]))
    return table3, table9, counts


def _median(values: list[float | None]) -> float | None:
    got = [v for v in values if v is not None]
    return statistics.median(got) if got else None


def _mean(values: list[float | int | None]) -> float | None:
    got = [v for v in values if v is not None]
    return sum(got) / len(got) if got else None


def _in_time(verdicts: list[Verdict]) -> list[Verdict]:
    return [v for v in verdicts if not v.timed_out]


def _followed(verdicts: list[Verdict]) -> tuple[int, int]:
    with_patch = [v for v in verdicts if not v.empty]
    return sum(v.followed for v in with_patch), len(with_patch)


def _fmt(x: float | None, digits: int) -> str:
    return "-" if x is None else f"{x:,.{digits}f}"


def _p_text(p: float | None) -> str:
    return "-" if p is None else f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


def _title(found: Any, text: str) -> str:
    return (SIMULATED_TITLE if found.simulated else "") + text


def table3(found: Any) -> Table:
    groups, _, counts = _groups(found)
    columns = [Column("Agent", align="l"), Column("Tasks"), Column("Resolved", emphasis=True), Column("New tests"),
               Column("Time (s)"), Column("Cost ($)")]
    table = Table(3, _title(found, "Analysis 1: SWE-bench Verified, Plain against FSM (SWEDebug)"), "Task set", columns)
    for g in groups:
        for condition in (PLAIN, FSM):
            side = g.side(condition)
            resolved, tests = sum(v.resolved for v in side), sum(v.new_tests for v in side)
            seconds, cost = _median([v.seconds for v in side]), _mean([v.cost for v in _in_time(side)])
            table.rows.append((f"{g.label} ({g.model})", [
                Cell(condition, (condition,)), Cell(str(len(side)), (len(side),)),
                Cell(str(resolved), (resolved,), resolved), Cell(str(tests), (tests,)),
                Cell(_fmt(seconds, 0), (csv_number(seconds),)), Cell(_fmt(cost, 2), (csv_number(cost),)),
            ]))
    table.notes += _notes(found, table, counts, ["Task set", "Agent", "Tasks", "Resolved", "New tests", "Time (s)",
                                                 "Cost ($)"])
    return table


def table9(found: Any) -> Table:
    _, groups, counts = _groups(found)
    pair = lambda header, *csv: Column(header, csv=csv)   # noqa: E731
    columns = [Column("Model", align="l"), Column("Tasks"), Column("Plain", emphasis=True), Column("FSM", emphasis=True),
               pair("Discordant", "FSM only", "Plain only"), pair("p", "McNemar p"),
               pair("New tests", "New tests Plain", "New tests FSM"), pair("Empty", "Empty Plain", "Empty FSM"),
               pair("Time (s)", "Median time Plain", "Median time FSM"), pair("Cost ($)", "Mean cost Plain", "Mean cost FSM"),
               pair("Time-outs", "Time-outs Plain", "Time-outs FSM"), pair("Turns", "Mean turns Plain", "Mean turns FSM"),
               pair("Procedure followed", "Followed Plain", "With patch Plain", "Followed FSM", "With patch FSM")]
    table = Table(9, _title(found, "Analysis 1 in detail (pairs of values are Plain / FSM)"), "Task set", columns)
    for g in groups:
        plain, fsm = g.side(PLAIN), g.side(FSM)
        resolved_p, resolved_f = sum(v.resolved for v in plain), sum(v.resolved for v in fsm)
        fsm_only = sum(p[FSM].resolved and not p[PLAIN].resolved for p in g.pairs)
        plain_only = sum(p[PLAIN].resolved and not p[FSM].resolved for p in g.pairs)
        p = mcnemar_exact(fsm_only, plain_only)
        tests = (sum(v.new_tests for v in plain), sum(v.new_tests for v in fsm))
        empty = (sum(v.empty for v in plain), sum(v.empty for v in fsm))
        time = (_median([v.seconds for v in plain]), _median([v.seconds for v in fsm]))
        cost = (_mean([v.cost for v in _in_time(plain)]), _mean([v.cost for v in _in_time(fsm)]))
        outs = (sum(v.timed_out for v in plain), sum(v.timed_out for v in fsm))
        turns = (_mean([v.turns for v in _in_time(plain)]), _mean([v.turns for v in _in_time(fsm)]))
        followed = (_followed(plain), _followed(fsm))
        table.rows.append((g.label, [
            Cell(g.model, (g.model,)), Cell(str(len(g.pairs)), (len(g.pairs),)),
            Cell(str(resolved_p), (resolved_p,), resolved_p), Cell(str(resolved_f), (resolved_f,), resolved_f),
            Cell(f"{fsm_only} / {plain_only}", (fsm_only, plain_only)), Cell(_p_text(p), (csv_number(p),)),
            Cell(f"{tests[0]} / {tests[1]}", tests), Cell(f"{empty[0]} / {empty[1]}", empty),
            Cell(f"{_fmt(time[0], 0)} / {_fmt(time[1], 0)}", tuple(csv_number(x) for x in time)),
            Cell(f"{_fmt(cost[0], 2)} / {_fmt(cost[1], 2)}", tuple(csv_number(x) for x in cost)),
            Cell(f"{outs[0]} / {outs[1]}", outs),
            Cell(f"{_fmt(turns[0], 1)} / {_fmt(turns[1], 1)}", tuple(csv_number(x) for x in turns)),
            Cell(f"{followed[0][0]}/{followed[0][1]} / {followed[1][0]}/{followed[1][1]}",
                 (*followed[0], *followed[1])),
        ]))
    table.notes += _notes(found, table, counts, ["Task set", *(c.header for c in columns)])
    return table


def _notes(found: Any, table: Table, counts: dict[str, int], headers: list[str]) -> list[str]:
    notes = []
    if not table.rows:
        notes.append("No rows: " + ("no analysable SWE-bench session" if not found.sessions
                                    else "no task has a verdict under both Plain and FSM") + ".")
    if counts.get("unpaired"):
        notes.append(f"Unpaired: {counts['unpaired']} task(s) with a verdict under one agent only (not counted).")
    if counts.get("no_outcome"):
        notes.append(f"No outcome: {counts['no_outcome']} session(s) whose log holds no verdict of the harness.")
    if found.excluded:
        notes.append(f"Excluded: {len(found.excluded)} session(s) (listed with their reasons), among them any the "
                     "harness could not grade (voided as infrastructure failures, never counted as unresolved).")
    notes.append("Columns: " + "; ".join(f"{h}: {DEFINITIONS[h]}" for h in headers) + ".")
    return notes


def tables(found: Any) -> list[Table]:
    """The SWE-bench family's tables (``study tables --study swebench-...``): Tables 3 and 9."""
    return [table3(found), table9(found)]
