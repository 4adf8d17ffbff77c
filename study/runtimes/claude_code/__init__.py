"""Claude Code as a runtime: the CLI bundled in claude-agent-sdk, driven through the SDK."""
