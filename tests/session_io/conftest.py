"""Fixtures for the session I/O tests: valid sessions written by the real writer, then damaged.

``analysis.corpus.write_session`` writes a session through ``study.session_io.writer.EventLog``
(the format's only writer); each test damages one copy in one way and checks that every reader
turns the damage into an error or an exclusion with its reason, never into a number.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.corpus import write_session

MODEL = "haiku-4.5"
EPISODES = ["fc", "fc", "blind", "fc", "swap", "swap", "partial", "fc"]


def write_valid(folder: Path, *, condition: str = "FSM", seed: int = 2, status: str = "completed") -> Path:
    """A valid, complete session of 8 accounts (with a runner-style meta.json status)."""
    write_session(folder, model=MODEL, condition=condition, seed=seed, episodes=EPISODES, accounts=len(EPISODES))
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    meta["status"] = status
    (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return folder


def lines(folder: Path) -> list[str]:
    return (folder / "events.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)


def events(folder: Path) -> list[dict]:
    return [json.loads(line) for line in lines(folder)]


def write_lines(folder: Path, new: list[str]) -> None:
    (folder / "events.jsonl").write_text("".join(new), encoding="utf-8")


def edit_meta(folder: Path, **fields) -> None:
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    meta.update(fields)
    (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")


def _doubled(folder: Path) -> None:
    write_lines(folder, [line for line in lines(folder) for _ in range(2)])


def _decision_moved_earlier(folder: Path) -> None:
    """The first successful decision moved to right after session_start (its seq kept)."""
    old = lines(folder)
    i = next(k for k, e in enumerate(events(folder))
             if e["kind"] == "tool_call" and e["tool"] == "submit_decision" and e["ok"])
    write_lines(folder, [old[0], old[i], *old[1:i], *old[i + 1:]])


def _decision_moved_and_renumbered(folder: Path) -> None:
    """A session paced like a real one (an event every 10 s), its first decision moved to right
    after session_start and every seq rewritten to 0, 1, 2, …: only the times give it away."""
    from datetime import datetime, timedelta

    evs = events(folder)
    base = datetime(2026, 11, 30, 12, 0, 0)
    for n, e in enumerate(evs):
        e["t"] = (base + timedelta(seconds=10 * n)).isoformat(timespec="microseconds") + "Z"
    i = next(k for k, e in enumerate(evs) if e["kind"] == "tool_call" and e["tool"] == "submit_decision" and e["ok"])
    evs = [evs[0], evs[i], *evs[1:i], *evs[i + 1:]]
    for n, e in enumerate(evs):
        e["seq"] = n
    write_lines(folder, [json.dumps(e) + "\n" for e in evs])


def _seq_all_zero(folder: Path) -> None:
    evs = events(folder)
    for e in evs:
        e["seq"] = 0
    write_lines(folder, [json.dumps(e) + "\n" for e in evs])


def _event_after_end(folder: Path) -> None:
    evs = events(folder)
    extra = {"seq": len(evs), "t": evs[-1]["t"], "kind": "assistant_text", "text": "one more thing"}
    write_lines(folder, lines(folder) + [json.dumps(extra) + "\n"])


def _log_deleted(folder: Path) -> None:
    (folder / "events.jsonl").unlink()


def _meta_other_condition(folder: Path) -> None:
    edit_meta(folder, condition="Plain")


def _meta_other_seed(folder: Path) -> None:
    edit_meta(folder, seed=3)


def _voided_as_string(folder: Path) -> None:
    edit_meta(folder, voided="false")


def _non_utf8(folder: Path) -> None:
    data = (folder / "events.jsonl").read_bytes().split(b"\n")
    data[3] = data[3].replace(b'"tool_call"', b'"tool_call\xff\xfe"', 1)
    (folder / "events.jsonl").write_bytes(b"\n".join(data))


def _meta_list(folder: Path) -> None:
    (folder / "meta.json").write_text(json.dumps([{"status": "completed"}]), encoding="utf-8")


#: Each damage of issue 10 item 2-3: (id, function, the rule it breaks, the file it names,
#: the line it names or None).
DAMAGES = [
    ("doubled-lines", _doubled, "seq", "events.jsonl", 2),
    ("decision-moved-earlier", _decision_moved_earlier, "seq", "events.jsonl", 2),
    ("decision-moved-and-renumbered", _decision_moved_and_renumbered, "time", "events.jsonl", 3),
    ("seq-all-zero", _seq_all_zero, "seq", "events.jsonl", 2),
    ("event-after-end", _event_after_end, "end", "events.jsonl", None),
    ("log-deleted", _log_deleted, "no-log", "events.jsonl", None),
    ("meta-other-condition", _meta_other_condition, "meta-log", "meta.json", None),
    ("meta-other-seed", _meta_other_seed, "meta-log", "meta.json", None),
    ("voided-as-string", _voided_as_string, "meta-field", "meta.json", None),
    ("non-utf8-bytes", _non_utf8, "encoding", "events.jsonl", 4),
    ("meta-is-a-list", _meta_list, "meta-file", "meta.json", None),
]


@pytest.fixture(params=DAMAGES, ids=[d[0] for d in DAMAGES])
def damage(request):
    """One damage case: (function, rule, file name, line)."""
    return request.param[1:]
