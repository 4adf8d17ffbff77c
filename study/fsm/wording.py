"""How a task's workflows say what to do: :class:`Wording` (names, instructions, descriptions, headers).

A task's workflows are built from its :class:`study.procedure.core.Procedure` (what its tools are)
and its ``Wording``. Both builders of workflow documents read it: ``task_workflows`` (the FSM,
Stop-only and bound workflows, and ``generic_wording`` for any task) and ``build_lean_workflow``
(the FSM-lean ones), so it is here, where each can import it; ``task_workflows`` re-exports it.
The referral study's wording is ``build_referral_workflow.referral_wording``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Wording:
    """Everything a task's workflows say in words (names, instructions, descriptions, headers)."""

    name: str                          # the FSM workflow's name ("ReferralAbusePerAccount")
    stop_name: str                     # the Stop-only workflow's name
    main_file: Path                    # the FSM workflow's file under the preregistration folder
    generated_by: list[str]            # the first header lines (where the file comes from)
    investigate: str
    decide: str
    done: str
    stop_work: str
    summary: str                       # "five data tools, STEP 1-4 record"
    lean: dict[str, str] = field(default_factory=dict)
    #: the frame variable that holds the item of the last record
    bind_var: str = "account"
