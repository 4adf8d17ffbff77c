"""The in-process SDK server: the same tools, plus the text ``after_call`` appends."""

from __future__ import annotations

import json

import anyio
import pytest
from mcp import Client

from sopbench_tools.orders import order_for_seed
from study.runtimes.claude_code.tool_server import make_sdk_server
from sopbench_tools.toolbox import ToolBox


def test_sdk_server_lists_the_tools_and_appends_after_call_text():
    box = ToolBox(order_for_seed(2)[:3])
    first = box.order[0]
    seen = []

    def after_call(name, args, result):
        seen.append((name, args, result.ok, result.account))
        return [f"REMINDER after {name}"] if name == "investigate_account" else []

    config = make_sdk_server(box, after_call=after_call)
    assert config["type"] == "sdk" and config["name"] == "sopbench"

    async def scenario():
        async with Client(config["instance"]) as client:
            tools = (await client.list_tools()).tools
            good = await client.call_tool("investigate_account", {"account_id": first})
            bad = await client.call_tool("investigate_account", {"account_id": "nobody"})
            listing = await client.call_tool("list_batch", {})
            return tools, good, bad, listing

    tools, good, bad, listing = anyio.run(scenario)
    # the schemas pass through unchanged
    assert [(t.name, t.description, t.input_schema) for t in tools] == [
        (s["name"], s["description"], s["inputSchema"]) for s in box.tool_specs()]
    assert not good.is_error
    assert [block.text for block in good.content][1:] == ["REMINDER after investigate_account"]
    assert json.loads(good.content[0].text)["account_id"] == first
    # a refused call reaches after_call too, comes back as an error result with the toolbox's text
    assert bad.is_error
    assert bad.content[0].text.startswith("Error: unknown account id 'nobody'")
    assert bad.content[1].text == "REMINDER after investigate_account"
    assert [block.text for block in listing.content][1:] == []
    assert seen == [
        ("investigate_account", {"account_id": first}, True, first),
        ("investigate_account", {"account_id": "nobody"}, False, "nobody"),
        ("list_batch", {}, True, None),
    ]


@pytest.mark.e2e
def test_real_claude_code_connects_to_the_sdk_server_and_sees_its_tools(tmp_path):
    """The bundled Claude Code CLI, started by claude-agent-sdk, lists our in-process tools.
    No model is contacted (the base URL points nowhere and no query is sent)."""
    from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient

    box = ToolBox(order_for_seed(2)[:3])
    options = ClaudeAgentOptions(
        mcp_servers={"sopbench": make_sdk_server(box)}, tools=[], setting_sources=[], cwd=str(tmp_path),
        permission_mode="default", allowed_tools=["mcp__sopbench__list_batch"],
        env={"HOME": str(tmp_path), "ANTHROPIC_API_KEY": "not-used", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
             "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"},
    )

    async def scenario():
        async with ClaudeSDKClient(options) as client:
            with anyio.fail_after(30):
                while True:  # the CLI connects MCP servers shortly after start-up
                    servers = {s["name"]: s for s in (await client.get_mcp_status())["mcpServers"]}
                    if servers.get("sopbench", {}).get("status") == "connected":
                        return servers["sopbench"]
                    await anyio.sleep(0.2)

    status = anyio.run(scenario)
    assert [tool["name"] for tool in status["tools"]] == [spec["name"] for spec in box.tool_specs()]
