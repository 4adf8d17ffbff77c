"""`study fsm validate` refuses each kind of broken workflow, naming the file, the line and the fix."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from fsm_helpers import GENERIC, MAIN, STOP_ONLY, BOUND
from study.cli import main


def _line_of(text: str, marker: str, occurrence: int = 1) -> int:
    """1-based line of the ``occurrence``-th line containing ``marker``."""
    hits = [i + 1 for i, line in enumerate(text.splitlines()) if marker in line]
    return hits[occurrence - 1]


def _replace(old: str, new: str) -> str:
    assert old in GENERIC, old
    return GENERIC.replace(old, new, 1)


BROKEN = [
    # (kind, text, marker of the line to name (occurrence), words of the message)
    ("malformed YAML", _replace("  S_wait:\n", "  S_wait: [list_docs\n"), ("allow: [list_docs]", 1), ["malformed YAML", "flow sequence that starts at line 16"]),
    ("unknown key", _replace("    instructions: Read", "    instructons: Read"), ("instructons", 1), ["unknown key 'instructons'", "did you mean 'instructions'"]),
    ("unknown top-level key", GENERIC + "transitons: []\n", ("transitons", 1), ["unknown key 'transitons'"]),
    ("duplicate state", _replace("  S_done: {}\n", "  S_done: {}\n  S_wait: {}\n"), ("  S_wait:", 2), ["duplicate state 'S_wait'", "first defined at line"]),
    ("unreachable state", _replace("  S_done: {}\n", "  S_done: {}\n  S_orphan: {}\n") + "  - {from: S_orphan, to: S_done}\n", ("S_orphan: {}", 1), ["'S_orphan' is unreachable"]),
    ("no path to exit", _replace("  S_done: {}\n", "  S_done: {}\n  S_trap: {}\n") + "  - {from: S_read, to: S_trap}\n", ("S_trap: {}", 1), ["'S_trap' has no path to the exit state 'S_done'"]),
    ("transition out of exit", GENERIC + "  - {from: S_done, to: S_read}\n", ("from: S_done", 1), ["transition out of the exit state 'S_done'"]),
    ("rule naming an unknown tool", _replace("allow: [submit, list_docs]", "allow: [submit, delete_doc]"), ("delete_doc", 1), ["unknown tool 'delete_doc'", "add the tool to 'tools'"]),
    ("glob matching no tool", _replace("allow: [list_docs]", "allow: [erase_*]"), ("erase_*", 1), ["unknown tool 'erase_*'"]),
    ("guard naming a missing check", _replace("check: tests_notes_written", "check: no_such_check"), ("no_such_check", 1), ["missing check 'no_such_check'", "register_check"]),
    ("check module that cannot be imported", _replace("variables:", "check_modules: [no_such_module_xyz]\nvariables:"), ("no_such_module_xyz", 1), ["'no_such_module_xyz' cannot be imported"]),
    ("transition to an unknown state", GENERIC + "  - {from: S_read, to: S_nowhere}\n", ("S_nowhere", 1), ["unknown state 'S_nowhere'"]),
    ("variable a rule refers to is not declared", _replace("allow: [submit, list_docs]", "allow: [{tool: submit, args: {doc: {equals_var: current}}}]"), ("equals_var: current", 1), ["does not declare"]),
    ("unknown argument operator", _replace("{doc: {equals: secret}}", "{doc: {startswith: secret}}"), ("startswith", 1), ["unknown argument operator 'startswith'"]),
    ("shell check with a bad timeout", _replace("        - check: tests_notes_written\n", "        - {command: 'true', timeout: -1}\n"), ("timeout: -1", 1), ["positive number of seconds"]),
]


@pytest.mark.parametrize("kind,text,marker,words", BROKEN, ids=[b[0] for b in BROKEN])
def test_validate_refuses_and_names_the_line(tmp_path, kind, text, marker, words):
    path = tmp_path / "broken.yaml"
    path.write_text(text)
    result = CliRunner().invoke(main, ["fsm", "validate", str(path)])
    assert result.exit_code == 1, result.output
    line = _line_of(text, *marker)
    assert f"{path}:{line}:" in result.output, (line, result.output)
    for word in words:
        assert word in result.output


def test_validate_reports_every_problem_not_just_the_first(tmp_path):
    text = (_replace("allow: [submit, list_docs]", "allow: [submit, delete_doc]")
            .replace("check: tests_notes_written", "check: no_such_check")
            .replace("  S_done: {}\n", "  S_done: {}\n  S_orphan: {}\n"))
    path = tmp_path / "three.yaml"
    path.write_text(text)
    result = CliRunner().invoke(main, ["fsm", "validate", str(path)])
    assert result.exit_code == 1
    assert "delete_doc" in result.output and "no_such_check" in result.output and "'S_orphan' is unreachable" in result.output
    assert len(result.output.strip().splitlines()) == 3


def test_validate_accepts_the_study_workflows_and_a_generic_one(tmp_path):
    path = tmp_path / "generic.yaml"
    path.write_text(GENERIC)
    result = CliRunner().invoke(main, ["fsm", "validate", str(MAIN), str(STOP_ONLY), str(BOUND), str(path)])
    assert result.exit_code == 0, result.output
    assert result.output.count(": ok (workflow") == 4


def test_validate_missing_file_and_non_mapping(tmp_path):
    (tmp_path / "list.yaml").write_text("- a\n- b\n")
    result = CliRunner().invoke(main, ["fsm", "validate", str(tmp_path / "nope.yaml"), str(tmp_path / "list.yaml")])
    assert result.exit_code == 1
    assert "cannot read the workflow file" in result.output
    assert f"{tmp_path / 'list.yaml'}:1: a workflow file must be a YAML mapping" in result.output


def test_show_draws_a_mermaid_diagram():
    result = CliRunner().invoke(main, ["fsm", "show", str(MAIN)])
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith("stateDiagram-v2")
    assert "[*] --> S_investigate" in out
    assert "S_investigate --> S_decide : item_recorded_exclusively" in out
    assert "S_decide --> S_investigate : item_decided_since_record" in out
    assert "S_investigate --> S_done : batch_complete" in out
    assert "S_done --> [*] : exit" in out
