"""A Claude Code project wired to the FSM as docs/fsm.md tells users to wire it, for the e2e tests.

``.claude/settings.json`` runs ``study fsm hook ...`` as command hooks, the FSM tools come from
``study fsm serve`` over stdio, the SOP-Bench tools from their own stdio server; the workflow is
entered before the session starts, as a project would. With ``record``, every hook command runs
under a small recorder that passes stdin and stdout through unchanged and appends
``{"event", "input", "output"}`` to that JSONL file (the decisions are still the hook's own).
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from claude_agent_sdk import ClaudeAgentOptions, query

from fsm_helpers import MAIN
from sopbench_tools.tool_definitions import ALL_TOOLS
from study.fsm import FsmRuntime, Workflow
from study.fsm.tool_api import FSM_TOOL_NAMES

PY = sys.executable
HOOK_EVENTS = {"PreToolUse": "pre-tool-use", "PostToolUse": "post-tool-use",
               "PostToolUseFailure": "post-tool-use-failure", "Stop": "stop"}

#: The recorder, a POSIX shell script: a hundred-odd hook runs per session each start it, and a
#: Python recorder's own start-up cost as much as the hook's. It passes stdin, stdout, stderr and the
#: exit code through and appends one JSON line; a hook's input and output are JSON, whose line
#: breaks (never inside a string) it drops to keep one record per line.
RECORDER = r"""#!/bin/sh
log=$1; event=$2; shift 2
input=$(cat)
output=$(printf '%s' "$input" | "$@")
code=$?
[ -n "$output" ] && printf '%s\n' "$output"
last=$(printf '%s\n' "$output" | tail -n 1 | tr -d '\n')
input=$(printf '%s' "$input" | tr -d '\n')
printf '{"event": "%s", "input": %s, "output": %s, "code": %d}\n' "$event" "${input:-null}" "${last:-null}" "$code" >> "$log"
exit $code
"""


def make_project(root: Path, accounts: list[str], *, seed: int = 2, record: Path | None = None,
                 workflow: Path = MAIN, proposals: bool = False) -> tuple[Path, Path, dict]:
    """The project folder, its frames folder and the MCP servers for ``accounts`` (the first
    ``len(accounts)`` of ``seed``'s order), with ``workflow`` (default: the main one) entered. A
    runtime-driven workflow (FSM-lean's) gets no FSM tool server: the agent never needs it. With
    ``proposals`` the FSM server also serves propose_workflow_change (``study fsm serve --proposals``)."""
    project = root / "project"
    frames = project / ".fsm"
    (project / ".claude").mkdir(parents=True)
    variables = project / "fsm-variables.json"
    variables.write_text(json.dumps({"batch": accounts}))
    common = ["--frames", str(frames), "--workflow", str(workflow)]
    prefix: list[str] = []
    if record is not None:
        recorder = root / "record_hook.sh"
        recorder.write_text(RECORDER)
        prefix = ["/bin/sh", str(recorder), str(record)]

    def command(event: str) -> str:
        hook = [PY, "-m", "study.cli", "fsm", "hook", event, *common, "--tool-prefix", "mcp__sopbench__"]
        return shlex.join(prefix + ([event] if prefix else []) + hook)

    settings = {"hooks": {name: [{"hooks": [{"type": "command", "command": command(event)}]}]
                          for name, event in HOOK_EVENTS.items()}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))
    servers = {
        "sopbench": {"type": "stdio", "command": PY, "args": ["-m", "sopbench_tools", "--seed", str(seed), "--accounts", str(len(accounts))]},
        "fsm": {"type": "stdio", "command": PY, "args": ["-m", "study.cli", "fsm", "serve", *common, "--variables", str(variables),
                                                          *(["--proposals"] if proposals else [])]},
    }
    wf = Workflow.load(workflow)
    if not wf.needs_agent_moves:
        del servers["fsm"]
    FsmRuntime(frames, {wf.name: wf}, {"batch": accounts}).enter(wf.name)
    return project, frames, servers


async def run_claude(project: Path, servers: dict, base_url: str, home: Path) -> list:
    """One ``claude -p`` session in ``project`` against the model at ``base_url``; its messages."""
    options = ClaudeAgentOptions(
        tools=[],
        allowed_tools=[f"mcp__sopbench__{t}" for t in ALL_TOOLS] + [f"mcp__fsm__{t}" for t in FSM_TOOL_NAMES if "fsm" in servers]
        + (["mcp__fsm__propose_workflow_change"] if "--proposals" in servers.get("fsm", {}).get("args", []) else []),
        mcp_servers=servers,
        strict_mcp_config=True,
        permission_mode="default",
        setting_sources=["project"],  # the hooks come from the project's .claude/settings.json
        cwd=str(project),
        max_turns=200,
        env={
            "HOME": str(home),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "ANTHROPIC_BASE_URL": base_url,
            "ANTHROPIC_API_KEY": "sim",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        },
    )
    messages = []
    async for message in query(prompt="Process every account of the batch, one at a time, following the SOP.", options=options):
        messages.append(message)
    return messages


class SettingsSession:
    """A finished session through the ``.claude/settings.json`` wiring (``run_settings_session``):
    the folder holding the project, its frames, the recorded hook runs (``hooks.jsonl``), the
    simulator's ground truth (``truth.jsonl``) and every request the model got (``requests.jsonl``),
    and the messages the SDK streamed."""

    def __init__(self, root: Path, frames: Path, messages: list):
        self.root, self.frames, self.messages = root, frames, messages
        self.hooks = root / "hooks.jsonl"
        self.truth = root / "truth.jsonl"
        self.requests = root / "requests.jsonl"


def run_settings_session(root: Path, accounts: list[str], policy: str, params: dict, *, seed: int = 2) -> SettingsSession:
    """The main workflow wired through ``.claude/settings.json`` (every hook recorded) for
    ``accounts`` of ``seed``'s order, played by the simulator's ``policy`` (seeded with ``seed``)."""
    import anyio

    from study.sim import SimServer

    project, frames, servers = make_project(root, accounts, seed=seed, record=root / "hooks.jsonl")
    with SimServer(policy, seed=seed, truth_path=root / "truth.jsonl", request_log=root / "requests.jsonl", **params) as sim:
        messages = anyio.run(run_claude, project, servers, sim.base_url, root / "home")
    return SettingsSession(root, frames, messages)
