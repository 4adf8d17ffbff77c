"""One transcript per session: Claude Code's transcript is stored once, as transcript.jsonl, and a
resumed call still finds it (the CLI's own path is a link to it)."""

from __future__ import annotations

import json
import os

import pytest

from study.runner.status import scan

pytestmark = pytest.mark.e2e


def test_a_resumed_session_keeps_one_transcript_that_both_calls_wrote(kit):
    a, b = kit.batch(2, 2)
    steps = kit.full_account(a) + [("text", "Pausing here.")] + kit.full_account(b) + [("text", "All done.")]
    ran = kit.run("Plain-loop", steps)
    assert (ran.status, ran.meta["resumes"]) == ("completed", 1)
    kept = ran.dir / "transcript.jsonl"
    assert kept.is_file() and not kept.is_symlink()
    session_id = ran.meta["session_id"]
    in_home = [p for p in (ran.dir / "home").rglob("*.jsonl") if p.name == f"{session_id}.jsonl"]
    assert len(in_home) == 1 and in_home[0].is_symlink() and in_home[0].resolve() == kept.resolve()
    assert not os.path.isabs(os.readlink(in_home[0]))   # relative: the session folder can be moved
    # no other regular copy of the transcript anywhere in the session folder
    body = kept.read_bytes()
    copies = [p for p in ran.dir.rglob("*") if p.is_file() and not p.is_symlink()
              and (p.name == f"{session_id}.jsonl" or p.read_bytes() == body)]
    assert copies == [kept], copies
    # both calls are in it: the second call resumed from the kept transcript
    lines = [json.loads(line) for line in kept.read_text().splitlines()]
    texts = json.dumps(lines)
    assert "Pausing here." in texts and "All done." in texts
    assert {line.get("sessionId") for line in lines} - {None} == {session_id}
    # status reports the folder's size, the transcript counted once
    row = scan(ran.dir.parent.parent.parent)[0]
    on_disk = sum(p.lstat().st_size for p in ran.dir.rglob("*") if p.is_file() and not p.is_symlink())
    assert row.size_bytes == on_disk and row.size_bytes >= kept.stat().st_size
