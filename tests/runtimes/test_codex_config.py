"""The CODEX_HOME a Codex session gets (study.runtimes.codex.config): TOML that Codex's own reader
would parse (checked with the standard library's reader), only the study's MCP tools, the hooks as
commands, nothing of the user's; and the pin's checks of an install folder."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from study.runtimes.codex import config, pin


def _config(tmp_path: Path, **kw) -> dict:
    servers = {"sopbench": ("/usr/bin/python3", ["-I", "-S", "/x/relay.py", "mcp", "sopbench", "/tmp/s"]),
               "fsm": ("/usr/bin/python3", ["-I", "-S", "/x/relay.py", "mcp", "fsm", "/tmp/s"])}
    return config.session_config(model="gpt-5.4-mini", base_url="http://127.0.0.1:9/v1", env_key="K",
                                 work=tmp_path / "work dir \"quoted\"", servers=servers, **kw)


def test_the_written_toml_reads_back_as_the_config(tmp_path):
    cfg = _config(tmp_path, developer_instructions='SOP with "quotes", a \\ and\nlines ü', context_window=120_000)
    home = config.write_home(tmp_path / "home", cfg, config.hooks_json({"Stop": "relay stop"}))
    assert tomllib.loads((home / "config.toml").read_text(encoding="utf-8")) == cfg
    hooks = json.loads((home / "hooks.json").read_text(encoding="utf-8"))
    assert hooks == {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "relay stop",
                                                    "timeout": config.HOOK_TIMEOUT_S}]}]}}


def test_only_the_studys_mcp_tools_and_nothing_on_the_network(tmp_path):
    cfg = _config(tmp_path)
    features = cfg["features"]
    assert features["hooks"] is True
    assert (features["shell_tool"], features["view_image"], features["goals"], features["plugins"]) == (False,) * 4
    assert cfg["web_search"] == "disabled" and cfg["agents"] == {"enabled": False}
    assert cfg["tools"] == {"experimental_request_user_input": {"enabled": False}}
    assert cfg["analytics"] == {"enabled": False} and cfg["check_for_update_on_startup"] is False
    assert cfg["project_doc_max_bytes"] == 0 and cfg["skills"] == {"bundled": {"enabled": False}}
    assert cfg["approval_policy"] == "never" and cfg["sandbox_mode"] == "danger-full-access"
    provider = cfg["model_providers"][cfg["model_provider"]]
    assert provider["wire_api"] == "responses" and provider["base_url"] == "http://127.0.0.1:9/v1"
    for server in cfg["mcp_servers"].values():
        assert server["required"] is True and server["default_tools_approval_mode"] == "approve"
        assert server["supports_parallel_tool_calls"] is False
    assert list(cfg["projects"].values()) == [{"trust_level": "trusted"}]


def test_study_codex_keeps_codexs_own_provider(tmp_path):
    cfg = _config(tmp_path, provider=False)
    assert "model_provider" not in cfg and "model_providers" not in cfg


def test_the_recorded_settings_hold_no_socket_path_and_no_key(tmp_path):
    shown = config.recorded(_config(tmp_path))
    text = json.dumps(shown)
    assert "/tmp/s" not in text and "/x/" not in text and str(tmp_path) not in text
    assert shown["mcp_servers"]["sopbench"]["args"] == ["-I", "-S", "relay.py", "mcp", "sopbench", "s"]


def test_tool_hooks_match_every_tool_and_the_stop_hook_has_no_matcher():
    hooks = config.hooks_json({"PreToolUse": "a", "PostToolUse": "b", "Stop": "c", "PreCompact": "d"})["hooks"]
    assert hooks["PreToolUse"][0]["matcher"] == hooks["PostToolUse"][0]["matcher"] == ".*"
    assert "matcher" not in hooks["Stop"][0] and "matcher" not in hooks["PreCompact"][0]


def test_the_pin_refuses_a_missing_another_version_or_another_locks_install(tmp_path):
    empty = tmp_path / "empty"
    assert "not installed" in pin.problem(empty) and "study runtime install codex" in pin.problem(empty)
    found = pin.target()
    if found is None:
        return
    package, triple = found
    fake = tmp_path / "fake"
    (fake / "node_modules" / package / "vendor" / triple / "bin").mkdir(parents=True)
    (fake / "node_modules" / package / "vendor" / triple / "bin" / "codex").write_text("#!/bin/sh\n")
    (fake / "node_modules" / "@openai" / "codex").mkdir(parents=True)
    (fake / "node_modules" / "@openai" / "codex" / "package.json").write_text('{"version": "0.1.0"}')
    assert "0.1.0" in pin.problem(fake) and pin.pinned_version() in pin.problem(fake)
    (fake / "node_modules" / "@openai" / "codex" / "package.json").write_text(
        json.dumps({"version": pin.pinned_version()}))
    (fake / "package-lock.json").write_text("{}")
    assert "another npm lock" in pin.problem(fake)
    (fake / "package-lock.json").write_bytes((pin.NPM_DIR / "package-lock.json").read_bytes())
    assert pin.problem(fake) is None


def test_the_committed_lock_pins_every_platform_package_with_an_integrity_hash():
    lock = json.loads((pin.NPM_DIR / "package-lock.json").read_text())
    packages = {k: v for k, v in lock["packages"].items() if k}
    assert packages["node_modules/@openai/codex"]["version"] == pin.pinned_version()
    assert all(v.get("integrity", "").startswith("sha512-") for v in packages.values())
    assert {v["version"].split("-", 1)[0] for v in packages.values()} == {pin.pinned_version()}


def test_a_workspace_session_keeps_codexs_own_tools_on_in_its_workspace_write_sandbox(tmp_path):
    work = tmp_path / "work"
    cfg = config.workspace_config(model="gpt-5.4-mini", base_url="http://127.0.0.1:9/v1", env_key="K", workspace=work)
    assert cfg["sandbox_mode"] == "workspace-write" and "shell_tool" not in cfg["features"]
    assert cfg["sandbox_workspace_write"] == {"writable_roots": [str(work / ".git")], "network_access": False,
                                              "exclude_tmpdir_env_var": True, "exclude_slash_tmp": True}
    assert cfg["projects"] == {str(work): {"trust_level": "trusted"}} and cfg["mcp_servers"] == {}
    # the rest is the study session's: nothing of the user's, only the endpoint on the network, hooks on
    study = _config(tmp_path)
    for key in ("approval_policy", "web_search", "agents", "tools", "analytics", "otel", "project_doc_max_bytes", "skills"):
        assert cfg[key] == study[key], key
    assert cfg["features"] == {k: v for k, v in study["features"].items() if k != "shell_tool"}
    home = tmp_path / "home"
    written = config.write_workspace_home(home, hook_commands={"PreToolUse": "relay pre"}, model="m", base_url="u",
                                          env_key="K", workspace=work, commits=False)
    assert tomllib.loads((home / "config.toml").read_text()) == written
    assert written["sandbox_workspace_write"]["writable_roots"] == []
    assert config.recorded(cfg)["sandbox_workspace_write"]["writable_roots"] == ["<work>/.git"]


def test_the_studys_own_sessions_keep_the_shell_off_and_full_access(tmp_path):
    cfg = _config(tmp_path)
    assert "sandbox_workspace_write" not in cfg and cfg["features"]["shell_tool"] is False
    assert list(cfg)[:3] == ["model", "model_provider", "approval_policy"]


def test_study_codex_s_config_is_a_workspace_config_with_a_permission_profile(tmp_path):
    """``study codex`` in a project: no login shell, and the sandbox as a profile (Codex refuses
    ``sandbox_mode`` beside it) that keeps the git folders' config and hooks read-only."""
    work, git = tmp_path / "project", tmp_path / "project" / ".git"
    cfg = config.project_config(model="m", base_url="", env_key="K", workspace=work, provider=False, git_dirs=[git],
                                read_only=[work / ".fsm"])
    home = config.write_home(tmp_path / "home", cfg, config.hooks_json({}))
    assert tomllib.loads((home / "config.toml").read_text(encoding="utf-8")) == cfg
    assert cfg["allow_login_shell"] is False and "sandbox_mode" not in cfg and "sandbox_workspace_write" not in cfg
    profile = cfg["permissions"][cfg["default_permissions"]]
    assert profile["network"] == {"enabled": False}
    fs = profile["filesystem"]
    assert fs[":root"] == "read" and fs[str(work)] == fs[str(git)] == "write"
    assert fs[str(git / "hooks")] == fs[str(git / "config")] == fs[str(work / ".fsm")] == fs[str(work / ".codex")] == "read"
