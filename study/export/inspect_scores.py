"""A session's scores (``analysis.scoring``'s, the numbers ``study score`` prints) as Inspect
scores, and an eval's results: each score's mean over the sessions the tables count.

This module imports inspect-ai (an optional extra): only ``study export inspect`` imports it.
"""

from __future__ import annotations

from inspect_ai.log import EvalMetric, EvalResults, EvalSample, EvalScore, HeadlineMetric
from inspect_ai.scorer import Score

from analysis.tables import window_label

from .sessions import ExportSession

#: The scalar scores of a sample, each one of ``SessionScore``'s metrics, in this order.
SCALAR_SCORES = ("fc", "compliance", "decided", "correct", "compliant")
#: The one number of an eval log (Inspect's listing shows it): the mean FC.
HEADLINE = HeadlineMetric(scorer="fc", score="fc", metric="mean")


def scores(session: ExportSession) -> dict[str, Score]:
    """``analysis.scoring``'s metrics of the session as Inspect scores (the numbers ``study score``
    prints); the escape routes, the real turn ends and each decision's clauses are the metadata
    of ``fc``. ``compliance`` is absent for a session that decided nothing (no rate)."""
    s = session.score
    accounts = len(s.order)
    windows = {window_label(i, accounts): x for i, x in enumerate(s.fc_windows)}
    decisions = [{"account": d.account, "position": d.position + 1, "action": d.action, "gold": d.gold,
                  "inv": d.inv, "rec": d.rec, "foc": d.foc, "compliant": d.compliant, "correct": d.correct}
                 for d in s.decisions]
    out = {
        "fc": Score(value=s.fc, answer=f"{s.decided}/{accounts} decided",
                    explanation=f"{s.fc} of {s.decided} decisions compliant (investigated, recorded, focused) "
                                f"and correct; {s.compliant} compliant, {s.correct} correct",
                    metadata={"routes": dict(s.routes), "turn_ends": s.turn_ends, "fc_windows": windows,
                              "correct_sopbench": session.correct_sopbench, "decisions": decisions,
                              "warnings": list(s.warnings)}),
        "decided": Score(value=s.decided, explanation=f"accounts with a decision, of {accounts}"),
        "correct": Score(value=s.correct, explanation="decisions equal to the gold label (exact match)"),
        "compliant": Score(value=s.compliant, explanation="decisions investigated, recorded and focused"),
        "fc_windows": Score(value=windows, explanation="FC per 50 accounts, by the account's position in the seed's order"),
    }
    if s.compliance is not None:
        out["compliance"] = Score(value=s.compliance, explanation="compliant / decided")
    return {k: out[k] for k in (*SCALAR_SCORES, "fc_windows") if k in out}


def results(samples: list[EvalSample]) -> EvalResults:
    """Each score's mean over the samples the tables count (ended, not voided: no ``error``); a
    score no such sample has (compliance where nothing was decided) has no mean."""
    counted = [s for s in samples if s.error is None]
    found: list[EvalScore] = []
    for name in SCALAR_SCORES:
        values = [float(s.scores[name].value) for s in counted if s.scores and name in s.scores]
        mean = {"mean": EvalMetric(name="mean", value=sum(values) / len(values))} if values else {}
        found.append(EvalScore(name=name, scorer=name, scored_samples=len(values),
                               unscored_samples=len(samples) - len(values), metrics=mean))
    windows: dict[str, list[float]] = {}
    for s in counted:
        for label, value in (s.scores or {}).get("fc_windows", Score(value={})).value.items():
            windows.setdefault(label, []).append(float(value))
    found.append(EvalScore(name="fc_windows", scorer="fc_windows", scored_samples=len(counted),
                           unscored_samples=len(samples) - len(counted),
                           metrics={label: EvalMetric(name=label, value=sum(v) / len(v)) for label, v in windows.items()}))
    return EvalResults(total_samples=len(samples), completed_samples=len(counted), scores=found, headline=HEADLINE,
                       metadata={"counted": "samples without an error: sessions that ended and are not voided, "
                                            "as the tables count them; means over those sessions"})
