"""A Codex CLI home of the study's own: ``config.toml`` and ``hooks.json`` in a fresh ``CODEX_HOME``.

Nothing of the user's ``~/.codex`` is read: every session (and every ``study codex`` run) gets a
``CODEX_HOME`` holding only what is written here. The settings, each verified against Codex CLI
0.169.0 offline (``--strict-config`` refuses an unknown key; docs/runtimes.md says why each):

- the model provider: ``wire_api = "responses"`` at the session's endpoint, its key read from the
  variable ``env_key`` names, with the retry counts written out (Codex's defaults: 4 HTTP-level
  retries inside 5 stream-level ones); the model's generation settings of models.yaml as Codex's
  keys (:func:`generation_keys`: ``model_reasoning_effort``, ``model_reasoning_summary``);
- unattended: ``approval_policy = "never"``, ``sandbox_mode = "danger-full-access"`` (no tool of
  Codex's own that could use them is offered), the working folder trusted; a workspace session
  (:func:`workspace_config`) instead keeps Codex's own tools on in its ``workspace-write`` sandbox
  (:func:`sandbox_settings`), and ``study codex --workflow`` (:func:`project_config`) in a sandbox
  of a permission profile (:func:`project_permissions`);
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
from typing import Any, Mapping, Sequence

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
#: The name of ``study codex``'s permission profile in config.toml (:func:`project_permissions`).
PROJECT_PROFILE = "project"
#: A models.yaml generation setting (``study.protocol.models.MODEL_SETTINGS``) -> Codex's config key:
#: Codex CLI 0.169.0 sends ``model_reasoning_effort`` as the Responses API's ``reasoning.effort`` and
#: ``model_reasoning_summary`` as ``reasoning.summary`` (checked in its requests to the simulator;
#: without them it sends ``reasoning: {"summary": "auto"}`` and the API's default effort applies).
GENERATION_KEYS = {"reasoning_effort": "model_reasoning_effort", "reasoning_summary": "model_reasoning_summary"}


def generation_keys(settings: Mapping[str, Any] | None) -> dict[str, Any]:
    """A model's generation settings as config.toml keys (a setting Codex has no key for is refused:
    models.yaml's reader lets only Codex's through)."""
    unknown = sorted(set(settings or {}) - set(GENERATION_KEYS))
    if unknown:
        raise ValueError(f"Codex CLI has no config key for the generation setting(s) {', '.join(unknown)}")
    return {GENERATION_KEYS[key]: value for key, value in (settings or {}).items()}


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
                   provider: bool = True, builtin_tools: bool = False, writable_roots: Sequence[Path] = (),
                   model_settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The config of one Codex home. ``servers`` maps an MCP server name to its command and
    arguments; ``developer_instructions`` is appended to Codex's system prompt (the Sys
    conditions' SOP copy); ``context_window`` sets the model's context window (Codex compacts at
    about 90% of it); ``provider`` False keeps Codex's own OpenAI provider (``study codex``).
    ``builtin_tools``: Codex's own tools stay on (the shell, ``apply_patch`` where Codex offers it)
    inside its ``workspace-write`` sandbox (:func:`sandbox_settings`: writes only in ``work`` and
    ``writable_roots``, not in /tmp, no network for commands); the study's SOP sessions never set it.
    ``model_settings``: the model's generation settings of models.yaml (:func:`generation_keys`)."""
    config: dict[str, Any] = {"model": model, **generation_keys(model_settings)}
    if provider:
        config["model_provider"] = PROVIDER
    config.update({
        "approval_policy": "never",
        "sandbox_mode": "workspace-write" if builtin_tools else "danger-full-access",
        "web_search": "disabled",
        "check_for_update_on_startup": False,
        "project_doc_max_bytes": 0,
    })
    if builtin_tools:
        config["sandbox_workspace_write"] = sandbox_settings(writable_roots)
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
    if builtin_tools:
        del config["features"]["shell_tool"]   # on: Codex's default
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


def sandbox_settings(writable_roots: Sequence[Path] = ()) -> dict[str, Any]:
    """``[sandbox_workspace_write]``: the agent's commands and patches write only in the working
    folder and ``writable_roots`` (Codex's default also lets them write in /tmp and $TMPDIR: off
    here) and reach no network (Codex 0.169.0 blocks their sockets with seccomp; checked on Linux as
    root in a container, docs/runtimes.md). Codex keeps a working folder's ``.git`` read-only unless
    it is named here (so a workspace session that commits names it)."""
    return {"writable_roots": [str(p) for p in writable_roots], "network_access": False,
            "exclude_tmpdir_env_var": True, "exclude_slash_tmp": True}


def workspace_config(*, model: str, base_url: str, env_key: str, workspace: Path,
                     servers: Mapping[str, tuple[str, list[str]]] | None = None, developer_instructions: str | None = None,
                     context_window: int | None = None, provider: bool = True, commits: bool = True,
                     model_settings: Mapping[str, Any] | None = None, writable: Sequence[Path] = (),
                     confined: bool = False) -> dict[str, Any]:
    """The config of a workspace session's Codex home: the session config (nothing of the user's,
    the endpoint the only host, hooks on, MCP ``servers`` required and approved) with Codex's own
    tools on in its ``workspace-write`` sandbox rooted at ``workspace`` (the agent's working
    folder). ``commits``: the workspace's ``.git`` is writable too, so the agent can commit;
    ``writable``: folders beside the workspace a protocol declares writable. No login shell
    (``allow_login_shell = false``): commands see the session's ``PATH``. ``confined``: the work's
    commands are confined where its own shell runs them (``Work.commands_confined``), so Codex runs
    without its sandbox (``danger-full-access``), which would deny that shell the docker socket; its
    patches act on the host, where the runner's file fence holds them to the workspace."""
    workspace = Path(workspace)
    roots = ([workspace / ".git"] if commits else []) + [Path(p) for p in writable]
    config = session_config(model=model, base_url=base_url, env_key=env_key, work=workspace, servers=servers or {},
                            developer_instructions=developer_instructions, context_window=context_window,
                            provider=provider, builtin_tools=True, writable_roots=roots, model_settings=model_settings)
    if confined:
        config["sandbox_mode"] = "danger-full-access"
        del config["sandbox_workspace_write"]
    # the agent's commands run in a plain shell with the session's PATH (the runner's Python first,
    # whose packages a protocol's script imports); a login shell would reset PATH from /etc/profile
    config["allow_login_shell"] = False
    return config


def project_config(*, workspace: Path, git_dirs: Sequence[Path] = (), read_only: Sequence[Path] = (),
                   **config: Any) -> dict[str, Any]:
    """The config ``study codex --workflow`` gives Codex in a project of the user's: a workspace
    session's (:func:`workspace_config`, ``config``'s keywords: no login shell, so commands see the
    environment ``study codex`` started in) with its sandbox as a permission profile
    (:func:`project_permissions`) instead of ``workspace-write``'s settings."""
    settings = workspace_config(workspace=workspace, commits=False, **config)
    del settings["sandbox_mode"], settings["sandbox_workspace_write"]   # Codex takes one or the other
    settings["default_permissions"] = PROJECT_PROFILE
    settings["permissions"] = {PROJECT_PROFILE: project_permissions(workspace, git_dirs, read_only)}
    return settings


def project_permissions(workspace: Path, git_dirs: Sequence[Path] = (), read_only: Sequence[Path] = ()) -> dict[str, Any]:
    """The permission profile of the agent's commands in a user's project (Codex 0.169.0's
    ``[permissions.NAME]``, its bubblewrap and seccomp as for ``workspace-write``): the whole
    machine readable; the project writable, less ``read_only`` (the FSM's frames and workflows,
    where they are inside it) and its ``.codex`` and ``.agents`` (which Codex keeps read-only: a
    project's Codex config); the repository's git folders (``git_dirs``) writable, so the agent can
    commit, less each one's ``config`` and ``hooks``, which git runs outside the sandbox (for the
    user and for the workflow's checks: Claude Code's sandbox keeps them read-only too); not /tmp,
    not ``$TMPDIR``; no network. The more specific path wins (checked on 0.169.0, docs/runtimes.md)."""
    workspace = Path(workspace)
    filesystem: dict[str, str] = {":root": "read", str(workspace): "write"}
    for folder in git_dirs:
        filesystem[str(folder)] = "write"
    for path in [workspace / ".codex", workspace / ".agents", *read_only,
                 *(Path(folder) / name for folder in git_dirs for name in ("config", "hooks"))]:
        filesystem[str(path)] = "read"
    return {"filesystem": filesystem, "network": {"enabled": False}}


def write_workspace_home(home: Path, *, hook_commands: Mapping[str, str], **config: Any) -> dict[str, Any]:
    """Write a workspace session's ``CODEX_HOME`` (:func:`workspace_config` with ``config``'s
    keywords; ``hook_commands``: event -> shell command, as :func:`hooks_json` takes them) and
    return the config (``recorded(config)`` is what a session records)."""
    settings = workspace_config(**config)
    write_home(home, settings, hooks_json(hook_commands))
    return settings


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
    works = list(shown.get("projects", {}))
    shown["projects"] = {"<work>": v for v in shown.get("projects", {}).values()}
    sandbox = shown.get("sandbox_workspace_write")
    if sandbox is not None and len(works) == 1:
        sandbox["writable_roots"] = [r.replace(works[0], "<work>", 1) if r.startswith(works[0]) else r
                                     for r in sandbox["writable_roots"]]
    return shown
