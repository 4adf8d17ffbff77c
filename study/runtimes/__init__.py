"""The agent runtimes a session can run on: one adapter per agent CLI, pinned and hash-checked.

Runtime-neutral code (``study.runner``) drives a session through this package's interface; only
the adapters (``claude_code/``, ``codex/``) know how their CLI is started, configured and read.
"""
