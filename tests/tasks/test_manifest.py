"""The task manifest loader: every vendored manifest loads; a bad manifest or a changed file is
refused with the file, the line and what to do."""

from __future__ import annotations

import shutil

import pytest

from sopbench_tools.tasks import DATA_DIR, MANIFEST_DIR, TaskError, load_task, task_names
from sopbench_tools.tasks.manifest import load_manifest


def test_the_fourteen_upstream_tasks_load_and_say_which_cannot_run():
    assert len(task_names()) == 14
    not_runnable = {name: load_task(name).not_runnable_reason for name in task_names() if not load_task(name).runnable}
    assert set(not_runnable) == {"aircraft_inspection", "patient_intake", "email_intent"}
    assert all(reason.strip() for reason in not_runnable.values())


def _copy(tmp_path, name: str, edit=None):
    text = (MANIFEST_DIR / f"{name}.yaml").read_text(encoding="utf-8")
    text = edit(text) if edit else text
    path = tmp_path / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _problems(path, data_root=DATA_DIR) -> str:
    with pytest.raises(TaskError) as info:
        load_manifest(path, data_root)
    return info.value.render()


def test_an_unknown_key_is_named_with_its_line(tmp_path):
    path = _copy(tmp_path, "dangerous_goods", lambda t: t.replace("  noun: product\n", "  noun: product\n  nown: x\n"))
    line = path.read_text().splitlines().index("  nown: x") + 1
    assert f"dangerous_goods.yaml:{line}: unknown key 'nown' in item" in _problems(path)


def test_a_duplicate_key_and_a_missing_tool_are_refused(tmp_path):
    path = _copy(tmp_path, "dangerous_goods", lambda t: t.replace(
        "  calculate_sds_label_score: {role: data, required: true, exit_on_refusal: true, item_args: [product_id]}\n", "").replace(
        "backend: upstream\n", "backend: upstream\nbackend: columns\n"))
    assert "duplicate key 'backend'" in _problems(path)
    path = _copy(tmp_path, "dangerous_goods", lambda t: t.replace(
        "  calculate_sds_label_score: {role: data, required: true, exit_on_refusal: true, item_args: [product_id]}\n", ""))
    assert "tool 'calculate_sds_label_score' of toolspecs.json has no entry under tools" in _problems(path)


def test_a_gold_label_outside_the_vocabulary_is_refused(tmp_path):
    path = _copy(tmp_path, "dangerous_goods", lambda t: t.replace(", Unable to Decide]", "]"))
    assert "gold labels ['Unable to Decide'] of column 'hazard_class' are not in its labels" in _problems(path)


def test_a_changed_vendored_file_is_refused_naming_both_hashes(tmp_path):
    shutil.copytree(DATA_DIR / "sopbench" / "dangerous_goods", tmp_path / "sopbench" / "dangerous_goods")
    sop = tmp_path / "sopbench" / "dangerous_goods" / "sop.txt"
    sop.write_bytes(sop.read_bytes() + b"\n")
    message = _problems(_copy(tmp_path, "dangerous_goods"), tmp_path)
    assert "sop.txt changed: sha256" in message and "the task must be used unmodified" in message
    assert load_manifest(_copy(tmp_path, "dangerous_goods"), tmp_path, verify=False).sop.endswith("\n")


def test_a_required_tool_must_be_a_data_tool_and_a_withheld_one_needs_a_reason(tmp_path):
    path = _copy(tmp_path, "referral_abuse_detection_v1", lambda t: t.replace(
        "    role: lookup\n    required: false", "    role: lookup\n    required: true").replace(
        "  analyze_traffic_patterns: {role: data", "  analyze_traffic_patterns: {role: withheld"))
    message = _problems(path)
    assert "tools.determine_enforcement_action is required but not a data tool" in message
    assert "tools.analyze_traffic_patterns is withheld: say why in note" in message


def test_an_unknown_task_lists_the_tasks():
    with pytest.raises(TaskError, match="unknown task 'nope'; the tasks are: aircraft_inspection, "):
        load_task("nope")


def test_an_early_exit_stands_for_the_refused_tool_and_the_required_tools_after_it():
    assert dict(load_task("customer_service").exit_tools) == {
        "getAuthenticationDetails": ("getAuthenticationDetails", "createSessionAndOpenTicket", "checkAccountStatus"),
        "createSessionAndOpenTicket": ("createSessionAndOpenTicket", "checkAccountStatus"),
    }
    assert dict(load_task("traffic_spoofing_detection").exit_tools) == {
        "CalculateRiskScore": ("CalculateRiskScore",), "GenerateEvidenceReport": ("GenerateEvidenceReport",)}
    assert dict(load_task("referral_abuse_detection_v2").exit_tools) == {}


def test_an_early_exit_of_a_tool_that_is_not_required_is_refused_with_its_line(tmp_path):
    path = _copy(tmp_path, "customer_service", lambda t: t.replace(
        "  checkServiceAreaOutage:\n    {role: data, required: false,",
        "  checkServiceAreaOutage:\n    {role: data, required: false, exit_on_refusal: true,"))
    line = next(i for i, x in enumerate(path.read_text().splitlines(), 1) if "exit_on_refusal: true, item_args: [account_id], after: [createSessionAndOpenTicket]" in x and "required: false" in x)
    assert (f"customer_service.yaml:{line}: tools.checkServiceAreaOutage.exit_on_refusal needs required: true"
            in _problems(path))


def test_result_name_says_what_argument_a_bare_result_is_taken_as():
    from sopbench_tools.tasks import load_task

    names = {t.name: t.result_name for t in load_task("content_flagging").tools if t.result_name}
    assert names == {"calculateContentSeverityIndex": "content_severity_index", "calculate_user_trust_score": "user_trust_score"}


def test_a_result_name_that_is_not_a_name_is_refused_with_its_line(tmp_path):
    path = _copy(tmp_path, "content_flagging", lambda t: t.replace("    result_name: user_trust_score\n",
                                                                  "    result_name: [user_trust_score]\n"))
    line = next(i for i, x in enumerate(path.read_text().splitlines(), 1) if "result_name: [user_trust_score]" in x)
    assert (f"content_flagging.yaml:{line}: tools.calculate_user_trust_score.result_name must be the argument name "
            "of its bare result" in _problems(path))

