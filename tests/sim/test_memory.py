"""The model's memory: folded from the conversation, carried through a compaction summary."""

from sopbench_tools.tool_definitions import DATA_TOOLS
from sopbench_tools.toolbox import ToolBox
from study.sim.conversation import UserText, read_conversation
from study.sim.memory import Memory, remember, summary_text

ORDER = ["ACC100001", "ACC100002", "ACC100003"]


def _investigated(conv, box, account, first_id=0):
    """Messages: the five data calls for ``account`` with the toolbox's real results."""
    messages = []
    for i, tool in enumerate(DATA_TOOLS):
        id_ = f"d{first_id + i}"
        messages.append(conv.assistant(conv.use(id_, f"mcp__sopbench__{tool}", account_id=account)))
        messages.append(conv.ok_result(id_, box.call(tool, {"account_id": account}).data))
    return messages


def test_the_fold_tracks_batch_data_records_decisions_and_prunes_decided_accounts(conv):
    box = ToolBox(ORDER)
    messages = [conv.user_text("FIRST"), conv.assistant(conv.use("l", "mcp__sopbench__list_batch")),
                conv.ok_result("l", box.call("list_batch", {}).data)]
    messages += _investigated(conv, box, "ACC100001")
    record = {"account_id": "ACC100001", "step1_scores": {}, "step4_action": "No Action"}
    messages += [conv.assistant(conv.use("r", "mcp__sopbench__record_analysis", **record)), conv.ok_result("r", {"recorded": True})]
    m = remember(read_conversation(messages))
    assert m.order == ORDER and m.next_undecided == "ACC100001"
    assert m.missing("ACC100001") == [] and m.recorded_after_data("ACC100001") and m.last_record == "ACC100001"
    assert m.values["ACC100001"]["account_age_days"] == box.data_fields("investigate_account", "ACC100001")["account_age_days"]
    messages += [conv.assistant(conv.use("s", "mcp__sopbench__submit_decision", account_id="ACC100001", action="No Action")),
                 conv.ok_result("s", {"decided": True})]
    m = remember(read_conversation(messages))
    assert m.decisions == {"ACC100001": "No Action"} and m.next_undecided == "ACC100002"
    assert "ACC100001" not in m.data and "ACC100001" not in m.values and "ACC100001" not in m.records


def test_refused_calls_retrieve_nothing_and_count_as_errors(conv):
    messages = [conv.assistant(conv.use("a", "mcp__sopbench__investigate_account", account_id="ACC100001")),
                conv.error_result("a", "PreToolUse:mcp__sopbench__investigate_account hook error: not permitted")]
    m = remember(read_conversation(messages))
    assert m.data == {} and m.errors_in_a_row == 1 and "not permitted" in m.last_error


def test_a_guard_refusal_makes_the_recorded_accounts_data_stale(conv):
    box = ToolBox(ORDER)
    messages = _investigated(conv, box, "ACC100001")
    messages += [conv.assistant(conv.use("r", "mcp__sopbench__record_analysis", account_id="ACC100001", step4_action="No Action")),
                 conv.ok_result("r", {"recorded": True}),
                 conv.assistant(conv.use("c", "mcp__fsm__self_check", target="S_decide")),
                 conv.ok_result("c", {"token": "tok1", "target": "S_decide", "state": "S_investigate"})]
    m = remember(read_conversation(messages))
    assert m.tokens == {"S_decide": "tok1"} and m.missing("ACC100001") == []
    messages += [conv.assistant(conv.use("t", "mcp__fsm__transition", target="S_decide", token="tok1")),
                 conv.error_result("t", "guard refused: data of ACC100002 retrieved after ACC100001's")]
    m = remember(read_conversation(messages))
    assert m.tokens == {} and m.used_tokens == ["tok1"]
    assert m.missing("ACC100001") == list(DATA_TOOLS) and not m.recorded_after_data("ACC100001")


def test_a_refused_transition_with_a_bad_token_does_not_make_data_stale(conv):
    box = ToolBox(ORDER)
    messages = _investigated(conv, box, "ACC100001") + [
        conv.assistant(conv.use("t", "mcp__fsm__transition", target="S_decide", token="forged-1")),
        conv.error_result("t", "invalid token")]
    m = remember(read_conversation(messages))
    assert m.missing("ACC100001") == [] and "forged_token" in m.tricks


def test_stop_blocks_and_resumes_start_a_new_stretch_and_name_the_state(conv):
    decided = [conv.assistant(conv.use("s", "mcp__sopbench__submit_decision", account_id="ACC100001", action="No Action")),
               conv.ok_result("s", {"decided": True})]
    stopped = [conv.assistant(conv.text("Stopping.")),
               conv.stop_feedback("2 accounts left. You are in workflow state S_decide.")]
    m = remember(read_conversation(stopped))
    assert m.decided_at_continuation == 0 and m.fsm_state == "S_decide"
    m = remember(read_conversation(stopped + decided + [conv.assistant(conv.text("Stopping.")), conv.user_text("Resume: 1 left.")]))
    assert m.decided_at_continuation == 1 and m.errors_in_a_row == 0


def test_the_summary_carries_the_whole_memory_through_a_compaction(conv):
    box = ToolBox(ORDER)
    messages = [conv.assistant(conv.use("l", "mcp__sopbench__list_batch")), conv.ok_result("l", box.call("list_batch", {}).data)]
    messages += _investigated(conv, box, "ACC100002")
    before = remember(read_conversation(messages))
    before.fsm_state, before.tricks = "S_investigate", ["no_token"]
    text = summary_text(before)
    assert text.startswith("<analysis>") and "<summary>" in text and text.endswith("</summary>")
    after = Memory()
    after.apply(UserText("summary", text.split("<summary>", 1)[1]))
    assert after.compactions == 1 and after.needs_sync
    after.compactions, after.needs_sync = before.compactions, before.needs_sync
    assert after == before
