"""The frozen conditions, texts, limits and models table, and the checks on them."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from sopbench_tools.dataset import load_task
from study.paths import prereg_dir
from study.protocol.conditions import ConditionError, condition_names, get_condition, load_conditions
from study.protocol.limits import LimitsError, load_limits, parse_override
from study.protocol.models import ModelError, resolve_model
from study.runner.texts import continuation_message, first_message, reminder_text, system_prompt_append

# The conditions table of DESIGN.md / paper section 4.1 and appendix A:
# name: (SOP in system prompt, reminder, resumed, workflow, tool gate, stop gate)
DESIGN_TABLE = {
    "Plain": (False, False, False, None, False, False),
    "Sys": (True, False, False, None, False, False),
    "Remind": (False, True, False, None, False, False),
    "Plain-loop": (False, False, True, None, False, False),
    "Sys-loop": (True, False, True, None, False, False),
    "Remind-loop": (False, True, True, None, False, False),
    "FSM": (False, True, False, "referral_abuse_per_account.yaml", True, True),
    "Stop-only": (False, True, False, "stop_only.yaml", False, True),
    "Gates-only": (False, True, True, "referral_abuse_per_account.yaml", True, False),
}


def test_the_nine_conditions_have_the_design_factors():
    conditions = load_conditions().conditions
    # the frozen file is the only list of conditions: it holds the paper's nine, in its order
    assert tuple(conditions) == condition_names() == tuple(DESIGN_TABLE)
    for name, (sys_prompt, reminder, resume, workflow, tool_gate, stop_gate) in DESIGN_TABLE.items():
        c = conditions[name]
        assert (c.sop_in_system_prompt, c.reminder, c.resume, c.workflow, c.tool_gate, c.stop_gate) == (
            sys_prompt, reminder, resume, workflow, tool_gate, stop_gate), name
    # only FSM names its state in the continuation message and gets the FSM paragraph
    assert [n for n, c in conditions.items() if c.state_in_message] == ["FSM"]
    assert [n for n, c in conditions.items() if c.fsm_paragraph] == ["FSM"]


def test_every_workflow_a_condition_names_exists():
    for c in load_conditions().conditions.values():
        if c.workflow:
            assert (prereg_dir() / "workflows" / c.workflow).is_file(), c.workflow


def test_unknown_condition_is_refused_with_the_valid_names_saying_which_are_exploratory():
    with pytest.raises(ConditionError) as err:
        get_condition("Remind-Loop")
    assert "Remind-loop" in str(err.value) and "Gates-only" in str(err.value)
    assert "exploratory (outside the preregistered set): FSM-bound" in str(err.value)


def test_fsm_bound_is_fsm_with_the_bound_workflow_and_outside_the_preregistered_set():
    loaded = load_conditions()
    bound, fsm = loaded.get("FSM-bound"), loaded.get("FSM")
    assert "FSM-bound" not in loaded.conditions and list(loaded.exploratory) == ["FSM-bound", "FSM-lean", "FSM-lean-bound", "FSM-propose"]
    assert bound.exploratory and not any(c.exploratory for c in loaded.conditions.values())
    assert bound.workflow == "exploratory/fsm_bound.yaml" and (prereg_dir() / "workflows" / bound.workflow).is_file()
    same = {k: v for k, v in fsm.as_dict().items() if k not in ("name", "workflow", "exploratory")}
    assert {k: v for k, v in bound.as_dict().items() if k in same} == same  # FSM paragraph, state sentence, gates


def test_an_exploratory_condition_cannot_reuse_a_preregistered_name(tmp_path):
    path = _write_conditions(tmp_path, lambda raw: raw["exploratory_conditions"].update(FSM=raw["conditions"]["FSM"]))
    with pytest.raises(ConditionError, match=r"exploratory conditions \['FSM'\] reuse preregistered names"):
        load_conditions(path)


def test_sessions_of_an_exploratory_condition_are_always_exploratory(tmp_path):
    from study.runner.session import SessionSpec, prepare

    checked = "c0ffee" * 10 + "c0ff"  # a checked manifest, the whole batch, no overrides
    bound = prepare(SessionSpec(condition="FSM-bound", seed=2, model="sim:oracle", manifest_sha256=checked, out_root=tmp_path))
    fsm = prepare(SessionSpec(condition="FSM", seed=2, model="sim:oracle", manifest_sha256=checked, out_root=tmp_path))
    assert bound.exploratory and bound.session_dir == tmp_path / "exploratory" / "sim-oracle" / "FSM-bound" / "seed-2"
    assert not fsm.exploratory and fsm.session_dir == tmp_path / "sim-oracle" / "FSM" / "seed-2"
    assert bound.workflow.name == "ReferralAbusePerAccountBound"


def _write_conditions(tmp_path: Path, mutate) -> Path:
    raw = yaml.safe_load((prereg_dir() / "conditions.yaml").read_text())
    mutate(raw)
    path = tmp_path / "conditions.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return path


def test_a_condition_missing_a_factor_is_refused_naming_it(tmp_path):
    path = _write_conditions(tmp_path, lambda raw: raw["conditions"]["Sys"].pop("reminder"))
    with pytest.raises(ConditionError, match=r"'Sys'.*missing factors \['reminder'\]"):
        load_conditions(path)


def test_a_gate_without_workflow_is_refused(tmp_path):
    path = _write_conditions(tmp_path, lambda raw: raw["conditions"]["Plain"].update(stop_gate=True))
    with pytest.raises(ConditionError, match="without a workflow"):
        load_conditions(path)


def test_a_non_boolean_factor_is_refused(tmp_path):
    path = _write_conditions(tmp_path, lambda raw: raw["conditions"]["Remind"].update(resume="yes"))
    with pytest.raises(ConditionError, match="resume must be true or false"):
        load_conditions(path)
    # the reminder (as the FSM paragraph) may name a text of texts/ instead of true
    path = _write_conditions(tmp_path, lambda raw: raw["conditions"]["Remind"].update(reminder="yes"))
    with pytest.raises(ConditionError, match="reminder must be true, false or a .md file name under texts/, not 'yes'"):
        load_conditions(path)


def test_fsm_leans_reminder_is_the_reminder_without_its_unattended_paragraph():
    """Under FSM-lean the workflow enforces what the reminder's last paragraph asks (one account at
    a time, no stop before the batch is done), so its per-account reminder is the SOP's part alone."""
    from study.runner.texts import reminder_text

    for name in ("FSM-lean", "FSM-lean-bound"):
        assert get_condition(name).reminder == "exploratory/fsm_lean_reminder.md"
    full, lean = reminder_text(), reminder_text(None, "exploratory/fsm_lean_reminder.md")
    sop_part, unattended = full.rsplit("\n\n", 1)
    assert lean == sop_part and unattended.startswith("This run is unattended") and "5.7 Determine Risk" in lean
    assert get_condition("FSM").reminder is True and get_condition("Remind-loop").reminder is True


def test_first_message_carries_the_whole_sop_and_the_batch_size():
    sop = load_task().sop
    plain = first_message(get_condition("Plain"), 200)
    fsm = first_message(get_condition("FSM"), 200)
    assert sop in plain and sop in fsm
    assert "200 referral-program accounts" in plain
    assert "one at a time" in plain
    # FSM adds exactly the FSM paragraph; otherwise the template is the same
    paragraph = (prereg_dir() / "texts" / "fsm_paragraph.md").read_text()
    assert paragraph.strip() in fsm and paragraph.strip() not in plain
    assert fsm.replace(paragraph, "") == plain


def test_sys_copy_carries_the_sop_verbatim():
    assert load_task().sop in system_prompt_append()


def test_reminder_is_sop_5_7_and_the_critical_rules_verbatim():
    sop = load_task().sop
    text = reminder_text()
    step_section = sop[sop.index("STEP 1: Calculate"):sop.index("6. Output")].strip()
    critical = sop[sop.index("CRITICAL:\n"):].strip()
    assert step_section in text and critical in text
    assert "unattended" in text


def test_continuation_message_is_one_wording_with_an_optional_state_sentence():
    plain = continuation_message(7, "ACC100042")
    fsm = continuation_message(7, "ACC100042", state="S_decide")
    assert "7 accounts" in plain and "ACC100042" in plain
    assert "saves neither tokens nor context" in plain
    assert fsm.startswith(plain)
    assert fsm[len(plain):].strip() == "You are in workflow state S_decide."


def test_limits_per_model_and_overrides():
    haiku = load_limits("haiku-4.5")
    sonnet = load_limits("sonnet-4.6")
    sim = load_limits("sim:oracle")
    assert (haiku.spending_usd, haiku.wall_time_s) == (25, 6 * 3600)
    assert (sonnet.spending_usd, sonnet.wall_time_s) == (150, 12 * 3600)
    assert load_limits("qwen3.8-flash").wall_time_s == 12 * 3600
    assert (sim.turns, sim.no_decision_s, sim.stop_blocks, sim.resumes, sim.resumes_without_decision) == (
        6000, 20 * 60, 50, 50, 10)
    tiny = load_limits("haiku-4.5", {"resumes": 1, "no_decision_s": 0.5})
    assert (tiny.resumes, tiny.no_decision_s, tiny.turns) == (1, 0.5, 6000)
    with pytest.raises(LimitsError, match="unknown limit override"):
        load_limits("haiku-4.5", {"resume": 1})
    assert parse_override("turns=3") == ("turns", 3.0)
    with pytest.raises(LimitsError, match="name=value"):
        parse_override("turns")


def test_a_real_model_without_key_stops_saying_what_to_set_and_how_to_run_offline():
    with pytest.raises(ModelError) as err:
        resolve_model("haiku-4.5", environ={})
    assert "ANTHROPIC_API_KEY" in str(err.value) and "sim:oracle" in str(err.value)


def test_model_resolution():
    env = {"ANTHROPIC_API_KEY": "k"}
    haiku = resolve_model("haiku-4.5", environ=env)
    assert (haiku.model_id, haiku.base_url, haiku.simulated) == ("claude-haiku-4-5-20251001", "https://api.anthropic.com", False)
    assert resolve_model(None, environ=env).name == "haiku-4.5"
    relay = resolve_model("haiku-4.5", base_url="http://relay.example:8080", environ=env)
    assert relay.base_url == "http://relay.example:8080"
    assert resolve_model("haiku-4.5", environ={**env, "ANTHROPIC_BASE_URL": "http://local:1"}).base_url == "http://local:1"
    with pytest.raises(ModelError, match="--base-url"):
        resolve_model("qwen3.8-flash", environ=env)
    sim = resolve_model("sim:drifting", environ={})
    assert (sim.simulated, sim.policy, sim.folder_name) == (True, "drifting", "sim-drifting")
    with pytest.raises(ModelError, match="unknown model 'gpt'.*haiku-4.5"):
        resolve_model("gpt", environ=env)
