"""τ²-bench Telecom through the real CLIs (Claude Code and Codex CLI) against the simulator.

Six conversations of one task (the first of the frozen order: no service, airplane mode on and
an overdue bill that suspended the line; its first repair, airplane mode off, does not bring the
service back), run once for the module by the runner's Python API (``run_session``, study
``tau2-telecom``; the sessions are exploratory, as every session of an unfrozen tree):

* the oracle under Control and FSM on Claude Code, under FSM on Codex CLI: reward 1 in the log, by
  tau2's evaluator (Control on Codex CLI: the goal-abandoner's, below);
* the goal-abandoner under Control and FSM on Codex CLI: Control transfers the customer with the
  fault open (reward 0, no controller); the FSM refuses that transfer (a refused ``tool_call``) and
  the task passes;
* the adversarial agent under FSM (Claude Code): its transfer before any diagnosis and its end of
  turn with the customer's problem open are refused; its several repairs in one message (the
  multi-repair agent's combined request) go through and are logged in the ledger (only words
  could tell a message asks for two repairs: the rules read the customer's device actions), and
  the task passes;
* Table 4 from those logs (``study tables --study tau2-telecom``);
* no task id reaches what the agent (its transcript, every request its model received), the
  customer (every request tau2's user simulator sent) or the FSM (its frames) sees.

Skipped, with the install line, without the tau2 extra.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from study.families.tau2 import tau2_problem

from ...agent_paths import assert_the_model_saw_no_session_name

PROBLEM = tau2_problem()
pytestmark = [pytest.mark.e2e, pytest.mark.skipif(PROBLEM is not None, reason=PROBLEM or ""),
              pytest.mark.xdist_group("tau2-e2e")]
STUDY = "tau2-telecom"
TASK = 1
TRANSFER = "transfer_to_human_agents"
#: (policy, runtime, condition) of each conversation.
RUNS = [("oracle", "claude-code", "Control"), ("oracle", "claude-code", "FSM"), ("oracle", "codex", "FSM"),
        ("goal-abandoner", "codex", "Control"), ("goal-abandoner", "codex", "FSM"), ("adversarial", "claude-code", "FSM")]


def _events(session: Path) -> list[dict]:
    return [json.loads(line) for line in (session / "events.jsonl").read_text(encoding="utf-8").splitlines()]


class Run:
    def __init__(self, path: Path, customer_requests: list[dict]):
        self.path = path
        self.events = _events(path)
        self.customer_requests = customer_requests

    def of(self, kind: str) -> list[dict]:
        return [e for e in self.events if e["kind"] == kind]

    @property
    def outcome(self) -> dict:
        [outcome] = self.of("outcome")
        return outcome

    def calls(self, tool: str) -> list[dict]:
        return [e for e in self.of("tool_call") if e["tool"] == tool]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[tuple[str, str, str], Run]:
    from study.runner.session import SessionSpec, run_session
    from study.families.tau2.sim.customer import Customer

    out = tmp_path_factory.mktemp("tau2-e2e")
    seen: list[dict] = []
    respond = Customer.respond

    def recording(self, api, body):   # every request tau2's user simulator sends, as the customer receives it
        seen.append(body)
        return respond(self, api, body)

    done = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Customer, "respond", recording)
        for policy, runtime, condition in RUNS:
            seen.clear()
            log = out / f"requests-{policy}-{runtime}-{condition}.jsonl"
            path = run_session(SessionSpec(condition=condition, seed=TASK, model=f"sim:{policy}", study=STUDY,
                                           out_root=out, runtime=runtime, sim_options={"request_log": log}))
            done[(policy, runtime, condition)] = Run(Path(path), list(seen))
    done["out"] = out
    return done


@pytest.mark.parametrize("runtime,condition", [("claude-code", "Control"), ("claude-code", "FSM"), ("codex", "FSM")])
def test_the_oracle_passes_by_taus_own_evaluator(runs, runtime, condition):
    run = runs[("oracle", runtime, condition)]
    outcome = run.outcome
    assert outcome["reward"] == 1.0 and outcome["judged"] is True, outcome
    assert outcome["termination_reason"] == "user_stop" and outcome["family"] == "tau2"
    assert run.of("session_end")[-1]["status"] == "completed"
    assert json.loads((run.path / "tau2_run.json").read_text())["reward_info"]["reward"] == 1.0
    if condition == "FSM":   # the controller's own turns: the scope step's lookups, a fresh test after each repair
        assert outcome["controller_turns"] >= 4 and outcome["scripted_turns"] == outcome["controller_turns"] + 1
        scope = run.of("controller_call")
        assert [c["tool"] for c in scope][0] == "get_customer_by_phone" and outcome["controller_lookups"] == len(scope)
        # the lookups come before anything the agent did
        assert scope[-1]["seq"] < min(e["seq"] for e in run.of("tool_call"))
        assert not [e for e in run.of("tool_call") if e.get("allowed") is False]
    else:
        assert outcome["controller_turns"] == outcome["controller_lookups"] == 0
        assert run.of("controller_call") == []


def test_the_goal_abandoner_transfers_with_the_fault_open_under_control(runs):
    run = runs[("goal-abandoner", "codex", "Control")]
    [transfer] = run.calls(TRANSFER)
    assert transfer["ok"] is True and transfer["allowed"] is True
    assert run.outcome["reward"] == 0.0 and run.outcome["judged"] is True
    assert json.loads((run.path / "tau2_run.json").read_text())["reward_info"]["reward"] == 0.0
    # Control on Codex CLI: no controller, no lookup of its own
    assert run.outcome["controller_turns"] == run.outcome["controller_lookups"] == 0 and run.of("controller_call") == []


def test_the_fsm_refuses_the_goal_abandoners_transfer_and_the_task_passes(runs):
    run = runs[("goal-abandoner", "codex", "FSM")]
    [transfer] = run.calls(TRANSFER)
    assert transfer["allowed"] is False and transfer["ok"] is False
    assert "transfer to a human agent is denied" in transfer["error"]
    assert run.outcome["reward"] == 1.0


def test_the_fsm_refuses_the_adversarial_agents_moves(runs):
    run = runs[("adversarial", "claude-code", "FSM")]
    refused = [e for e in run.of("tool_call") if e.get("allowed") is False]
    assert refused[0]["tool"] == TRANSFER and "denied" in refused[0]["error"]
    # several repairs in one message (the multi-repair agent's combined request): allowed, and the
    # customer's repairs with no test between them logged in the FSM's ledger
    assert not [e for e in refused if e["tool"] == "send_message_to_customer"]
    stacks = [json.loads(p.read_text(encoding="utf-8")).get("stack") for p in (run.path / "fsm").glob("*.json")]
    [stack] = [s for s in stacks if s]
    assert stack[-1]["variables"]["several_repairs"] >= 1
    assert [e for e in run.of("stop") if e["outcome"] == "blocked"]    # it ended its turn with the problem open
    assert not [e for e in run.calls(TRANSFER) if e["ok"]] and run.outcome["reward"] == 1.0


@pytest.mark.parametrize("runtime", ["claude-code", "codex"])
def test_the_folder_the_agent_works_in_names_no_model_condition_or_task(runs, runtime):
    """Every path under the sessions folder the agent's model was sent is the agent's folder, which
    names no model, condition, study or task (issue 49, item 5)."""
    run = runs[("oracle", runtime, "FSM")]
    text = (runs["out"] / f"requests-oracle-{runtime}-FSM.jsonl").read_text(encoding="utf-8")
    assert_the_model_saw_no_session_name(text, runs["out"], run.path)


@pytest.mark.parametrize("runtime,condition", [("claude-code", "Control"), ("codex", "FSM")])
def test_the_customers_spend_is_priced_logged_and_in_the_sessions_cost(runs, runtime, condition):
    """Every response of tau2's user simulator is a model_usage event, priced as the simulator's
    stand-in, and the session's cost is the agent's calls and the customer's (issue 49, item 2)."""
    run = runs[("oracle", runtime, condition)]
    usage = run.of("model_usage")
    assert len(usage) == len(run.customer_requests) >= 5
    assert {(u["role"], u["model"], u["model_id"]) for u in usage} == {("customer", "sim:customer", "claude-haiku-4-5")}
    assert all(u["priced_usd"] > 0 and u["usage"]["output"] > 0 for u in usage)
    end, meta = run.of("session_end")[-1], json.loads((run.path / "meta.json").read_text())
    side = sum(u["priced_usd"] for u in usage)
    calls = sum(c["cost_usd"] for c in run.of("call_end"))
    assert end["side_cost_usd"] == pytest.approx(side, abs=1e-5) and side > 0
    assert end["cost_usd"] == meta["cost_usd"] == pytest.approx(calls + side, abs=1e-5)
    assert usage[-1]["session_cost_usd"] <= end["cost_usd"] + 1e-6


def test_the_customers_spend_counts_against_the_spending_cap(tmp_path):
    """The customer's opening costs more than this cap: the session ends at the cap before the
    agent's first response (issue 49, item 2)."""
    from study.runner.session import SessionSpec, run_session

    cap = 0.0002
    path = Path(run_session(SessionSpec(condition="Control", seed=TASK, model="sim:oracle", study=STUDY,
                                        out_root=tmp_path, limit_overrides={"spending_usd": cap})))
    events = _events(path)
    usage = [e for e in events if e["kind"] == "model_usage"]
    assert usage and usage[0]["role"] == "customer" and usage[0]["session_cost_usd"] >= cap
    assert [e for e in events if e["kind"] == "usage"] == []        # the agent was stopped before its first response
    end = events[-1]
    assert (end["kind"], end["status"]) == ("session_end", "limit:spending") and end["side_cost_usd"] >= cap


def test_table4_from_these_logs(runs):
    from click.testing import CliRunner

    from study.cli import main

    done = CliRunner().invoke(main, ["tables", "--study", STUDY, "--sessions", str(runs["out"]), "--allow-simulated",
                                     "--include-exploratory", "--format", "csv"])
    assert done.exit_code == 0, done.output
    rows = {line.split(",")[0]: line.split(",")[1:] for line in done.stdout.splitlines()
            if line.startswith("sim:") or line.startswith('"sim:')}
    # model: domain, tasks, Control, FSM, FSM only, Control only, McNemar p, transfers open Control, FSM, ...
    assert rows["sim:oracle"][:5] == ["telecom", "1", "1", "1", "0"]
    # the oracle on Codex CLI and the adversarial agent ran under FSM only: no task to pair, no row
    assert set(rows) == {"sim:oracle", "sim:goal-abandoner on Codex CLI"}
    abandoner = rows["sim:goal-abandoner on Codex CLI"]
    assert abandoner[:6] == ["telecom", "1", "0", "1", "1", "0"]
    assert float(abandoner[6]) == 1.0 and abandoner[7:9] == ["1", "0"]


def test_a_conversation_is_said_as_one_conversation_never_as_decided(runs):
    """Issue 49, item 9: a τ²-bench session is one conversation, which it does not decide: ``study
    run``'s last line and ``study status`` say the conversation and its reward (they said ``1/1
    decided``)."""
    from study.runner.status import format_table, scan
    from study.session_io.meta import read_meta

    rewards = {key: run.outcome["reward"] for key, run in runs.items() if key != "out"}
    assert rewards[("goal-abandoner", "codex", "Control")] == 0.0 and rewards[("oracle", "claude-code", "FSM")] == 1.0
    table = format_table(scan(runs["out"])).splitlines()
    assert table[0].split()[:4] == ["session", "status", "done", "outcome"]
    rows = [line.split() for line in table[1:len(rewards) + 1]]
    assert [row[1:3] for row in rows] == [["completed", "-"]] * len(rewards)
    assert "decided" not in "\n".join(table) and "1/1" not in "\n".join(table)
    from study.runner.display import session_line

    for key, reward in rewards.items():
        line = session_line(runs[key].path, read_meta(runs[key].path))
        assert line.startswith(f"completed: 1 conversation, reward {reward:g}, $"), (key, line)


@pytest.mark.parametrize("runtime", ["claude-code", "codex"])
def test_no_task_id_reaches_the_agent_the_customer_or_the_fsm(runs, runtime):
    from study.families.tau2 import data

    run = runs[("oracle", runtime, "FSM")]
    task_id = run.outcome["task_id"]
    assert task_id == data.frozen_order(data.task_ids("telecom"))[TASK - 1]     # the log names it: the outcome
    agent = (run.path / "transcript.jsonl").read_text(encoding="utf-8")
    requests = (runs["out"] / f"requests-oracle-{runtime}-FSM.jsonl").read_text(encoding="utf-8")
    customer = json.dumps(run.customer_requests)
    frames = "".join(p.read_text(encoding="utf-8") for p in (run.path / "fsm").rglob("*") if p.is_file())
    assert len(agent) > 1000 and requests.count("\n") >= 5 and len(run.customer_requests) >= 5 and frames
    assert "get_customer_by_phone" in agent and "Airplane Mode" in customer    # they hold the conversation
    faults = task_id.split("]", 1)[1].split("[", 1)[0].split("|")       # the id names the injected faults
    for seen in (agent, requests, customer, frames):
        assert task_id not in seen
        assert json.dumps(task_id)[1:-1] not in seen
    for fault in faults:   # not even the id's parts reach the agent or the FSM
        assert fault not in agent and fault not in requests and fault not in frames
