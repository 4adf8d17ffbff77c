"""The effect model file: every mistake is one line naming the file, the line and the fix
(exit code 2, nothing written), and the forms it accepts mean what docs/power.md says."""

from __future__ import annotations

import numpy as np
import pytest

from study.protocol.plan import load_plan
from analysis.power.simulate import Draws

from .conftest import run_cli, two_conditions

GOOD = two_conditions({"fc": "{mean: 120, sd: 30}"}, {"fc": "{values: [10, 50, 90]}"})


@pytest.mark.parametrize("text,message", [
    (GOOD.replace("fc: {mean: 120, sd: 30}", "fc: {mean: 120, sd: -3}"),
     ":12: fc: sd must be 0 or more, got -3"),
    (GOOD.replace("fc: {mean: 120, sd: 30}", "fcc: 3"),
     ":12: unknown key 'fcc' in haiku FSM; use one of decided, correct"),
    (GOOD.replace("fc: {mean: 120, sd: 30}", "fc: {mean: 250, sd: 30}"),
     ":12: fc: 250 is outside 0..200; write a value in that range"),
    (GOOD.replace("haiku:", "haku:"), ":4: model 'haku' is not in the plan; use a key or name of haiku (haiku-4.5)"),
    (GOOD.replace("FSM:", "FMS:"), ":6: unknown key 'FMS' in model haiku conditions; use one of Plain"),
    (GOOD.replace("        fc_w1: 30\n", "", 1), ":6: haiku-4.5 FSM: P5 of the plan reads its fc_w1; add fc_w1"),
    (GOOD + "  haiku-4.5:\n    conditions:\n      FSM:\n        fc: 3\n",
     ":20: model 'haiku-4.5' is haiku-4.5, described above already; keep one"),
    (GOOD.replace("correlation: 0.0", "correlation: 1.5"), ":2: correlation must lie in 0..1, got 1.5"),
    (GOOD.replace("version: 1", "version: 2"), ":1: write version: 1 (the only version)"),
    (GOOD.replace("compliance: 1.0", "compliance: [1", 1), ":9: malformed YAML"),
    (GOOD + "      FSM:\n        fc: 3\n", ":20: duplicate key 'FSM' (first written at line 6); keep one of them"),
    (GOOD.replace("fc: {values: [10, 50, 90]}", "fc: {values: []}"), ":19: fc: values must be a non-empty list of numbers"),
])
def test_a_bad_effect_model_is_refused_with_its_line(effects_file, tmp_path, text, message):
    path = effects_file(text)
    result = run_cli("--effects", str(path), "--seeds", "3", "--draws", "100", "--out", str(tmp_path / "out"))
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {path}:"), result.output
    assert message in lines[0], lines[0]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("args,message", [
    ([], "give exactly one of --effects FILE"),
    (["--effects", "x.yaml", "--from-sessions", "."], "give exactly one of --effects FILE"),
    (["--effects", "missing.yaml"], "missing.yaml: no such file"),
    (["--seeds", "3-x"], "--seeds '3-x': write a count, a range or a list"),
    (["--seeds", "9-3"], "--seeds '9-3': counts lie in 1..50, low to high"),
])
def test_usage_errors_exit_2_with_one_line(tmp_path, args, message):
    result = run_cli(*args, "--out", str(tmp_path / "out"))
    assert result.exit_code == 2, result.output
    assert message in result.output and len(result.output.strip().splitlines()) == 1, result.output
    assert not (tmp_path / "out").exists()


def test_forms_constants_values_and_rows(effects_file, load):
    text = ("version: 1\nmodels:\n  haiku:\n    correlation: 0.6\n    conditions:\n"
            "      FSM:\n        fc: {values: [10, 20, 30, 40]}\n        fc_w1: {mean: 30, sd: 100}\n"
            "        fc_w4: 7\n        decided: 200\n        compliance: 1\n        correct: 3\n"
            "      Remind-loop:\n        seeds:\n"
            "          2: {fc: 5, fc_w1: 1, fc_w4: 1, decided: 200, compliance: 0.5, correct: 9}\n"
            "          3: {fc: 6, fc_w1: 1, fc_w4: 1, decided: 0, compliance: null, correct: 9}\n")
    sim = Draws(load(effects_file(text)), load_plan(), draws=40_000, max_seeds=2, rng_seed=1)
    fc = sim.metric("haiku-4.5", "FSM", "fc")
    assert sorted(np.unique(fc)) == [10, 20, 30, 40]
    assert np.allclose([np.mean(fc == v) for v in (10, 20, 30, 40)], 0.25, atol=0.01)
    w1 = sim.metric("haiku-4.5", "FSM", "fc_w1")     # clipped to a window's 0..50 and rounded
    assert w1.min() == 0 and w1.max() == 50 and (w1 == np.rint(w1)).all()
    assert (sim.metric("haiku-4.5", "FSM", "fc_w4") == 7).all()
    # within a session every metric follows the one latent: fc_w1 rises with fc
    groups = [w1[fc == v] for v in (10, 20, 30, 40)]
    assert all(lo.max() <= hi.min() for lo, hi in zip(groups, groups[1:]))
    # whole seeds: a resampled Remind-loop session keeps its own fc and compliance together
    rl_fc, rl_c = (sim.metric("haiku-4.5", "Remind-loop", m) for m in ("fc", "compliance"))
    assert set(np.unique(rl_fc)) == {5, 6}
    assert (np.isnan(rl_c) == (rl_fc == 6)).all() and (rl_c[rl_fc == 5] == 0.5).all()
    assert abs(np.mean(rl_fc == 5) - 0.5) < 0.01


def test_from_an_empty_sessions_folder_there_is_nothing_to_show(tmp_path):
    (tmp_path / "empty").mkdir()
    result = run_cli("--from-sessions", str(tmp_path / "empty"), "--out", str(tmp_path / "out"))
    assert result.exit_code == 4, result.output
    assert "no analysable session under" in result.output and "--include-exploratory" in result.output
    assert not (tmp_path / "out").exists()
