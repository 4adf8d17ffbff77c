"""How a session starts Claude Code: its environment and its ``ClaudeAgentOptions``.

The CLI runs with its own fresh HOME and working directory inside the session folder (a workspace
session: the workspace, with Claude Code's own tools on, ``WORKSPACE_TOOLS``, its commands in
Claude Code's sandbox, ``study.runtimes.sandbox``), no filesystem settings, built-in tools off
otherwise, the SOP-Bench (and FSM) tools in process over MCP, Claude Code's default system prompt
(plus the SOP copy for the Sys conditions), the model's generation settings of models.yaml
(``generation``: ``--effort``, ``--thinking``, ``--max-thinking-tokens``; none: the CLI's
defaults), the hooks of the runner's ``SessionBridge``, and ``cli_path`` pointing at the runner's
launcher (``study/runtimes/launcher.py``), which execs the bundled CLI so that it never outlives
the runner.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from claude_agent_sdk import ClaudeAgentOptions, HookMatcher

#: ``prepared`` below is the runner's ``Prepared`` session and ``bridge`` its ``SessionBridge``
#: (``study.runtimes.base.SessionSetup``); this module reads their fields and calls the bridge's hooks.
Prepared = Any
SessionBridge = Any

#: Seconds the CLI waits for a hook's answer.
HOOK_TIMEOUT_S = 600


def cli_env(prepared: "Prepared", home: Path, base_url: str) -> dict[str, str]:
    """The environment the CLI gets on top of the runner's (the SDK passes that one through)."""
    env = {
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": prepared.model.api_key,
        "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": str(prepared.limits.stop_blocks),
    }
    if prepared.disable_nonessential_traffic:
        env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
    if prepared.token_reminder != "default":
        env["CLAUDE_CODE_TOTAL_TOKENS_REMINDER"] = prepared.token_reminder
    env.update(prepared.spec.cli_env)
    return env


def recorded_settings(env: dict[str, str]) -> dict[str, Any]:
    """The CLI settings as recorded (never the API key; not the session's own folders)."""
    return {k: ("<set>" if k == "ANTHROPIC_API_KEY" else v) for k, v in env.items()
            if k not in ("HOME", "CLAUDE_CONFIG_DIR", "CLAUDE_CODE_TMPDIR")}


def inherited(env: dict[str, str]) -> list[str]:
    """Names of CLAUDE*/ANTHROPIC* variables the CLI inherits from this process unchanged
    (the SDK passes the parent's environment through); recorded so an audit can see them."""
    return sorted(k for k in os.environ if k.startswith(("CLAUDE", "ANTHROPIC")) and k not in env)


def generation(settings: dict[str, Any] | None) -> dict[str, Any]:
    """A model's generation settings of models.yaml (``study.protocol.models.MODEL_SETTINGS``) as
    ``ClaudeAgentOptions`` fields, which the SDK passes as the CLI's flags: ``reasoning_effort`` ->
    ``effort`` (``--effort``: Claude Code 2.1.332 sends it as ``output_config.effort`` to a model
    that takes one, not to Claude Haiku 4.5), ``thinking`` (``adaptive``, ``disabled``) and
    ``thinking_budget`` -> ``thinking`` (``--thinking``, or ``--max-thinking-tokens N``: the
    request's ``thinking``). Empty: nothing passed, the CLI's own defaults (the paper's runs)."""
    settings = dict(settings or {})
    unknown = sorted(set(settings) - {"reasoning_effort", "thinking", "thinking_budget"})
    if unknown:
        raise ValueError(f"Claude Code has no flag for the generation setting(s) {', '.join(unknown)}")
    out: dict[str, Any] = {}
    if "reasoning_effort" in settings:
        out["effort"] = settings["reasoning_effort"]
    if "thinking_budget" in settings:
        out["thinking"] = {"type": "enabled", "budget_tokens": int(settings["thinking_budget"])}
    elif "thinking" in settings:
        out["thinking"] = {"type": settings["thinking"]}
    return out


#: Claude Code's own tools a workspace session offers (reading, editing, writing, the shell); every
#: call reaches the PreToolUse hook, where the FSM's built-in vocabulary gates it (study.fsm.builtin_tools).
WORKSPACE_TOOLS = ["Bash", "Read", "Edit", "Write", "MultiEdit", "Glob", "Grep"]
#: The permission rules that admit them without asking: the file-editing tools (Edit, Write,
#: MultiEdit: one ``Edit(...)`` rule covers them all) only inside the working folder, so the CLI
#: itself refuses an edit or a write elsewhere (in ``-p`` mode a permission it would have to ask for
#: is refused), whatever the workflow admits; reads anywhere; the shell, which runs in the sandbox.
WORKSPACE_ALLOWED = ["Bash", "Read", "Glob", "Grep", "Edit(./**)"]


def options(prepared: "Prepared", *, work: Path, cli_path: Path, env: dict[str, str], bridge: "SessionBridge",
            servers: dict[str, Any], allowed: list[str], resume: str | None,
            system_append: str | None = None, builtin_tools: bool = False,
            settings: dict[str, Any] | None = None) -> ClaudeAgentOptions:
    """The options of one ``query()`` call (the first, or a resume of ``resume``); ``system_append``
    is the SOP copy the Sys conditions append to Claude Code's system prompt; ``settings`` the
    CLI's ``--settings`` (a workspace session's sandbox, ``study.runtimes.sandbox.claude_settings``)."""
    system_prompt: dict[str, str] = {"type": "preset", "preset": "claude_code"}
    if system_append is not None:
        system_prompt["append"] = system_append

    def hook(fn: Any) -> list[HookMatcher]:
        return [HookMatcher(hooks=[fn], timeout=HOOK_TIMEOUT_S)]

    return ClaudeAgentOptions(
        **generation(prepared.model.settings),
        tools=list(WORKSPACE_TOOLS) if builtin_tools else [],
        allowed_tools=allowed + (list(WORKSPACE_ALLOWED) if builtin_tools else []),
        mcp_servers=servers,
        strict_mcp_config=True,
        permission_mode="default",
        setting_sources=[],
        system_prompt=system_prompt,
        model=prepared.model.model_id,
        cwd=str(work),
        cli_path=cli_path,
        settings=json.dumps(settings) if settings is not None else None,
        env=env,
        resume=resume,
        max_turns=prepared.limits.turns,
        include_partial_messages=True,  # the stream events the spending cap is priced from
        hooks={
            "PreToolUse": hook(bridge.pre_tool_use),
            "PostToolUse": hook(bridge.post_tool_use),
            "PostToolUseFailure": hook(bridge.post_tool_use),
            "Stop": hook(bridge.on_stop),
            "PreCompact": hook(bridge.pre_compact),
        },
    )
