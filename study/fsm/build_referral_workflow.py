"""Generate the study's workflows and the reminder text from the SOP (paper, section 3).

Writes, under ``preregistration/``:

- ``workflows/referral_abuse_per_account.yaml`` — the FSM condition (and Gates-only, whose runner
  simply installs no stop gate): S_investigate -> S_decide -> S_investigate ..., and
  S_investigate -> S_done once the batch is complete; guards of Eqs. 4-6.
- ``workflows/stop_only.yaml`` — Stop-only: one working state that permits every tool. Its
  only other state, S_done, is the exit state, reached when the batch is complete, so that the
  agent can leave the workflow (and end its turn) once the work is done; without it the stop
  gate could never let the turn end.
- ``workflows/exploratory/fsm_bound.yaml`` — exploratory, outside the preregistered set: the
  FSM workflow whose S_decide admits ``submit_decision`` only for the account of the last record
  (a permission over a frame variable), closing the route the paper's static permissions leave
  open.
- ``workflows/exploratory/fsm_lean.yaml`` — exploratory: the FSM workflow with automatic
  (runtime-driven) transitions (condition FSM-lean; see ``build_lean_workflow.py``), and
  ``workflows/exploratory/fsm_lean_bound.yaml``, the same item-bound (condition FSM-lean-bound).
- ``texts/reminder.md`` — the SOP's decision section (5.7) and its critical rules (the CRITICAL
  list of 6.1), copied verbatim, plus the paragraph on unattended one-at-a-time processing;
  ``texts/exploratory/fsm_lean_reminder.md`` (FSM-lean's and FSM-lean-bound's), the same without
  that paragraph: under those conditions the workflow enforces what it asks (one account at a
  time, every data set before the record, the record before the decision, no stop before every
  account is decided) and the first message's paragraph states it once.

The tool names come from ``sopbench_tools.toolbox``; the section texts and titles from the
vendored, hash-checked SOP. Run ``study fsm build-referral`` to write the files, or with
``--check`` to verify that the committed files are what this script generates (writing and
comparing are ``build_output``'s, shared with ``task_build``).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from sopbench_tools.dataset import load_task
from sopbench_tools.tool_definitions import DATA_TOOLS, DECISION_TOOL, RECORD_TOOL

from study.errors import StudyError
from study.paths import prereg_dir
from study.procedure.core import referral_procedure

from .build_output import file_differences, write_files
from .task_workflows import BOUND_FILE, LEAN_BOUND_FILE, LEAN_FILE, STOP_ONLY_FILE, Wording, dump, workflow_files

#: The YAML rendering of the generated workflows (``study.fsm.edits`` renders edited ones with it).
_dump = dump

MAIN_FILE = Path("workflows/referral_abuse_per_account.yaml")
REMINDER_FILE = Path("texts/reminder.md")
#: FSM-lean's per-account reminder: the SOP's part of the reminder (see the module docstring)
LEAN_REMINDER_FILE = Path("texts/exploratory/fsm_lean_reminder.md")
__all__ = ["BOUND_FILE", "LEAN_BOUND_FILE", "LEAN_FILE", "LEAN_REMINDER_FILE", "MAIN_FILE", "REMINDER_FILE", "STOP_ONLY_FILE",
           "generated_files", "differences", "write", "referral_wording", "REFERRAL_PROCEDURE"]

#: The referral study's tools (sopbench_tools.tool_definitions).
REFERRAL_PROCEDURE = referral_procedure()

UNATTENDED_PARAGRAPH = (
    "This run is unattended: nobody will reply to you. Process the accounts one at a time: "
    "retrieve all five data sets for one account, score STEP 1-4, record the analysis, submit "
    "that account's decision, and only then move to the next account. There is no need to stop, "
    "summarise, pause or rush: keep working until every account in the batch has a decision."
)


class SopFormatError(StudyError, RuntimeError):
    """The SOP text lacks a section this script copies."""


# -- reading the SOP ------------------------------------------------------------------------------

def decision_section(sop: str) -> str:
    """Section 5.7, from its heading up to (not including) "6. Output", verbatim."""
    start = sop.find("5.7 Determine Risk Severity and Enforcement Action")
    end = sop.find("\n6. Output")
    if start < 0 or end < start:
        raise SopFormatError("SOP section 5.7 (up to '6. Output') not found")
    return sop[start:end].strip("\n")


def critical_rules(sop: str) -> str:
    """The 'CRITICAL:' list at the end of 6.1, verbatim."""
    start = sop.rfind("\nCRITICAL:")
    if start < 0:
        raise SopFormatError("the CRITICAL rules of SOP 6.1 were not found")
    return sop[start + 1:].strip("\n")


def investigation_titles(sop: str) -> list[str]:
    """Titles of the investigation sections 5.1-5.5 (e.g. '5.1 Account Investigation Process')."""
    titles = re.findall(r"^(5\.[1-5] [^\n]+)$", sop, flags=re.MULTILINE)
    if len(titles) != 5:
        raise SopFormatError(f"expected five investigation sections 5.1-5.5, found {titles}")
    return [t.strip() for t in titles]


# -- building the texts ---------------------------------------------------------------------------

def reminder_text(sop: str) -> str:
    return f"{lean_reminder_text(sop)}\n{UNATTENDED_PARAGRAPH}\n"


def lean_reminder_text(sop: str) -> str:
    """The reminder without its unattended paragraph (FSM-lean's: see the module docstring)."""
    return f"{decision_section(sop)}\n\n{critical_rules(sop)}\n"


def referral_wording(sop: str) -> Wording:
    """How the referral study's workflows say what to do (citing the SOP's sections)."""
    digest = hashlib.sha256(sop.encode("utf-8")).hexdigest()
    titles = "; ".join(investigation_titles(sop))
    return Wording(
        name="ReferralAbusePerAccount",
        stop_name="ReferralAbuseStopOnly",
        main_file=MAIN_FILE,
        generated_by=[
            "# Generated by study/fsm/build_referral_workflow.py from the vendored SOP",
            f"# (sopbench_tools/data/referral_abuse_detection_v2/sop.txt, sha256 {digest}).",
            "# Do not edit by hand: change the script and run `study fsm build-referral`.",
        ],
        investigate=(
            "Investigate ONE account, the next undecided one of the batch (list_batch shows it).\n"
            f"1. Retrieve all five data sets for it: {', '.join(DATA_TOOLS)} (SOP {titles}).\n"
            f"2. Score STEP 1-4 of SOP 5.7 from those results and call {RECORD_TOOL} for the account.\n"
            "3. self_check with target S_decide, then transition with the token it returns.\n"
            "Do not retrieve another account's data before this account is decided."
        ),
        decide=(
            f"Submit the decision for the account you just recorded: call {DECISION_TOOL} with its "
            "account_id and the action of your STEP 4 (SOP 5.7 STEP 4 and 6.1).\n"
            "Then self_check with target S_investigate and transition back to investigate the next account."
        ),
        done="Every account of the batch has a decision. Call exit to leave the workflow; then you may end your turn.",
        stop_work=(
            "Process the accounts of the batch one at a time, as the SOP and the first message describe. "
            "When every account has a decision, self_check with target S_done and transition."
        ),
        summary="five data tools, STEP 1-4 record",
        lean={
            "S_investigate": f"Investigate the next undecided account: its five data sets, then {RECORD_TOOL}.",
            "S_decide": f"Call {DECISION_TOOL} for it with the action of your STEP 4.",
            "S_done": "The batch is complete: you may end your turn.",
        },
    )


def generated_files(sop: str | None = None) -> dict[Path, str]:
    """Relative path under preregistration/ -> file text."""
    sop = sop if sop is not None else load_task().sop
    files = workflow_files(REFERRAL_PROCEDURE, referral_wording(sop))
    files[REMINDER_FILE] = reminder_text(sop)
    files[LEAN_REMINDER_FILE] = lean_reminder_text(sop)
    return files


def write(root: Path | None = None) -> list[Path]:
    """Write every generated file under ``root`` (default: preregistration/); return the paths."""
    return write_files(generated_files(), root or prereg_dir())


def differences(root: Path | None = None) -> list[str]:
    """Files under ``root`` that differ from what the script generates (empty: all match)."""
    return file_differences(generated_files(), root or prereg_dir())


if __name__ == "__main__":
    for p in write():
        print(p)
