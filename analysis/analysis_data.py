"""``Analysis``: everything the tables and figures are made from, in one object.

A scored corpus (``analysis.loading``), the preregistered plan (``study.protocol.plan``), its
paired comparisons and evaluated predictions, the recorded amendments and the order of the
conditions (the rows). ``analysis.tables`` (which re-exports ``Analysis``, ``condition_order``
and ``SIMULATED_TITLE``), ``analysis.figures``, and the notes under the tables
(``analysis.table_notes``, ``analysis.exclusions``) all read it; it reads none of them, so each
of them can import it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from study.protocol.amendments import Amendment, read_amendments_file
from study.protocol.conditions import load_conditions
from study.protocol.plan import Plan
from study.session_io.record import Exclusion

from .comparisons import Comparison, compute_comparisons
from .loading import Corpus
from .predictions import Outcome, evaluate

SIMULATED_TITLE = "SIMULATED (made by the simulator; not results) - "


def condition_order(path: Path | None = None) -> tuple[str, ...]:
    """The conditions in the order of the frozen ``conditions.yaml`` (default: the preregistration
    of the project in use): the preregistered ones, then the exploratory ones. Rows and figures
    follow this order; conditions it does not name follow alphabetically."""
    loaded = load_conditions(path)
    return (*loaded.conditions, *loaded.exploratory)


@dataclass
class Analysis:
    """Everything the tables and figures are made from (the notes every table carries are
    ``analysis.table_notes.common_notes``)."""

    corpus: Corpus
    plan: Plan
    comparisons: list[Comparison]
    outcomes: list[Outcome]
    amendments: list[Amendment]     # the recorded amendments of the preregistration, in order
    conditions: tuple[str, ...]      # the order of rows (condition_order())

    @classmethod
    def build(cls, corpus: Corpus, plan: Plan, prereg: Path,
              conditions: tuple[str, ...] | None = None) -> "Analysis":
        """``conditions``: the row order (default: :func:`condition_order` of the project)."""
        comparisons = compute_comparisons(corpus.sessions, plan)
        return cls(corpus, plan, comparisons, evaluate(plan, corpus.sessions, comparisons),
                   read_amendments_file(Path(prereg) / "amendments.jsonl"),
                   condition_order() if conditions is None else tuple(conditions))

    def condition_key(self, condition: str) -> tuple[int, str]:
        """Sort key: the position in ``conditions``, then (for the others) the name."""
        order = self.conditions
        return (order.index(condition) if condition in order else len(order), condition)

    def by_condition(self, frame: pl.DataFrame) -> list[tuple[str, dict[str, list]]]:
        """``frame``'s rows grouped by condition (each column a list, by seed), in row order."""
        groups: dict[str, dict[str, list]] = {}
        for r in frame.sort("seed").iter_rows(named=True):
            g = groups.setdefault(r["condition"], {k: [] for k in r})
            for k, v in r.items():
                g[k].append(v)
        return sorted(groups.items(), key=lambda kv: self.condition_key(kv[0]))

    def title(self, text: str) -> str:
        extra = " (including exploratory sessions)" if self.corpus.exploratory else ""
        return (SIMULATED_TITLE if self.corpus.simulated else "") + text + extra

    def relative(self, path: str) -> str:
        """A session's path below the sessions folder."""
        try:
            return Path(path).relative_to(self.corpus.root).as_posix() or "."
        except ValueError:
            return str(path)

    def nothing_here(self) -> str:
        """Why the corpus has no analysable session, and what to do."""
        hidden = admitted_by_exploratory(self.corpus.excluded)
        why = f"no analysable session under {self.corpus.root}"
        if self.corpus.excluded:
            why += f" ({len(self.corpus.excluded)} excluded, listed with their reasons)"
        if hidden:
            why += (f"; {hidden} are exploratory or on the development seed: pass "
                    "--include-exploratory to add them")
        return why

    def batch_size(self) -> int:
        """The largest number of accounts of a session in the corpus (200 for the study)."""
        return max((len(s.order) for s in self.corpus.scores), default=200)

    def rows_for(self, model: str, conditions: list[str] | None = None) -> pl.DataFrame:
        """The model's sessions on the seeds the plan tabulates each condition over."""
        s = self.corpus.sessions.filter(pl.col("model") == model)
        keep = [r for r in s.iter_rows(named=True) if self.plan.tabulates(model, r["condition"], r["seed"])]
        frame = pl.DataFrame(keep, schema=s.schema, orient="row") if keep else s.clear()
        if conditions is not None:
            frame = frame.filter(pl.col("condition").is_in(conditions))
        return frame

    def models(self) -> list[str]:
        return self.plan.model_order(self.corpus.sessions["model"].unique().to_list())


def admitted_by_exploratory(excluded: list[tuple[str, Exclusion]]) -> int:
    """How many of ``Corpus.excluded`` ``--include-exploratory`` would add (exploratory, or on
    the development seed)."""
    return sum(1 for _p, why in excluded if why.kind.admitted_by_exploratory)
