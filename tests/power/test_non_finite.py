"""``study power`` refuses a number that is not finite: NaN and infinity in the effect model and
``--alpha nan`` (which click's range check lets through) are one line, exit 2, nothing written."""

from __future__ import annotations

import pytest

from .conftest import run_cli, two_conditions

GOOD = two_conditions({"fc": "{mean: 120, sd: 30}"}, {"fc": "{values: [10, 50, 90]}"})


@pytest.mark.parametrize(("old", "new", "says"), [
    ("sd: 30", "sd: .nan", "fc sd must be a finite number, got nan"),
    ("sd: 30", "sd: .inf", "fc sd must be a finite number, got inf"),
    ("mean: 120", "mean: -.inf", "fc mean must be a finite number, got -inf"),
    ("values: [10, 50, 90]", "values: [10, .nan, 90]", "must be a finite number, got nan"),
])
def test_a_non_finite_effect_is_refused(effects_file, tmp_path, old, new, says):
    path = effects_file(GOOD.replace(old, new, 1))
    result = run_cli("--effects", str(path), "--seeds", "3", "--draws", "100", "--out", str(tmp_path / "out"))
    assert result.exit_code == 2, result.output
    assert says in result.output and len(result.output.strip().splitlines()) == 1, result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("alpha", ["nan", "NaN", "-nan"])
def test_alpha_nan_is_refused(effects_file, tmp_path, alpha):
    path = effects_file(GOOD)
    result = run_cli("--effects", str(path), "--seeds", "3", "--draws", "100", "--alpha", alpha,
                     "--out", str(tmp_path / "out"))
    assert result.exit_code == 2, result.output
    assert "--alpha" in result.output and "not a number" in result.output
    assert not (tmp_path / "out").exists()
