"""What each clause of a scored decision was decided on (``score_log(..., evidence=True)``).

The scorer (``analysis.scoring``) keeps, for every decision, the values its clauses were computed
from: the last successful call of each data tool for the account before the decision, the last
record, and the last data call for another account. ``ClauseEvidence`` holds exactly those values
and re-reads each verdict through the scorer's own predicates (``_inv``, ``_rec``, ``_foc`` of
``analysis.clauses``, which the scorer decides every clause with), so what ``study view`` shows
as the reason of a clause can never disagree with the tables.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from sopbench_tools.tool_definitions import DATA_TOOLS, RECORD_TOOL

from .clauses import AccountScore, _foc, _inv, _rec


class ClauseEvidence(NamedTuple):
    """One decision's clauses with their evidence (positions are ``seq``)."""

    score: AccountScore
    retrieved: dict[str, int]                 # data tool -> seq of its last successful call before the decision
    record: tuple[int, str | None] | None     # (seq, step4_action) of the last successful record, or None
    other: tuple[int, str | None]             # (seq, account) of the last data call for another account; -1 if none
    record_account: str | None                # account of the most recent record of any account (another_account route)
    data_tools: tuple[str, ...] = DATA_TOOLS  # the task's required data tools (the referral study's five by default)
    record_tool: str = RECORD_TOOL

    # ----- each clause, by the scorer's predicates ---------------------------------------------

    @property
    def missing(self) -> list[str]:
        """The data tools with no successful call for the account before the decision."""
        return [t for t in self.data_tools if t not in self.retrieved]

    @property
    def first_retrieval(self) -> int | None:
        return min(self.retrieved.values(), default=None)

    def inv(self) -> dict[str, Any]:
        ok = _inv(self.retrieved, len(self.data_tools))
        calls = [{"tool": t, "seq": self.retrieved.get(t)} for t in self.data_tools]
        n = len(self.data_tools)
        every = "all five data tools" if self.data_tools == DATA_TOOLS else f"all {n} required data tools"
        why = f"{every} succeeded before the decision" if ok else (
            "missing: " + ", ".join(self.missing) + " (no successful call for this account before the decision)")
        return {"ok": ok, "why": why, "calls": calls, "missing": self.missing}

    def rec(self) -> dict[str, Any]:
        action = self.score.action
        ok = _rec(self.record, action, self.retrieved)
        if self.record is None:
            why, late = f"no successful {self.record_tool} for this account before the decision", []
        else:
            seq, named = self.record
            late = sorted((s, t) for t, s in self.retrieved.items() if s >= seq)
            parts = []
            if named != action:
                parts.append(f"the record (seq {seq}) names {named!r}, the decision {action!r}")
            if late:
                parts.append(f"the record (seq {seq}) came too early: before "
                             + ", ".join(f"{t} (seq {s})" for s, t in late))
            why = "; ".join(parts) or f"the record (seq {seq}) follows every retrieval and names {action!r}"
        return {"ok": ok, "why": why, "record_seq": self.record[0] if self.record else None,
                "record_action": self.record[1] if self.record else None,
                "after_record": [s for s, _t in late]}

    def foc(self) -> dict[str, Any]:
        ok = _foc(self.retrieved, self.other[0])
        first = self.first_retrieval
        breaking = None if ok else {"seq": self.other[0], "account": self.other[1]}
        if first is None:
            why = "no retrieval for this account, so nothing to interleave"
        elif ok:
            why = f"no data call for another account between seq {first} and the decision"
        else:
            why = (f"a data call for {self.other[1]} (seq {self.other[0]}) lies between this account's first "
                   f"retrieval (seq {first}) and its decision (seq {self.score.decision_seq})")
        return {"ok": ok, "why": why, "window": [first, self.score.decision_seq] if first is not None else None,
                "breaking": breaking}

    def correct(self) -> dict[str, Any]:
        ok = self.score.correct
        why = (f"decided {self.score.action!r}, gold {self.score.gold!r}")
        return {"ok": ok, "why": why, "action": self.score.action, "gold": self.score.gold}

    def clauses(self) -> dict[str, dict[str, Any]]:
        """The four clauses with their verdict, a sentence of evidence and the seqs to link."""
        return {"inv": self.inv(), "rec": self.rec(), "foc": self.foc(), "correct": self.correct()}
