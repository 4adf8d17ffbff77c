"""The SWE-bench family's acceptance run (issue 47), offline (not CI: about 10 minutes):
``python benchmarks/bench_swebench_acceptance.py OUT``.

On the package's own instances (study ``swebench-local``), on Claude Code and on Codex CLI (where
it is installed), under Plain and FSM: the simulator's oracle on every instance, and the agent that
edits source before the root cause. Each session runs through the runner as any session does
(``run_session``; exploratory, since no preregistered model is run), one after the other. It prints
one line a session (runtime, condition, agent, task, status, verdict, procedure, the source edits
refused before FIX, the session's seconds and the grading's) and checks what the issue asks:

- the oracle resolves every instance under Plain and FSM, on each runtime, by the official harness;
- the source-before-root-cause agent has every source edit before ROOT CAUSE refused under FSM (and
  none after), and is scored "procedure not followed" under Plain;

then prints Tables 3 and 9 of the sessions (titled SIMULATED). Exit status 1 when a check fails.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

STUDY = "swebench-local"
AGENTS = ("oracle", "source-before-root-cause")


def _events(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "events.jsonl").read_text(encoding="utf-8").splitlines()]


def source_edits(folder: Path, log: list[dict]) -> list[dict]:
    """The calls of the CLI's own tools that edit or write a Python file (made or refused)."""
    from study.fsm.builtin_tools import actions_of

    ws = str(folder / "workspace")
    return [e for e in log if e["kind"] == "tool_call" and "server" not in e
            and any(a.tool in ("edit", "write") and a.args.get("path", "").endswith(".py")
                    for a in actions_of(e["tool"], e["args"], ws, ws) or [])]


def check(agent: str, condition: str, folder: Path) -> tuple[bool, dict]:
    log = _events(folder)
    outcome = next((e for e in log if e["kind"] == "outcome"), {})
    end = log[-1] if log and log[-1]["kind"] == "session_end" else {}
    edits = source_edits(folder, log)
    early = [e for e in edits if e.get("state") in ("S_investigate", "S_root_cause")]
    facts = {"status": end.get("status"), "resolved": outcome.get("resolved"),
             "followed": outcome.get("procedure_followed"), "early_edits": len(early),
             "early_refused": sum(e["allowed"] is False for e in early), "seconds": end.get("duration_s"),
             "grading_s": outcome.get("grading_s")}
    if agent == "oracle":
        ok = outcome.get("resolved") is True and outcome.get("procedure_followed") is True
    elif condition == "FSM":
        ok = bool(early) and all(e["allowed"] is False for e in early) and outcome.get("resolved") is True
    else:
        ok = outcome.get("procedure_followed") is False
    return ok, facts


def main(argv: list[str] | None = None) -> int:
    from study.runner.session import SessionSpec, run_session
    from study.runtimes.codex import pin

    from study.families.swebench.family import order_of
    from study.protocol.studies import load_study

    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0] if args else "swebench-acceptance").resolve()
    runtimes = ["claude-code"] + (["codex"] if pin.problem() is None else [])
    tasks = len(order_of(load_study(STUDY)))
    failed = 0
    times: dict[str, list[float]] = {}
    grading: list[float] = []
    for runtime in runtimes:
        for agent in AGENTS:
            for condition in ("Plain", "FSM"):
                for seed in range(1, tasks + 1):
                    started = time.monotonic()
                    folder = run_session(SessionSpec(out_root=out, study=STUDY, model=f"sim:{agent}",
                                                     condition=condition, runtime=runtime, seed=seed))
                    ok, facts = check(agent, condition, folder)
                    failed += not ok
                    if facts["seconds"] is not None:
                        times.setdefault(runtime, []).append(facts["seconds"])
                    if facts["grading_s"] is not None:
                        grading.append(facts["grading_s"])
                    print(f"{'ok  ' if ok else 'FAIL'} {runtime:<11} {condition:<5} {agent:<24} task-{seed} "
                          f"{facts['status']} resolved={facts['resolved']} followed={facts['followed']} "
                          f"source edits before FIX refused {facts['early_refused']}/{facts['early_edits']} "
                          f"session {facts['seconds']} s (grading {facts['grading_s']} s; wall "
                          f"{time.monotonic() - started:.1f} s)", flush=True)
    for runtime, values in times.items():
        print(f"{runtime}: median session {statistics.median(values):.1f} s (min {min(values):.1f}, max "
              f"{max(values):.1f}, grading included)")
    if grading:
        print(f"grading: median {statistics.median(grading):.1f} s (min {min(grading):.1f}, max {max(grading):.1f})")
    import subprocess

    subprocess.run([sys.executable, "-m", "study.cli", "tables", "--study", STUDY, "--sessions", str(out),
                    "--include-exploratory", "--allow-simulated"], check=False)
    print("acceptance: " + ("every check holds" if not failed else f"{failed} session(s) FAILED their check"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
