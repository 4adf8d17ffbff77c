"""``study run-all --shard K/N``: a deterministic split of the matrix over N machines.

A cluster scheduler's job array (Slurm ``--array=1-N``, a Kubernetes indexed Job) starts the same
``study run-all`` command N times with K = 1..N over one shared sessions folder. Each process
keeps only its shard of the matrix:

- the matrix's sessions are put in one canonical order that does not depend on how the options
  were spelled (``--seeds 3,2`` and ``--seeds 2-3`` give the same order): by model folder,
  condition, seed and batch size, each session once;
- shard K of N holds the sessions at positions K-1, K-1+N, K-1+2N, ... of that order (round
  robin, so the shards differ in size by at most one and each gets a mix of conditions).

So every session is in exactly one shard, and the union of the N shards is the matrix. Should
two processes nevertheless run the same session (the same K twice, or one shard run twice), the
session claim (``claim.py``) lets exactly one of them run it; the other skips it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .session import SessionSpec, prepare

_FORM = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


class ShardError(ValueError):
    """A ``--shard`` value that is not K/N with 1 <= K <= N."""


@dataclass(frozen=True)
class Shard:
    index: int   # K, 1-based
    count: int   # N

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """``"2/8"`` -> Shard(2, 8); ShardError saying what to give otherwise."""
    match = _FORM.match(text or "")
    if not match:
        raise ShardError(f"{text!r} is not K/N; give e.g. --shard 1/4 (shard K of N, K from 1 to N; "
                         "in a Slurm array: --shard ${SLURM_ARRAY_TASK_ID}/N with --array=1-N)")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise ShardError(f"{text!r}: K must be between 1 and N (N at least 1); give e.g. --shard 1/{max(count, 1)}")
    return Shard(index, count)


def _key(spec: SessionSpec) -> tuple:
    prepared = prepare(spec)   # resolves model aliases, so "the default model" and its name agree
    return (prepared.model.folder_name, prepared.condition.name, spec.seed,
            -1 if spec.accounts is None else spec.accounts, str(prepared.session_dir))


def canonical(specs: list[SessionSpec]) -> list[SessionSpec]:
    """The matrix's sessions in the canonical order, each once (the first spec naming it)."""
    keyed: dict[tuple, SessionSpec] = {}
    for spec in specs:
        keyed.setdefault(_key(spec), spec)
    return [keyed[k] for k in sorted(keyed)]


def select(specs: list[SessionSpec], shard: Shard | None) -> list[SessionSpec]:
    """The sessions of ``shard``, in the canonical order; all specs as given when ``shard`` is None."""
    if shard is None:
        return list(specs)
    return canonical(specs)[shard.index - 1::shard.count]
