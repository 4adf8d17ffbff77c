"""The other task families' sessions read from their logs alone (their transcript parts,
study/families/tau2/transcript.py and study/families/workspace/transcript.py, and outcomes): who
said what in a τ²-bench conversation and in what order, a workspace run's contexts with its commands, edits, refusals, commits and FSM checks, and each family's
verdict in words. Hand-written logs, every expected value worked out here."""

from __future__ import annotations

from study.families.tau2 import telecom_evidence
from study.families.tau2 import transcript as tau2_log
from study.families.workspace import transcript as workspace_log
from study.transcripts import outcomes

MARK = telecom_evidence.CONTROLLER_MARK


def _seq(events):
    return [{"seq": i, **e} for i, e in enumerate(events)]


def _call(tool, args, result=None, *, server="tau2", ok=True, allowed=True, error=None, call_id=None, **more):
    event = {"kind": "tool_call", "server": server, "tool": tool, "args": args, "allowed": allowed, "ok": ok,
             "state": "diagnose", "call_id": call_id or f"c-{tool}"}
    event.update({"result": result} if ok else {"error": error})
    return {**event, **more}


def test_the_controller_mark_is_the_tau2_familys():
    assert tau2_log.CONTROLLER_MARK == telecom_evidence.CONTROLLER_MARK


TAU2 = _seq([
    {"kind": "session_start"},
    {"kind": "customer_message", "text": "My phone shows No Service."},                  # 1: the opening
    _call("get_line", {"id": "L1"}, '{"status": "Active"}', call_id="c1"),               # 2
    {"kind": "customer_message", "text": "It shows: No SIM card."},                      # 3: the reply to 4
    _call("send_message_to_customer", {"message": "Please check your SIM."}, "It shows: No SIM card.", call_id="c2"),
    {"kind": "customer_message", "text": "Re-seated."},                                  # 5: the reply to 7
    {"kind": "customer_message", "text": "Status bar: Airplane Mode"},                   # 6: the answer to the controller
    _call("send_message_to_customer", {"message": "Reseat the SIM."},
          f'Re-seated.\n\n{MARK} "Check your status bar."]\nCustomer: Status bar: Airplane Mode', call_id="c3"),
    _call("send_message_to_customer", {"message": "Transfer now"}, allowed=False, ok=False,
          error="no transfer while the goal is open", call_id="c4"),                     # 8: denied
    {"kind": "transition", "from": "diagnose", "to": "close", "ok": False, "reason": "guard failed"},
    {"kind": "customer_message", "text": "###STOP###"},                                  # 10
    {"kind": "conversation_end", "reason": "user_stop"},                                 # 11
    _call("send_message_to_customer", {"message": "Bye."},
          "###STOP###\n\n[The customer has ended the conversation (user_stop).]", call_id="c5"),
    {"kind": "assistant_text", "text": "Done."},
    {"kind": "stop", "outcome": "ended", "reason": None, "accounts_left": 0},
])


def test_a_conversation_puts_each_reply_after_the_message_it_answers():
    talk = tau2_log.conversation(TAU2)
    assert [(e["role"], e["seq"]) for e in talk] == [
        ("customer", 1), ("call", 2), ("agent", 4), ("customer", 3), ("agent", 7), ("customer", 5),
        ("controller", 7), ("customer", 6), ("agent", 8), ("transition", 9), ("agent", 12), ("customer", 10),
        ("end", 11), ("note", 13), ("stop", 14)]
    assert talk[0]["opening"] is True and "opening" not in talk[3]
    assert talk[6]["text"] == "Check your status bar."
    denied = talk[8]
    assert (denied["text"], denied["denied"], denied["ok"], denied["error"]) == (
        "Transfer now", True, False, "no transfer while the goal is open")
    assert talk[9] == {"role": "transition", "seq": 9, "from": "diagnose", "to": "close", "ok": False, "reason": "guard failed"}
    assert talk[1]["result"] == {"text": '{"status": "Active"}'} and talk[12]["reason"] == "user_stop"


def test_each_calls_customer_words_by_call_id():
    said = tau2_log.by_call(TAU2)
    assert set(said) == {"c1", "c2", "c3", "c5"}           # the denied message brought nothing
    assert said["c2"]["reply"] == ["It shows: No SIM card."] and said["c2"]["controller"] is None
    assert (said["c3"]["reply"], said["c3"]["controller"], said["c3"]["answer"]) == (
        ["Re-seated."], "Check your status bar.", ["Status bar: Airplane Mode"])
    assert (said["c5"]["reply"], said["c5"]["ended"]) == (["###STOP###"], "user_stop")
    assert said["c1"]["reply"] == []


def test_the_controllers_own_calls_are_its_turns_where_the_log_has_them_and_bring_no_reply():
    events = _seq([
        {"kind": "session_start"},
        {"kind": "customer_message", "text": "No service. My number is 555-0100."},       # 1: the opening
        {"kind": "controller_call", "tool": "get_customer_by_phone", "args": {"phone_number": "555-0100"},
         "ok": True, "result": '{"customer_id": "C1"}'},                                  # 2
        {"kind": "controller_call", "tool": "get_details_by_id", "args": {"id": "L9"}, "ok": False,
         "result": "Error: line L9 not found"},                                           # 3
        {"kind": "customer_message", "text": "It shows: No SIM card."},                  # 4: the reply to 5
        _call("send_message_to_customer", {"message": "Please check your SIM."}, "It shows: No SIM card.", call_id="c1"),
    ])
    talk = tau2_log.conversation(events)
    assert [(e["role"], e["seq"]) for e in talk] == [("customer", 1), ("controller", 2), ("controller", 3),
                                                     ("agent", 5), ("customer", 4)]
    assert talk[1] == {"role": "controller", "seq": 2, "tool": "get_customer_by_phone",
                       "args": {"phone_number": "555-0100"}, "ok": True, "result": {"text": '{"customer_id": "C1"}'}}
    assert (talk[2]["ok"], talk[2]["error"]) == (False, "Error: line L9 not found") and "result" not in talk[2]
    said = tau2_log.by_call(events)
    assert said == {"c1": {"reply": ["It shows: No SIM card."], "controller": None, "answer": [], "ended": None,
                           "seq": 5, "role": "agent"}}


def test_customer_words_that_are_no_calls_reply_keep_the_logs_order():
    events = _seq([{"kind": "session_start"}, {"kind": "customer_message", "text": "Hello?"},
                   _call("send_message_to_customer", {"message": "Hi"}, "something else entirely")])
    assert [(e["role"], e["seq"]) for e in tau2_log.conversation(events)] == [("customer", 1), ("agent", 2)]


#: How a successful FSM Telecom conversation ends (a real sim:oracle session's last calls): a repair
#: call whose result holds the controller's fresh test and the customer's answer to it; then a
#: message whose one result holds the customer's reply, the controller's fresh test and the
#: customer's answer that ends the conversation. The log has the customer's words and the end
#: before the call they came in.
ENDING = _seq([
    {"kind": "session_start"},
    {"kind": "customer_message", "text": "No service."},                                 # 1: the opening
    {"kind": "customer_message", "text": "It shows: No Signal"},                         # 2: the answer to 3's test
    _call("resume_line", {"line_id": "L2"}, f'{{"message": "Line resumed"}}\n\n{MARK} "Check your status bar."]'
          "\nCustomer: It shows: No Signal", call_id="c1"),                             # 3
    {"kind": "customer_message", "text": "I did that (reboot device)."},                  # 4: the reply to 7
    {"kind": "customer_message", "text": "Excellent | 5G. Solved, thank you! ###STOP###"},  # 5: the answer to 7's test
    {"kind": "conversation_end", "reason": "user_stop"},                                 # 6
    _call("send_message_to_customer", {"message": "Please restart your phone."},
          f'I did that (reboot device).\n\n{MARK} "Check your status bar."]\nCustomer: Excellent | 5G. Solved, '
          "thank you! ###STOP###\n\n[The customer has ended the conversation (user_stop).]", call_id="c2"),
    {"kind": "transition", "from": "diagnose", "to": "close", "ok": True, "reason": "moved"},  # 8
])


def test_the_last_exchange_of_an_fsm_conversation_follows_the_agents_last_message():
    talk = tau2_log.conversation(ENDING)
    assert [(e["role"], e["seq"]) for e in talk] == [
        ("customer", 1), ("call", 3), ("controller", 3), ("customer", 2), ("agent", 7), ("customer", 4),
        ("controller", 7), ("customer", 5), ("end", 6), ("transition", 8)]
    said = tau2_log.by_call(ENDING)
    assert (said["c1"]["answer"], said["c1"]["ended"]) == (["It shows: No Signal"], None)
    assert (said["c2"]["reply"], said["c2"]["controller"], said["c2"]["answer"], said["c2"]["ended"]) == (
        ["I did that (reboot device)."], "Check your status bar.",
        ["Excellent | 5G. Solved, thank you! ###STOP###"], "user_stop")


def test_an_end_without_words_follows_the_message_it_ended():
    events = _seq([
        {"kind": "customer_message", "text": "Hello"},
        {"kind": "conversation_end", "reason": "user_stop"},
        _call("send_message_to_customer", {"message": "Bye."},
              "[The customer has ended the conversation (user_stop).]", call_id="c1")])
    assert [(e["role"], e["seq"]) for e in tau2_log.conversation(events)] == [("customer", 0), ("agent", 2), ("end", 1)]
    assert tau2_log.by_call(events)["c1"]["ended"] == "user_stop"


def test_texts_are_cut_and_odd_fields_do_not_raise():
    events = _seq([{"kind": "customer_message", "text": "x" * 5000},
                   {"kind": "tool_call", "server": "tau2", "tool": "send_message_to_customer", "args": "not an object",
                    "allowed": True, "ok": True, "result": 7}])
    talk = tau2_log.conversation(events, cap=100)
    assert (len(talk[0]["text"]), talk[0]["cut"]) == (100, 5000)
    assert talk[1]["role"] == "agent" and talk[1]["text"] == ""


RUN = "/runs/seed-1"
WORKSPACE = _seq([
    {"kind": "session_start", "workspace": "workspace"},
    {"kind": "transition", "from": None, "to": "S_ingest", "ok": True, "reason": "entered by the runner"},
    {"kind": "context_start", "n": 1, "unit": "2025-01"},
    _call("Write", {"file_path": f"{RUN}/workspace/periods/2025-01/inputs/cash.csv", "content": "x"}, server=None,
          ok=False, allowed=False, error="the inputs never change"),
    _call("Write", {"file_path": f"{RUN}/checks/check_step.py", "content": "exit 0"}, server=None, ok=False,
          allowed=False, error="outside the workspace"),
    _call("Bash", {"command": "python3 tools/close.py 1"}, '{"stdout": "wrote step 1", "stderr": "warn"}', server=None,
          actions=[{"tool": "shell", "args": {"command": "python3 tools/close.py 1"}}]),
    _call("Edit", {"file_path": f"{RUN}/workspace/train.py", "old_string": "lr = 1", "new_string": "lr = 2"}, "ok",
          server=None, actions=[{"tool": "edit", "args": {"path": "train.py"}}]),
    {"kind": "commit", "sha": "abc1234def", "parents": ["0" * 40], "subject": "trial 2", "files": ["train.py"]},
    _call("transition", {"target": "S_valuation"}, server="fsm", ok=False, error="guard failed"),
    {"kind": "transition", "from": "S_ingest", "to": "S_valuation", "ok": False, "reason": "- row 2: decision 'reject'"},
    {"kind": "stop", "outcome": "blocked", "reason": "not finished", "accounts_left": 2},
    {"kind": "context_end", "n": 1, "ended": "ended_with_accounts_left", "unit": "2025-01"},
    {"kind": "context_start", "n": 2, "unit": "2025-02"},
    {"kind": "transition", "from": None, "to": "S_ingest", "ok": True, "reason": "anew"},
    _call("apply_patch", {"command": "*** Begin Patch\n*** Update File: a.py\n-x\n+y\n*** End Patch"}, "done",
          server=None, actions=[{"tool": "edit", "args": {"path": "a.py"}}]),
])


def test_a_runs_contexts_hold_its_commands_edits_refusals_commits_and_checks():
    first, second = workspace_log.contexts(WORKSPACE)
    assert (first["n"], first["unit"], first["ended"], first["state"]) == (1, "2025-01", "ended_with_accounts_left", "S_ingest")
    assert (second["n"], second["unit"], second["ended"], second["state"]) == (2, "2025-02", None, "S_ingest")
    kinds = [(i["kind"], i["seq"]) for i in first["items"]]
    assert kinds == [("transition", 1), ("write", 3), ("write", 4), ("command", 5), ("edit", 6), ("commit", 7),
                     ("call", 8), ("transition", 9), ("stop", 10), ("end", 11)]
    items = {i["seq"]: i for i in first["items"]}
    # a refused call's absolute path, shown from the workspace (learned from the log's paths)
    assert (items[3]["path"], items[3]["denied"], items[3]["error"]["text"]) == (
        "periods/2025-01/inputs/cash.csv", True, "the inputs never change")
    assert items[4]["path"] == "../checks/check_step.py"
    assert (items[5]["command"], items[5]["output"]["text"]) == ("python3 tools/close.py 1", "wrote step 1\nwarn")
    assert items[6]["path"] == "train.py" and items[6]["changes"] == [{"old": {"text": "lr = 1"}, "new": {"text": "lr = 2"}}]
    assert (items[7]["sha"], items[7]["files"]) == ("abc1234def", ["train.py"])
    assert (items[9]["ok"], items[9]["reason"]["text"]) == (False, "- row 2: decision 'reject'")
    assert first["counts"] == {"calls": 5, "commands": 1, "edits": 3, "denied": 2, "commits": 1, "moves": 1,
                               "refused_moves": 1, "blocks": 1}
    patch = second["items"][1]
    assert (patch["kind"], patch["path"], patch["patch"]["text"].splitlines()[1]) == ("edit", "a.py", "*** Update File: a.py")


def test_a_log_without_contexts_is_one_context():
    (only,) = workspace_log.contexts(_seq([{"kind": "session_start"}, _call("Bash", {"command": "ls"}, "a", server=None)]))
    assert only["n"] is None and [i["kind"] for i in only["items"]] == ["command"]


def test_each_familys_verdict_in_words():
    assert outcomes.verdict(None) == {"text": "no outcome", "class": "none", "cells": []}
    judged = outcomes.verdict({"family": "tau2", "reward": 0.0, "judged": True})
    assert (judged["text"], judged["class"]) == ("reward 0", "fail")
    assert outcomes.verdict({"family": "tau2", "reward": None, "judged": False})["text"] == "not judged"
    rows = [{"trial": "1", "stage": "baseline", "valid": True}, {"trial": "2", "stage": "scheduler", "valid": False,
                                                                 "rule": "decision"}]
    research = outcomes.verdict({"family": "workspace", "protocol": "autoresearch", "rows": rows, "valid_rows": 1,
                                 "required_rows": 3, "complete": False})
    assert (research["text"], research["class"]) == ("1/3 rows valid, not complete", "fail")
    assert [c["class"] for c in research["cells"]] == ["pass", "fail", "none"]
    assert research["cells"][1]["title"] == "trial 2 (scheduler): breaks rule decision"
    periods = [{"period": "2025-01", "started": True, "correct": True}, {"period": "2025-02", "started": True, "right": 9},
               {"period": "2025-03", "started": False}]
    close = outcomes.verdict({"family": "workspace", "protocol": "month-end-close", "periods": periods, "correct_periods": 1})
    assert (close["text"], [c["class"] for c in close["cells"]]) == ("1/3 periods correct", ["pass", "fail", "none"])
    assert close["cells"][1]["title"] == "2025-02: 9/11 fields"


def test_details_of_a_tau2_outcome_say_its_parts_and_a_transfer():
    outcome = {"family": "tau2", "reward": None, "judged": False, "parts": {"DB": 1.0, "NL_ASSERTION": 0.0},
               "reward_basis": ["DB", "NL_ASSERTION"], "task_id": "t7", "termination_reason": "user_stop"}
    events = [_call("transfer_to_human_agents", {}, "Transfer successful")]
    found = outcomes.details(outcome, events)
    assert (found["headline"], found["judged"], found["reward"]) == ("not judged", False, None)
    assert found["parts"] == [{"name": "DB", "value": 1.0, "in_basis": True},
                              {"name": "NL_ASSERTION", "value": 0.0, "in_basis": True}]
    facts = dict(found["facts"])
    assert facts["transferred to a human agent"] == "yes" and facts["task"] == "t7"
    assert facts["not judged"].startswith("the reward needs a judge")
