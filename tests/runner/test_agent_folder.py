"""The folder the agent's CLI works in names no model, condition, seed or task (issue 49, item 5):
it is ``<sessions>/.agents/<id>/``, linked from the session folder while the session runs and moved
into it when it ends, so the finished session folder keeps its layout; a crashed session's attempt
is settled before ``--rerun-voided`` moves it aside. (That the model's requests show only that
folder is checked on the real CLIs' sessions: tests/runner/test_matrix_e2e.py, the Codex, τ²-bench
and workspace e2e tests.)"""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

from study.runner.agent_folder import AgentFolder, open_agent_folder, settle
from study.runner.voiding import archive_attempt
from study.session_io.folders import AGENTS_FOLDER, find_sessions


def _session(root: Path, unit: str = "task-01") -> tuple[Path, AgentFolder]:
    session = root / "tau2-telecom" / "sim-oracle" / "FSM" / unit
    session.mkdir(parents=True)
    (session / "meta.json").write_text("{}")
    agent = open_agent_folder(SimpleNamespace(spec=SimpleNamespace(out_root=root)))
    agent.link(session)
    return session, agent


def test_the_agent_works_in_an_opaque_folder_linked_from_the_session_and_moved_in_at_the_end(tmp_path):
    session, agent = _session(tmp_path)
    assert agent.path.parent == tmp_path / AGENTS_FOLDER and len(agent.path.name) == 12
    assert not {"tau2-telecom", "sim-oracle", "FSM", "task-01"} & set(agent.path.relative_to(tmp_path).parts)
    assert (session / "home").is_symlink() and (session / "home").resolve() == agent.home.resolve()
    # a family lays out the agent's workspace in the agent folder; linked too
    (agent.path / "workspace").mkdir()
    (agent.path / "workspace" / "ledger.tsv").write_text("trial\n")
    agent.link(session)
    assert (session / "workspace" / "ledger.tsv").read_text() == "trial\n"
    # the CLI's transcript, kept in the session folder and linked back from its HOME (kept.keep_one)
    (session / "transcript.jsonl").write_text("{}\n")
    project = agent.home / ".claude" / "projects" / "-x-work"
    project.mkdir(parents=True)
    (project / "s1.jsonl").symlink_to(os.path.relpath(session / "transcript.jsonl", project))
    (agent.work / "inner").symlink_to("../home")                     # a link inside the agent folder
    assert find_sessions(tmp_path) == [session]                       # the agent folder is never a session
    assert settle(session) == []
    assert sorted(p.name for p in session.iterdir()) == ["home", "meta.json", "transcript.jsonl", "work", "workspace"]
    assert not any(p.is_symlink() for p in session.iterdir())
    moved = session / "home" / ".claude" / "projects" / "-x-work" / "s1.jsonl"
    assert moved.is_symlink() and moved.resolve() == (session / "transcript.jsonl").resolve()
    assert not os.path.isabs(os.readlink(moved))                      # relative: the session folder can move
    assert (session / "work" / "inner").resolve() == (session / "home").resolve()
    assert not (tmp_path / AGENTS_FOLDER).exists()                     # nothing left behind


def test_a_crashed_sessions_attempt_keeps_its_files_when_moved_aside(tmp_path):
    session, agent = _session(tmp_path)
    (agent.work / "notes.txt").write_text("kept")
    other_session, other = _session(tmp_path, "task-02")              # another session, still running
    attempt = archive_attempt(session)                                 # --rerun-voided after a killed runner
    assert (attempt / "work" / "notes.txt").read_text() == "kept" and not (attempt / "work").is_symlink()
    assert not agent.path.exists() and other.path.exists() and (other_session / "home").is_symlink()
    assert (tmp_path / AGENTS_FOLDER).is_dir()                          # still the other session's
