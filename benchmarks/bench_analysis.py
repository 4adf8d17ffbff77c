"""Benchmark of the analysis: all tables from 1,000 sessions x 200 accounts, scaling, bootstrap.

Targets (issue 6, issue 21): every table from 1,000 sessions x 200 accounts cold in at most 3 s
wall on the study's 2-core machine (about 2x the JSON-parse floor, measured here: orjson over
every log, in as many processes as the analysis uses), and a warm rerun through the score cache
(analysis.score_cache) in at most 0.5 s; 1,000 vs 100 sessions close to 10x (linear); the
bootstrap for all contrasts within 1 s. The corpora are written by analysis.corpus (simulated,
not timed). Wall times depend on what else the machine runs (the CPU times less so), so each is
measured three times, cold runs interleaved with parse floors, and the medians are the verdict.

    python benchmarks/bench_analysis.py [--workdir DIR] [--keep]
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import shutil
import statistics
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import orjson

from analysis.comparisons import compute_comparisons
from analysis.corpus import generate_corpus
from analysis.loading import load_corpus
from study.protocol.plan import load_plan
from analysis.score_cache import ScoreCache
from analysis.render import FORMATS, render
from analysis.statistics import paired_many
from analysis.tables import Analysis, build_tables

CONDITIONS = ["Plain", "Plain-loop", "Sys-loop", "Remind-loop", "FSM"]
#: Cold runs, parse floors and warm reruns are each measured this many times (the median is the verdict).
ROUNDS = 3


def corpus(root: Path, models: int, seeds: int) -> int:
    """Write models x 5 conditions x seeds sessions of 200 accounts (once); return the count."""
    if not root.exists():
        generate_corpus(root, models={f"bench-{m}": CONDITIONS for m in range(models)},
                        seeds=list(range(2, 2 + seeds)))
    return sum(1 for _ in root.rglob("events.jsonl"))


def _cpu() -> float:
    """CPU seconds of this process and its finished worker processes."""
    return time.process_time() + resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime


def all_tables(root: Path, prereg: Path, cache: ScoreCache | None = None) -> tuple[float, float, Analysis]:
    """Wall and CPU seconds to load, score, compare, evaluate and render every table in every
    format (CPU time does not depend on what else the machine is doing). Each run starts as a new
    process would: a caller keeps no earlier run's analysis alive (``[:2]``), and what is left of
    one is collected first, so no collector pass of this run walks its 200,000 decisions."""
    gc.collect()
    start, cpu = time.perf_counter(), _cpu()
    a = Analysis.build(load_corpus(root, cache=cache), load_plan(), prereg)
    for table in build_tables(a):
        for fmt in FORMATS:
            render(table, fmt)
    return time.perf_counter() - start, _cpu() - cpu, a


def _parse_one(path: Path) -> int:
    data = path.read_bytes()
    return len(orjson.loads(b"[" + data.rstrip(b"\n").replace(b"\n", b",") + b"]"))


def parse_floor(root: Path) -> tuple[float, float]:
    """Wall and CPU seconds to read and parse every log under ``root`` with orjson (no validation,
    no scoring), in as many worker processes as the analysis uses: the floor of a cold analysis."""
    logs = sorted(root.rglob("events.jsonl"))
    start, cpu = time.perf_counter(), _cpu()
    workers = min(os.cpu_count() or 1, 8)
    if workers < 2:
        sum(map(_parse_one, logs))
    else:
        with ProcessPoolExecutor(workers) as pool:
            sum(pool.map(_parse_one, logs, chunksize=max(1, len(logs) // (8 * workers))))
    return time.perf_counter() - start, _cpu() - cpu


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
        t_small, c_small = all_tables(work / "s100", prereg)[:2]
        events = sum(1 for p in (work / "s1000").rglob("events.jsonl") for _ in open(p, "rb"))
        print(f"all tables, {small} sessions:  {t_small:6.2f} s wall, {c_small:6.2f} s CPU")
        # Cold runs (no score cache; the logs in the page cache) and the parse floor, interleaved
        # so that each ratio compares two runs under the same load: a noisy machine moves both.
        colds, ratios = [], []
        for run in range(1, ROUNDS + 1):
            t_large, c_large = all_tables(work / "s1000", prereg)[:2]
            floor, c_floor = parse_floor(work / "s1000")
            colds.append(t_large)
            ratios.append(t_large / floor)
            print(f"cold run {run}: all tables, {large} sessions ({events:,} events) {t_large:5.2f} s wall, "
                  f"{c_large:5.2f} s CPU; JSON-parse floor {floor:5.2f} s wall, {c_floor:5.2f} s CPU; "
                  f"{t_large / floor:.1f}x the floor (wall), {c_large / c_floor:.1f}x (CPU)")
        cold, ratio = statistics.median(colds), statistics.median(ratios)
        print(f"cold, median of {ROUNDS}: {cold:.2f} s wall  target <= 3 s: {'OK' if cold <= 3 else 'MISSED'}; "
              f"{ratio:.1f}x the parse floor  target ~2x: {'OK' if ratio <= 2.2 else 'MISSED'}")
        print(f"ratio {large}/{small} sessions: {cold / t_small:.1f} wall (linear: 10)")
        cache = ScoreCache(work / "cache")
        shutil.rmtree(cache.folder, ignore_errors=True)
        t_fill = all_tables(work / "s1000", prereg, cache)[0]
        warms, warm_cpus = zip(*(all_tables(work / "s1000", prereg, ScoreCache(cache.folder))[:2]
                                 for _ in range(ROUNDS)))
        warm = statistics.median(warms)
        print(f"through the score cache: cold {t_fill:5.2f} s wall (scores and stores); warm reruns "
              f"{', '.join(f'{w:.2f}' for w in warms)} s wall, median {warm:.2f} s  target <= 0.5 s: "
              f"{'OK' if warm <= 0.5 else 'MISSED'}; CPU median "
              f"{statistics.median(warm_cpus):.2f} s")
        print(f"load average after: {os.getloadavg()[0]:.1f}")

        a = all_tables(work / "s1000", prereg, ScoreCache(cache.folder))[2]    # not timed: its contrasts
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
