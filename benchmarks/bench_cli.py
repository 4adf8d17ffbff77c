"""Benchmark of the reading commands as a user runs them: each command a new process.

Issue 35: every reading command answers at once. Over a generated corpus of 100 and of 1,000
sessions x 200 accounts (``analysis.corpus``: simulated, written once, not timed) each command is
run as a process, cold (an empty cache folder: nothing scored, nothing kept; the logs are in the
page cache all the same) and warm (after one run that filled the cache), beside the floors
``python -c pass`` and ``study --help``. Each figure is the median of several runs (wall and the
CPU of the process and its children); a run's wall time depends on what else the machine does, so
the table also gives each warm median as a ratio of ``study --help``'s, measured in the same
rounds.

``study audit`` is timed twice: over the corpus, whose generated logs the audit fails by design
(no transcript, no frozen runtime ran them), so it reads every session at every run; and over the
same number of sessions flagged exploratory ("audit left out"), which it leaves out unchecked and
keeps, as it keeps every session that passed (``study.prereg.audit_cache``): a warm rerun reads
none of their logs. Real sessions that pass cannot be generated.

Targets (issue 35, measured on the study's 2-core machine, where ``study --help`` took 0.04 s):
at 100 sessions, warm, every reading command in at most 0.3 s wall; at 1,000 sessions,
``study status`` in at most 1 s and a warm ``study tables`` in at most 0.5 s. A target is shown
as seconds and as a multiple of ``study --help`` (seconds / 0.04 s); the verdict reads the
multiple, which carries over to a slower or busier machine. This is a benchmark, not a test:
it prints what one run measured.

    python benchmarks/bench_cli.py [--sizes 100,1000] [--runs 5] [--workdir DIR] [--keep]

``--code DIR`` runs the commands of another checkout (its ``study`` package first on PYTHONPATH),
e.g. a worktree of an earlier commit, to measure before and after on the same corpora.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from analysis.corpus import generate_corpus

CONDITIONS = ["Plain", "Plain-loop", "Sys-loop", "Remind-loop", "FSM"]
#: ``study --help`` on the machine the targets were set on (issue 35).
REFERENCE_HELP_S = 0.04
#: (sessions, command) -> target seconds, warm (the commands the issue names).
TARGETS = {(100, name): 0.3 for name in ("status", "audit", "audit left out", "score", "tables", "predictions",
                                         "figures", "prereg show", "prereg verify")}
TARGETS |= {(1000, "status"): 1.0, (1000, "tables"): 0.5}


def corpus(root: Path, sessions: int) -> Path:
    """Write ``sessions`` sessions (a multiple of 100) of 200 accounts under ``root`` (once)."""
    if not root.exists():
        models = sessions // 100
        generate_corpus(root, models={f"bench-{m}": CONDITIONS for m in range(models)}, seeds=list(range(2, 22)))
    return root


def left_out_corpus(root: Path, sessions: int) -> Path:
    """``sessions`` generated sessions of 200 accounts, each flagged exploratory (once): what the
    audit leaves out without checking, and so keeps (``study.prereg.audit_cache``). The main
    corpus's generated logs fail the audit (no transcript, no frozen runtime ran them: by design,
    docs/contracts.md), and a failing session is read at every audit; real sessions that pass
    cannot be generated, so this shows the kept path."""
    from analysis.corpus import write_session

    if not root.exists():
        for i in range(sessions):
            condition = CONDITIONS[i % len(CONDITIONS)]
            write_session(root / "m" / condition / f"seed-{2 + i // len(CONDITIONS)}", model="m", condition=condition,
                          seed=2 + i // len(CONDITIONS), episodes=["fc"] * 200, accounts=200, exploratory=True)
    return root


def commands(root: Path, out: Path) -> list[tuple[str, list[str], bool]]:
    """(name, arguments of ``study``, uses a cache) of each reading command over ``root``."""
    one = next(p.parent for p in sorted(root.rglob("events.jsonl")))
    corpus_args = ["--sessions", str(root), "--allow-simulated", "--include-exploratory"]
    return [
        ("status", ["status", "--sessions", str(root)], True),
        ("audit", ["audit", "--sessions", str(root)], True),
        ("audit left out", ["audit", "--sessions", str(root.parent / f"{root.name}-left-out")], True),
        ("score", ["score", str(one)], False),
        ("tables", ["tables", *corpus_args], True),
        ("predictions", ["predictions", *corpus_args], True),
        ("figures", ["figures", *corpus_args, "--out", str(out)], True),
        ("prereg show", ["prereg", "show"], False),
        ("prereg verify", ["prereg", "verify"], False),
    ]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one process (its output thrown away), run in the folder ``env``'s
    BENCH_CWD names (outside any checkout: ``python -m`` puts the working folder first on the path)."""
    cpu, start = _children_cpu(), time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False,
                   cwd=env["BENCH_CWD"])
    return time.perf_counter() - start, _children_cpu() - cpu


#: ``study`` as a process (``python -m study.cli``: the same as the console script, and it follows
#: PYTHONPATH, so ``--code`` can point it at another checkout).
STUDY = [sys.executable, "-m", "study.cli"]


def measure(name: str, argv: list[str], env: dict[str, str], runs: int, cache: Path | None,
            help_argv: list[str]) -> dict[str, float]:
    """Cold runs (each with an empty cache folder, when the command has a cache), then one run that
    fills the cache and ``runs`` warm runs, each paired with a run of ``study --help``."""
    out: dict[str, float] = {}
    if cache is not None:
        colds = []
        for _ in range(max(1, runs // 2)):
            shutil.rmtree(cache, ignore_errors=True)
            colds.append(run_once(argv, env))
        out["cold"], out["cold_cpu"] = statistics.median(w for w, _ in colds), statistics.median(c for _, c in colds)
        run_once(argv, env)                      # fills the cache
    warms, ratios, cpu_ratios = [], [], []
    for _ in range(runs):
        wall, cpu = run_once(argv, env)
        floor, floor_cpu = run_once(help_argv, env)
        warms.append((wall, cpu))
        ratios.append(wall / floor)
        cpu_ratios.append(cpu / floor_cpu if floor_cpu else float("nan"))
    out["warm"], out["warm_cpu"] = statistics.median(w for w, _ in warms), statistics.median(c for _, c in warms)
    out["ratio"], out["cpu_ratio"] = statistics.median(ratios), statistics.median(cpu_ratios)
    if cache is None:
        out["cold"], out["cold_cpu"] = out["warm"], out["warm_cpu"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000", help="corpus sizes, multiples of 100 (default 100,1000)")
    parser.add_argument("--runs", type=int, default=5, help="warm runs per command (cold: half as many)")
    parser.add_argument("--workdir", type=Path, help="where to write the corpora (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the corpora for another run")
    parser.add_argument("--code", type=Path, help="another checkout whose commands to time")
    parser.add_argument("--only", default="", help="comma-separated command names to time (default: all)")
    parser.add_argument("--keep-bytecode-setting", action="store_true",
                        help="keep PYTHONDONTWRITEBYTECODE for the commands (default: unset, so they run from .pyc)")
    args = parser.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="bench-cli-"))
    cache = work / "cache"
    (work / "cwd").mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "STUDY_CACHE_DIR": str(cache), "BENCH_CWD": str(work / "cwd")}
    # an installed package runs from its bytecode: without it every process compiles each module
    # of the project it imports (about a tenth of a second here), which no user pays
    if not args.keep_bytecode_setting:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    bytecode = "PYTHONDONTWRITEBYTECODE" not in env
    if args.code is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(args.code.resolve()), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    found = subprocess.run([*STUDY[:1], "-c", "import study; print(study.__file__)"], capture_output=True, text=True,
                           env=env, cwd=env["BENCH_CWD"]).stdout.strip()
    base = STUDY
    help_argv = [*base, "--help"]
    only = {n.strip() for n in args.only.split(",") if n.strip()}
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
        t0 = time.perf_counter()
        roots = {n: corpus(work / f"s{n}", n) for n in sizes}
        for n in sizes:
            if not only or "audit left out" in only:
                left_out_corpus(work / f"s{n}-left-out", n)
        print(f"corpora: {', '.join(str(n) for n in sizes)} sessions x 200 accounts under {work} "
              f"(written in {time.perf_counter() - t0:.1f} s, not timed)")
        print(f"code: {Path(found).parent.parent}; {os.cpu_count()} cores; load average "
              f"{os.getloadavg()[0]:.1f}; medians of {args.runs} warm runs and {max(1, args.runs // 2)} cold ones; "
              f"{'from bytecode' if bytecode else 'compiling every module (PYTHONDONTWRITEBYTECODE)'}")
        floors = {"python -c pass": [sys.executable, "-c", "pass"], "study --help": help_argv}
        floor = {}
        for name, argv in floors.items():
            runs = [run_once(argv, env) for _ in range(args.runs)]
            floor[name] = statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)
            print(f"  {name:<16} {floor[name][0]:6.2f} s wall  {floor[name][1]:5.2f} s CPU")
        help_s = floor["study --help"][0]
        header = (f"{'sessions':>8}  {'command':<14} {'cold s':>7} {'cold CPU':>8} {'warm s':>7} {'warm CPU':>8} "
                  f"{'x help':>7} {'CPU x help':>10}  {'target':>16}  verdict")
        rows = []
        for n, root in roots.items():
            for name, cmd, cached in commands(root, work / "figures"):
                if only and name not in only:
                    continue
                m = measure(name, [*base, *cmd], env, args.runs, cache if cached else None, help_argv)
                target = TARGETS.get((n, name))
                ratio_target = None if target is None else target / REFERENCE_HELP_S
                verdict = "-" if target is None else ("met" if m["ratio"] <= ratio_target else "MISSED")
                shown = "-" if target is None else f"<= {target:g} s ({ratio_target:.1f}x)"
                rows.append(f"{n:>8}  {name:<14} {m['cold']:7.2f} {m['cold_cpu']:8.2f} {m['warm']:7.2f} {m['warm_cpu']:8.2f} "
                            f"{m['ratio']:6.1f}x {m['cpu_ratio']:9.1f}x  {shown:>16}  {verdict}")
                print(rows[-1], flush=True)
        print()
        print(f"study --help: {help_s:.2f} s here, {REFERENCE_HELP_S} s where the targets were set; x help: each "
              "warm run / the study --help run after it, median (wall; and CPU); the verdict reads the wall ratio. "
              "Cold: an empty cache folder (the logs in the page cache); a command without a cache is only warm")
        print(header)
        print("\n".join(rows))
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    finally:
        if not args.keep and not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
