"""`study new --task T DIR` as a new user runs it: make the project, freeze it, run a small batch on
the simulator and make the tables, every command inside the folder (found by its marker)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

STUDY = shutil.which("study") or "study"


def study(cwd: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "STUDY_ROOT"}
    return subprocess.run([STUDY, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(cwd), "-c", "user.name=t", "-c", "user.email=t@localhost", *args], check=True,
                   capture_output=True)


@pytest.mark.e2e
def test_a_new_users_study_on_dangerous_goods(tmp_path):
    made = study(tmp_path, "new", "--task", "dangerous_goods", str(tmp_path / "dg"))
    assert made.returncode == 0, made.stderr
    dg = tmp_path / "dg"
    prereg = dg / "preregistration"
    assert "dangerous_goods_per_product.yaml" in (prereg / "conditions.yaml").read_text()
    assert "referral_abuse_per_account.yaml" not in (prereg / "conditions.yaml").read_text()
    assert "products" in (prereg / "texts" / "first_message.md").read_text()
    assert (prereg / "orders" / "seed-2.txt").read_text().count("\n") == 274
    freeze = study(dg, "prereg", "freeze")
    assert freeze.returncode == 0, freeze.stdout + freeze.stderr
    git(dg, "add", "-A")
    git(dg, "commit", "-qm", "Freeze the preregistration")
    ran = study(dg, "run", "--model", "sim:drifting", "--condition", "FSM", "--seed", "2", "--accounts", "3")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    [folder] = [p.parent for p in (dg / "sessions").rglob("meta.json")]
    meta = json.loads((folder / "meta.json").read_text())
    assert meta["task"] == "dangerous_goods" and meta["decisions"] == 3
    assert meta["manifest_sha256"] == json.loads((prereg / "freeze.json").read_text())["sha256"]
    first = (dg / "preregistration" / "orders" / "seed-2.txt").read_text().split()[:3]
    assert json.loads((folder / "events.jsonl").read_text().splitlines()[0])["order"] == first
    tables = study(dg, "tables", "--include-exploratory")
    assert tables.returncode == 0, tables.stderr
    assert "| sim:drifting | FSM |" in tables.stdout and "on dangerous_goods" not in tables.stdout
    elsewhere = study(tmp_path, "--project", str(dg), "status")
    assert elsewhere.returncode == 0 and "seed-2-first-3" in elsewhere.stdout, elsewhere.stdout + elsewhere.stderr


def test_bad_input_makes_nothing(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    for args, words in ((["--task", "dangerous_goods", str(tmp_path / "full")], "not an empty folder"),
                        (["--task", "no_such_task", str(tmp_path / "new")], "unknown task"),
                        (["--task", "email_intent", str(tmp_path / "new")], "cannot run here")):
        done = study(tmp_path, "new", *args)
        assert done.returncode == 2 and words in done.stderr, done.stderr
    assert not (tmp_path / "new").exists() and sorted(p.name for p in (tmp_path / "full").iterdir()) == ["x"]
