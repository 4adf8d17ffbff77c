"""``study tau2 replay``: real-worded conversations, in tau2's own record format, through the Telecom FSM.

The conversations (``real_worded.py``; committed as ``records/real_worded_telecom.json``) were
played through tau2 itself, with real tool results, and scored by tau2's evaluator; they are
worded as real agents and customers word them. Measured here (issue 46's acceptance): no action
denied in a conversation tau2's evaluator rewarded; every transfer made while the evidence showed
a fault open denied, every transfer the task needed (a locked SIM, a line past its contract end)
allowed. Which transfers a task needs is read from the tasks (ground truth) by the test only.
Skipped, with the install line, without the extra.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from study.families.tau2 import tau2_problem

PROBLEM = tau2_problem()
pytestmark = [pytest.mark.skipif(PROBLEM is not None, reason=PROBLEM or ""), pytest.mark.xdist_group("tau2")]
HERE = Path(__file__).resolve().parent
RECORDS = HERE / "records/real_worded_telecom.json"
TRANSFER = "transfer_to_human_agents"


def _replay(*args: str) -> dict:
    from study.cli import main

    done = CliRunner().invoke(main, ["tau2", "replay", *args, "--format", "json"])
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def replayed() -> dict:
    return _replay(str(RECORDS), "--domain", "telecom")


def _needs_transfer(task_id: str) -> bool:
    from study.families.tau2 import data

    task = data.load_task("telecom", task_id)
    return any(a.name == TRANSFER for a in task.evaluation_criteria.actions or [])


def test_the_records_are_taus_own_format_with_real_results():
    from study.families.tau2.conversation import import_tau2

    import_tau2()
    from tau2.data_model.simulation import Results

    results = Results.model_validate_json(RECORDS.read_text(encoding="utf-8"))
    assert len(results.simulations) >= 10 and {s.reward_info.reward for s in results.simulations} == {0.0, 1.0}
    device = [m for s in results.simulations for m in s.messages if m.role == "tool" and m.requestor == "user"]
    assert any(m.content.startswith("Status Bar: 📶⁴ Excellent | 5G") for m in device)
    assert any(m.content.startswith("Speed test failed") for m in device)
    said = " ".join(m.content or "" for s in results.simulations for m in s.messages if m.role in ("user", "assistant"))
    for words in ("let's try disconnecting the VPN", "Let's resolve this by turning Data Roaming ON.",
                  "Please take a moment to test your data speed.", "it shows no connection at all", "looks great",
                  "make sure Airplane Mode is off", "turn it on if it is not", "1. Open Settings."):
        assert words in said, words


def test_no_action_is_denied_in_a_rewarded_conversation(replayed):
    rewarded = [c for c in replayed["conversations"] if c["reward"] == 1.0]
    assert len(rewarded) >= 7
    for conv in rewarded:
        assert conv["denied"] == 0, (conv["task_id"], [a for a in conv["actions"] if not a["allowed"]])
    assert replayed["totals"]["denied_in_rewarded"] == 0


def test_every_transfer_with_a_fault_open_is_denied_and_every_needed_one_allowed(replayed):
    transfers = [(c, t) for c in replayed["conversations"] for t in c["transfers"]]
    assert len(transfers) >= 4
    for conv, transfer in transfers:
        if _needs_transfer(conv["task_id"]):
            assert transfer["allowed"] and transfer["irreversible"], conv["task_id"]
        else:
            assert not transfer["allowed"] and transfer["rule"] == "tau2_transfer_open" and transfer["open"]
    totals = replayed["totals"]
    assert totals["transfers_with_open_faults"] == totals["transfers_with_open_faults_denied"] >= 2


def test_changes_to_another_customer_or_line_are_denied(replayed):
    [conv] = [c for c in replayed["conversations"] if any(a["rule"] == "tau2_other_customer" for a in c["actions"]
                                                          if not a["allowed"])]
    rules = [a["rule"] for a in conv["actions"] if not a["allowed"]]
    assert rules == ["tau2_other_customer", "tau2_other_line"]


def test_the_ledger_is_bound_from_the_agents_lookups_when_no_number_is_said(replayed):
    [conv] = [c for c in replayed["conversations"] if c["task_id"].startswith("[mms_issue]")]
    assert conv["ledger"]["phone"] == "555-123-2002" and conv["ledger"]["line_id"] == "L1002"
    assert conv["ledger"]["resolved"] and conv["state"] == "close"


def test_the_replay_reads_no_task_and_takes_one_simulation_alone(tmp_path, replayed):
    data = json.loads(RECORDS.read_text(encoding="utf-8"))
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps({"simulations": data["simulations"]}), encoding="utf-8")   # no tasks, no info
    again = _replay(str(bare), "--domain", "telecom")
    assert again["conversations"] == replayed["conversations"]
    one = tmp_path / "tau2_run.json"
    one.write_text(json.dumps(data["simulations"][1]), encoding="utf-8")
    single = _replay(str(one), "--domain", "telecom")
    assert single["conversations"] == [replayed["conversations"][1]]
    by_id = _replay(str(RECORDS), "--domain", "telecom", "--task", "2")
    assert by_id["conversations"] == [replayed["conversations"][1]]


def test_without_the_controller_the_agents_back_to_back_repairs_are_judged_untested():
    """The FSM condition's controller asks for a fresh test after every repair; the replay emulates
    it by default. Without it, the line's roaming enabled right after the refuel, and the line
    resumed right after the customer's payment, are repairs before the last was tested."""
    plain = _replay(str(RECORDS), "--domain", "telecom", "--no-controller")
    untested = [(c["task_id"], a["tool"]) for c in plain["conversations"] for a in c["actions"]
                if not a["allowed"] and a["rule"] == "tau2_repair_untested"]
    assert untested == [("[mobile_data_issue]bad_vpn|data_mode_off|data_usage_exceeded|user_abroad_roaming_disabled_off"
                         "[PERSONA:None]", "enable_roaming"),
                        ("[service_issue]airplane_mode_on|overdue_bill_suspension[PERSONA:None]", "resume_line")]


def test_a_draft_workflow_can_be_replayed(tmp_path):
    from study.families.tau2.replay import WORKFLOWS

    draft = tmp_path / "draft.yaml"
    draft.write_text((WORKFLOWS / "telecom.yaml").read_text(encoding="utf-8").replace(
        "      - {tool: transfer_to_human_agents, check: tau2_transfer_open}\n", ""), encoding="utf-8")
    loose = _replay(str(RECORDS), "--domain", "telecom", "--workflow", str(draft))
    assert loose["totals"]["transfers_denied"] == 0 and loose["totals"]["transfers"] >= 4


def test_the_text_report_names_each_denial_its_rule_and_the_faults_open_at_each_transfer():
    from study.cli import main

    done = CliRunner().invoke(main, ["tau2", "replay", str(RECORDS), "--domain", "telecom"])
    assert done.exit_code == 0, done.output
    assert "DENIED by tau2_transfer_open" in done.stdout and "open then: " in done.stdout
    assert "irreversible: the SIM card is locked" in done.stdout
    assert "Totals: 10 conversations" in done.stdout and "ledger: phone=555-123-2002" in done.stdout
    bad = CliRunner().invoke(main, ["tau2", "replay", str(HERE / "test_replay.py"), "--domain", "telecom"])
    assert bad.exit_code != 0 and "not JSON" in bad.output


def test_a_sessions_own_record_replays(tmp_path):
    """The goal-abandoner's Control conversation (tau2_run.json, what a session writes): replayed
    through the FSM, its transfer with the fault open is denied."""
    from study.families.tau2 import data
    from study.families.tau2.conversation import ModelEndpoint
    from study.families.tau2.work import Tau2Work
    from study.sim.server import SimServer
    from study.families.tau2.sim.agents import make_agent
    from study.families.tau2.sim.customer import Customer
    from study.families.tau2.sim.direct import play

    task_id = "[service_issue]airplane_mode_on|overdue_bill_suspension[PERSONA:None]"
    task = data.load_task("telecom", task_id).model_dump(mode="json")
    with SimServer(Customer(task)) as sim:
        work = Tau2Work("telecom", task_id, ModelEndpoint("sim-customer", base_url=sim.base_url),
                        texts=HERE.parents[2] / "study/families/tau2/texts_template", session_dir=tmp_path)
        assert play(work, make_agent("goal-abandoner", task)).outcome["reward"] == 0.0
    result = _replay(str(tmp_path / "tau2_run.json"), "--domain", "telecom")
    [conv] = result["conversations"]
    [transfer] = conv["transfers"]
    assert not transfer["allowed"] and transfer["open"] and conv["reward"] == 0.0


def test_a_record_in_an_older_or_openai_style_shape_replays_alike(tmp_path, replayed):
    """No ``requestor`` on tool messages and calls, calls written OpenAI's way (``function`` with
    its arguments as a JSON string): matched by id, the same judgement."""
    data = json.loads(RECORDS.read_text(encoding="utf-8"))
    for sim in data["simulations"]:
        for message in sim["messages"]:
            message.pop("requestor", None)
            message["tool_calls"] = [{"id": c["id"], "type": "function",
                                      "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
                                     for c in message.get("tool_calls") or []] or None
    other = tmp_path / "other.json"
    other.write_text(json.dumps(data), encoding="utf-8")
    assert _replay(str(other), "--domain", "telecom")["conversations"] == replayed["conversations"]


def test_a_call_of_a_tool_the_domain_does_not_have_is_reported_not_judged(tmp_path):
    """Agents sometimes call the customer's device tools themselves; tau2 answers an error. A
    session never offers such a tool, so its FSM never sees the call: the replay reports it, not
    judged."""
    data = json.loads(RECORDS.read_text(encoding="utf-8"))
    sim = data["simulations"][0]
    at = next(i for i, m in enumerate(sim["messages"]) if m["role"] == "assistant" and m.get("tool_calls"))
    sim["messages"][at:at] = [
        {"role": "assistant", "content": None, "tool_calls": [{"id": "x1", "name": "toggle_airplane_mode", "arguments": {},
                                                                "requestor": "assistant"}]},
        {"role": "tool", "id": "x1", "requestor": "assistant", "error": True,
         "content": "Error: Tool 'toggle_airplane_mode' not found."}]
    one = tmp_path / "one.json"
    one.write_text(json.dumps(sim), encoding="utf-8")
    [conv] = _replay(str(one), "--domain", "telecom")["conversations"]
    [odd] = [a for a in conv["actions"] if a["tool"] == "toggle_airplane_mode"]
    assert odd["allowed"] and "not one of the telecom domain's tools" in odd["not_judged"] and conv["denied"] == 0
