"""Reading one session's ``events.jsonl``: the analysis's names for ``study.session_io.reader``.

The strict reader validates the whole log (docs/contracts.md, "Validation of a log") and raises
``LogError`` naming the file, the line and the rule; a torn last line (a crash while it was
written) is the one tolerated defect, reported in ``LogRead.warnings`` and skipped.
"""

from study.session_io.issues import LogError, MetaError
from study.session_io.reader import LogRead, read_log, read_session

__all__ = ["LogError", "LogRead", "MetaError", "read_log", "read_session"]
