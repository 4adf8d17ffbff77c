"""Task sets over SWE-bench Verified's metadata: Easy-100 and Hard-100 (the paper's Analysis 1).

Input is the dataset's rows as the hub gives them (``SWE-bench/SWE-bench_Verified``, split
``test``): dicts with instance_id, repo, base_commit, problem_statement, patch, test_patch,
FAIL_TO_PASS and PASS_TO_PASS (JSON strings), difficulty, created_at, version,
environment_setup_commit. The hub is not reachable here; :func:`load_rows` reads a local export.
Make one on a machine with network access::

    pip install datasets
    python -c "from datasets import load_dataset; \\
        load_dataset('SWE-bench/SWE-bench_Verified', split='test').to_json('swe-bench-verified.jsonl')"

(``.to_parquet('swe-bench-verified.parquet')`` works as well), and record its sha256 with the
selection (:func:`selection_record` does).

**The random order.** Both sets order tasks by a keyed hash, as the study orders accounts
(docs/contracts.md): the key of task ``i`` under seed ``s`` is ``sha256(f"{s}:{i}")`` as hex,
ascending. It is the same on every platform and library version and checkable by hand; it is not
the paper's generator, which the paper does not name, so the paper's own draw cannot be
reproduced, only the procedure.

**Easy-100** (the paper: a random sample, seed 20260918, of tasks annotated "<15 min fix" not
used before): the tasks whose ``difficulty`` is exactly ``"<15 min fix"``, less ``exclude``,
ordered by their key under seed 20260918; the first 100.

**Hard-100** is the researcher's own heuristic, preregistered here because the paper did not
publish its own (it names the criteria: moderate difficulty, issue and gold-patch length, one to
six failing tests, root-cause keywords in the issue, balanced across repositories; two 50-task
halves). A task is eligible when all of these hold:

- ``difficulty`` is ``"15 min - 1 hour"``;
- 1 to 6 FAIL_TO_PASS tests;
- the problem statement has 600 to 6,000 characters (enough to describe a behaviour, not a log
  dump);
- the gold patch changes 8 to 80 lines (added plus removed) in 1 to 3 files, none a test file;
- the problem statement names at least 2 distinct root-cause cues (:data:`CUES`, whole words,
  case-insensitive).

Eligible tasks are ranked within their repository by the number of cues (more first), then by
their key under seed :data:`HARD_SEED`; the 100 are taken round-robin over the repositories (in
the order of their names), one task a repository a round, a repository leaving the rotation when
its eligible tasks are used up: so no repository has more than one task more than another unless
it ran out. The two halves: the 100 ordered by ``sha256(f"{HARD_SEED}:half:{id}")``, the first 50
and the other 50.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

EASY_SEED = 20260918
HARD_SEED = 20260615
EASY = "<15 min fix"
MODERATE = "15 min - 1 hour"
SIZE = 100
ISSUE_CHARS = (600, 6000)
PATCH_LINES = (8, 80)
PATCH_FILES = (1, 3)
FAILING_TESTS = (1, 6)
MIN_CUES = 2
#: Words in an issue that point at a cause to find rather than a feature to add.
CUES = ("traceback", "exception", "error", "raises", "raised", "incorrect", "incorrectly", "wrong",
        "unexpected", "unexpectedly", "regression", "instead", "inconsistent", "crash", "crashes", "fails",
        "failing", "bug", "broken", "should")
REQUIRED = ("instance_id", "repo", "problem_statement", "patch", "FAIL_TO_PASS", "PASS_TO_PASS", "difficulty")


def key(seed: int, instance_id: str) -> str:
    """The ordering key of a task under a seed: ``sha256(f"{seed}:{instance_id}")``, hex."""
    return hashlib.sha256(f"{seed}:{instance_id}".encode()).hexdigest()


def tests_of(row: dict, column: str) -> list[str]:
    """A test column as a list (the hub gives JSON strings; a local export may give lists)."""
    value = row[column]
    return json.loads(value) if isinstance(value, str) else list(value)


def patch_stats(patch: str) -> tuple[int, list[str]]:
    """(lines added plus removed, files changed) of a unified diff."""
    files = [line.split(" b/", 1)[1] for line in patch.splitlines() if line.startswith("diff --git ")]
    changed = sum(1 for line in patch.splitlines()
                  if (line.startswith("+") and not line.startswith("+++"))
                  or (line.startswith("-") and not line.startswith("---")))
    return changed, files


def is_test_file(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
            or "/tests/" in f"/{path}" or "/testing/" in f"/{path}")


def cues(text: str) -> set[str]:
    """The distinct root-cause cues (:data:`CUES`) a text names, as whole words."""
    words = set(re.findall(r"[a-z]+", text.lower()))
    return {cue for cue in CUES if cue in words}


def why_not_hard(row: dict) -> str | None:
    """None when the task is eligible for Hard-100; else the first criterion it fails."""
    if row["difficulty"] != MODERATE:
        return f"difficulty {row['difficulty']!r}"
    failing = len(tests_of(row, "FAIL_TO_PASS"))
    if not FAILING_TESTS[0] <= failing <= FAILING_TESTS[1]:
        return f"{failing} FAIL_TO_PASS tests"
    chars = len(row["problem_statement"])
    if not ISSUE_CHARS[0] <= chars <= ISSUE_CHARS[1]:
        return f"problem statement of {chars} characters"
    lines, files = patch_stats(row["patch"])
    if not PATCH_LINES[0] <= lines <= PATCH_LINES[1]:
        return f"gold patch of {lines} changed lines"
    if not PATCH_FILES[0] <= len(files) <= PATCH_FILES[1]:
        return f"gold patch in {len(files)} files"
    if any(is_test_file(f) for f in files):
        return "gold patch changes a test file"
    found = cues(row["problem_statement"])
    if len(found) < MIN_CUES:
        return f"{len(found)} root-cause cues"
    return None


def _check(rows: list[dict], required: tuple[str, ...] = REQUIRED) -> None:
    for row in rows:
        missing = [c for c in required if c not in row]
        if missing:
            raise ValueError(f"row {row.get('instance_id', '?')} lacks {', '.join(missing)}")
    ids = [row["instance_id"] for row in rows]
    if len(set(ids)) != len(ids):
        raise ValueError("the rows repeat an instance_id")


def easy_100(rows: list[dict], exclude: set[str] = frozenset(), size: int = SIZE, seed: int = EASY_SEED) -> list[str]:
    """Easy-100's instance ids, in their order (the module docstring gives the procedure). It
    reads only ``instance_id`` and ``difficulty``: the vendored metadata (``verified.metadata``)
    is enough."""
    _check(rows, ("instance_id", "difficulty"))
    pool = [row["instance_id"] for row in rows if row["difficulty"] == EASY and row["instance_id"] not in exclude]
    if len(pool) < size:
        raise ValueError(f"only {len(pool)} {EASY!r} tasks to draw {size} from")
    return sorted(pool, key=lambda i: key(seed, i))[:size]


@dataclass(frozen=True)
class HardSelection:
    """Hard-100: its ids in draw order, and its two halves."""

    ids: list[str]
    first_half: list[str]
    second_half: list[str]
    per_repo: dict[str, int] = field(default_factory=dict)


def hard_100(rows: list[dict], exclude: set[str] = frozenset(), size: int = SIZE, seed: int = HARD_SEED) -> HardSelection:
    """Hard-100 by the preregistered heuristic (the module docstring gives it)."""
    _check(rows)
    by_repo: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        if row["instance_id"] not in exclude and why_not_hard(row) is None:
            by_repo[row["repo"]].append(row)
    for tasks in by_repo.values():
        tasks.sort(key=lambda r: (-len(cues(r["problem_statement"])), key(seed, r["instance_id"])))
    eligible = sum(len(t) for t in by_repo.values())
    if eligible < size:
        raise ValueError(f"only {eligible} tasks are eligible for Hard-{size}")
    chosen: list[dict] = []
    round_ = 0
    while len(chosen) < size:
        for repo in sorted(by_repo):
            if round_ < len(by_repo[repo]) and len(chosen) < size:
                chosen.append(by_repo[repo][round_])
        round_ += 1
    ids = [row["instance_id"] for row in chosen]
    halves = sorted(ids, key=lambda i: hashlib.sha256(f"{seed}:half:{i}".encode()).hexdigest())
    per_repo: dict[str, int] = defaultdict(int)
    for row in chosen:
        per_repo[row["repo"]] += 1
    return HardSelection(ids, halves[: size // 2], halves[size // 2:], dict(sorted(per_repo.items())))


def load_rows(path: Path) -> list[dict]:
    """The dataset's rows from a local export: JSON lines (``.jsonl``), a JSON list (``.json``) or
    parquet (``.parquet``, read with polars)."""
    path = Path(path)
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if path.suffix == ".json":
        return list(json.loads(path.read_text()))
    if path.suffix == ".parquet":
        import polars

        return polars.read_parquet(path).to_dicts()
    raise ValueError(f"{path}: a .jsonl, .json or .parquet export of the dataset is needed")


def selection_record(rows: list[dict], source: Path | None = None, exclude: set[str] = frozenset()) -> dict:
    """Both task sets with what made them: the procedure's parameters and the input's sha256 (of
    the export file, and of the rows' ids and difficulties in id order), ready to freeze as JSON."""
    hard = hard_100(rows, exclude)
    digest = hashlib.sha256("\n".join(f"{r['instance_id']}\t{r['difficulty']}" for r in
                                      sorted(rows, key=lambda r: r["instance_id"])).encode()).hexdigest()
    return {
        "dataset": "SWE-bench/SWE-bench_Verified (test)",
        "source_file_sha256": hashlib.sha256(Path(source).read_bytes()).hexdigest() if source else None,
        "rows": len(rows), "rows_sha256": digest, "excluded": sorted(exclude),
        "easy_100": {"seed": EASY_SEED, "difficulty": EASY, "order": "sha256(f'{seed}:{instance_id}') ascending",
                     "ids": easy_100(rows, exclude)},
        "hard_100": {"seed": HARD_SEED, "difficulty": MODERATE, "failing_tests": FAILING_TESTS,
                     "issue_chars": ISSUE_CHARS, "patch_lines": PATCH_LINES, "patch_files": PATCH_FILES,
                     "min_cues": MIN_CUES, "cues": CUES, "ids": hard.ids, "first_half": hard.first_half,
                     "second_half": hard.second_half, "per_repo": hard.per_repo},
    }
