"""``study sim policies`` says what every simulator policy does, and docs/simulator.md says the same."""

from __future__ import annotations

import textwrap
from pathlib import Path

from click.testing import CliRunner

from study.cli import main
from study.sim.policies import POLICIES

DOC = Path(__file__).resolve().parents[2] / "docs" / "simulator.md"


def test_every_policy_is_described_by_the_command_and_in_the_docs():
    result = CliRunner().invoke(main, ["sim", "policies"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    width = max(len(name) for name in POLICIES) + 2
    doc = DOC.read_text(encoding="utf-8")
    for name, cls in POLICIES.items():
        description = getattr(cls, "description", "")
        assert len(description) > 60, f"policy {name} has no description (study/sim/policies.py)"
        first = textwrap.wrap(description, width=100 - width)[0]
        assert f"{name:<{width}}{first}" in lines, f"study sim policies does not describe {name}"
        assert f"| `{name}` | {description} |" in doc, f"docs/simulator.md does not describe {name} as the code does"
    entries = [line.split()[0] for line in lines if line[:1].strip()][:len(POLICIES)]
    assert entries == list(POLICIES)  # one entry per policy, in the registry's order
    assert "blind" in POLICIES and "Submits the majority label (No Action)" in POLICIES["blind"].description
