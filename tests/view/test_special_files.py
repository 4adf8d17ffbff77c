"""Special files in session folders never hang or crash a reader: a FIFO as events.jsonl or
meta.json, a link to /dev/zero, a file of NUL bytes (a crash's hole), a line over the per-line
cap. `study status`, `study audit`, `study tables` and the viewer each finish (a timeout fails
the test) and report every such session as a broken record with the reason."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import serving
from .test_untrusted_files import api, get

TIMEOUT = 60
LINE_CAP = 16 * 2**20      # study.session_io.safe_files.LINE_CAP
BASE = "exploratory/sim-drifting"
#: session -> (file to damage, how, the reason the readers give)
DAMAGE = {
    f"{BASE}/Plain/seed-2-first-8": ("events.jsonl", "fifo", "events.jsonl is a FIFO (named pipe), not a regular file"),
    f"{BASE}/Plain/seed-3-first-8": ("meta.json", "fifo", "meta.json cannot be read (is a FIFO (named pipe), not a regular file"),
    f"{BASE}/FSM/seed-2-first-8": ("events.jsonl", "zero", "events.jsonl is a link to /dev/zero, outside the session folder"),
    f"{BASE}/FSM/seed-3-first-8": ("meta.json", "zero", "meta.json cannot be read (is a link to /dev/zero, outside the session folder"),
    f"{BASE}/Remind-loop/seed-2-first-8": ("events.jsonl", "nul", "events.jsonl:1: line of 3,000,000 NUL bytes (a crash left a hole in the file)"),
    f"{BASE}/Remind-loop/seed-3-first-8": ("events.jsonl", "huge", f"events.jsonl line 2 is {LINE_CAP + 20:,} bytes, over the cap of {LINE_CAP:,} bytes per line"),
}


def damage(root: Path) -> None:
    for name, (file, how, _reason) in DAMAGE.items():
        path = root / name / file
        if how == "huge":
            first = path.read_bytes().split(b"\n")[0]
            path.write_bytes(first + b"\n" + b'{"x": "' + b"a" * (LINE_CAP + 11) + b'"}\n')
            continue
        path.unlink()
        if how == "fifo":
            os.mkfifo(path)
        elif how == "zero":
            os.symlink("/dev/zero", path)
        else:
            path.write_bytes(b"\x00" * 3_000_000)


def study(*args: str) -> subprocess.CompletedProcess:
    """The real CLI in a subprocess; a hang is a ``TimeoutExpired``, which fails the test."""
    return subprocess.run([sys.executable, "-m", "study.cli", *args], capture_output=True, text=True, timeout=TIMEOUT)


@pytest.fixture
def damaged(golden_corpus) -> Path:
    damage(golden_corpus)
    return golden_corpus


def test_status_reports_each_special_file_as_a_broken_record(damaged):
    result = study("status", "--sessions", str(damaged))
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stdout.splitlines()
    for name, (_f, _h, reason) in DAMAGE.items():
        line = next(x for x in lines if x.startswith(name + " "))
        assert "BROKEN RECORDS, never analysed: " in line and reason in line, line


def test_tables_exclude_each_special_file_as_invalid_records(damaged):
    result = study("tables", "--sessions", str(damaged), "--include-exploratory", "--allow-simulated")
    assert "Traceback" not in result.stderr and result.returncode == 0, result.stderr[-2000:]
    out = result.stdout + result.stderr
    for name, (_f, _h, reason) in DAMAGE.items():
        line = next(x for x in out.splitlines() if x.strip().startswith(name + ":"))
        assert "invalid records, never scored: " in line and reason in line, line


def test_audit_finishes_and_lists_every_session(damaged):
    result = study("audit", "--sessions", str(damaged))
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode in (1, 4), (result.returncode, result.stderr)
    out = result.stdout + result.stderr
    for name in DAMAGE:
        assert name in out, name


def test_the_viewer_says_what_is_wrong_without_blocking(damaged, tmp_path):
    fifo = damaged / f"{BASE}/Gates-only/seed-2-first-8/transcript.jsonl"
    os.mkfifo(fifo)
    zero = damaged / f"{BASE}/Gates-only/seed-3-first-8/transcript.jsonl"
    os.symlink("/dev/zero", zero)
    with serving(damaged, tmp_path) as (base, _proc):
        for path, why in ((fifo, "is a FIFO (named pipe), not a regular file"), (zero, "is a link to /dev/zero")):
            status, doc = api(base, "transcript", path.parent.relative_to(damaged).as_posix(), page=0)
            assert status == 200 and doc["total"] == 0 and doc["refused"].startswith(f"transcript.jsonl {why}")
        status, matrix = get(base, "/api/matrix")
        assert status == 200
        rows = {r["name"]: r for r in matrix["sessions"]}
        for name, (_f, _h, reason) in DAMAGE.items():
            assert reason in rows[name]["error"], (name, rows[name]["error"])
            status, doc = api(base, "session", name)
            assert status == 200 and reason in doc["error"] and any(reason in p for p in doc["problems"]), doc
            for kind in ("events", "transcript"):
                assert api(base, kind, name, page=0)[0] == 200


def test_read_capped_refuses_without_blocking(tmp_path):
    from study.session_io import safe_files
    from study.session_io.safe_files import UnsafeFile, long_line, read_capped

    assert safe_files.LINE_CAP == LINE_CAP
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(UnsafeFile, match=r"^fifo is a FIFO \(named pipe\), not a regular file; only regular files are read$"):
        read_capped(fifo, within=tmp_path, max_bytes=10)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 11)
    with pytest.raises(UnsafeFile, match="^big is 11 bytes, over the cap of 10 bytes for this file$"):
        read_capped(big, within=tmp_path, max_bytes=10)
    assert read_capped(big, within=tmp_path, max_bytes=11) == b"x" * 11
    os.symlink(big, tmp_path / "sub-link")
    (tmp_path / "sub").mkdir()
    os.symlink("../big", tmp_path / "sub" / "up")
    with pytest.raises(UnsafeFile, match="is a link to .*/big, outside the session folder"):
        read_capped(tmp_path / "sub" / "up", within=tmp_path / "sub", max_bytes=100)
    assert read_capped(tmp_path / "sub-link", within=tmp_path, max_bytes=100) == b"x" * 11
    with pytest.raises(FileNotFoundError):
        read_capped(tmp_path / "missing", within=tmp_path, max_bytes=100)
    with pytest.raises(UnsafeFile, match="is a folder"):
        read_capped(tmp_path / "sub", within=tmp_path, max_bytes=100)
    assert long_line(b"ab\ncdef\ng", cap=3) == (2, 4) and long_line(b"ab\ncde\n", cap=3) is None


def test_the_bundle_of_special_files_is_written(damaged, tmp_path):
    os.mkfifo(damaged / f"{BASE}/Gates-only/seed-2-first-8/transcript.jsonl")
    out = tmp_path / "bundle"
    result = study("view", "--sessions", str(damaged), "--bundle", str(out))
    assert result.returncode == 0 and result.stdout.startswith("wrote 10 of 10 sessions"), result.stderr[-2000:]
    written = "".join(p.read_text() for p in out.rglob("*.js"))
    assert all(reason in written for _f, _h, reason in DAMAGE.values())
