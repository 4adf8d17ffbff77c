"""SOP-Bench's own grader beside the exact match: all 49 label pairs, its rule's edge cases, and
the exploratory column in Table 1 and `study score`."""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from analysis.corpus import SessionWriter
from analysis.sopbench_grader import compare_decisions, parse_decision, sopbench_correct
from sopbench_tools.dataset import ACTIONS, gold_labels
from sopbench_tools.orders import order_for_seed
from study.cli import main

PAC, AC = "Permanent Account Closure", "Account Closure"


@pytest.mark.parametrize("predicted", ACTIONS)
@pytest.mark.parametrize("gold", ACTIONS)
def test_every_label_pair_grades_as_exact_match_except_the_two_closures(predicted, gold):
    closures = {predicted, gold} == {PAC, AC}
    assert sopbench_correct(predicted, gold) is (predicted == gold or closures)


def test_the_two_graders_differ_on_12_of_1400_account_label_combinations():
    gold = gold_labels()
    differing = [(a, p) for a, g in gold.items() for p in ACTIONS if sopbench_correct(p, g) != (p == g)]
    assert (len(gold) * len(ACTIONS), len(differing)) == (1400, 12)
    assert {gold[a] for a, _p in differing} <= {PAC, AC}


def test_the_published_rule_lowercases_folds_separators_and_nulls_and_strips_prefixes():
    assert parse_decision("  Decision: Account_Closure ") == "account_closure"
    assert compare_decisions(parse_decision("Decision: Account_Closure"), AC)
    assert compare_decisions("no-action", "No Action")
    assert compare_decisions("N/A", None) and compare_decisions(math.nan, "unknown")
    assert not compare_decisions("none", "No Action") and not compare_decisions("", AC)
    assert parse_decision("x" * 101) == "unknown" and parse_decision(None) == "unknown"
    assert not compare_decisions("account closure", PAC, fuzzy_match=False)


def test_table1_and_score_show_the_grader_column(tmp_path):
    order = order_for_seed(2)[:40]
    gold = gold_labels()
    closures = [a for a in order if gold[a] in (PAC, AC)][:2]
    assert len(closures) == 2, "seed 2's first 40 accounts hold two closures"
    session = tmp_path / "sessions" / "haiku-4.5" / "FSM" / "seed-2"
    w = SessionWriter(session, model="haiku-4.5", condition="FSM", seed=2, order=order)
    for a in closures:   # the other closure: wrong for us, right for SOP-Bench
        w.decide(a, AC if gold[a] == PAC else PAC)
    w.decide(order[0] if order[0] not in closures else order[1], "Inconclusive")
    w.end("ended_with_accounts_left", 1.0)
    w.write_meta(model="haiku-4.5", condition="FSM", seed=2, simulated=True)
    data = json.loads(CliRunner().invoke(main, ["score", str(session), "--json"]).output)
    inconclusive_right = gold[order[0] if order[0] not in closures else order[1]] == "Inconclusive"
    assert (data["correct"], data["correct_sopbench"]) == (int(inconclusive_right), 2 + inconclusive_right)
    text = CliRunner().invoke(main, ["score", str(session)]).output
    assert f"correct {int(inconclusive_right)} (SOP-Bench grader: {2 + inconclusive_right})" in text
    result = CliRunner().invoke(main, ["tables", "--sessions", str(tmp_path / "sessions"), "--format", "csv"])
    assert result.exit_code == 0, result.output
    header, row = [line for line in result.stdout.splitlines() if not line.startswith("#")][:2]
    cells = dict(zip(header.split(","), row.split(",")))
    assert (cells["Correct"], cells["Correct (SOP-Bench grader)"]) == (str(int(inconclusive_right)), str(2 + inconclusive_right))
