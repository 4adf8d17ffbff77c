"""SOP-Bench's own grading of a decision, beside the paper's exact match (exploratory).

The preregistered ``correct`` is an exact match of the submitted action with the gold label. The
benchmark grades differently: ``OutputParser.parse_decision`` and
``OutputParser.compare_decisions(predicted, expected, fuzzy_match=True)`` of
``src/amazon_sop_bench/evaluation/parser.py`` in amazon-science/SOP-Bench (commit
156e9ecd60f42c43e4f3a12824e466afff21e9d8, the file's latest change; read at the repository's
head 2fdce4c5). Its rule for one value, as published:

- parsing (``parse_decision``): a submitted action is a bare label (the tool server accepts only
  the seven), so none of the tag, JSON or dict parsers applies and the plain-text fallback
  ``_parse_plain_format`` does: lowercase and strip, drop a leading ``final answer:``,
  ``decision:``, ``result:`` or ``output:``, and more than 100 characters become ``unknown``;
- comparing (``_compare_single_value``): null-like strings (``none``, ``null``, ``na``, ``n/a``,
  ``nan``, ``unknown``, empty) all match each other and nothing else; otherwise lowercase and
  strip both; equal is a match; with ``fuzzy_match`` ``_`` and ``-`` become spaces, and equal
  after that, or either string containing the other, is a match.

Over the seven labels of the task this counts "Permanent Account Closure" and "Account Closure"
as matching each other (either way round) and is otherwise the exact match. Written here from that
rule (the benchmark's module imports pandas and its logging just for this); the test checks all
49 label pairs.
"""

from __future__ import annotations

import math
from functools import lru_cache

#: ``_compare_single_value``'s null-like values.
NULL_VALUES = frozenset({"none", "null", "na", "n/a", "nan", "unknown", ""})
#: ``_parse_plain_format``'s prefixes, removed in this order.
PREFIXES = ("final answer:", "decision:", "result:", "output:")


def parse_decision(output: str | None) -> str:
    """The decision SOP-Bench's parser reads from a bare label (its plain-text path)."""
    if output is None or (isinstance(output, float) and math.isnan(output)) or not str(output):
        return "unknown"
    decision = str(output).strip().lower().strip()
    for prefix in PREFIXES:
        if decision.startswith(prefix):
            decision = decision[len(prefix):].strip()
    return "unknown" if len(decision) > 100 else decision


def _is_null(value: object, lowered: str) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or lowered in NULL_VALUES


def compare_decisions(predicted: object, expected: object, fuzzy_match: bool = True) -> bool:
    """SOP-Bench's ``compare_decisions`` for single values."""
    pred = str(predicted).lower().strip() if predicted is not None else ""
    exp = str(expected).lower().strip() if expected is not None else ""
    pred_null, exp_null = _is_null(predicted, pred), _is_null(expected, exp)
    if pred_null or exp_null:
        return pred_null and exp_null
    if pred == exp:
        return True
    if fuzzy_match:
        pred_clean = pred.replace("_", " ").replace("-", " ")
        exp_clean = exp.replace("_", " ").replace("-", " ")
        return pred_clean == exp_clean or pred_clean in exp_clean or exp_clean in pred_clean
    return False


@lru_cache(maxsize=1024)   # a session's decisions repeat few (action, gold) pairs: 49 on this task
def sopbench_correct(action: str | None, gold: str) -> bool:
    """The submitted ``action`` graded against ``gold`` as SOP-Bench grades it."""
    return compare_decisions(parse_decision(action), gold, fuzzy_match=True)
