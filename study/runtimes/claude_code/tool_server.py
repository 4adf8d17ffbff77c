"""A family's tools in process, as an SDK MCP server for ``claude-agent-sdk`` (the session runner's way).

``make_sdk_server`` wraps the same ``mcp`` server that the other runtimes serve
(``study.tooling.build_server``) in a ``McpSdkServerConfig`` (the SDK's documented "bring your own
mcp.server.Server" route). It does not go through ``create_sdk_mcp_server``, because that helper
validates the arguments against the schema itself and answers bad input with its own
``Input validation error`` text, before our handler (and so ``after_call``) ever runs; here every
call, valid or not, reaches the provider's ``call`` and ``after_call``, and the agent sees the
provider's own error messages (SOP-Bench's ``Error: <what>. <valid form>``). Schemas pass through
unchanged.
"""

from __future__ import annotations

from claude_agent_sdk.types import McpSdkServerConfig

from study.tooling import AfterCall, ToolProvider, build_server


def make_sdk_server(provider: ToolProvider, *, name: str = "sopbench", after_call: AfterCall | None = None) -> McpSdkServerConfig:
    """The config to put in ``ClaudeAgentOptions.mcp_servers[name]``; the CLI then names the
    tools ``mcp__<name>__<tool>``. ``after_call(name, args, result) -> list[str]`` is called
    after every call (refused ones included) and its texts are appended to the result the model
    sees (the runner attaches the reminder, logs the call and informs the FSM runtime this way)."""
    return McpSdkServerConfig(type="sdk", name=name, instance=build_server(provider, name=name, after_call=after_call))
