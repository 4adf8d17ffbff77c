"""Benchmark of the analysis: all tables from 1,000 sessions x 200 accounts, scaling, bootstrap.

Targets (issue 6): every table from 1,000 sessions x 200 accounts in at most 10 s on the
study's 2-core machine; 1,000 vs 100 sessions close to 10x (linear); the bootstrap for all
contrasts within 1 s. The corpora are written by analysis.corpus (simulated, not timed).

    python benchmarks/bench_analysis.py [--workdir DIR] [--keep]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from analysis.comparisons import compute_comparisons
from analysis.corpus import generate_corpus
from analysis.loading import load_corpus
from analysis.plan import load_plan
from analysis.render import FORMATS, render
from analysis.statistics import paired_many
from analysis.tables import Analysis, build_tables

CONDITIONS = ["Plain", "Plain-loop", "Sys-loop", "Remind-loop", "FSM"]


def corpus(root: Path, models: int, seeds: int) -> int:
    """Write models x 5 conditions x seeds sessions of 200 accounts (once); return the count."""
    if not root.exists():
        generate_corpus(root, models={f"bench-{m}": CONDITIONS for m in range(models)},
                        seeds=list(range(2, 2 + seeds)))
    return sum(1 for _ in root.rglob("events.jsonl"))


def _cpu() -> float:
    """CPU seconds of this process and its finished worker processes."""
    return time.process_time() + resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime


def all_tables(root: Path, prereg: Path) -> tuple[float, float, Analysis]:
    """Wall and CPU seconds to load, score, compare, evaluate and render every table in every
    format (CPU time does not depend on what else the machine is doing)."""
    start, cpu = time.perf_counter(), _cpu()
    a = Analysis.build(load_corpus(root), load_plan(), prereg)
    for table in build_tables(a):
        for fmt in FORMATS:
            render(table, fmt)
    return time.perf_counter() - start, _cpu() - cpu, a


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, help="where to write the corpora (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the corpora for another run")
    args = parser.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="bench-analysis-"))
    prereg = work / "no-prereg"
    prereg.mkdir(parents=True, exist_ok=True)
    try:
        t0 = time.perf_counter()
        small = corpus(work / "s100", models=2, seeds=10)
        large = corpus(work / "s1000", models=4, seeds=50)
        print(f"corpora: {small} and {large} sessions x 200 accounts "
              f"(written in {time.perf_counter() - t0:.1f} s, not timed)")

        print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        t_small, c_small, _ = all_tables(work / "s100", prereg)
        t_large, c_large, a = all_tables(work / "s1000", prereg)
        events = sum(1 for p in (work / "s1000").rglob("events.jsonl") for _ in open(p, "rb"))
        print(f"all tables, {small} sessions:  {t_small:6.2f} s wall, {c_small:6.2f} s CPU")
        print(f"all tables, {large} sessions: {t_large:6.2f} s wall, {c_large:6.2f} s CPU  "
              f"({events:,} events)  target <= 10 s: {'OK' if t_large <= 10 else 'MISSED'}")
        print(f"ratio {large}/{small} sessions: {t_large / t_small:.1f} wall, "
              f"{c_large / c_small:.1f} CPU (linear: 10)")
        print(f"load average after: {os.getloadavg()[0]:.1f}")

        comparisons = compute_comparisons(a.corpus.sessions, a.plan)
        pairs = [(c.paired.seeds, np.array(c.paired.differences)) for c in comparisons if c.paired]
        start = time.perf_counter()
        paired_many(pairs)
        t_boot = time.perf_counter() - start
        print(f"bootstrap + tests for all {len(pairs)} contrasts (10,000 resamples each, "
              f"{max(len(p[0]) for p in pairs)} seeds): {t_boot:.2f} s  target <= 1 s: "
              f"{'OK' if t_boot <= 1 else 'MISSED'}")
    finally:
        if not args.keep and not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
