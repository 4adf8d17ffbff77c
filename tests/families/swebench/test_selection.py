"""Task sets over SWE-bench Verified's metadata (study/families/swebench/selection.py), on a
synthetic metadata fixture shaped like the dataset (500 rows, its 12 repositories in their
proportions, its four difficulty labels, JSON-string test columns): Easy-100 is exactly the
documented keyed-hash draw of "<15 min fix" tasks; Hard-100 holds only eligible tasks, balanced
across repositories, in two disjoint halves of 50; both ignore the rows' order, honour
exclusions, and the loader reads JSON lines and parquet exports alike."""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter

import pytest

from study.families.swebench import selection

REPOS = {"django/django": 231, "sympy/sympy": 75, "sphinx-doc/sphinx": 44, "matplotlib/matplotlib": 34,
         "scikit-learn/scikit-learn": 32, "astropy/astropy": 22, "pydata/xarray": 22, "pytest-dev/pytest": 19,
         "pylint-dev/pylint": 10, "psf/requests": 8, "mwaskom/seaborn": 2, "pallets/flask": 1}
DIFFICULTIES = [(selection.EASY, 196), (selection.MODERATE, 261), ("1-4 hours", 42), (">4 hours", 1)]
WORDS = "the value when we call it returns but expected a list of items from parser and config".split()


def _patch(rng: random.Random, files: int, lines: int, test_file: bool = False) -> str:
    out = []
    for n in range(files):
        path = f"tests/test_mod{n}.py" if test_file and n == 0 else f"pkg/mod{n}.py"
        out += [f"diff --git a/{path} b/{path}", f"--- a/{path}", f"+++ b/{path}", "@@ -1,3 +1,3 @@"]
        for _ in range(max(1, lines // files)):
            out.append(rng.choice(["+", "-"]) + " x = " + str(rng.randint(0, 9)))
    return "\n".join(out) + "\n"


def synthetic_rows(seed: int = 1) -> list[dict]:
    rng = random.Random(seed)
    repos = [repo for repo, n in REPOS.items() for _ in range(n)]
    difficulties = [d for d, n in DIFFICULTIES for _ in range(n)]
    rng.shuffle(difficulties)
    rows = []
    for number, (repo, difficulty) in enumerate(zip(repos, difficulties)):
        owner, name = repo.split("/")
        words = rng.choices(WORDS + ["error", "traceback", "wrong", "instead", "should"] * (1 + number % 3), k=rng.randint(60, 1100))
        f2p = [f"tests/test_x.py::test_{k}" for k in range(rng.choice([1, 1, 1, 2, 2, 3, 4, 6, 7, 12]))]
        rows.append({
            "instance_id": f"{owner}__{name}-{1000 + number}", "repo": repo, "base_commit": f"{number:040x}",
            "problem_statement": " ".join(words), "hints_text": "",
            "patch": _patch(rng, rng.choice([1, 1, 1, 2, 2, 3, 4]), rng.randint(4, 110), test_file=rng.random() < 0.05),
            "test_patch": _patch(rng, 1, 10, test_file=True),
            "FAIL_TO_PASS": json.dumps(f2p), "PASS_TO_PASS": json.dumps([f"tests/test_x.py::test_p{k}" for k in range(3)]),
            "difficulty": difficulty, "created_at": f"2023-0{1 + number % 9}-01T00:00:00Z", "version": "1.0",
            "environment_setup_commit": f"{number:040x}",
        })
    return rows


ROWS = synthetic_rows()


def test_the_fixture_is_shaped_like_verified():
    assert len(ROWS) == 500 and Counter(r["difficulty"] for r in ROWS)[selection.EASY] == 196
    assert Counter(r["repo"] for r in ROWS)["django/django"] == 231
    assert all(isinstance(r["FAIL_TO_PASS"], str) for r in ROWS)


def test_easy_100_is_the_documented_keyed_hash_draw():
    ids = selection.easy_100(ROWS)
    by_hand = sorted((r["instance_id"] for r in ROWS if r["difficulty"] == "<15 min fix"),
                     key=lambda i: hashlib.sha256(f"20260918:{i}".encode()).hexdigest())[:100]
    assert ids == by_hand and len(set(ids)) == 100
    assert selection.easy_100(list(reversed(ROWS))) == ids, "the rows' order does not matter"
    excluded = set(ids[:10])
    again = selection.easy_100(ROWS, exclude=excluded)
    assert not excluded & set(again) and again[:90] == ids[10:]


def test_easy_100_refuses_a_pool_too_small():
    with pytest.raises(ValueError, match="only 3"):
        selection.easy_100([r for r in ROWS if r["difficulty"] == selection.EASY][:3])


def test_hard_100_holds_only_eligible_tasks_balanced_across_repositories_in_two_halves():
    hard = selection.hard_100(ROWS)
    rows = {r["instance_id"]: r for r in ROWS}
    assert len(hard.ids) == len(set(hard.ids)) == 100
    for i in hard.ids:
        row = rows[i]
        assert selection.why_not_hard(row) is None
        assert row["difficulty"] == "15 min - 1 hour" and 1 <= len(json.loads(row["FAIL_TO_PASS"])) <= 6
        lines, files = selection.patch_stats(row["patch"])
        assert 8 <= lines <= 80 and 1 <= len(files) <= 3 and len(selection.cues(row["problem_statement"])) >= 2
    assert len(hard.first_half) == len(hard.second_half) == 50
    assert set(hard.first_half) | set(hard.second_half) == set(hard.ids) and not set(hard.first_half) & set(hard.second_half)
    eligible = Counter(r["repo"] for r in ROWS if selection.why_not_hard(r) is None)
    assert sum(hard.per_repo.values()) == 100
    for a in hard.per_repo:       # round robin: one more at most, unless the other ran out
        for b in eligible:
            assert hard.per_repo[a] <= hard.per_repo.get(b, 0) + 1 or hard.per_repo.get(b, 0) == eligible[b]
    assert max(hard.per_repo.values()) < 231 * 100 // 500, "django does not dominate as it does the dataset"
    assert selection.hard_100(list(reversed(ROWS))) == hard


def test_hard_100_exclusions_and_eligibility_reasons():
    hard = selection.hard_100(ROWS)
    again = selection.hard_100(ROWS, exclude=set(hard.ids[:5]))
    assert not set(hard.ids[:5]) & set(again.ids)
    row = dict(ROWS[0], difficulty="<15 min fix")
    assert selection.why_not_hard(row) == "difficulty '<15 min fix'"
    row = dict(ROWS[0], difficulty=selection.MODERATE, FAIL_TO_PASS=json.dumps([f"t{k}" for k in range(7)]))
    assert selection.why_not_hard(row) == "7 FAIL_TO_PASS tests"
    assert selection.cues("It raises a TypeError instead: WRONG") == {"raises", "instead", "wrong"}


def test_the_loader_reads_jsonl_and_parquet_exports_alike(tmp_path):
    polars = pytest.importorskip("polars")
    jsonl, parquet = tmp_path / "verified.jsonl", tmp_path / "verified.parquet"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    polars.DataFrame(ROWS).write_parquet(parquet)
    for path in (jsonl, parquet):
        rows = selection.load_rows(path)
        assert selection.easy_100(rows) == selection.easy_100(ROWS)
    record = selection.selection_record(selection.load_rows(jsonl), jsonl)
    assert record["source_file_sha256"] == hashlib.sha256(jsonl.read_bytes()).hexdigest()
    assert len(record["easy_100"]["ids"]) == 100 and len(record["hard_100"]["first_half"]) == 50
    json.dumps(record)
    with pytest.raises(ValueError, match=".jsonl, .json or .parquet"):
        selection.load_rows(tmp_path / "verified.csv")
