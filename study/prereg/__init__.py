"""The preregistration: freeze, verify, amend and audit (see preregistration/README.md).

``check_before_run(root=None) -> str`` is what ``study run`` and ``study run-all`` call before
anything starts: it returns the effective manifest hash to record in each session, or raises
``PreregViolation`` naming every changed, missing or added file (``NotFrozen`` before any
freeze). ``read_amendments()`` lists the amendments for the tables.
"""

from .amend import amend
from .errors import NotFrozen, PreregError, PreregViolation
from .freeze import freeze
from .records import read_amendments
from .verify import Report, check_before_run, verify

__all__ = [
    "NotFrozen", "PreregError", "PreregViolation", "Report",
    "amend", "check_before_run", "freeze", "read_amendments", "verify",
]
