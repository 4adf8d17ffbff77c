"""``study doctor``'s check of the pinned Codex CLI: one short session through the study's own runner.

Where Claude Code's check drives the bundled CLI by hand (``study/doctor/claude_code.py``), this one runs
what a study session runs: ``study.runner.session.run_session`` with ``--runtime codex``, the
simulator's adversarial policy under Gates-only over four accounts, in a temporary folder (an
unchecked, exploratory session: nothing of the project is touched). The adversary tries every
trick, so the session shows at once that the pinned binary starts offline with the study's
CODEX_HOME, lists and calls the MCP tools through the relays, honours the PreToolUse gate's
denials (Gates-only's tool-call gate), and is resumed with ``codex exec resume`` when it ends its
turn with accounts left. It takes about ten seconds.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

ACCOUNTS = 4


@dataclass
class Finding:
    name: str
    ok: bool
    detail: str
    fix: str = ""


def run_probe(timeout_note: str = "") -> list[Finding]:
    """Run the probe session and say what it showed (see the module docstring)."""
    from study.runner.session import SessionSpec, run_session

    from study.runtimes.codex.pin import installed_version, pinned_version

    fix = "reinstall the pinned Codex CLI: study runtime install codex"
    with tempfile.TemporaryDirectory(prefix="study-doctor-codex-") as tmp:
        try:
            folder = run_session(SessionSpec(condition="Gates-only", seed=2, model="sim:adversarial", accounts=ACCOUNTS,
                                             out_root=Path(tmp), runtime="codex"))
        except Exception as exc:   # the probe must report, not crash the doctor
            return [Finding("Codex session", False, f"could not run: {type(exc).__name__}: {exc}", fix)]
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        events = [json.loads(line) for line in (folder / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    calls = [e for e in events if e.get("kind") == "tool_call"]
    denied = [c for c in calls if c.get("allowed") is False]
    resumes = [e for e in events if e.get("kind") == "resume"]
    completed = meta.get("status") == "completed" and meta.get("decisions") == ACCOUNTS
    version = meta.get("cli_version")
    return [
        Finding("Codex session", completed and version == pinned_version(),
                f"Codex CLI {version} (pinned {pinned_version()}, installed {installed_version()}) ran "
                f"{1 + len(resumes)} calls against the simulator (SIMULATED): {meta.get('status')}, "
                f"{meta.get('decisions')} of {ACCOUNTS} decided" + (f"; {meta.get('error')}" if meta.get("error") else ""),
                "" if completed else fix),
        Finding("Codex hooks", bool(denied),
                f"the tool-call gate (PreToolUse through the relay) refused {len(denied)} calls"
                if denied else "no call was refused: the PreToolUse hook did not reach the runner", "" if denied else fix),
        Finding("Codex MCP tools", bool(meta.get("decisions")),
                f"{len(calls) - len(denied)} calls of the study's tools answered through the relay",
                "" if meta.get("decisions") else fix),
        Finding("Codex resume", bool(resumes),
                f"codex exec resume continued the thread {len(resumes)} time(s)" if resumes
                else "the session was not resumed after its turn ended", "" if resumes else fix),
    ]
