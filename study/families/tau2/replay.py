"""Replay real τ²-bench conversations through a domain's FSM: ``study tau2 replay RESULTS.json``.

Input: a file in tau2's own simulation-record format, what ``tau2 run`` writes (``info``,
``tasks``, ``simulations[]``, each with ``task_id``, ``messages`` (assistant, user and tool
messages; the customer's device actions are tool calls of the user, with their results),
``reward_info`` and ``termination_reason``); also one simulation alone (a session's
``tau2_run.json``) or a list of them.

Each conversation goes through the domain's workflow as the FSM condition would have judged it:
for every action of the agent's (each tool call; each text to the customer, as
``send_message_to_customer``), in order, the FSM's gate says allowed or denied, and why (the rule
and its reason); then, allowed or not, the action is recorded with what followed it in the real
conversation (its result, the customer's device actions and words) in the public record and the
FSM's observers fold it into the ledger, so the next action is judged on what really happened.
tau2's greeting (the assistant's messages before the customer's opening) and the agent's closing
``###STOP###`` are not actions.

Telecom's controller is emulated by default (``--no-controller``: the rules alone): where the FSM
condition's controller would have asked for a fresh test after a repair, the replay records that
request (its answer is unknown: the record has none), so a next repair is not judged untested
for want of a test the FSM condition would have asked for itself. The scope step's lookups are
not emulated: what the record's own calls show is what the ledger knows.

Reported per conversation: every action (allowed or denied, the rule, the reason, the FSM state),
every transfer with what the evidence then showed open (and any irreversible condition), the
ledger at the end, the final state, tau2's reward and termination reason from the file; and the
totals. The task's id is read for the report only: the FSM, its observers and the controller see
the public record and nothing else (the file's ``tasks`` are never read).
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .public import SEND, STOP_MARKS, PublicRecord, customer_events, role, text, tool_calls, turn_events

#: The workflow template of each domain (the study's frozen copy is the same bytes).
WORKFLOWS = Path(__file__).resolve().parent / "workflows_template"


class ReplayError(ValueError):
    """A file that is not a tau2 simulation record: the message says what was expected."""


def load_simulations(path: Path) -> list[dict[str, Any]]:
    """The simulations of a results file (tau2 run's), of a single simulation, or of a list."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ReplayError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise ReplayError(f"{path}: not JSON ({exc})") from None
    if isinstance(data, dict) and isinstance(data.get("simulations"), list):
        sims = data["simulations"]
    elif isinstance(data, dict) and isinstance(data.get("messages"), list):
        sims = [data]
    elif isinstance(data, list):
        sims = data
    else:
        raise ReplayError(f"{path}: not a tau2 simulation record (expected tau2 run's results file, with "
                          "'simulations', or one simulation, with 'messages')")
    bad = [i for i, s in enumerate(sims) if not isinstance(s, dict) or not isinstance(s.get("messages"), list)]
    if bad:
        raise ReplayError(f"{path}: simulation {bad[0]} has no 'messages' list")
    return sims


@dataclass
class Action:
    index: int
    tool: str
    args: dict[str, Any]
    allowed: bool
    state: str | None
    rule: str | None = None
    reason: str | None = None
    ok: bool = True
    result: str = ""
    #: a transfer: what the evidence showed open then, and any irreversible condition
    open: list[dict[str, Any]] | None = None
    irreversible: str | None = None
    controller_test: str | None = None
    #: not one of the domain's tools (tau2 answered an error; a live session never offers it): not judged
    not_judged: str | None = None

    def as_json(self) -> dict[str, Any]:
        out = {"index": self.index, "tool": self.tool, "args": self.args, "allowed": self.allowed, "state": self.state,
               "ok": self.ok}
        if self.not_judged:
            out["not_judged"] = self.not_judged
        if not self.allowed:
            out.update(rule=self.rule, reason=self.reason)
        if self.tool == "transfer_to_human_agents":
            out.update(open=self.open or [], irreversible=self.irreversible)
        if self.controller_test:
            out["controller_test"] = self.controller_test
        return out


@dataclass
class Replayed:
    task_id: str | None
    reward: float | None
    termination_reason: str | None
    actions: list[Action] = field(default_factory=list)
    ledger: dict[str, Any] = field(default_factory=dict)
    state: str | None = None

    @property
    def denied(self) -> list[Action]:
        return [a for a in self.actions if not a.allowed]

    @property
    def transfers(self) -> list[Action]:
        return [a for a in self.actions if a.tool == "transfer_to_human_agents"]

    def as_json(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "reward": self.reward, "termination_reason": self.termination_reason,
                "actions": [a.as_json() for a in self.actions], "allowed": len(self.actions) - len(self.denied),
                "denied": len(self.denied),
                "transfers": [{"index": a.index, "allowed": a.allowed, "open": a.open or [], "irreversible": a.irreversible,
                               "rule": a.rule} for a in self.transfers],
                "state": self.state, "ledger": self.ledger}


def _reward(sim: dict[str, Any]) -> float | None:
    info = sim.get("reward_info")
    value = info.get("reward") if isinstance(info, dict) else None
    return float(value) if isinstance(value, (int, float)) else None


def _denying_rule(workflow: Any, state: str, tool: str, args: dict[str, Any], variables: dict[str, Any]) -> str:
    """The name of the rule that denies (its check's name, or the rule as written)."""
    if not workflow.knows_tool(tool):
        return "not a tool of the workflow"
    for rule in workflow.states[state].permissions._deny_by_tool.get(tool, ()):
        if rule.check is not None:
            if all(p.check(args, variables) is None for p in rule.args) and rule.check.run(args, variables) is not None:
                return rule.check.name
        elif rule.argument_problem(args, variables) is None:
            return f"deny {rule.describe()}"
    return "no allow rule"


def _turns(messages: list[Any]) -> tuple[str, list[Any], list[tuple[Any, list[Any]]]]:
    """The opening, the customer's messages around it (before the agent's first action), and each
    assistant message after it with the messages that follow it up to the next one."""
    first_user = next((i for i, m in enumerate(messages) if role(m) == "user"), None)
    if first_user is None:
        return "", [], []
    opening = next((text(m).strip() for m in messages[first_user:] if role(m) == "user" and text(m).strip()), "")
    starts = [i for i in range(first_user, len(messages)) if role(messages[i]) == "assistant"]
    before = messages[first_user:starts[0]] if starts else messages[first_user:]
    turns = []
    for n, i in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(messages)
        turns.append((messages[i], messages[i + 1:end]))
    return opening, before, turns


def domain_tools(domain: str) -> set[str]:
    """The tools a session of ``domain`` offers the agent (its template workflow lists every one)."""
    from study.fsm import Workflow

    return set(Workflow.load(WORKFLOWS / f"{domain}.yaml").tools)


def replay_simulation(sim: dict[str, Any], domain: str, workflow: Any, *, controller: bool = True) -> Replayed:
    """One conversation through ``workflow`` (see the module docstring). A call of a tool the
    domain does not have (an agent calling the customer's device tools, say: tau2 answers an
    error) is reported, not judged: a session never offers it, so its FSM never sees it."""
    from study.fsm import FsmRuntime

    offered = domain_tools(domain)
    out = Replayed(sim.get("task_id"), _reward(sim), sim.get("termination_reason"))
    opening, before, turns = _turns(sim["messages"])
    record = PublicRecord(opening)
    record.extend(customer_events(before))   # the opening, and any device action of the customer's before the agent acts
    emulate = None
    if controller and domain == "telecom":
        from .controller import TelecomController

        emulate = TelecomController()
    with tempfile.TemporaryDirectory(prefix="tau2-replay-") as tmp:
        variables: dict[str, Any] = {}
        if domain == "telecom":
            from .controller import fsm_variables

            variables = fsm_variables(record, opening)
        fsm = FsmRuntime(Path(tmp), {workflow.name: workflow}, variables=variables)
        fsm.enter(workflow.name)
        index = 0
        for message, following in turns:
            said = text(message).strip()
            if not tool_calls(message) and (not said or any(mark in said for mark in STOP_MARKS)):
                continue   # the agent's stop, or an empty turn: not an action
            events = turn_events("agent", message, following)
            actions = [e for e in events if e.get("by") == "agent"]
            rest = events[len(actions):]
            for n, event in enumerate(actions):
                tool, args = event["tool"], event["args"]
                frame = fsm.frames()[-1]
                state, now = frame["state"], frame["variables"]
                if tool not in offered:
                    action = Action(index, tool, args, True, state, ok=event["ok"], result=event["result"],
                                    not_judged=f"{tool} is not one of the {domain} domain's tools")
                    record.add(event)
                    if n == len(actions) - 1:
                        record.extend(rest)
                    out.actions.append(action)
                    index += 1
                    continue
                decision = fsm.gate(tool, args)
                action = Action(index, tool, args, decision.allowed, state, ok=event["ok"], result=event["result"])
                if not decision.allowed:
                    action.rule = _denying_rule(workflow, state, tool, args, now)
                    action.reason = decision.reason
                if tool == "transfer_to_human_agents":
                    action.open, action.irreversible = list(now.get("open") or []), now.get("irreversible")
                since = len(record.events)
                record.add(event)
                if n == len(actions) - 1:
                    record.extend(rest)
                if emulate is not None:
                    request = emulate.fresh_test(record, since)
                    if request:
                        record.add({"by": "controller", "tool": SEND, "args": {"message": request}, "ok": True,
                                    "result": "", "replayed": False})
                        action.controller_test = request
                fsm.observe(tool, args, event["ok"], result=event["result"])
                out.actions.append(action)
                index += 1
        record.end(str(sim.get("termination_reason") or "end of record"))
        frame = fsm.frames()[-1]
        from .telecom_rules import fold

        final = fold(record.events[int(frame["variables"].get("seen") or 0):], frame["variables"]) \
            if domain == "telecom" else dict(frame["variables"])
        out.ledger = {k: v for k, v in final.items() if k not in ("record", "seen")}
        out.state = frame["state"]
    return out


def replay_file(path: Path, domain: str, *, workflow_file: Path | None = None, task: str | None = None,
                controller: bool = True) -> dict[str, Any]:
    """Every conversation of the file (or the one whose task id, or 1-based position, is ``task``)."""
    from study.fsm import Workflow

    sims = load_simulations(path)
    if task is not None:
        chosen = [s for s in sims if str(s.get("task_id")) == task]
        if not chosen and task.isdigit() and 1 <= int(task) <= len(sims):
            chosen = [sims[int(task) - 1]]
        if not chosen:
            raise ReplayError(f"{path}: no simulation of task {task!r} (its tasks: "
                              f"{', '.join(str(s.get('task_id')) for s in sims[:10])}{' ...' if len(sims) > 10 else ''})")
        sims = chosen
    workflow = Workflow.load(workflow_file or WORKFLOWS / f"{domain}.yaml")
    done = [replay_simulation(s, domain, workflow, controller=controller) for s in sims]
    return report(done, path, domain, workflow)


def report(done: list[Replayed], path: Path, domain: str, workflow: Any) -> dict[str, Any]:
    rewarded = [r for r in done if r.reward == 1.0]
    transfers = [t for r in done for t in r.transfers]
    open_transfers = [t for t in transfers if t.open and not t.irreversible]
    return {
        "file": str(path), "domain": domain, "workflow": workflow.name, "workflow_sha256": workflow.sha256,
        "conversations": [r.as_json() for r in done],
        "totals": {
            "conversations": len(done), "rewarded": len(rewarded),
            "actions": sum(len(r.actions) for r in done),
            "denied": sum(len(r.denied) for r in done),
            "denied_in_rewarded": sum(len(r.denied) for r in rewarded),
            "transfers": len(transfers), "transfers_denied": sum(not t.allowed for t in transfers),
            "transfers_with_open_faults": len(open_transfers),
            "transfers_with_open_faults_denied": sum(not t.allowed for t in open_transfers),
            "denied_by_rule": _count(a.rule for r in done for a in r.denied),
            "not_judged": sum(1 for r in done for a in r.actions if a.not_judged),
        },
    }


def _count(values: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for value in values:
        out[str(value)] = out.get(str(value), 0) + 1
    return dict(sorted(out.items()))


def _short(value: Any, limit: int = 100) -> str:
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    shown = " ".join(shown.split())
    return shown if len(shown) <= limit else shown[:limit - 1] + "…"


def as_text(result: dict[str, Any], *, all_actions: bool = False) -> str:
    """The report for a reader: per conversation its denials and transfers (every action with
    ``all_actions``), the ledger at the end; then the totals."""
    lines = [f"Replay of {result['file']} through {result['workflow']} ({result['domain']}; workflow sha256 "
             f"{result['workflow_sha256'][:12]})", ""]
    for n, conv in enumerate(result["conversations"], 1):
        reward = "no reward" if conv["reward"] is None else f"reward {conv['reward']:g}"
        lines.append(f"{n}. task {conv['task_id']}: {reward}, {conv['termination_reason']}; {conv['allowed']} actions "
                     f"allowed, {conv['denied']} denied; final state {conv['state']}")
        for action in conv["actions"]:
            if not (all_actions or not action["allowed"] or action.get("not_judged")
                    or action["tool"] == "transfer_to_human_agents"):
                continue
            verdict = "allowed" if action["allowed"] else f"DENIED by {action['rule']}"
            if action.get("not_judged"):
                verdict = f"not judged ({action['not_judged']})"
            lines.append(f"   [{action['index']:>3}] {action['tool']} {_short(action['args'], 80)}: {verdict} "
                         f"(state {action['state']})")
            if not action["allowed"]:
                lines.append(f"         {_short(action['reason'], 300)}")
            if action["tool"] == "transfer_to_human_agents":
                shown = "; ".join(f"{o['what']}: {o['shown']}" for o in action["open"]) or "nothing open shown"
                lines.append(f"         open then: {_short(shown, 300)}"
                             + (f"; irreversible: {action['irreversible']}" if action["irreversible"] else ""))
        ledger = conv["ledger"]
        keys = [k for k in ("phone", "customer_id", "line_id", "checks", "open", "irreversible", "pending_test",
                            "resolved", "untested_repairs", "several_repairs", "other_line_reads", "user_id",
                            "confirmed", "confirmation_reply") if k in ledger]
        lines.append("   ledger: " + "; ".join(f"{k}={_short(ledger[k], 160)}" for k in keys))
        lines.append("")
    t = result["totals"]
    lines.append(f"Totals: {t['conversations']} conversations ({t['rewarded']} rewarded by tau2's evaluator), "
                 f"{t['actions']} actions, {t['denied']} denied ({t['denied_in_rewarded']} in rewarded conversations); "
                 f"{t['transfers']} transfers, {t['transfers_denied']} denied; {t['transfers_with_open_faults']} made "
                 f"while the evidence showed a fault open, {t['transfers_with_open_faults_denied']} of them denied.")
    if t["denied_by_rule"]:
        lines.append("Denied by rule: " + ", ".join(f"{k} {v}" for k, v in t["denied_by_rule"].items()))
    return "\n".join(lines)
