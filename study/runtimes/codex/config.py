"""A Codex CLI home of the study's own: ``config.toml`` and ``hooks.json`` in a fresh ``CODEX_HOME``.

Nothing of the user's ``~/.codex`` is read: every session (and every ``study codex`` run) gets a
``CODEX_HOME`` holding only what is written here. The settings, each verified against Codex CLI
0.169.0 offline (``--strict-config`` refuses an unknown key; docs/runtimes.md says why each):

- the model provider: ``wire_api = "responses"`` at the session's endpoint, its key read from the
  variable ``env_key`` names, with the retry counts written out (Codex's defaults: 4 HTTP-level
  retries inside 5 stream-level ones);
- unattended: ``approval_policy = "never"``, ``sandbox_mode = "danger-full-access"`` (no tool of
  Codex's own that could use them is offered), the working folder trusted;
- only the study's MCP tools: the shell (``exec_command``/``write_stdin``), ``view_image``, the
  goal tools, web search, sub-agents and ``request_user_input`` are switched off. Codex 0.169.0
  offers three MCP resource readers (``list_mcp_resources``, ``list_mcp_resource_templates``,
  ``read_mcp_resource``) whenever an MCP server is configured, and no key removes them; the study's
  servers offer no resources, and the FSM's tool-call gate refuses them like any tool its state
  does not permit;
- nothing but the endpoint on the network: no plugin sync, no analytics, feedback or telemetry,
  no update check; no AGENTS.md, no bundled skills;
- the MCP servers are ``required`` (Codex otherwise may send its first request before their tools
  are listed) and approved, one call at a time;
- hooks on (``[features] hooks = true``), as commands in ``hooks.json``, with the per-hook timeout.

TOML is written by hand here (the standard library reads TOML, ``tomllib``, but does not write
it): strings are JSON-escaped, which is valid TOML basic-string escaping; ``tests`` read every file
back with ``tomllib``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

#: Seconds Codex waits for one hook's answer (its own default is 600 s).
HOOK_TIMEOUT_S = 600
#: Seconds Codex waits for an MCP server to start and list its tools.
MCP_STARTUP_TIMEOUT_S = 60
#: Seconds one MCP tool call may take.
MCP_TOOL_TIMEOUT_S = 600
#: Codex's own retry counts, written out so that a session records them.
REQUEST_MAX_RETRIES = 4
STREAM_MAX_RETRIES = 5
#: The hook events the study uses (Codex also has SessionStart and UserPromptSubmit).
HOOK_EVENTS = ("PreToolUse", "PostToolUse", "Stop", "PreCompact")
#: The provider's name in config.toml.
PROVIDER = "study"


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML form for {value!r}")


def _key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() and key.isascii() else json.dumps(key)


def toml_text(config: Mapping[str, Any]) -> str:
    """``config`` as TOML: plain keys first, then one table per mapping (nested tables by dotted
    names); a mapping whose keys hold only plain values and is marked inline by a tuple key is not
    needed here."""
    lines: list[str] = []

    def table(prefix: list[str], body: Mapping[str, Any]) -> None:
        plain = {k: v for k, v in body.items() if not isinstance(v, Mapping) or k == "env"}
        nested = {k: v for k, v in body.items() if isinstance(v, Mapping) and k != "env"}
        if prefix and (plain or not nested):
            lines.append("")
            lines.append("[" + ".".join(_key(p) for p in prefix) + "]")
        for k, v in plain.items():
            lines.append(f"{_key(k)} = {_value(v)}")
        for k, v in nested.items():
            table([*prefix, k], v)

    table([], config)
    return "\n".join(lines).lstrip("\n") + "\n"


def session_config(*, model: str, base_url: str, env_key: str, work: Path, servers: Mapping[str, tuple[str, list[str]]],
                   developer_instructions: str | None = None, context_window: int | None = None,
                   provider: bool = True) -> dict[str, Any]:
    """The config of one Codex home. ``servers`` maps an MCP server name to its command and
    arguments; ``developer_instructions`` is appended to Codex's system prompt (the Sys
    conditions' SOP copy); ``context_window`` sets the model's context window (Codex compacts at
    about 90% of it); ``provider`` False keeps Codex's own OpenAI provider (``study codex``)."""
    config: dict[str, Any] = {"model": model}
    if provider:
        config["model_provider"] = PROVIDER
    config.update({
        "approval_policy": "never",
        "sandbox_mode": "danger-full-access",
        "web_search": "disabled",
        "check_for_update_on_startup": False,
        "project_doc_max_bytes": 0,
    })
    if context_window is not None:
        config["model_context_window"] = int(context_window)
    if developer_instructions:
        config["developer_instructions"] = developer_instructions
    if provider:
        config["model_providers"] = {PROVIDER: {
            "name": PROVIDER, "base_url": base_url, "env_key": env_key, "wire_api": "responses",
            "request_max_retries": REQUEST_MAX_RETRIES, "stream_max_retries": STREAM_MAX_RETRIES,
        }}
    config["features"] = {"hooks": True, "shell_tool": False, "view_image": False, "goals": False, "plugins": False}
    config["agents"] = {"enabled": False}
    config["tools"] = {"experimental_request_user_input": {"enabled": False}}
    config["skills"] = {"bundled": {"enabled": False}}
    config["analytics"] = {"enabled": False}
    config["feedback"] = {"enabled": False}
    config["otel"] = {"exporter": "none", "trace_exporter": "none", "metrics_exporter": "none"}
    config["projects"] = {str(work): {"trust_level": "trusted"}}
    config["mcp_servers"] = {
        name: {"command": command, "args": list(args), "required": True, "startup_timeout_sec": MCP_STARTUP_TIMEOUT_S,
               "tool_timeout_sec": MCP_TOOL_TIMEOUT_S, "default_tools_approval_mode": "approve",
               "supports_parallel_tool_calls": False}
        for name, (command, args) in servers.items()
    }
    return config


def hooks_json(commands: Mapping[str, str]) -> dict[str, Any]:
    """``hooks.json``: one command hook per event (tool events match every tool)."""
    hooks: dict[str, Any] = {}
    for event, command in commands.items():
        group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S}]}
        if event in ("PreToolUse", "PostToolUse"):
            group = {"matcher": ".*", **group}
        hooks[event] = [group]
    return {"hooks": hooks}


def write_home(home: Path, config: Mapping[str, Any], hooks: Mapping[str, Any]) -> Path:
    """Write ``config.toml`` and ``hooks.json`` into ``home`` (made if needed); return it."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(toml_text(config), encoding="utf-8")
    (home / "hooks.json").write_text(json.dumps(hooks, indent=2) + "\n", encoding="utf-8")
    return home


def recorded(config: Mapping[str, Any]) -> dict[str, Any]:
    """The config as a session records it (``cli_settings``): everything but the absolute paths of
    the relay commands, which name a temporary socket."""
    shown = json.loads(json.dumps(config))
    for server in shown.get("mcp_servers", {}).values():
        server["args"] = [a if not a.startswith("/") else Path(a).name for a in server.get("args", [])]
        server["command"] = Path(server.get("command", "")).name
    shown["projects"] = {"<work>": v for v in shown.get("projects", {}).values()}
    return shown
