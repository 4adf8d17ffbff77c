"""Table 4 of the paper (Analysis 2, τ²-bench) from the session logs of τ²-bench studies: the
family's ``tables`` part (layer 6; ``study tables --study`` asks it through
``study.families.registry``). It reads the logs alone, as ``analysis`` does: the sessions
``analysis.study_sessions`` admits, rendered by ``analysis.render``; nothing of how they were run.

Each analysed session is one task's conversation under Control or FSM; its ``outcome`` event is
τ²-bench's own evaluator's verdict (``reward``, its parts, ``judged``), its ``tool_call`` events
say whether it ended in a transfer to a human. Per model (on its runtime) and domain, the two
conditions are paired by task:

- Tasks: the tasks with a judged verdict under both conditions;
- Control, FSM: of those, the tasks passed (reward 1);
- Discordant: tasks passed under FSM only / under Control only; p: the exact two-sided McNemar
  test on them (the binomial test of the FSM-only count among the discordant ones at 1/2);
- Transfers, faults open: tasks that ended in a transfer to a human agent and failed (the
  customer's fault still open), Control / FSM;
- Controller turns: the share of the agent's turns in τ²-bench's trajectory that the harness
  wrote rather than the model (τ²-bench's opening greeting, and under FSM the controller's
  scope lookups and fresh tests), Control / FSM.

A task whose reward needs a judge that did not run is not judged: it is never counted as passed
or failed (a note counts them), and a task run under one condition only is unpaired (noted).
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis.render import Cell, Column, Table, csv_number
from analysis.study_sessions import StudySession, StudySessions

#: The two agents of Analysis 2, by their conditions' names.
CONTROL, FSM = "Control", "FSM"
TRANSFER_TOOL = "transfer_to_human_agents"
DOMAIN_ORDER = ("telecom", "airline", "retail", "mock")
SIMULATED_TITLE = "SIMULATED (made by the simulator; not results) - "

COLUMNS = [
    Column("Domain", align="l"),
    Column("Tasks"),
    Column("Control"),
    Column("FSM"),
    Column("Discordant", csv=("FSM only", "Control only")),
    Column("p", csv=("McNemar p",)),
    Column("Transfers, faults open", csv=("Transfers open Control", "Transfers open FSM")),
    Column("Controller turns", csv=("Controller share Control", "Controller share FSM")),
]
DEFINITIONS = {
    "Model": "the agent's model (one on another runtime than Claude Code is named with its runtime, e.g. "
             "sim:oracle on Codex CLI)",
    "Domain": "the τ²-bench domain (its test split, v1.0.1's data)",
    "Tasks": "tasks with a judged verdict under both conditions (paired)",
    "Control": "of those tasks, those the Control agent passed (τ²-bench reward 1)",
    "FSM": "of those tasks, those the FSM agent passed",
    "Discordant": "tasks passed under FSM only / under Control only",
    "p": "exact two-sided McNemar test on the discordant tasks",
    "Transfers, faults open": "tasks that ended in a transfer to a human agent and failed (the customer's fault "
                              "still open), Control / FSM",
    "Controller turns": "share of the agent's turns in τ²-bench's trajectory written by the harness, not the model "
                        "(the benchmark's greeting; under FSM also the controller's turns: its scope lookups and "
                        "fresh tests), Control / FSM",
}


@dataclass(frozen=True)
class Verdict:
    """One session's task and what τ²-bench's evaluator made of it."""

    model: str
    domain: str
    task_id: str
    condition: str
    reward: float | None
    judged: bool
    transferred: bool
    agent_turns: int
    scripted_turns: int

    @property
    def passed(self) -> bool:
        return self.judged and self.reward is not None and self.reward >= 1.0

    @property
    def transfer_open(self) -> bool:
        return self.transferred and self.judged and self.reward is not None and self.reward < 1.0


def verdict_of(session: StudySession) -> Verdict | None:
    """The session's verdict (None: its log holds no outcome, e.g. the conversation never began)."""
    outcome = session.last("outcome")
    if outcome is None:
        return None
    transferred = any(e.get("tool") == TRANSFER_TOOL and e.get("ok") and e.get("allowed", True)
                      for e in session.of_kind("tool_call"))
    reward = outcome.get("reward")
    return Verdict(session.model, str(outcome.get("domain") or session.start.get("domain") or "?"),
                   str(outcome.get("task_id") or "?"), session.record.condition or "?",
                   float(reward) if isinstance(reward, (int, float)) and not isinstance(reward, bool) else None,
                   bool(outcome.get("judged")), transferred, int(outcome.get("agent_turns") or 0),
                   int(outcome.get("scripted_turns") or 0))


def mcnemar_exact(fsm_only: int, control_only: int) -> float | None:
    """The exact two-sided McNemar p of the discordant counts (None without a discordant task)."""
    n = fsm_only + control_only
    if n == 0:
        return None
    from scipy.stats import binomtest

    return float(binomtest(fsm_only, n, 0.5, alternative="two-sided").pvalue)


def _share(verdicts: list[Verdict]) -> float | None:
    turns = sum(v.agent_turns for v in verdicts)
    return sum(v.scripted_turns for v in verdicts) / turns if turns else None


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def table4(found: StudySessions) -> Table:
    verdicts = [v for v in (verdict_of(s) for s in found.sessions) if v is not None]
    no_outcome = len(found.sessions) - len(verdicts)
    title = ("SIMULATED (made by the simulator; not results) - " if found.simulated else "") + \
        "τ²-bench: Control against FSM, one conversation per task (Analysis 2)"
    table = Table(4, title, "Model", list(COLUMNS))
    by_key: dict[tuple[str, str, str], dict[str, Verdict]] = {}
    unjudged = 0
    for v in verdicts:
        if not v.judged:
            unjudged += 1
            continue
        by_key.setdefault((v.model, v.domain, v.task_id), {})[v.condition] = v
    unpaired = sum(1 for pair in by_key.values() if set(pair) != {CONTROL, FSM})
    groups: dict[tuple[str, str], list[dict[str, Verdict]]] = {}
    for (model, domain, _task), pair in sorted(by_key.items()):
        if set(pair) == {CONTROL, FSM}:
            groups.setdefault((model, domain), []).append(pair)
    order = {d: i for i, d in enumerate(DOMAIN_ORDER)}
    for (model, domain), pairs in sorted(groups.items(), key=lambda kv: (kv[0][0], order.get(kv[0][1], 99), kv[0][1])):
        control = [p[CONTROL] for p in pairs]
        fsm = [p[FSM] for p in pairs]
        passed_c, passed_f = sum(v.passed for v in control), sum(v.passed for v in fsm)
        fsm_only = sum(p[FSM].passed and not p[CONTROL].passed for p in pairs)
        control_only = sum(p[CONTROL].passed and not p[FSM].passed for p in pairs)
        p = mcnemar_exact(fsm_only, control_only)
        open_c, open_f = sum(v.transfer_open for v in control), sum(v.transfer_open for v in fsm)
        share_c, share_f = _share(control), _share(fsm)
        table.rows.append((model, [
            Cell(domain.capitalize(), (domain,)),
            Cell(str(len(pairs)), (len(pairs),)),
            Cell(str(passed_c), (passed_c,), passed_c),
            Cell(str(passed_f), (passed_f,), passed_f),
            Cell(f"{fsm_only} / {control_only}", (fsm_only, control_only)),
            Cell("-" if p is None else _p_text(p), (csv_number(p),)),
            Cell(f"{open_c} / {open_f}", (open_c, open_f)),
            Cell(f"{_pct(share_c)} / {_pct(share_f)}", (csv_number(share_c), csv_number(share_f))),
        ]))
    table.notes += _notes(found, table, unjudged, unpaired, no_outcome)
    return table


def _p_text(p: float) -> str:
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


def _notes(found: StudySessions, table: Table, unjudged: int, unpaired: int, no_outcome: int) -> list[str]:
    notes = []
    if not table.rows:
        notes.append("No rows: " + ("no analysable τ²-bench session" if not found.sessions
                                    else "no task has a judged verdict under both Control and FSM") + ".")
    if unjudged:
        notes.append(f"Not judged: {unjudged} session(s) whose reward needs a judge of the natural-language "
                     "assertions that did not run (neither passed nor failed).")
    if unpaired:
        notes.append(f"Unpaired: {unpaired} task(s) with a judged verdict under one condition only.")
    if no_outcome:
        notes.append(f"No outcome: {no_outcome} session(s) whose log holds no verdict of the evaluator.")
    if found.excluded:
        notes.append(f"Excluded: {len(found.excluded)} session(s) (listed with their reasons).")
    notes.append("Columns: " + "; ".join(f"{h}: {DEFINITIONS[h]}" for h in ["Model", *(c.header for c in COLUMNS)])
                 + ".")
    return notes


def tables(found: StudySessions) -> list[Table]:
    """The τ²-bench family's tables (what ``analysis.study_tables`` asks for): Table 4."""
    return [table4(found)]
