"""A models.yaml alias's generation settings reach the model API on both runtimes (issue 49, item
1): the paper ran gpt-5.4-mini at medium reasoning effort, and the logged Codex requests sent
none. The table says them per alias, each runtime's adapter passes them to its CLI, the session log
records them, and the simulator's request log shows what the real CLI sent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from study.protocol.models import MODEL_SETTINGS, ModelError, load_models, resolve_model
from study.runtimes.claude_code.options import generation
from study.runtimes.codex.config import generation_keys, session_config

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "preregistration" / "models.yaml"


def test_the_paper_runs_gpt_5_4_mini_at_medium_effort_and_its_stand_in_too():
    table = load_models(MODELS)
    assert table.models["gpt-5.4-mini"].settings == {"reasoning_effort": "medium"}
    assert resolve_model("sim:oracle", runtime="codex", table=table).settings == {"reasoning_effort": "medium"}
    # the main study's Claude models keep Claude Code's own defaults, as the paper's runs had them
    assert [table.models[m].settings for m in ("haiku-4.5", "sonnet-4.6", "qwen3.8-flash")] == [{}, {}, {}]
    assert resolve_model("sim:oracle", table=table).settings == {}


def _table(tmp_path: Path, settings: str, runtime: str = "codex") -> Path:
    """models.yaml with the settings of a model on ``runtime`` (gpt-5.4-mini, sonnet-4.6) replaced."""
    lines = MODELS.read_text(encoding="utf-8").splitlines(keepends=True)
    start = lines.index(f"  {'gpt-5.4-mini' if runtime == 'codex' else 'sonnet-4.6'}:\n")
    end = next(n for n in range(start + 1, len(lines)) if not lines[n].startswith("    "))
    block = [line for line in lines[start:end] if not line.lstrip().startswith("settings:")]
    path = tmp_path / "models.yaml"
    path.write_text("".join(lines[:start] + block + [f"    settings: {settings}\n"] + lines[end:]), encoding="utf-8")
    return path


@pytest.mark.parametrize("runtime, settings, error", [
    ("codex", "{reasoning_effort: extreme}", "settings.reasoning_effort must be one of none, minimal, low, medium"),
    ("codex", "{thinking: adaptive}", "'thinking' is no generation setting codex passes"),
    ("codex", "{temperature: 0.2}", "its settings are reasoning_effort, reasoning_summary"),
    ("claude-code", "{reasoning_effort: minimal}", "must be one of low, medium, high, xhigh, max on claude-code"),
    ("claude-code", "{thinking_budget: -5}", "settings.thinking_budget must be a whole number > 0"),
    ("claude-code", "{thinking: disabled, thinking_budget: 4096}", "a thinking_budget with thinking disabled"),
    ("claude-code", "medium", "settings must map generation settings to values"),
])
def test_a_setting_the_runtime_does_not_pass_is_refused_naming_the_file(tmp_path, runtime, settings, error):
    path = _table(tmp_path, settings, runtime)
    with pytest.raises(ModelError, match=error) as raised:
        load_models(path)
    assert str(path) in str(raised.value)


def test_each_runtime_passes_its_settings_as_its_cli_takes_them():
    assert set(MODEL_SETTINGS) == {"codex", "claude-code"}
    assert generation_keys({"reasoning_effort": "medium", "reasoning_summary": "concise"}) == {
        "model_reasoning_effort": "medium", "model_reasoning_summary": "concise"}
    config = session_config(model="gpt-5.4-mini", base_url="http://127.0.0.1:1/v1", env_key="K", work=Path("/w"),
                            servers={}, model_settings={"reasoning_effort": "medium"})
    assert config["model_reasoning_effort"] == "medium"
    assert "model_reasoning_effort" not in session_config(model="m", base_url="u", env_key="K", work=Path("/w"), servers={})
    assert generation({}) == {}
    assert generation({"reasoning_effort": "medium", "thinking": "adaptive"}) == {
        "effort": "medium", "thinking": {"type": "adaptive"}}
    assert generation({"thinking_budget": 4096}) == {"thinking": {"type": "enabled", "budget_tokens": 4096}}


def _start(folder: Path) -> dict:
    return json.loads((folder / "events.jsonl").read_text(encoding="utf-8").splitlines()[0])


@pytest.mark.e2e
def test_claude_code_sends_the_aliass_effort_and_thinking_and_the_log_records_them(tmp_path, monkeypatch):
    """The simulator on Claude Code stands in for a model that takes an effort (Claude Sonnet 4.6:
    Claude Code sends Claude Haiku 4.5, the usual stand-in, none), in a copy of the project whose
    models.yaml gives its stand-in settings; every request of the main loop carries them."""
    from study.runner.session import SessionSpec, run_session

    project = tmp_path / "project"
    shutil.copytree(ROOT / "preregistration", project / "preregistration")
    models = project / "preregistration" / "models.yaml"
    text = models.read_text(encoding="utf-8")
    stand_in = "  claude-code:\n    model_id: claude-haiku-4-5\n"
    assert stand_in in text
    models.write_text(text.replace(stand_in, "  claude-code:\n    model_id: claude-sonnet-4-6\n"
                                             "    settings: {reasoning_effort: medium, thinking: adaptive}\n"),
                      encoding="utf-8")
    monkeypatch.setenv("STUDY_ROOT", str(project))
    log = tmp_path / "requests.jsonl"
    folder = run_session(SessionSpec(condition="Plain", seed=2, accounts=1, model="sim:oracle", out_root=tmp_path / "s",
                                     sim_options={"request_log": str(log)}))
    assert json.loads((folder / "meta.json").read_text())["status"] == "completed"
    start = _start(folder)
    assert start["model_settings"] == {"reasoning_effort": "medium", "thinking": "adaptive"}
    assert start["cli_settings"]["generation"] == {"effort": "medium", "thinking": {"type": "adaptive"}}
    main_loop = [json.loads(line)["body"] for line in log.read_text().splitlines()
                 if "claude-code-20250219" in json.loads(line)["beta"]]
    assert len(main_loop) >= 3
    assert all(b.get("output_config", {}).get("effort") == "medium" and b["thinking"]["type"] == "adaptive"
               for b in main_loop), [(b.get("output_config"), b.get("thinking")) for b in main_loop]
