"""``--seeds`` out of bounds says what the seeds of the study run are (issue 50): a τ²-bench study's
positions of its frozen order, a staged study's preregistered seeds; the main study's 1-15 only for
the main study."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from study.cli import main


@pytest.mark.parametrize("study, said", [("tau2-telecom", "study tau2-telecom's seeds are 1-40"),
                                         ("month-end-close", "study month-end-close's seeds are 1-2"),
                                         (None, "the plan's seeds are 1-15")])
def test_too_many_seeds_names_the_studys_own(study, said, tmp_path):
    args = ["run-all", "--model", "sim:oracle", "--seeds", "1-100000", "--dry-run", "--sessions", str(tmp_path / "s")]
    done = CliRunner().invoke(main, args + (["--study", study] if study else []))
    assert done.exit_code == 2 and said in done.output, done.output
    assert ("1-15" in done.output) == (study is None)
    assert not (tmp_path / "s").exists()
