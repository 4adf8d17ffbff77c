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

#: This checkout's preregistration: the test tree's limits come from it, so that an amendment of
#: them loads as the study reads it.
REAL_PREREG = Path(__file__).resolve().parents[2] / "preregistration"


def limits_text(resumes: int = 50) -> str:
    """This checkout's limits.yaml with the resume cap set to ``resumes``."""
    text = (REAL_PREREG / "limits.yaml").read_text(encoding="utf-8")
    assert "\nresumes: 50\n" in text
    return text.replace("\nresumes: 50\n", f"\nresumes: {resumes}\n")


TREE = {
    "preregistration/plan.md": "# Plan\n\nPrimary contrast: FC(FSM) - FC(Remind-loop).\n",
    "preregistration/README.md": "How to verify.\n",
    "preregistration/conditions.yaml": "FSM:\n  reminder: true\n  resume: false\n",
    "preregistration/limits.yaml": limits_text(),
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
    "study/session_io/reader.py": "def read_log(path):\n    return []\n",
    "study/procedure/escape_routes.py": "ROUTES = ('skipped_check',)\n",
    "study/sim/policies.py": "code outside the frozen set\n",
}


@pytest.fixture
def tree(tmp_path: Path, git, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A committed git checkout holding ``TREE`` and the installed runtime
    (``preregistration/runtime.json``), not yet frozen.

    Its code stands for the code Python imports: ``study.prereg.imported.package_dir`` is pointed
    at the tree, so the checks compare the tree with itself as they do for a real checkout run
    from its own folder (tests of the code as really imported use ``frozen_project`` or a
    subprocess)."""
    from study.prereg import imported
    from study.prereg.runtime import write_runtime

    root = tmp_path / "project"
    for rel, text in TREE.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    write_runtime(root)
    monkeypatch.setattr(imported, "package_dir", lambda name: (root / name).resolve())
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
                  cli_version: str | None = "2.1.332", sdk_version: str | None = None,
                  lock_sha256: str | None = None, simulated: bool = True,
                  status: str = "completed", voided: bool = False, void_reason: str | None = None,
                  meta_manifest: str | None = "same", exploratory: bool = False, with_start: bool = True,
                  with_end: bool = True, with_meta: bool = True) -> Path:
    """A session folder as the runner writes it: events.jsonl (start and end), meta.json and the
    CLI's (empty) transcript.
    ``meta_manifest`` other than "same" makes meta.json record a different hash than the log."""
    folder.mkdir(parents=True)
    start = {"seq": 0, "t": started, "kind": "session_start", "schema": 1, "condition": "FSM", "seed": 2,
             "model": "sim:oracle" if simulated else "claude-haiku-4-5", "simulated": simulated,
             "manifest_sha256": manifest,
             "code_version": code_version, "cli_version": cli_version, "order": ["A1", "A2", "A3"], "limits": {}}
    if sdk_version is not None:
        start["sdk_version"] = sdk_version
    if lock_sha256 is not None:
        start["lock_sha256"] = lock_sha256
    end = {"seq": 1, "t": later(started, 60), "kind": "session_end", "status": status,
           "cost_usd": 0.0, "turns": 3, "duration_s": 60.0}
    events = ([start] if with_start else []) + ([end] if with_end else [])
    (folder / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    (folder / "transcript.jsonl").write_text("", encoding="utf-8")   # the CLI's: no tool call, no response
    meta = {"model": start["model"], "condition": "FSM", "seed": 2, "simulated": simulated, "exploratory": exploratory,
            "status": status if with_end else "running", "voided": voided, "void_reason": void_reason,
            "started": started, "manifest_sha256": manifest if meta_manifest == "same" else meta_manifest,
            "code_version": code_version}
    if with_meta:
        (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return folder


class SessionFixtures:
    """Helpers to write session folders: ``.write(folder, started=..., manifest=...)`` and
    ``.later(time, seconds)``. ``defaults`` holds what ``write`` records unless told otherwise
    (a test sets the code version to a commit of its tree); the CLI and SDK versions and the lock's
    hash default to the installed ones."""

    later = staticmethod(later)

    def __init__(self) -> None:
        from study.prereg.runtime import current_runtime

        runtime = current_runtime()
        self.defaults = {"code_version": "abc123", "cli_version": runtime["cli_version"],
                         "sdk_version": runtime["sdk_version"], "lock_sha256": runtime["lock_sha256"]}

    def write(self, folder: Path, **fields) -> Path:
        return write_session(folder, **{**self.defaults, **fields})


@pytest.fixture
def sessions() -> SessionFixtures:
    return SessionFixtures()
