"""The workspace family: an agent works in a git workspace with the CLI's own tools.

The staged protocols of the paper's Analysis 3 (docs/staged.md), one subpackage each:
``autoresearch`` (tune a scikit-learn classifier in 25 audited trials over eight stages) and
``month_end_close`` (close six monthly periods of a synthetic trading company). Each holds its
workspace template or generator, its written procedure, its check script (what the FSM's guards
run; it never sees an answer), its scorer, its FSM workflow and the texts of both conditions.
"""

from .family import FAMILY, WorkspaceFamily, WorkspaceWork  # noqa: E402  (the family the runner sees)

__all__ = ["FAMILY", "WorkspaceFamily", "WorkspaceWork"]
