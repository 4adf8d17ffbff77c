"""The pinned Claude Code CLI, found without importing claude-agent-sdk.

The CLI comes inside the locked ``claude-agent-sdk`` wheel (``claude_agent_sdk/_bundled/claude``);
its version is written in the wheel's generated ``_cli_version.py``. Reading commands (``study
prereg verify``, ``audit``, ``status``) record and check this version, so it is read from the file
here instead of importing the SDK (which costs about 0.6 s): ``importlib.util.find_spec`` locates
the installed package without running it, and the one assignment of the generated file is read
with a regular expression (the file is one line the wheel's build writes; ``tests/runner/
test_sdk_internals.py`` checks that this reading equals the imported ``__cli_version__``).
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
from importlib import metadata
from pathlib import Path

#: The distribution that bundles the CLI.
SDK_DISTRIBUTION = "claude-agent-sdk"
_VERSION_LINE = re.compile(r"""^__cli_version__\s*=\s*["']([^"']+)["']""", re.M)


def sdk_dir() -> Path | None:
    """The installed ``claude_agent_sdk`` package folder (None: not installed)."""
    try:
        spec = importlib.util.find_spec("claude_agent_sdk")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]).resolve()


def sdk_version() -> str | None:
    """The installed claude-agent-sdk version (from its distribution metadata)."""
    try:
        return metadata.version(SDK_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None


def bundled_cli_version() -> str | None:
    """The version of the Claude Code CLI bundled in the installed SDK wheel, e.g. ``2.1.332``."""
    folder = sdk_dir()
    if folder is None:
        return None
    try:
        found = _VERSION_LINE.search((folder / "_cli_version.py").read_text(encoding="utf-8"))
    except OSError:
        return None
    return found.group(1) if found else None


def bundled_cli_path() -> Path | None:
    """The path of the bundled ``claude`` executable, or None if the wheel has none."""
    folder = sdk_dir()
    path = folder / "_bundled" / "claude" if folder is not None else None
    return path if path is not None and path.is_file() else None


def bundled_cli_version_from_binary(timeout_s: float = 30.0) -> str | None:
    """The version the bundled CLI itself prints (``claude --version``), or None if it cannot run."""
    path = bundled_cli_path()
    if path is None:
        return None
    try:
        out = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=timeout_s)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0 or not out.stdout.strip():
        return None
    return out.stdout.split()[0]
