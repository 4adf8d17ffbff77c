"""The SOP-Bench referral-abuse-detection task (vendored, CC BY-NC 4.0) and the tools the agent
sees, served over MCP. See ``sopbench_tools/data/SOURCE.md`` for attribution."""
