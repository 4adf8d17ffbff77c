"""The errors of the preregistration machinery.

``PreregError`` is a refused request (a freeze on a dirty tree, an amendment without a reason);
its message says what to do. ``PreregViolation`` is the run check failing: the frozen files, the
manifest or the amendment chain no longer agree. ``NotFrozen`` is the special case of no freeze
at all, so a caller can tell "not frozen yet" from "frozen and then changed".
"""

from __future__ import annotations

from study.errors import StudyError


class PreregError(StudyError):
    """A preregistration command was refused; the message says why and what to do."""


class PreregViolation(PreregError):
    """The preregistration check failed: a run must not start.

    ``changed``, ``missing`` and ``added`` list the files (paths relative to the project root)
    that differ from the manifest in effect; ``problems`` lists what is wrong with the manifest,
    ``freeze.json`` or the amendment chain, each naming its file (and line).
    """

    def __init__(self, message: str, *, changed=(), missing=(), added=(), problems=()):
        super().__init__(message)
        self.changed = list(changed)
        self.missing = list(missing)
        self.added = list(added)
        self.problems = list(problems)


class NotFrozen(PreregViolation):
    """There is no freeze yet: ``study prereg freeze`` has not been run in this tree."""
