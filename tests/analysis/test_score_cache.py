"""The score cache (``analysis.score_cache``): a rerun takes unchanged sessions from it, a changed
log is scored again, and the tables are byte-identical with it, without it and after deleting it."""

from __future__ import annotations

import os
import pickle
import shutil
import tarfile
from pathlib import Path

from analysis.corpus import write_session
from analysis.loading import load_corpus
from study.protocol.plan import load_plan
from analysis.render import FORMATS, render
from analysis.score_cache import ScoreCache
from analysis.tables import Analysis, build_tables

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def _rendered(root: Path, prereg: Path, cache: ScoreCache | None) -> list[str]:
    a = Analysis.build(load_corpus(root, workers=1, cache=cache), load_plan(), prereg)
    return [render(table, fmt) for table in build_tables(a) for fmt in FORMATS]


def test_tables_are_byte_identical_with_and_without_the_cache(tmp_path):
    with tarfile.open(GOLDEN / "corpus_logs.tgz") as tar:
        tar.extractall(tmp_path, filter="data")
    root, prereg = tmp_path / "sessions", tmp_path / "no-prereg"
    prereg.mkdir()
    plain = _rendered(root, prereg, None)
    cache = ScoreCache(tmp_path / "cache")
    cold = _rendered(root, prereg, cache)
    assert (cache.hits, cache.misses > 0) == (0, True)
    warm_cache = ScoreCache(tmp_path / "cache")
    warm = _rendered(root, prereg, warm_cache)
    assert (warm_cache.hits, warm_cache.misses) == (cache.misses, 0)     # every session from the cache
    shutil.rmtree(tmp_path / "cache")
    deleted = _rendered(root, prereg, ScoreCache(tmp_path / "cache"))
    assert plain == cold == warm == deleted


def test_a_changed_log_is_scored_again_even_with_its_size_and_mtime_kept(tmp_path):
    root = tmp_path / "sessions"
    folder = root / "m" / "FSM" / "seed-2"
    write_session(folder, model="m", condition="FSM", seed=2, episodes=["fc"] * 10, accounts=10, noise=False)
    cache = ScoreCache(tmp_path / "cache")
    before = load_corpus(root, workers=1, cache=cache).scores[0]
    assert before.fc == 10

    log = folder / "events.jsonl"
    st = log.stat()
    _same_size_other_action(log)
    assert (log.stat().st_size, log.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)

    again = ScoreCache(tmp_path / "cache")
    after = load_corpus(root, workers=1, cache=again).scores[0]
    assert (again.hits, again.misses) == (0, 1)
    assert after.fc == 9 and after == load_corpus(root, workers=1).scores[0]
    third = ScoreCache(tmp_path / "cache")
    assert load_corpus(root, workers=1, cache=third).scores[0] == after and third.hits == 1


def test_a_broken_cache_entry_is_a_miss_never_an_error(tmp_path):
    root = tmp_path / "sessions"
    write_session(root / "m" / "FSM" / "seed-2", model="m", condition="FSM", seed=2, episodes=["fc"] * 4,
                  accounts=4)
    cache = ScoreCache(tmp_path / "cache")
    want = load_corpus(root, workers=1, cache=cache).scores
    for entry in (tmp_path / "cache").rglob("*.pickle"):
        entry.write_bytes(b"not a pickle")
    again = ScoreCache(tmp_path / "cache")
    assert load_corpus(root, workers=1, cache=again).scores == want and again.misses == 1


def test_a_log_that_is_not_a_regular_file_is_never_opened_by_the_cache(tmp_path):
    """The sessions folder is untrusted: a FIFO (which would block an open) or a link is not
    cacheable, and the reader says what is wrong with it."""
    folder = tmp_path / "sessions" / "m" / "FSM" / "seed-2"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "events.jsonl")
    other = tmp_path / "sessions" / "m" / "FSM" / "seed-3"
    write_session(other, model="m", condition="FSM", seed=3, episodes=["fc"] * 4, accounts=4)
    (other / "meta.json").rename(tmp_path / "elsewhere.json")
    (other / "meta.json").symlink_to(tmp_path / "elsewhere.json")
    cache = ScoreCache(tmp_path / "cache")
    assert cache.key(folder, tmp_path) is None and cache.key(other, tmp_path) is None
    corpus = load_corpus(tmp_path / "sessions", workers=1, cache=cache)
    assert sorted(why.kind for _p, why in corpus.excluded) == ["invalid", "invalid"]


def _same_size_other_action(log: Path) -> None:
    """Rewrite one record's action in upper case (same size), then restore the log's mtime."""
    st = log.stat()
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    i = next(k for k, line in enumerate(lines) if '"record_analysis"' in line)
    action = next(a for a in ("No Action", "Warning Issued", "Account Closure", "Inconclusive",
                              "Temporary Suspension", "Manual Review Required",
                              "Permanent Account Closure") if f'"{a}"' in lines[i])
    lines[i] = lines[i].replace(f'"{action}"', f'"{action.upper()}"', 1)
    log.write_text("".join(lines), encoding="utf-8")
    os.utime(log, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_a_settled_unchanged_log_is_not_read_again_and_a_changed_one_is(tmp_path, monkeypatch):
    """A warm lookup proves an unchanged log by its stat (device, inode, size, mtime, ctime) and
    hashes nothing; a log rewritten since, even with its size and mtime kept, has another ctime,
    so it is hashed and scored again."""
    import hashlib
    import time

    import analysis.score_cache as score_cache

    root = tmp_path / "sessions"
    folder = root / "m" / "FSM" / "seed-2"
    write_session(folder, model="m", condition="FSM", seed=2, episodes=["fc"] * 10, accounts=10, noise=False)
    monkeypatch.setattr(score_cache, "RACY_S", 0.05)
    time.sleep(0.2)                                # the files settle: their proofs are kept
    assert load_corpus(root, workers=1, cache=ScoreCache(tmp_path / "cache")).scores[0].fc == 10

    hashed: list[object] = []
    digest = hashlib.file_digest
    monkeypatch.setattr(hashlib, "file_digest", lambda *a, **k: hashed.append(a) or digest(*a, **k))
    warm = ScoreCache(tmp_path / "cache")
    assert load_corpus(root, workers=1, cache=warm).scores[0].fc == 10
    assert (warm.hits, warm.misses, len(hashed)) == (1, 0, 0)

    time.sleep(0.05)
    _same_size_other_action(folder / "events.jsonl")
    changed = ScoreCache(tmp_path / "cache")
    assert load_corpus(root, workers=1, cache=changed).scores[0].fc == 9
    assert (changed.hits, changed.misses) == (0, 1) and len(hashed) == 2     # the log and meta.json


def test_a_log_changed_while_it_was_hashed_is_never_proven(tmp_path):
    """A log changed less than RACY_S before it was hashed keeps no proof: the next lookup hashes
    it again (a write in the same clock tick as the hashing leaves the ctime unchanged)."""
    root = tmp_path / "sessions"
    folder = root / "m" / "FSM" / "seed-2"
    write_session(folder, model="m", condition="FSM", seed=2, episodes=["fc"] * 4, accounts=4)
    cache = ScoreCache(tmp_path / "cache")
    load_corpus(root, workers=1, cache=cache)
    (stored, _value), = [pickle.loads(p.read_bytes()) for p in (tmp_path / "cache").rglob("*.pickle")]
    assert stored.log_proof is None and stored.meta_proof is None


def test_the_key_changes_with_the_task_definition_of_the_project(tmp_path, monkeypatch):
    """A project's task (preregistration/task.yaml, and the manifest it names) decides the
    procedure and gold labels a session is scored against, so it is part of every key."""
    from analysis.score_cache import code_fingerprint

    (tmp_path / "preregistration").mkdir()
    monkeypatch.setenv("STUDY_ROOT", str(tmp_path))
    none = code_fingerprint()
    (tmp_path / "preregistration" / "task.yaml").write_text("task: dangerous_goods\n", encoding="utf-8")
    vendored = code_fingerprint()
    (tmp_path / "preregistration" / "task.yaml").write_text("task: video_annotation\n", encoding="utf-8")
    assert len({none, vendored, code_fingerprint()}) == 3


def test_the_verdict_of_the_witnesses_beside_the_log_is_keyed_on_them(tmp_path):
    """The transcript and the simulator's truth file witness ``simulated`` (the reader's rule
    ``simulated``): the key holds their sha256, so a transcript that appears, or changes, scores the
    session again and the cached verdict never outlives them."""
    root = tmp_path / "sessions"
    folder = root / "m" / "FSM" / "seed-2"
    write_session(folder, model="m", condition="FSM", seed=2, episodes=["fc"] * 10, accounts=10, noise=False)
    assert len(load_corpus(root, workers=1, cache=ScoreCache(tmp_path / "cache")).scores) == 1
    transcript = folder / "transcript.jsonl"
    transcript.write_text('{"type": "assistant", "message": {"id": "msg_01real", "content": []}}\n', encoding="utf-8")
    again = ScoreCache(tmp_path / "cache")
    corpus = load_corpus(root, workers=1, cache=again, include_exploratory=True)
    assert (again.hits, again.misses) == (0, 1)
    assert not corpus.scores and "[rule simulated]" in corpus.excluded[0][1].reason   # a generated log, a real id
    transcript.write_text("", encoding="utf-8")
    third = ScoreCache(tmp_path / "cache")
    assert len(load_corpus(root, workers=1, cache=third).scores) == 1 and third.misses == 1
