"""``study doctor``'s short session of a runtime: what a study session runs, through the runtime seam.

One session of ``study.runner.session.run_session`` on the runtime named (``--runtime``): the
simulator's adversarial policy under Gates-only over the first few items of the project's task,
in a temporary folder (an unchecked, exploratory session: nothing of the project is touched).
The runner opens the runtime's adapter through ``study.runtimes.base.Runtime.open``, as it does
for every session, so the probe knows no agent SDK or CLI of its own: a new runtime is probed as
soon as its adapter runs sessions. The adversary tries every trick, so the one session shows at
once that the pinned CLI starts offline with the study's settings, lists and calls the task's
MCP tools, honours the PreToolUse gate's denials (Gates-only's tool-call gate), and is resumed
when it ends its turn with items left. It takes about ten seconds.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: the probe's batch: the first items of the project's task (fewer when the task has fewer)
ITEMS = 4
SEED = 2
#: the whole session must end within this many seconds (a wall-time limit of the session)
PROBE_WALL_TIME_S = 240.0
#: what the probe checks, in the order the doctor shows them
CHECKS = ("session", "hooks", "MCP tools", "resume")


@dataclass
class Finding:
    check: str          # one of CHECKS
    ok: bool
    detail: str
    fix: str = ""


def run_probe(runtime: str, fix: str) -> list[Finding]:
    """Run the probe session on ``runtime`` and say what it showed; ``fix`` is what to do when a
    check fails (the runtime's reinstall line). Never raises for a runtime that fails."""
    from sopbench_tools.tasks import resolve_task
    from study.protocol.runtimes import runtime_label
    from study.runner.session import SessionSpec, run_session
    from study.runtimes import runtime as face_of

    label, pinned = runtime_label(runtime), face_of(runtime).version()
    task = resolve_task(None)   # the project's task
    items = min(ITEMS, len(task.item_ids))
    noun, plural = task.item.noun, task.item.plural
    with tempfile.TemporaryDirectory(prefix="study-doctor-") as tmp:
        try:
            folder = run_session(SessionSpec(condition="Gates-only", seed=SEED, model="sim:adversarial", accounts=items,
                                             out_root=Path(tmp), runtime=runtime,
                                             limit_overrides={"wall_time_s": PROBE_WALL_TIME_S}))
        except Exception as exc:   # the probe must report, not crash the doctor
            return [Finding("session", False, f"could not run: {type(exc).__name__}: {exc}", fix)] + [
                Finding(name, False, "not tried: the session did not run") for name in CHECKS[1:]]
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        events = [json.loads(line) for line in (folder / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    calls = [e for e in events if e.get("kind") == "tool_call"]
    denied = [c for c in calls if c.get("allowed") is False]
    ends = [e for e in events if e.get("kind") == "call_end"]
    decided = meta.get("decisions") or 0
    version = meta.get("cli_version")
    completed = meta.get("status") == "completed" and decided == items and version == pinned
    session = Finding("session", completed,
                      f"{label} {version}{'' if version == pinned else f' (pinned {pinned})'} ran {len(ends)} call(s) against the simulator (SIMULATED): "
                      f"{meta.get('status')}, {decided} of {items} {plural if items > 1 else noun} decided"
                      + (f"; {_first_line(meta['error'])}" if meta.get("error") else ""), "" if completed else fix)
    if not calls:   # the CLI never reached a tool: nothing below was tried
        return [session] + [Finding(name, False, "not tried: the session made no tool call") for name in CHECKS[1:]]
    resumed = len(ends) >= 2 and (ends[-1].get("decisions") or 0) > (ends[0].get("decisions") or 0)
    last = (ends[-1].get("decisions") or 0) - (ends[-2].get("decisions") or 0) if len(ends) >= 2 else 0
    thread = str(meta.get("session_id") or "?")
    return [
        session,
        Finding("hooks", bool(denied),
                f"the tool-call gate (PreToolUse hook) refused {len(denied)} calls" if denied
                else "no call was refused: the PreToolUse hook did not reach the runner", "" if denied else fix),
        Finding("MCP tools", bool(decided),
                f"{len(calls) - len(denied)} calls of the {task.name} tools answered, {decided} decisions recorded",
                "" if decided else fix),
        Finding("resume", resumed,
                f"call {len(ends)} resumed session {thread[:8]}… and decided the last {last} "
                f"{plural if last != 1 else noun}" if resumed
                else f"the session was not resumed after its turn ended ({len(ends)} call(s))", "" if resumed else fix),
    ]


def _first_line(text: object) -> str:
    """An error's first line (the doctor's verdicts are one line each)."""
    lines = [line for line in str(text).splitlines() if line.strip()]
    return lines[0] if lines else str(text)
