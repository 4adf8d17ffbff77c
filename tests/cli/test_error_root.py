"""One error root: every error the package raises on purpose derives from ``StudyError`` (and
still from the base it had), carries its data, and the command line treats only those as setup
errors; any other exception is a bug and is not dressed up as one."""

from __future__ import annotations

import importlib

import pytest
from click.testing import CliRunner

from study.cli import main
from study.errors import StudyError

ERRORS = [
    ("study.session_io.issues", "LogError", ValueError), ("study.session_io.issues", "MetaError", ValueError),
    ("study.runner.limits", "LimitsError", ValueError), ("study.runner.shard", "ShardError", ValueError),
    ("study.runner.texts", "TextError", ValueError), ("study.runner.conditions", "ConditionError", ValueError),
    ("study.runner.claim", "SessionExists", RuntimeError), ("study.runner.claim", "SessionClaimed", RuntimeError),
    ("study.runner.preflight", "PreflightError", ValueError), ("study.runner.models", "ModelError", ValueError),
    ("study.prereg.errors", "PreregError", Exception), ("study.prereg.errors", "PreregViolation", Exception),
    ("study.prereg.errors", "NotFrozen", Exception), ("study.escape_routes", "RegistryError", ValueError),
    ("study.fsm.yaml_lines", "YamlError", ValueError), ("study.fsm.frames", "FrameStoreError", RuntimeError),
    ("study.fsm.workflow", "WorkflowError", ValueError),
    ("study.fsm.build_referral_workflow", "SopFormatError", RuntimeError),
    ("analysis.plan", "PlanError", ValueError), ("analysis.power.effects", "EffectsError", ValueError),
    ("analysis.loading", "CorpusError", ValueError), ("sopbench_tools.dataset", "TaskDataError", RuntimeError),
    ("sopbench_tools.state_log", "ToolStateError", RuntimeError), ("sopbench_tools.orders", "OrderError", ValueError),
    ("sopbench_tools.tasks.manifest", "TaskError", ValueError), ("sopbench_tools.tasks.upstream", "UpstreamError", Exception),
    ("study.fsm.edits", "EditError", ValueError), ("study.fsm.ledger", "LedgerError", RuntimeError),
    ("study.fsm.versions", "VersionError", RuntimeError),
]


@pytest.mark.parametrize(("module", "name", "base"), ERRORS)
def test_every_error_derives_from_the_root_and_keeps_its_base(module, name, base):
    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, StudyError) and issubclass(cls, base)


def test_an_error_carries_its_data():
    from study.fsm.yaml_lines import YamlError
    from study.prereg.errors import PreregViolation

    assert YamlError("malformed", 3).data["line"] == 3
    violation = PreregViolation("changed", changed=["preregistration/plan.md"])
    assert violation.data["changed"] == ["preregistration/plan.md"] and str(violation) == "changed"
    assert StudyError("refused", file="x.yaml").data == {"file": "x.yaml"}


@pytest.fixture
def frozen(monkeypatch):
    monkeypatch.setattr("study.prereg.check_before_run", lambda root=None: "c0ffee" * 10 + "c0ff")


def test_only_a_study_error_is_a_setup_error(frozen, monkeypatch, tmp_path):
    from study.runner import cli as runner_cli
    from study.runner.conditions import ConditionError

    args = ["run", "--condition", "Plain", "--seed", "2", "--model", "sim:oracle", "--accounts", "1",
            "--sessions", str(tmp_path / "s")]

    def refuse(spec):
        raise ConditionError("conditions.yaml: condition 'Plain' is broken; restore it")

    monkeypatch.setattr(runner_cli, "prepare", refuse)
    setup = CliRunner().invoke(main, args)
    assert setup.exit_code == 1 and setup.output.strip() == "Error: conditions.yaml: condition 'Plain' is broken; restore it"

    def bug(spec):
        raise ValueError("a bug, not a setup error")

    monkeypatch.setattr(runner_cli, "prepare", bug)
    crashed = CliRunner().invoke(main, args)
    assert isinstance(crashed.exception, ValueError) and "Error:" not in crashed.output
