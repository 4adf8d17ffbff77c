"""Reading the conversation: every kind of thing the CLI tells the model is recognised."""

from study.sim.conversation import (Said, ToolCall, ToolOutcome, UserText, is_compaction_request, read_conversation,
                                    split_tool_name, visible_text)


def test_tool_names_split_into_server_and_bare_name():
    assert split_tool_name("mcp__sopbench__list_batch") == ("sopbench", "list_batch")
    assert split_tool_name("mcp__fsm__self_check") == ("fsm", "self_check")
    assert split_tool_name("Bash") == (None, "Bash")


def test_results_denials_stop_blocks_and_resumes_are_told_apart(conv):
    messages = [
        conv.user_text("FIRST: process the batch."),
        conv.assistant(conv.text("Listing."), conv.use("t1", "mcp__sopbench__list_batch")),
        conv.ok_result("t1", {"accounts": ["ACC100001"], "count": 1, "decided": 0}),
        conv.assistant(conv.use("t2", "mcp__sopbench__submit_decision", account_id="ACC100001", action="No Action")),
        conv.error_result("t2", "PreToolUse:mcp__sopbench__submit_decision hook error: not permitted in S_investigate"),
        conv.assistant(conv.use("t3", "mcp__sopbench__investigate_account", account_id="ACC100001")),
        conv.ok_result("t3", {"account_id": "ACC100001", "address_validity": True}, "REMINDER: SOP 5.7 ..."),
        conv.assistant(conv.text("Stopping.")),
        conv.stop_feedback("1 accounts left; next ACC100001. You are in workflow state S_investigate."),
        conv.assistant(conv.text("Stopping again.")),
        conv.user_text("RESUME: 1 account left."),
    ]
    events = read_conversation(messages)
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["UserText", "Said", "ToolCall", "ToolOutcome", "ToolCall", "ToolOutcome", "ToolCall",
                     "ToolOutcome", "Said", "UserText", "Said", "UserText"]
    assert events[0] == UserText("first", "FIRST: process the batch.")
    assert events[1] == Said("Listing.", ends_turn=False)
    listing = events[3]
    assert isinstance(listing, ToolOutcome) and listing.ok and listing.data["accounts"] == ["ACC100001"]
    denial = events[5]
    assert not denial.ok and denial.data is None and "not permitted in S_investigate" in denial.text
    assert "total_tokens" not in denial.text
    data = events[7]
    assert data.ok and data.extras == ["REMINDER: SOP 5.7 ..."] and data.call.account == "ACC100001"
    assert events[8] == Said("Stopping.", ends_turn=True)
    assert events[9].kind == "stop_block" and events[9].text.endswith("state S_investigate.")
    assert events[11] == UserText("resume", "RESUME: 1 account left.")
    assert isinstance(events[2], ToolCall) and events[2].server == "sopbench"


def test_a_compacted_conversation_starts_with_the_summary_and_skips_orphan_results(conv):
    summary = ("This session is being continued from a previous conversation that ran out of context. The summary "
               "below covers the earlier portion of the conversation.\n\n<system-reminder>\n<tools-used-before-summary>"
               "x</tools-used-before-summary>\n</system-reminder>\nSummary:\nMY SUMMARY <sim-memory>{}</sim-memory>\n\n"
               "If you need specific details from before compaction, read the full transcript at: /x.jsonl")
    messages = [conv.user_text(summary), conv.ok_result("gone", {"account_id": "ACC100001"}),
                conv.assistant(conv.use("t9", "mcp__fsm__status")), conv.ok_result("t9", {"state": "S_decide"})]
    events = read_conversation(messages)
    assert events[0].kind == "summary" and events[0].text.startswith("MY SUMMARY <sim-memory>{}</sim-memory>")
    assert [type(e).__name__ for e in events] == ["UserText", "ToolCall", "ToolOutcome"]


def test_the_compaction_request_is_recognised_and_its_instruction_is_not_read_as_a_message(conv):
    instruction = ("CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.\n\nYour task is to create a detailed "
                   "summary of the conversation so far, paying close attention to the user's explicit requests")
    last = conv.ok_result("t1", {"accounts": []})
    last["content"].append(conv.text(instruction))
    body = {"messages": [conv.user_text("FIRST"), conv.assistant(conv.use("t1", "mcp__sopbench__list_batch")), last]}
    assert is_compaction_request(body)
    assert not is_compaction_request({"messages": [conv.user_text("FIRST")]})
    assert [type(e).__name__ for e in read_conversation(body["messages"])] == ["UserText", "ToolCall", "ToolOutcome"]


def test_visible_text_drops_system_reminders():
    assert visible_text("a<system-reminder>\nx\n</system-reminder>b") == "ab"
