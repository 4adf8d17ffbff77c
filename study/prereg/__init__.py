"""The preregistration: freeze, verify, amend, and the audit of every session against it.
Layer 8: may import the foundations and layers 1-7 (docs/architecture.md).

See preregistration/README.md.

``check_before_run(root=None) -> str`` is what ``study run`` and ``study run-all`` call before
anything starts: it returns the effective manifest hash to record in each session, or raises
``PreregViolation`` naming every changed, missing or added file (``NotFrozen`` before any
freeze). ``read_amendments()`` returns the recorded amendments as typed records (``study.protocol.amendments``). ``code_version(root=None)`` is the
code version every session records: the git commit, ``+dirty`` whenever a frozen file that runs
(the imported code included) differs from it.
"""

from .amend import amend
from .errors import NotFrozen, PreregError, PreregViolation
from .freeze import freeze
from .imported import code_version
from .records import read_amendments
from .verify import Report, check_before_run, verify

__all__ = [
    "NotFrozen", "PreregError", "PreregViolation", "Report",
    "amend", "check_before_run", "code_version", "freeze", "read_amendments", "verify",
]
