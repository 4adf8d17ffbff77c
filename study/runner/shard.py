"""``study run-all --shard K/N``: a deterministic split of the matrix over N machines.

A cluster scheduler's job array (Slurm ``--array=1-N``, a Kubernetes indexed Job) starts the same
``study run-all`` command N times with K = 1..N over one shared sessions folder. Each process
keeps only its shard of the matrix:

- the matrix's sessions are put in one canonical order that does not depend on how the options
  were spelled (``--seeds 3,2`` and ``--seeds 2-3`` give the same order): by model, condition,
  seed and batch size, each session once;
- shard K of N holds the sessions at positions K-1, K-1+N, K-1+2N, ... of that order (round
  robin, so the shards differ in size by at most one and each gets a mix of conditions).

So every session is in exactly one shard, and the union of the N shards is the matrix. Should
two processes nevertheless run the same session (the same K twice, or one shard run twice), the
session claim (``claim.py``) lets exactly one of them run it; the other skips it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from study.errors import StudyError
from study.protocol.models import load_models

from .session import SessionSpec

#: K/N in ASCII digits, spaces allowed around them (no other whitespace: a trailing newline is refused).
_FORM = re.compile(r" *([0-9]+) */ *([0-9]+) *")


class ShardError(StudyError, ValueError):
    """A ``--shard`` value that is not K/N with 1 <= K <= N."""


@dataclass(frozen=True)
class Shard:
    index: int   # K, 1-based
    count: int   # N

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """``"2/8"`` -> Shard(2, 8); ShardError saying what to give otherwise."""
    match = _FORM.fullmatch(text or "")
    if not match:
        raise ShardError(f"{text!r} is not K/N; give e.g. --shard 1/4 (shard K of N, K from 1 to N; "
                         "in a Slurm array: --shard ${SLURM_ARRAY_TASK_ID}/N with --array=1-N)")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise ShardError(f"{text!r}: K must be between 1 and N (N at least 1); give e.g. --shard 1/{max(count, 1)}")
    return Shard(index, count)


def _key(spec: SessionSpec, default_model: str) -> tuple:
    # cheap on purpose (no prepare(): it parses the frozen YAML files, 0.15 s a session)
    runtime = "" if spec.runtime in (None, "claude-code") else spec.runtime   # the simulator's runtime
    return (spec.model or default_model, spec.condition, spec.seed, -1 if spec.accounts is None else spec.accounts,
            str(spec.out_root or ""), runtime)


def canonical(specs: list[SessionSpec]) -> list[SessionSpec]:
    """The matrix's sessions in the canonical order, each once (the first spec naming it); no
    model given means the default model of models.yaml, so naming it or not is the same session."""
    default_model = load_models().default if any(s.model is None for s in specs) else ""
    keyed: dict[tuple, SessionSpec] = {}
    for spec in specs:
        keyed.setdefault(_key(spec, default_model), spec)
    return [keyed[k] for k in sorted(keyed)]


def split(specs: list[SessionSpec], count: int) -> list[list[SessionSpec]]:
    """All ``count`` shards of the matrix, shard K at index K-1."""
    ordered = canonical(specs)
    return [ordered[k::count] for k in range(count)]


def select(specs: list[SessionSpec], shard: Shard | None) -> list[SessionSpec]:
    """The sessions of ``shard``, in the canonical order; all specs as given when ``shard`` is None."""
    if shard is None:
        return list(specs)
    return canonical(specs)[shard.index - 1::shard.count]
