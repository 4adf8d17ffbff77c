"""From session logs alone to scores, statistics, tables, figures and predictions.
Layer 5: may import the foundations and layers 1-4 (docs/architecture.md).

Modules, in the order data flows through them:

- (reading and validating one session's ``events.jsonl`` and ``meta.json`` is ``study.session_io``'s.)
- ``scoring``: score one session's events (per-account inv/rec/foc/correct, FC, windows,
  escape routes); ``score_session_dir(path)`` is the entry point other parts use. The scored
  decision and its clause predicates are ``clauses``; what each clause was decided on
  (``score_log(..., evidence=True)``) is ``evidence``.
- ``loading``: find and score every session under a folder into polars frames, excluding and
  listing voided, incomplete and exploratory sessions, refusing to mix simulated and real ones.
- ``statistics``: paired tests over seeds (bootstrap CI, sign, Wilcoxon, McNemar).
- (the preregistered plan in ``preregistration/predictions.yaml``, typed, is read by
  ``study.protocol.plan``: seeds, comparisons, predictions.)
- ``comparisons``: the paired comparisons of the plan computed on a corpus (Table 7).
- ``predictions``: the predictions evaluated to observed values and verdicts (Table 6).
- ``analysis_data``: ``Analysis``, everything the tables and figures are made from (the corpus,
  the plan, its comparisons and outcomes, the amendments, the row order).
- ``tables`` and ``render``: Tables 1, 2, 6, 7 and 8 and their Markdown, CSV and LaTeX forms;
  ``table_notes``: the notes under them.
- ``exclusions``: the sessions left out of the tables, each with its reason (printed once).
- ``sopbench_grader``: SOP-Bench's own grading of a decision (Table 1's exploratory column).
- ``figures``: Figure 1 strips, FC per window, the escape-route heatmap.
- ``corpus``: a generator of simulated session trees with known metrics (tests, benchmarks).
- ``cli``: ``study score``, ``study tables``, ``study figures``, ``study predictions``.
"""
