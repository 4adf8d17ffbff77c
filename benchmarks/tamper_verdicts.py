"""Tamper with each family's verdict and its evidence, and see what every reader makes of it
(issue 50: a family's verdict is re-derived from its evidence, never taken as written).

    python benchmarks/tamper_verdicts.py --out /tmp/tamper            # makes its sessions (about 5 min)
    python benchmarks/tamper_verdicts.py --out /tmp/tamper --sessions /tmp/tamper/base   # reuses them

It makes (or reuses) five real sessions through the real CLI against the simulator: τ²-bench
Telecom task 1 under Control (the goal-abandoner: reward 0) and FSM (reward 1), a month-end close
(two periods) under Plain and FSM, and an AutoResearch run (one trial per stage). Each case copies them to a fresh
sessions folder, changes ONE session (its ``outcome`` event, its log, or its evidence: the
``tau2_run.json``, the workspace, its git history), then runs, in process, the commands a
reviewer runs: ``study tables --study …``, ``study status`` and ``study audit``. A case passes when

- every table is exactly the table of the untouched sessions without the tampered one (0 wrong
  numbers), and the tampered session is listed as excluded;
- ``study status`` shows no verdict for it (``invalid records``) and names the broken rule, and
  every other session's row is as before;
- ``study audit`` fails it (``FAIL``) and names the problem.

Three cases tamper in place after a first reading has warmed every cache (the verdicts', the
status', the audit's): a kept result must never outlive its evidence. ``CASES`` and
``run_cases`` are what tests/families/test_tampered_verdicts.py runs on its own sessions.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: The sessions a case may tamper with, by key: (study, what it is).
KEYS = ("tau2-control", "tau2-fsm", "close", "close-fsm", "research")


# ----- the log and the files, changed -------------------------------------------------------------

def events(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "events.jsonl").read_text(encoding="utf-8").splitlines()]


def write_events(folder: Path, found: list[dict]) -> None:
    """Write ``found`` back as the log, each ``seq`` renumbered in file order (so the log's own
    rules, seq and time, still hold: only the verdict rule can see the change)."""
    lines = [json.dumps({**e, "seq": i}, ensure_ascii=False) for i, e in enumerate(found)]
    (folder / "events.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def edit_outcome(**changes) -> Callable[[Path], None]:
    def change(folder: Path) -> None:
        found = events(folder)
        outcome = next(e for e in found if e["kind"] == "outcome")
        for key, value in changes.items():
            value(outcome) if callable(value) else outcome.__setitem__(key, value)
        write_events(folder, found)
    return change


def second_outcome(**changes) -> Callable[[Path], None]:
    def change(folder: Path) -> None:
        found = events(folder)
        i = next(k for k, e in enumerate(found) if e["kind"] == "outcome")
        found.insert(i + 1, {**found[i], **changes})
        write_events(folder, found)
    return change


def drop_outcome(folder: Path) -> None:
    write_events(folder, [e for e in events(folder) if e["kind"] != "outcome"])


def edit_start(**changes) -> Callable[[Path], None]:
    def change(folder: Path) -> None:
        found = events(folder)
        found[0].update(changes)
        write_events(folder, found)
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        meta.update({k: v for k, v in changes.items() if k in meta})
        (folder / "meta.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
    return change


def moved_task(folder: Path) -> None:
    """The log's task moved to the order's second task (its session_start and outcome alike)."""
    from study.families.tau2.family import order_of
    from study.protocol.studies import load_study

    other = order_of(load_study("tau2-telecom"))[1]
    found = events(folder)
    found[0]["order"] = [other]
    next(e for e in found if e["kind"] == "outcome")["task_id"] = other
    write_events(folder, found)


def delete(rel: str) -> Callable[[Path], None]:
    def change(folder: Path) -> None:
        path = folder / rel
        shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    return change


def truncate(rel: str) -> Callable[[Path], None]:
    def change(folder: Path) -> None:
        data = (folder / rel).read_bytes()
        (folder / rel).write_bytes(data[:len(data) // 2])
    return change


def fifo(rel: str) -> Callable[[Path], None]:
    def change(folder: Path) -> None:
        (folder / rel).unlink()
        os.mkfifo(folder / rel)
    return change


def link(rel: str, target: str) -> Callable[[Path], None]:
    def change(folder: Path) -> None:
        (folder / rel).unlink()
        os.symlink(target, folder / rel)
    return change


def flip_run_reward(folder: Path) -> None:
    """tau2_run.json's own recorded reward turned over (its conversation unchanged)."""
    run = json.loads((folder / "tau2_run.json").read_text(encoding="utf-8"))
    run["reward_info"]["reward"] = 1.0 - run["reward_info"]["reward"]
    (folder / "tau2_run.json").write_text(json.dumps(run, indent=2), encoding="utf-8")


def drop_agent_message(folder: Path) -> None:
    """tau2_run.json's trajectory without the agent's transfer (the conversation made to look passed)."""
    run = json.loads((folder / "tau2_run.json").read_text(encoding="utf-8"))
    run["messages"] = [m for m in run["messages"]
                       if not any(c.get("name") == "transfer_to_human_agents" for c in (m.get("tool_calls") or []))]
    (folder / "tau2_run.json").write_text(json.dumps(run, indent=2), encoding="utf-8")


def edit_report(folder: Path) -> None:
    """The first period's report.json: revenue moved by 100 (the outcome still says correct)."""
    path = next(sorted((folder / "workspace" / "periods").glob("*/close/report.json")).__iter__())
    report = json.loads(path.read_text(encoding="utf-8"))
    report["revenue"] = report["revenue"] + 100
    path.write_text(json.dumps(report), encoding="utf-8")


def report_fifo(folder: Path) -> None:
    path = next(sorted((folder / "workspace" / "periods").glob("*/close/report.json")).__iter__())
    path.unlink()
    os.mkfifo(path)


def edit_ledger(folder: Path) -> None:
    """ledger.tsv's baseline row decided ``revert`` (the outcome still says valid)."""
    path = folder / "workspace" / "ledger.tsv"
    lines = path.read_text(encoding="utf-8").splitlines()
    fields = lines[1].split("\t")
    fields[5] = "revert"
    lines[1] = "\t".join(fields)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def swap_runs(folder: Path, other: Path) -> None:
    mine, theirs = folder / "tau2_run.json", other / "tau2_run.json"
    data = mine.read_bytes()
    mine.write_bytes(theirs.read_bytes())
    theirs.write_bytes(data)


def flip_period(outcome: dict) -> None:
    outcome["periods"][0]["correct"] = not outcome["periods"][0]["correct"]


def flip_row(outcome: dict) -> None:
    outcome["rows"][0]["valid"] = not outcome["rows"][0]["valid"]


def commit_gone(folder: Path) -> None:
    """A commit event of the log names a commit the workspace never had (a history replaced)."""
    found = events(folder)
    commit = next((e for e in found if e["kind"] == "commit"), None)
    if commit is None:                         # a run without commits of its own: add one
        i = next(k for k, e in enumerate(found) if e["kind"] == "outcome")
        commit = {**found[i], "kind": "commit", "parents": [], "subject": "x", "files": ["train.py"]}
        for key in list(commit):
            if key not in ("seq", "t", "kind", "parents", "subject", "files"):
                del commit[key]
        found.insert(i, commit)
    commit["sha"] = "0123456789abcdef0123456789abcdef01234567"
    write_events(folder, found)


@dataclass(frozen=True)
class Case:
    name: str
    key: str
    change: Callable[..., None]
    #: tamper in place after a first reading warmed every cache
    warm: bool = False
    #: also given the other τ²-bench session (a swap)
    pair: bool = False


CASES = [
    Case("τ² reward 0→1 (its basis part still 0)", "tau2-control", edit_outcome(reward=1.0)),
    Case("τ² reward 1→0", "tau2-fsm", edit_outcome(reward=0.0)),
    Case("τ² reward 2", "tau2-fsm", edit_outcome(reward=2.0)),
    Case("τ² reward -1", "tau2-control", edit_outcome(reward=-1.0)),
    Case("τ² reward null, judged true", "tau2-control", edit_outcome(reward=None, judged=True)),
    Case("τ² reward null, judged false (not judged)", "tau2-fsm", edit_outcome(reward=None, judged=False)),
    Case("τ² reward true (a boolean)", "tau2-fsm", edit_outcome(reward=True)),
    Case("τ² a part flipped (reward kept)", "tau2-control",
         edit_outcome(parts=lambda o: o["parts"].update({k: 1.0 - v for k, v in list(o["parts"].items())[:1]}))),
    Case("τ² the harness's turns raised", "tau2-fsm", edit_outcome(scripted_turns=lambda o: o.update(scripted_turns=o["scripted_turns"] + 5))),
    Case("τ² a second outcome event (reward 1)", "tau2-control", second_outcome(reward=1.0)),
    Case("τ² the outcome deleted", "tau2-fsm", drop_outcome),
    Case("τ² a moved task_id (the outcome's)", "tau2-fsm", edit_outcome(task_id="[mobile_data_issue]x[PERSONA:None]")),
    Case("τ² a moved task (session_start and outcome)", "tau2-control", moved_task),
    Case("τ² family relabelled sopbench", "tau2-control", edit_start(family="sopbench")),
    Case("tau2_run.json deleted", "tau2-fsm", delete("tau2_run.json")),
    Case("tau2_run.json truncated", "tau2-fsm", truncate("tau2_run.json")),
    Case("tau2_run.json swapped with the other condition's", "tau2-control", swap_runs, pair=True),
    Case("tau2_run.json flipped (its recorded reward)", "tau2-control", flip_run_reward),
    Case("tau2_run.json's trajectory edited (the transfer dropped)", "tau2-control", drop_agent_message),
    Case("tau2_run.json a FIFO", "tau2-fsm", fifo("tau2_run.json")),
    Case("tau2_run.json a link to /dev/zero", "tau2-fsm", link("tau2_run.json", "/dev/zero")),
    Case("month-end 7/N periods correct", "close", edit_outcome(correct_periods=7)),
    Case("month-end a flipped period", "close", edit_outcome(periods=flip_period)),
    Case("month-end the turn cap changed", "close", edit_outcome(turn_cap=24)),
    Case("month-end a second outcome (all periods wrong)", "close", second_outcome(correct_periods=0)),
    Case("month-end report.json edited", "close", edit_report),
    Case("month-end report.json a FIFO", "close", report_fifo),
    Case("month-end workspace .git deleted", "close", delete("workspace/.git")),
    Case("month-end workspace deleted", "close", delete("workspace")),
    Case("month-end a commit of the log missing from the history", "close", commit_gone),
    Case("AutoResearch valid rows +1", "research", edit_outcome(valid_rows=lambda o: o.update(valid_rows=o["valid_rows"] + 1))),
    Case("AutoResearch a row's validity flipped", "research", edit_outcome(rows=flip_row)),
    Case("AutoResearch complete flipped", "research", edit_outcome(complete=lambda o: o.update(complete=not o["complete"]))),
    Case("AutoResearch best accuracy raised", "research", edit_outcome(best_accuracy=0.999)),
    Case("AutoResearch ledger.tsv edited", "research", edit_ledger),
    Case("AutoResearch ledger.tsv a link to /dev/zero", "research", link("workspace/ledger.tsv", "/dev/zero")),
    Case("AutoResearch workspace .git deleted", "research", delete("workspace/.git")),
    Case("AutoResearch a commit of the log missing from the history", "research", commit_gone),
    Case("in place after warm caches: τ² reward 0→1", "tau2-control", edit_outcome(reward=1.0), warm=True),
    Case("in place after warm caches: tau2_run.json flipped", "tau2-control", flip_run_reward, warm=True),
    Case("in place after warm caches: report.json edited", "close", edit_report, warm=True),
]


# ----- the readers --------------------------------------------------------------------------------

def _cli(*args: str) -> tuple[int, str]:
    from click.testing import CliRunner

    from study.cli import main

    done = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return done.exit_code, done.output


def tables(root: Path) -> dict[str, list[str]]:
    """Each study's table rows (CSV, the header lines kept) and exclusion lines."""
    out = {}
    for study in ("tau2-telecom", "month-end-close", "autoresearch"):
        _code, text = _cli("tables", "--study", study, "--sessions", str(root), "--allow-simulated",
                           "--include-exploratory", "--format", "csv")
        text = text.replace(str(root.resolve()), "SESSIONS").replace(str(root), "SESSIONS")
        out[study] = [line for line in text.splitlines() if not line.startswith(("note:", "warning:"))]
    return out


def status(root: Path) -> dict[str, dict]:
    _code, text = _cli("status", "--sessions", str(root), "--json")
    return {row["path"]: row for row in map(json.loads, (x for x in text.splitlines() if x.startswith("{")))}


def audit(root: Path) -> tuple[int, str]:
    return _cli("audit", "--sessions", str(root))


def _table_rows(lines: list[str]) -> list[str]:
    return [line for line in lines if not line.startswith("excluded:")]


def _excluded(lines: list[str], name: str) -> str | None:
    return next((line for line in lines if line.startswith("excluded:") and name in line), None)


@dataclass
class Result:
    case: str
    session: str
    wrong_numbers: int
    table_excludes: str | None
    status_outcome: str | None
    status_problem: str | None
    audit_verdict: str | None
    audit_says: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return (self.wrong_numbers == 0 and self.table_excludes is not None and self.status_outcome == "invalid records"
                and bool(self.status_problem) and self.audit_verdict == "FAIL" and bool(self.audit_says))


def _audit_lines(text: str, name: str) -> tuple[str | None, list[str]]:
    lines = text.splitlines()
    for i, line in enumerate(lines):
        parts = line.split()
        if len(parts) > 1 and parts[1] == name:
            said = []
            for more in lines[i + 1:]:
                if not more.startswith("             "):
                    break
                said.append(more.strip())
            return parts[0], said
    return None, []


def run_case(case: Case, number: int, base: Path, sessions: dict[str, str], work: Path,
             expected: Callable[[str], dict[str, list[str]]], base_status: dict[str, dict]) -> Result:
    """Copy ``base`` (``sessions``: key -> folder below it), tamper, read, compare (module docstring)."""
    root = work / f"case-{number}" / "sessions"
    shutil.copytree(base, root, symlinks=True)
    name = sessions[case.key]
    folder = root / name
    if case.warm:
        time.sleep(2.1)          # the copy settled: a reading keeps what it read (study.caching.RACY_S)
        tables(root), status(root), audit(root)          # every cache warm, then the change in place
    if case.pair:
        other = "tau2-fsm" if case.key == "tau2-control" else "tau2-control"
        case.change(folder, root / sessions[other])
    else:
        case.change(folder)
    got, want = tables(root), expected(case.key)
    if case.pair:    # the other session's evidence was tampered with too: both are out
        want = expected("both-tau2")
    wrong = 0
    excluded = None
    for study, lines in got.items():
        rows, expected_rows = _table_rows(lines), _table_rows(want[study])
        wrong += sum(a != b for a, b in zip(rows, expected_rows)) + abs(len(rows) - len(expected_rows))
        excluded = excluded or _excluded(lines, name)
    rows = status(root)
    row = rows.get(name, {})
    for other, before in base_status.items():
        if other not in (name, sessions.get("tau2-fsm") if case.pair else None, sessions.get("tau2-control") if case.pair else None):
            after = rows.get(other, {})
            wrong += (after.get("outcome"), after.get("problems")) != (before.get("outcome"), before.get("problems"))
    _code, text = audit(root)
    verdict, said = _audit_lines(text, name)
    shutil.rmtree(root.parent, ignore_errors=True)
    return Result(case.name, name, wrong, excluded, row.get("outcome"), (row.get("problems") or [None])[0], verdict, said)


def run_cases(base: Path, sessions: dict[str, str], work: Path, cases: list[Case] = CASES) -> list[Result]:
    """Every case on a copy of ``base`` (whose sessions, by key, are ``sessions``)."""
    os.environ.setdefault("STUDY_CACHE_DIR", str(work / "cache"))
    cache: dict[str, dict[str, list[str]]] = {}

    def expected(key: str) -> dict[str, list[str]]:
        if key not in cache:    # the tables of the untouched sessions without the tampered one(s)
            root = work / f"expected-{key}" / "sessions"
            shutil.copytree(base, root, symlinks=True)
            gone = [sessions["tau2-control"], sessions["tau2-fsm"]] if key == "both-tau2" else [sessions[key]]
            for name in gone:
                shutil.rmtree(root / name)
            cache[key] = tables(root)
            shutil.rmtree(root.parent, ignore_errors=True)
        return cache[key]

    base_status = status(base)
    return [run_case(case, n, base, sessions, work, expected, base_status) for n, case in enumerate(cases, 1)]


# ----- the sessions -------------------------------------------------------------------------------

SPECS = {
    "tau2-control": dict(condition="Control", seed=1, model="sim:goal-abandoner", study="tau2-telecom"),
    "tau2-fsm": dict(condition="FSM", seed=1, model="sim:goal-abandoner", study="tau2-telecom"),
    "close": dict(condition="Plain", seed=1, model="sim:oracle", study="month-end-close", accounts=2),
    "close-fsm": dict(condition="FSM", seed=1, model="sim:oracle", study="month-end-close", accounts=2),
    "research": dict(condition="Plain", seed=1, model="sim:oracle", study="autoresearch", accounts=1),
}


def _key_of(start: dict) -> str | None:
    study, condition = start.get("study"), start.get("condition")
    if study == "tau2-telecom":
        return f"tau2-{str(condition).lower()}"
    if study == "month-end-close":
        return "close" if condition == "Plain" else "close-fsm"
    return "research" if study == "autoresearch" else None


def sessions_of(base: Path) -> dict[str, str]:
    """The sessions of ``KEYS`` in ``base``, made (through the real CLI against the simulator:
    module docstring) where missing."""
    from study.runner.session import SessionSpec, run_session
    from study.session_io.folders import find_sessions as every

    found = {}
    for folder in every(base) if base.is_dir() else []:
        key = _key_of(events(folder)[0])
        if key in KEYS:
            found[key] = folder.relative_to(base).as_posix()
    for key in KEYS:
        if key not in found:
            folder = Path(run_session(SessionSpec(**SPECS[key], out_root=base)))
            found[key] = folder.relative_to(base).as_posix()
            print(f"made {key}: {found[key]}", file=sys.stderr)
    return found


def report(results: list[Result]) -> str:
    lines = [f"{'case':58} {'wrong':>5}  {'status':16} audit"]
    for r in results:
        said = r.audit_says[0] if r.audit_says else "(nothing)"
        lines.append(f"{r.case[:58]:58} {r.wrong_numbers:>5}  {str(r.status_outcome)[:16]:16} "
                     f"{r.audit_verdict or '-'}: {said[:150]}")
    failed = [r for r in results if not r.passed]
    lines.append(f"\n{len(results)} cases: {len(results) - len(failed)} refused by every reader with 0 wrong numbers, "
                 f"{len(failed)} not ({', '.join(r.case for r in failed) or 'none'})")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="a folder for the sessions and the copies")
    parser.add_argument("--sessions", type=Path, default=None,
                        help="a folder of the sessions of an earlier run (its base/; any missing one is made)")
    args = parser.parse_args()
    os.chdir(ROOT)             # the project whose preregistered studies the sessions belong to
    args.out.mkdir(parents=True, exist_ok=True)
    base = args.sessions or args.out / "base"
    sessions = sessions_of(base)
    time.sleep(2.1)            # every file settled: the caches keep what they read (study.caching.RACY_S)
    work = Path(tempfile.mkdtemp(prefix="tamper-", dir=args.out))
    results = run_cases(base, sessions, work)
    print(report(results))
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(0 if all(r.passed for r in results) else 1)


if __name__ == "__main__":
    main()
