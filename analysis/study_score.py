"""``study score`` of a session of another study than the main one: what its family's evaluator
said, from its log (the ``outcome`` event), in a few lines or as JSON.

A τ²-bench session: τ²-bench's reward (or "not judged") with its parts, how the conversation ended,
whether it ended in a transfer to a human, the agent's turns and how many the harness wrote. A
staged protocol's run: AutoResearch's valid and invalid ledger rows (each invalid one with the
rule it breaks), complete protocol, best accuracy; the month-end close's periods, each correct or
not, started or not. Every number comes from a log that passed the record rules
(``study.session_io.record``), or the command says why there is none.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from study.session_io.record import read_record

TRANSFER_TOOL = "transfer_to_human_agents"


def study_summary(session_dir: Path) -> tuple[dict[str, Any], list[str]]:
    """(the JSON form, the lines) of ``session_dir``'s outcome; ValueError says why there is none."""
    record, session = read_record(Path(session_dir))
    why = record.exclusion(include_exploratory=True, study=record.study)
    if why is not None and why.kind.value in ("no-log", "invalid"):
        raise ValueError(f"{session_dir}: {why.reason}")
    events = list(session.log.events) if session.log is not None else []
    outcome = next((e for e in reversed(events) if e.get("kind") == "outcome"), None)
    head = (f"{'SIMULATED session' if record.simulated else 'Session'} {record.model} / {record.condition} / "
            f"{record.study} {Path(session_dir).name}: status {record.status}"
            + (f", VOIDED ({record.void_reason})" if record.voided else ""))
    if outcome is None:
        return {"study": record.study, "family": record.family, "status": str(record.status), "outcome": None}, \
            [head, "  no outcome: the log holds no verdict of the family's evaluator (the session did not reach its end)"]
    data = {"study": record.study, "family": record.family, "status": str(record.status),
            "cost_usd": record.cost_usd, "outcome": {k: v for k, v in outcome.items() if k not in ("seq", "t", "kind")}}
    lines = [head]
    if record.family == "swebench":   # TEMPORARY until the family registry lands (its reading part's words)
        import importlib

        extra, more = importlib.import_module("study.families.swebench.reading").score_lines(outcome, events)
        data.update(extra)
        lines += more
    elif record.family == "tau2":
        transferred = any(e.get("kind") == "tool_call" and e.get("tool") == TRANSFER_TOOL and e.get("ok")
                          for e in events)
        reward = outcome.get("reward")
        verdict = "not judged (the reward needs a judge that did not run)" if not outcome.get("judged") else \
            f"reward {reward:g}" if isinstance(reward, (int, float)) else "no reward"
        parts = ", ".join(f"{k} {v:g}" for k, v in sorted((outcome.get("parts") or {}).items()))
        lines.append(f"  τ²-bench {outcome.get('domain')}: {verdict}  (parts: {parts or 'none'}; basis: "
                     f"{', '.join(outcome.get('reward_basis') or [])})")
        lines.append(f"  ended: {outcome.get('termination_reason')}{'; transferred to a human agent' if transferred else ''}"
                     f"  agent turns {outcome.get('agent_turns')}, written by the harness "
                     f"{outcome.get('scripted_turns')} (the controller's {outcome.get('controller_turns')})")
        data["transferred"] = transferred
    elif outcome.get("protocol") == "autoresearch":
        lines.append(f"  AutoResearch: valid rows {outcome.get('valid_rows')}/{outcome.get('required_rows')}, complete "
                     f"{'yes' if outcome.get('complete') else 'no'}, best accuracy {outcome.get('best_accuracy')}")
        for row in outcome.get("rows") or []:
            if not row.get("valid"):
                lines.append(f"    trial {row.get('trial')} ({row.get('stage')}, {row.get('decision')}): breaks rule "
                             f"{row.get('rule')}")
        if outcome.get("incomplete_because"):
            lines.append(f"  not complete: {outcome['incomplete_because']}")
    elif outcome.get("protocol") == "month-end-close":
        periods = outcome.get("periods") or []
        lines.append(f"  month-end close: {outcome.get('correct_periods')}/{len(periods)} periods correct at "
                     f"{outcome.get('turn_cap')} turns a period")
        for p in periods:
            state = "correct" if p.get("correct") else ("not started" if not p.get("started") else
                                                         f"{p.get('right')}/11 fields ({p.get('problem') or 'fields off'})")
            lines.append(f"    {p.get('period')}: {state}")
    return data, lines
