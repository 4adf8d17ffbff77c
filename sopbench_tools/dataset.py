"""The vendored SOP-Bench task files, checked against their published sha256 on every load.

The files are the byte-for-byte copy of SOP-Bench's ``referral_abuse_detection_v2`` folder
(attribution and license in ``data/SOURCE.md`` and ``data/LICENSE``). Nothing here interprets
the SOP: this module only reads the files and refuses to go on if any of them changed.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from study.errors import StudyError

DATA_DIR = Path(__file__).resolve().parent / "data"
TASK_DIR = DATA_DIR / "referral_abuse_detection_v2"

#: sha256 of each vendored file, as published in SOURCE.md.
EXPECTED_SHA256 = {
    "metadata.json": "beb7467d1cdd9219ee4d143c6f4ba777c0c08935537d0ed8e1cbebe43b911a50",
    "sop.txt": "3fe50a576532071eecb08532fc4e850407bff3b96f9599ec34c55396c08afd0b",
    "test_set_with_outputs.csv": "7a3f3b4d9d0a65d0ef7d5ba321dc2e34d9c417dbd985fbb6f36f5d0dcbd40e05",
    "test_set_without_outputs.csv": "11bc34a293dbdc892389f352720b741f2ae8af5fa96fa233d2bdbcfe2301aab5",
    "toolspecs.json": "0f48801f7bf1614bb5f7dbe4d83b09356558490e0e31f0d5d4e261d1329aa3ce",
}

#: The seven enforcement actions of SOP section 6.1, in the SOP's order.
ACTIONS = (
    "Permanent Account Closure",
    "Account Closure",
    "Temporary Suspension",
    "Warning Issued",
    "No Action",
    "Manual Review Required",
    "Inconclusive",
)


class TaskDataError(StudyError, RuntimeError):
    """A vendored task file is missing or differs from its published hash."""


def read_checked(name: str, task_dir: Path | None = None) -> bytes:
    """The bytes of one vendored file, after checking its sha256.

    Raises TaskDataError naming the file and both hashes on a mismatch.
    """
    if name not in EXPECTED_SHA256:
        raise TaskDataError(f"{name!r} is not one of the vendored SOP-Bench files {sorted(EXPECTED_SHA256)}")
    path = (task_dir or TASK_DIR) / name
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise TaskDataError(
            f"vendored SOP-Bench file missing: {path}. Restore it from the repository "
            f"(git checkout -- {path.name}) or from SOP-Bench (see data/SOURCE.md)."
        ) from None
    actual = hashlib.sha256(data).hexdigest()
    expected = EXPECTED_SHA256[name]
    if actual != expected:
        raise TaskDataError(
            f"vendored SOP-Bench file changed: {path}\n"
            f"  expected sha256 {expected}\n"
            f"  actual   sha256 {actual}\n"
            "The task must be used unmodified; restore the file from the repository or SOP-Bench."
        )
    return data


@dataclass(frozen=True)
class Task:
    """The loaded task: the SOP text, the tool specs and the 200 account rows."""

    sop: str
    toolspecs: list[dict]
    metadata: dict
    #: account id -> row of ``test_set_without_outputs.csv`` (strings, as in the CSV)
    rows: dict[str, dict[str, str]]
    #: account id -> gold ``final_decision`` (from ``test_set_with_outputs.csv``)
    gold: dict[str, str]

    @property
    def account_ids(self) -> list[str]:
        """All account ids, in the CSV's order."""
        return list(self.rows)


def _csv_rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"))))


@lru_cache(maxsize=4)
def load_task(task_dir: Path | None = None) -> Task:
    """Load and check the vendored task (cached per folder)."""
    sop = read_checked("sop.txt", task_dir).decode("utf-8")
    toolspecs = json.loads(read_checked("toolspecs.json", task_dir))
    metadata = json.loads(read_checked("metadata.json", task_dir))
    rows = {r["account_id"]: r for r in _csv_rows(read_checked("test_set_without_outputs.csv", task_dir))}
    gold = {r["account_id"]: r["final_decision"] for r in _csv_rows(read_checked("test_set_with_outputs.csv", task_dir))}
    if set(rows) != set(gold):
        raise TaskDataError("the two CSV files list different accounts")
    return Task(sop=sop, toolspecs=toolspecs, metadata=metadata, rows=rows, gold=gold)


def gold_labels() -> dict[str, str]:
    """Account id -> gold label. For the analysis and the tests only; never shown to the agent."""
    return dict(load_task().gold)
