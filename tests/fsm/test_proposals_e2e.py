"""Workflow proposals end to end: the real Claude Code CLI against the simulator's ``proposer``.

- The runner's wiring (``study run --condition FSM-propose``): the session proposes a malformed
  change (refused with its lines) and a sensible one; both are logged as events and counted by
  ``study score``; accepting against the preregistered workflow is refused and its hash stays.
  The preregistered FSM offers no proposal tool: the same policy under FSM proposes nothing.
- The ``.claude/settings.json`` wiring (``study fsm serve --proposals``) on a project's own copy
  of the workflow: the good proposal is accepted, the chain verifies, a tampered version breaks
  ``study fsm history``, and a new session runs under the new version while an old frame keeps its own.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import anyio
import pytest
from click.testing import CliRunner

from fsm_helpers import MAIN
from settings_project import make_project, run_claude
from sopbench_tools.orders import order_for_seed
from study.cli import main
from study.sim import SimServer

pytestmark = pytest.mark.e2e

NEW_CONDITION = "record_analysis was called for the account after those five calls."


@pytest.fixture
def frozen(monkeypatch):
    """The preregistration check passes (it has its own tests)."""
    monkeypatch.setattr("study.prereg.check_before_run", lambda root=None: "c0ffee" * 10 + "c0ff")


def _study(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _events(folder: Path, kind: str) -> list[dict]:
    return [e for e in map(json.loads, (folder / "events.jsonl").read_text().splitlines()) if e["kind"] == kind]


def test_runner_session_proposes_is_scored_and_the_preregistered_workflow_cannot_change(tmp_path, frozen):
    sha_before = hashlib.sha256(MAIN.read_bytes()).hexdigest()
    for condition in ("FSM-propose", "FSM"):
        ran = _study("run", "--condition", condition, "--seed", "2", "--model", "sim:proposer", "--accounts", "2",
                     "--sessions", str(tmp_path))
        assert ran.exit_code == 0, ran.output
    folder = tmp_path / "exploratory" / "sim-proposer" / "FSM-propose" / "seed-2-first-2"
    proposals = _events(folder, "proposal")
    assert [(p["id"], p["valid"], p["problems"], p["state"]) for p in proposals] == [
        ("p1", False, 2, "S_investigate"), ("p2", True, 0, "S_investigate")]
    refused = next(e for e in _events(folder, "tool_call") if e["tool"] == "propose_workflow_change" and not e["ok"])
    assert "line 67 (- escalate_to_human): state 'S_escalate' allow rule names unknown tool" in refused["error"]
    score = json.loads(_study("score", "--json", str(folder)).output)
    assert (score["proposals"], score["proposals_valid"], score["fc"]) == (2, 1, 2)

    accepted = _study("fsm", "accept", "p2", "--frames", str(folder / "fsm"))
    assert accepted.exit_code == 2 and "preregistered workflow" in accepted.output and "study prereg amend" in accepted.output
    assert hashlib.sha256(MAIN.read_bytes()).hexdigest() == sha_before and sha_before.startswith("56d85d82")

    # the preregistered FSM: no proposal tool offered, so the proposer is the oracle there
    fsm = tmp_path / "exploratory" / "sim-proposer" / "FSM" / "seed-2-first-2"
    assert _events(fsm, "proposal") == [] and "proposals" not in _events(fsm, "session_start")[0]["factors"]
    assert not any(e["tool"] == "propose_workflow_change" for e in _events(fsm, "tool_call"))
    assert "proposals" not in json.loads(_study("score", "--json", str(fsm)).output)


@pytest.fixture(scope="module")
def proposed(tmp_path_factory) -> SimpleNamespace:
    """A ``.claude/settings.json`` project on its own copy of the workflow, with an old frame
    (agent ``other``), after a session of the simulator's ``proposer`` and a person's review: what
    ``study fsm proposals``, accepting p1 (bad) and p2 (good) and ``study fsm history`` answered.
    Made once for the module's two settings tests (one xdist_group); the first reads only those
    answers, the second alone goes on with the project (a new session, a migration, a tampered
    version)."""
    tmp = tmp_path_factory.mktemp("proposals-settings")
    done = SimpleNamespace()
    done.tmp = tmp
    accounts = order_for_seed(2)[:2]
    done.workflow = workflow = tmp / "workflows" / "referral.yaml"     # the project's own copy: not preregistered
    workflow.parent.mkdir()
    shutil.copyfile(MAIN, workflow)
    done.project, done.frames, done.servers = make_project(tmp, accounts, workflow=workflow, proposals=True)
    done.common = ["--frames", str(done.frames), "--workflow", str(workflow)]
    done.entered_old = _study("fsm", "enter", "ReferralAbusePerAccount", *done.common, "--agent", "other")  # an old frame
    with SimServer("proposer", seed=2) as sim:
        anyio.run(run_claude, done.project, done.servers, sim.base_url, tmp / "home")

    done.listed = _study("fsm", "proposals", "--frames", str(done.frames)).output
    done.bad = _study("fsm", "accept", "p1", "--frames", str(done.frames))
    done.good = _study("fsm", "accept", "p2", "--frames", str(done.frames))
    done.history = _study("fsm", "history", str(workflow))
    return done


@pytest.mark.xdist_group("fsm-proposals-settings")
def test_settings_project_proposes_and_a_person_accepts_the_good_proposal(proposed):
    assert proposed.entered_old.exit_code == 0
    listed = proposed.listed
    assert "p1  open" in listed and "fails the checks (2 problems)" in listed and "p2  open" in listed
    bad = proposed.bad
    assert bad.exit_code == 2 and "line 64 (S_escalate:): state 'S_escalate' has no path to the exit state" in bad.output
    good = proposed.good
    assert good.exit_code == 0 and "is now version 2" in good.output
    history = proposed.history
    assert history.exit_code == 0 and "chain verified: 2 versions" in history.output


@pytest.mark.xdist_group("fsm-proposals-settings")
def test_settings_project_runs_a_new_session_under_the_accepted_version_beside_an_old_frame(proposed):
    assert proposed.good.exit_code == 0 and "is now version 2" in proposed.good.output   # p2 accepted
    project, servers, common, workflow = proposed.project, proposed.servers, proposed.common, proposed.workflow
    # a new session runs under version 2 (self_check shows the accepted exit conditions) ...
    assert _study("fsm", "enter", "ReferralAbusePerAccount", *common, "--variables", str(project / "fsm-variables.json")).exit_code == 0
    with SimServer("oracle", seed=2) as sim:
        messages = anyio.run(run_claude, project, servers, sim.base_url, proposed.tmp / "home2")
    assert NEW_CONDITION in str(messages)
    # ... while the old frame keeps version 1 until it is migrated
    old = json.loads(_study("fsm", "status", *common, "--agent", "other").output)
    assert (old["workflow_version"], old["exit_conditions"]) == (1, [])
    moved = _study("fsm", "migrate", *common, "--agent", "other")
    assert moved.exit_code == 0 and "version 1 -> version 2" in moved.output

    v2 = workflow.parent / ".versions" / "referral.yaml" / "v0002.yaml"
    v2.write_text(v2.read_text().replace("after those five calls", "after some calls"))
    broken = _study("fsm", "history", str(workflow))
    assert broken.exit_code == 1 and "version 2 was changed after it was accepted" in broken.output
