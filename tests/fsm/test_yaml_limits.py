"""Every YAML file is read under limits: a recursive alias, deep nesting, a "billion laughs" or an
oversized file is refused in one line, fast, by the one loader (``study.protocol.yaml_lines``) that
the workflows, conditions, limits, models, predictions and effect models all go through."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from study.cli import main
from study.protocol.yaml_lines import MAX_BYTES, YamlError, load_yaml, load_yaml_with_lines

RECURSIVE = "a: &a [1, *a]\n"
RECURSIVE_MAP = "a: &a {b: *a}\n"
DEEP = "x: " + "[" * 200 + "]" * 200 + "\n"
#: 2 ** 22 (about 4 million) nodes once expanded, from 44 aliases.
LAUGHS = "a0: &a0 [lol, lol]\n" + "".join(f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]\n" for i in range(1, 23))
HUGE = "x: [" + "1, " * (MAX_BYTES // 3 + 10) + "1]\n"

CASES = [
    (RECURSIVE, "refers to a node that contains it (a recursive alias)"),
    (RECURSIVE_MAP, "refers to a node that contains it (a recursive alias)"),
    (DEEP, "nesting deeper than 64 levels"),
    (LAUGHS, "more than 100000 nodes once its aliases are expanded"),
    (HUGE, "characters, more than the"),
]


@pytest.mark.parametrize("load", [load_yaml, load_yaml_with_lines])
@pytest.mark.parametrize(("text", "says"), CASES)
def test_the_loader_refuses_what_would_exhaust_memory(load, text, says):
    began = time.monotonic()
    with pytest.raises(YamlError, match="refused YAML|more than the") as refused:
        load(text)
    assert says in str(refused.value)
    assert time.monotonic() - began < 10


def test_plain_yaml_loads_as_safe_load_does():
    root = Path(__file__).resolve().parents[2] / "preregistration"
    for name in ("conditions.yaml", "limits.yaml", "models.yaml", "predictions.yaml"):
        text = (root / name).read_text(encoding="utf-8")
        assert load_yaml(text) == yaml.safe_load(text)
    assert load_yaml("a: &x [1, 2]\nb: *x\n") == {"a": [1, 2], "b": [1, 2]}


@pytest.mark.parametrize(("text", "says"), CASES[:4])
def test_fsm_validate_refuses_in_one_line(tmp_path, text, says):
    path = tmp_path / "workflow.yaml"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["fsm", "validate", str(path)])
    assert result.exit_code == 1 and result.exception is None or isinstance(result.exception, SystemExit)
    assert says in result.output and len(result.output.strip().splitlines()) == 1, result.output


@pytest.mark.parametrize(("text", "says"), CASES[:4])
def test_study_power_refuses_an_effect_model_in_one_line(tmp_path, text, says):
    path = tmp_path / "effects.yaml"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["power", "--effects", str(path), "--seeds", "3", "--draws", "100",
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert says in result.output and len(result.output.strip().splitlines()) == 1, result.output
    assert not (tmp_path / "out").exists()


def test_the_preregistration_readers_refuse_a_recursive_alias(tmp_path):
    from study.protocol.plan import PlanError, load_plan
    from study.protocol.conditions import ConditionError, load_conditions
    from study.protocol.limits import LimitsError, load_limits
    from study.protocol.models import ModelError, load_models

    path = tmp_path / "file.yaml"
    path.write_text(RECURSIVE, encoding="utf-8")
    for read, error in ((load_conditions, ConditionError), (load_models, ModelError),
                        (lambda p: load_limits("haiku-4.5", path=p), LimitsError), (load_plan, PlanError)):
        with pytest.raises(error, match="recursive alias"):
            read(path)
