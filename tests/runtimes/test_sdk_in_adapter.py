"""The adapter is the one place that knows an agent SDK: every module of the package that names
``claude_agent_sdk`` (an import, or any other mention) lives in ``study/runtimes/claude_code/``.
Everything else reaches Claude Code through the runtime seam (``study.runtimes.base``), as
``study doctor``'s probe does, so a third runtime brings everything it needs with its adapter."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "study" / "runtimes" / "claude_code"


def test_only_the_claude_code_adapter_names_the_sdk():
    naming = sorted(path.relative_to(ROOT).as_posix()
                    for folder in ("study", "analysis", "sopbench_tools") for path in (ROOT / folder).rglob("*.py")
                    if "claude_agent_sdk" in path.read_text(encoding="utf-8"))
    assert naming, "the adapter names the SDK (else this test looks in the wrong place)"
    assert [p for p in naming if not (ROOT / p).is_relative_to(ADAPTER)] == []
