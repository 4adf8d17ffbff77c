"""Helpers for the tests of ``study power``: effect models written to files, and one runner."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from study.protocol.plan import load_plan
from analysis.power.effects import load_effects
from study.cli import main
from study.protocol.conditions import condition_names

PAPER = Path(__file__).resolve().parents[2] / "examples" / "effects" / "paper_table1.yaml"
#: The metrics the plan reads of Claude Haiku 4.5's FSM and Remind-loop, as constants.
FILLER = {"decided": 200, "compliance": 1.0, "correct": 150, "fc_w1": 30, "fc_w4": 30}


def condition_yaml(metrics: dict) -> str:
    """YAML lines of one condition: FILLER, then ``metrics`` (a value: YAML text or JSON-able)."""
    return "".join(f"        {k}: {v if isinstance(v, str) else json.dumps(v)}\n"
                   for k, v in {**FILLER, **metrics}.items())


def two_conditions(fsm: dict, remind_loop: dict, correlation: float = 0.0) -> str:
    """An effect model of Haiku 4.5's FSM and Remind-loop only."""
    return ("version: 1\n"
            f"correlation: {correlation}\n"
            "models:\n  haiku:\n    conditions:\n"
            "      FSM:\n" + condition_yaml(fsm) + "      Remind-loop:\n" + condition_yaml(remind_loop))


@pytest.fixture
def effects_file(tmp_path):
    def make(text: str, name: str = "effects.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path
    return make


@pytest.fixture
def load():
    def make(path: Path):
        return load_effects(path, load_plan(), condition_names())
    return make


def run_cli(*args: str):
    return CliRunner().invoke(main, ["power", *args])


def csv_rows(text: str) -> list[list[str]]:
    """Rows of a rendered CSV table, after its comment line."""
    return list(csv.reader(io.StringIO("".join(l + "\n" for l in text.splitlines() if not l.startswith("#")))))
