"""Every command line the docs give for running Claude Code runs on a fresh install: it is
`study claude …` (the bundled CLI), never a bare `claude`, which is not on PATH after the install."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _shell_lines(path: Path) -> list[str]:
    blocks = re.findall(r"```(?:sh|bash|console)\n(.*?)```", path.read_text(), flags=re.DOTALL)
    return [line.strip() for block in blocks for line in block.replace("\\\n", " ").splitlines() if line.strip()]


def test_docs_run_claude_code_as_study_claude():
    commands = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for line in _shell_lines(path):
            words = shlex.split(line, comments=True)
            assert "claude" not in words[:1], f"{path.name}: `{line}` needs `study claude` (no `claude` on PATH)"
            if words[:2] == ["study", "claude"]:
                commands.append(words)
    assert ["study", "claude", "-p", "Fix the failing test in tests/test_dates.py."] in commands
