"""Benchmark of `study power`: 10,000 draws x 13 seed counts (3-15) x every prediction.

Target (issue 17): the verdicts of all predictions of preregistration/predictions.yaml for
10,000 simulated studies at each of 13 seed counts in at most 10 s on the study's 2-core
machine, with the paper's Table 1 as the effect model. Also timed: the same run with the power
of the sign and Wilcoxon tests of every comparison Table 7 shows (what `study power` computes),
cold (first run in the process) and warm (the Wilcoxon null distributions cached).

    python benchmarks/bench_power.py [--draws N]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from study.protocol.plan import load_plan
from analysis.power.effects import load_effects
from analysis.power.run import run_power
from study.protocol.conditions import condition_names

PAPER = Path(__file__).resolve().parents[1] / "examples" / "effects" / "paper_table1.yaml"
TARGET_S = 10.0


def timed(label: str, **kwargs) -> float:
    plan = load_plan()
    effects = load_effects(PAPER, plan, condition_names())
    start = time.perf_counter()
    result = run_power(effects, plan, list(range(3, 16)), **kwargs)
    took = time.perf_counter() - start
    entries = len({(r.id, r.model) for r in result.verdicts})
    print(f"{label:<44} {took:6.2f} s  ({entries} prediction rows, {len(result.tests)} test rows)")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=10_000)
    args = parser.parse_args()
    print(f"study power, effect model {PAPER.name}, {args.draws:,} draws x 13 seed counts (3-15)")
    verdicts = timed("verdicts of every prediction", draws=args.draws, tests=False)
    timed("verdicts + sign/Wilcoxon power (cold)", draws=args.draws)
    timed("verdicts + sign/Wilcoxon power (warm)", draws=args.draws)
    print(f"target: verdicts of every prediction <= {TARGET_S:.0f} s: "
          f"{'met' if verdicts <= TARGET_S else 'MISSED'} ({verdicts:.2f} s)")


if __name__ == "__main__":
    main()
