"""`study power` twice with the same arguments writes the same bytes, figure included."""

from __future__ import annotations

from .conftest import PAPER, run_cli


def test_same_arguments_give_byte_identical_outputs(tmp_path):
    outs = []
    for i in range(2):
        out = tmp_path / f"run{i}"
        result = run_cli("--effects", str(PAPER), "--seeds", "3-6", "--draws", "500", "--rng-seed", "5",
                         "--format", "md", "--format", "csv", "--format", "tex", "--out", str(out))
        assert result.exit_code == 0, result.output
        outs.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    assert sorted(outs[0]) == ["power_curves_tests.pdf", "power_curves_tests.png", "power_curves_verdicts.pdf",
                               "power_curves_verdicts.png", "power_tests.csv", "power_tests.md",
                               "power_tests.tex", "power_verdicts.csv", "power_verdicts.md",
                               "power_verdicts.tex"]
    assert outs[0] == outs[1]
    md = outs[0]["power_verdicts.md"].decode()
    assert md.startswith("**Table 11: Probability of each verdict by number of seeds (effect model: ")
    assert "| P3 | holds |" in md and "| F | triggered |" in md


def test_another_rng_seed_gives_other_draws(tmp_path):
    got = [run_cli("--effects", str(PAPER), "--seeds", "8", "--draws", "500", "--rng-seed", str(s),
                   "--format", "csv").output for s in (1, 2)]
    assert got[0] != got[1]
