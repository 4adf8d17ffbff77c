"""One error root: every error the package raises on purpose derives from ``StudyError`` (and
still from the base it had), carries its data, and the command line treats only those as setup
errors; any other exception is a bug and is not dressed up as one."""

from __future__ import annotations

import importlib

import pytest
from click.testing import CliRunner

from study.cli import main
from study.errors import StudyError

#: The package's error classes by the base each had before the root (module:class).
BASES = {
    ValueError: """study.session_io.issues:LogError study.session_io.issues:MetaError study.protocol.limits:LimitsError
        study.runner.shard:ShardError study.protocol.texts:TextError study.protocol.conditions:ConditionError
        study.runner.preflight:PreflightError study.protocol.models:ModelError study.procedure.escape_routes:RegistryError
        study.protocol.yaml_lines:YamlError study.fsm.workflow:WorkflowError study.protocol.plan:PlanError
        analysis.power.effects:EffectsError analysis.loading:CorpusError sopbench_tools.orders:OrderError
        sopbench_tools.tasks.manifest:TaskError study.fsm.edits:EditError""",
    RuntimeError: """study.runner.claim:SessionExists study.runner.claim:SessionClaimed study.fsm.frames:FrameStoreError
        study.fsm.build_referral_workflow:SopFormatError sopbench_tools.dataset:TaskDataError
        sopbench_tools.state_log:ToolStateError study.fsm.ledger:LedgerError study.fsm.versions:VersionError""",
    Exception: """study.prereg.errors:PreregError study.prereg.errors:PreregViolation study.prereg.errors:NotFrozen
        sopbench_tools.tasks.upstream:UpstreamError""",
}
ERRORS = [(*name.split(":"), base) for base, names in BASES.items() for name in names.split()]


@pytest.mark.parametrize(("module", "name", "base"), ERRORS)
def test_every_error_derives_from_the_root_and_keeps_its_base(module, name, base):
    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, StudyError) and issubclass(cls, base)


def test_an_error_carries_its_data():
    from study.protocol.yaml_lines import YamlError
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
    from study.protocol.conditions import ConditionError

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
