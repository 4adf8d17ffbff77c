"""Fixtures for the preregistration tests: a small project tree in a temporary git checkout.

The tree has the shape of the real one (``preregistration/`` with a plan, YAML files, texts,
workflows and orders; ``analysis/`` with Python sources), so every test works on a copy and
never touches the real preregistration.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

TREE = {
    "preregistration/plan.md": "# Plan\n\nPrimary contrast: FC(FSM) - FC(Remind-loop).\n",
    "preregistration/README.md": "How to verify.\n",
    "preregistration/conditions.yaml": "FSM:\n  reminder: true\n  resume: false\n",
    "preregistration/limits.yaml": "turns_per_call: 6000\nresumes: 50\n",
    "preregistration/predictions.yaml": "P4: strict accuracy of FSM >= Remind-loop\n",
    "preregistration/texts/first_message.md": "Process the accounts one at a time.\n",
    "preregistration/workflows/referral_abuse_per_account.yaml": "initial: S_investigate\n",
    "preregistration/orders/seed-2.txt": "A1\nA2\nA3\n",
    "preregistration/orders/seed-3.txt": "A3\nA1\nA2\n",
    "analysis/__init__.py": "",
    "analysis/scoring.py": "def fc(decisions):\n    return sum(decisions)\n",
    "analysis/stats/paired.py": "B = 10000\n",
    "analysis/templates/table.tex": "not python, not frozen\n",
    "study/fsm/guards.py": "def decided(history, account):\n    return True\n",
    "study/runner/texts.py": "def fill(template):\n    return template\n",
    "sopbench_tools/toolbox.py": "DATA_TOOLS = 5\n",
    "study/sim/policies.py": "code outside the frozen set\n",
}


@pytest.fixture
def tree(tmp_path: Path, git) -> Path:
    """A committed git checkout holding ``TREE`` (not yet frozen)."""
    root = tmp_path / "project"
    for rel, text in TREE.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "plan")
    return root


@pytest.fixture
def frozen(tree: Path, freeze_tree) -> Path:
    """``tree`` after ``freeze()``, with the freeze committed."""
    return freeze_tree(tree)


@pytest.fixture
def study_root(monkeypatch: pytest.MonkeyPatch):
    """Point the ``study`` commands at a tree: ``study_root(path)``."""

    def use(root: Path) -> Path:
        monkeypatch.setenv("STUDY_ROOT", str(root))
        monkeypatch.chdir(root)
        return root

    return use


def later(time: str, seconds: float) -> str:
    """An ISO time ``seconds`` after ``time`` (in the format the session log writes)."""
    moment = datetime.fromisoformat(time) + timedelta(seconds=seconds)
    return moment.isoformat(timespec="microseconds").replace("+00:00", "Z")


def write_session(folder: Path, *, started: str, manifest: str | None, code_version: str | None = "abc123",
                  status: str = "completed", voided: bool = False, void_reason: str | None = None,
                  meta_manifest: str | None = "same", exploratory: bool = False, with_start: bool = True,
                  with_end: bool = True, with_meta: bool = True) -> Path:
    """A session folder as the runner writes it: events.jsonl (start and end) and meta.json.
    ``meta_manifest`` other than "same" makes meta.json record a different hash than the log."""
    folder.mkdir(parents=True)
    start = {"seq": 0, "t": started, "kind": "session_start", "schema": 1, "condition": "FSM", "seed": 2,
             "model": "sim:oracle", "simulated": True, "manifest_sha256": manifest,
             "code_version": code_version, "cli_version": "2.1.332", "order": ["A1", "A2", "A3"], "limits": {}}
    end = {"seq": 1, "t": later(started, 60), "kind": "session_end", "status": status,
           "cost_usd": 0.0, "turns": 3, "duration_s": 60.0}
    events = ([start] if with_start else []) + ([end] if with_end else [])
    (folder / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    meta = {"model": "sim:oracle", "condition": "FSM", "seed": 2, "simulated": True, "exploratory": exploratory,
            "status": status if with_end else "running", "voided": voided, "void_reason": void_reason,
            "started": started, "manifest_sha256": manifest if meta_manifest == "same" else meta_manifest,
            "code_version": code_version}
    if with_meta:
        (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return folder


class SessionFixtures:
    """Helpers to write session folders: ``.write(folder, started=..., manifest=...)`` and
    ``.later(time, seconds)``."""

    write = staticmethod(write_session)
    later = staticmethod(later)


@pytest.fixture
def sessions() -> type[SessionFixtures]:
    return SessionFixtures
