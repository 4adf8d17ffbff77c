"""The frozen runtime: ``preregistration/runtime.json``.

A session's behaviour depends on the Claude Code CLI (its system prompt, compaction, hooks and
retries) as much as on the texts, so the freeze records the runtime it was made with:

- ``cli_version``: the Claude Code CLI bundled in claude-agent-sdk (``study.runtimes.claude_code.sdk``);
- ``sdk_version``: the installed claude-agent-sdk;
- ``lock_file`` and ``lock_sha256``: the lock file of the install and its sha256
  (``study.runtimes.lock``; null if the install has no lock file);
- ``python``: the Python minor version, e.g. ``3.11``.

``runtime.json`` is an ordinary frozen file: ``study prereg runtime --write`` writes it (before
the freeze, or before an amendment that records a runtime change), and a run refuses when the
runtime it finds differs from the one in effect in the CLI version, the SDK version or the lock
(naming both). A different Python minor version is reported, not refused: the lock pins the same
packages for every supported Python, and the CLI does not run on Python.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .files import RUNTIME, sha256_bytes
from .gitinfo import file_history

FORMAT_VERSION = 2
#: The fields a run refuses on, with the words used in messages.
REFUSING = {"cli_version": "Claude Code CLI", "sdk_version": "claude-agent-sdk", "lock_sha256": "lock file sha256",
            "codex_version": "Codex CLI", "codex_lock_sha256": "Codex CLI npm lock sha256"}
#: Fields a runtime.json of an earlier format may lack (checked only where it records them).
SINCE_FORMAT_2 = ("codex_version", "codex_lock_sha256")
#: A session's runtime fields (session_start / meta.json) -> the runtime.json field each must equal,
#: per runtime.
SESSION_FIELDS = {
    "claude-code": {"cli_version": "cli_version", "sdk_version": "sdk_version", "lock_sha256": "lock_sha256"},
    "codex": {"cli_version": "codex_version", "runtime_lock_sha256": "codex_lock_sha256", "lock_sha256": "lock_sha256"},
}
#: Reported when they differ, never refused.
REPORTED = {"python": "Python"}


def current_runtime() -> dict[str, Any]:
    """The runtime this process runs on, in the form of ``runtime.json``."""
    from study.runtimes import lock as environment
    from study.runtimes.claude_code import pin as claude
    from study.runtimes.codex import pin as codex

    return {
        "format": FORMAT_VERSION,
        "cli_version": claude.bundled_cli_version(),
        "sdk_version": claude.sdk_version(),
        "lock_file": environment.LOCK_FILE,
        "lock_sha256": environment.lock_sha256(),
        "codex_version": codex.pinned_version(),
        "codex_lock_sha256": codex.lock_sha256(),
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
    }


def runtime_text(runtime: dict[str, Any]) -> str:
    return json.dumps(runtime, indent=2, sort_keys=True) + "\n"


def write_runtime(root: Path) -> dict[str, Any]:
    """Write the current runtime to ``root/preregistration/runtime.json``; return it."""
    runtime = current_runtime()
    path = root / RUNTIME
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(runtime_text(runtime), encoding="utf-8", newline="\n")
    return runtime


def parse_runtime(data: bytes | None) -> dict[str, Any] | None:
    try:
        runtime = json.loads(data) if data is not None else None
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return runtime if isinstance(runtime, dict) else None


def runtime_for_hash(root: Path, sha256: str | None) -> dict[str, Any] | None:
    """The runtime.json whose sha256 is ``sha256``: the file on disk, or a version in git history
    (for a runtime an amendment has since replaced); None if neither has it."""
    if sha256 is None:
        return None
    path = root / RUNTIME
    if path.is_file() and sha256_bytes(path.read_bytes()) == sha256:
        return parse_runtime(path.read_bytes())
    for _commit, data in reversed(file_history(root, RUNTIME)):
        if data is not None and sha256_bytes(data) == sha256:
            return parse_runtime(data)
    return None


@dataclass
class RuntimeCheck:
    """The runtime in effect (``expected``) against the one found.

    ``failures`` refuse a run and ``fix`` says what to do about them; ``differences`` are only
    reported. Each is a sentence of its own; ``problems`` and ``notes`` are the same sentences as
    ``study prereg verify`` lists them (``runtime: ...``)."""

    expected: dict[str, Any] | None
    found: dict[str, Any]
    failures: list[str] = field(default_factory=list)
    fix: str | None = None
    differences: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def problems(self) -> list[str]:
        return [f"runtime: {text}" for text in [*self.failures, *([self.fix] if self.fix else [])]]

    @property
    def notes(self) -> list[str]:
        return [f"runtime: {text}" for text in self.differences]

    def rows(self) -> list[tuple[str, Any, Any, bool]]:
        """``(field, expected, found, same)`` for every field, refused ones first."""
        expected = self.expected or {}
        return [(name, expected.get(name), self.found.get(name), expected.get(name) == self.found.get(name))
                for name in (*REFUSING, *REPORTED)]


def check_runtime(root: Path, effective: dict[str, str]) -> RuntimeCheck:
    """Compare the runtime in effect (``runtime.json`` as the manifest in effect has it) with the
    current one."""
    try:
        found = current_runtime()
    except (ImportError, OSError) as exc:  # a broken install: say so instead of a traceback
        return RuntimeCheck(None, {}, [f"the installed runtime cannot be read ({exc})"],
                            fix="reinstall from the lock (`pip install --require-hashes -r requirements.lock`)")
    if RUNTIME not in effective:
        return RuntimeCheck(None, found, [f"the preregistration in effect records no runtime ({RUNTIME})"], fix=(
            f"write it with `study prereg runtime --write` and record it with `study prereg amend --reason \"record "
            f"the runtime\" {RUNTIME}` (or freeze with it)"))
    expected = runtime_for_hash(root, effective[RUNTIME])
    if expected is None:
        return RuntimeCheck(None, found, [f"{RUNTIME} in effect (sha256 {effective[RUNTIME][:16]}…) cannot be read"],
                            fix="restore it from git")
    check = RuntimeCheck(expected, found)
    for name, words in REFUSING.items():
        if name in SINCE_FORMAT_2 and name not in expected:
            check.differences.append(f"{RUNTIME} in effect records no {words} (a runtime.json of format 1): "
                                     f"Codex CLI sessions run only once an amendment records it")
            continue
        if expected.get(name) != found.get(name):
            check.failures.append(f"{words} differs: expected {expected.get(name)} ({RUNTIME}), found {found.get(name)}")
    for name, words in REPORTED.items():
        if expected.get(name) != found.get(name):
            check.differences.append(f"{words} {found.get(name)} differs from the frozen {expected.get(name)} "
                                     "(reported, not refused)")
    if check.failures:
        check.fix = ("install the frozen runtime (`pip install --require-hashes -r requirements.lock`), or record "
                     f"the change first: `study prereg runtime --write` then `study prereg amend --reason \"why\" {RUNTIME}`")
    return check
