"""One scored decision and the clauses it is scored by (DESIGN.md "Scoring", the paper's appendix A).

``AccountScore`` is what the scorer (``analysis.scoring``) makes of one decision; ``_inv``,
``_rec`` and ``_foc`` are its clauses, computed from the positions (``seq``) of the account's
last retrievals and record and of the last data call for another account before the decision.
They are here, on their own, because two modules read them: the scorer, which decides every
clause through them, and ``analysis.evidence``, which re-reads each verdict through the same
predicates (so what ``study view`` shows can never disagree with the tables). Both import them
from here; ``analysis.scoring`` also re-exports them.
"""

from __future__ import annotations

from typing import NamedTuple

#: Accounts per window of Table 1's "FC per 50 accounts".
WINDOW = 50


def window_label(i: int, accounts: int = 200) -> str:
    """Accounts of window ``i`` (0-based) in a batch of ``accounts``, e.g. "51-100", or "1-20"
    for a batch of 20 (here, beside ``WINDOW``, so that ``study score`` shows it without loading
    the tables; ``analysis.tables`` re-exports it)."""
    return f"{WINDOW * i + 1}-{min(WINDOW * (i + 1), accounts)}"


class AccountScore(NamedTuple):
    """The scored decision of one account (a named tuple: cheap to build and to pickle)."""

    account: str
    position: int          # 0-based position in the session's order
    decision_seq: int      # position of the decision in the log
    decision_index: int    # 0 for the session's first decision, 1 for the second, …
    action: str
    gold: str
    data_tools: int        # how many of the required data tools succeeded for it before the decision
    inv: bool
    rec: bool
    foc: bool

    @property
    def compliant(self) -> bool:
        return self.inv and self.rec and self.foc

    @property
    def correct(self) -> bool:
        return self.action == self.gold

    @property
    def window(self) -> int:
        return self.position // WINDOW


def _inv(retrieved: dict[str, int], required: int = 5) -> bool:
    """inv: every required data tool (``required`` of them: the referral study's five unless the
    task says otherwise) has a last successful call for the account before the decision."""
    return len(retrieved) == required


def _rec(record: tuple[int, str | None] | None, action: str | None, retrieved: dict[str, int]) -> bool:
    """rec: the last record comes after every retrieval and names the submitted action."""
    return (record is not None and record[1] == action
            and (not retrieved or record[0] > max(retrieved.values())))


def _foc(retrieved: dict[str, int], latest_other: int) -> bool:
    """foc: no data call for another account since the first of the account's last retrievals."""
    first = min(retrieved.values(), default=None)
    return first is None or latest_other < first
