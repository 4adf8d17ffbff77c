"""The per-item workflows of any task (paper, section 3, generalised): one function per document.

Every task gets the same five workflows the referral study has, built from one
:class:`study.procedure.core.Procedure` (what the task's tools are) and its :class:`Wording` (how its instructions
say it; ``study.fsm.wording``, re-exported here):

- the FSM workflow (``<task>_per_<noun>.yaml``; FSM and Gates-only): S_investigate -> S_decide ->
  S_investigate ..., S_investigate -> S_done once the batch is complete, with the guards of
  Eqs. 4-6 over the task's required data tools, its record and its decision tool;
- ``stop_only.yaml``: one working state that permits every tool, plus the exit state;
- ``exploratory/fsm_bound.yaml``: S_decide admits the decision only for the item of the last record;
- ``exploratory/fsm_lean.yaml`` and ``exploratory/fsm_lean_bound.yaml``: the same with automatic
  transitions (``build_lean_workflow.lean_workflow``).

The guards are the named checks of ``study.fsm.referral_checks``, which read only tool names, the
item argument and the order of calls, so they fit every task. The referral study's wording is
``build_referral_workflow.referral_wording``; :func:`generic_wording` words any other task from
its item noun and tools. :func:`workflow_files` renders the documents with their headers.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from study.procedure.core import Procedure
from study.procedure.texts import number_word

from .build_lean_workflow import bound_header_lines, header_lines, lean_workflow
from .wording import Wording

STOP_ONLY_FILE = Path("workflows/stop_only.yaml")
BOUND_FILE = Path("workflows/exploratory/fsm_bound.yaml")
LEAN_FILE = Path("workflows/exploratory/fsm_lean.yaml")
LEAN_BOUND_FILE = Path("workflows/exploratory/fsm_lean_bound.yaml")
CHECK_MODULE = "study.fsm.referral_checks"

def all_of(n: int, things: str) -> str:
    """``all five data tools``, ``both data tools`` (``things`` in the plural; n >= 2)."""
    return f"both {things}" if n == 2 else f"all {number_word(n)} {things}"


def _eq_descriptions(p: Procedure) -> tuple[str, str, str]:
    n = len(p.data_tools)
    tools = f"{all_of(n, 'data tools')} were" if n != 1 else "its data tool was"
    return (
        f"Eq. 4: the last record's {p.noun} is undecided, {tools} called for it before the record, "
        f"and no other {p.noun}'s data was retrieved since the first of those calls.",
        f"Eq. 5: the recorded {p.noun} was decided after its record.",
        f"Eq. 6: every {p.noun} of the batch has a decision.",
    )


def per_item_workflow(p: Procedure, w: Wording, *, name: str, bound: bool) -> dict:
    """The FSM workflow (``bound``: S_decide admits the decision only for the recorded item)."""
    decision_rule: object = p.decision_tool
    if bound:
        decision_rule = {"tool": p.decision_tool, "args": {p.item_arg: {"equals_var": w.bind_var}}}
    read_only = list(p.listing_tools + p.lookup_tools)
    params = p.check_params()
    eq4, eq5, eq6 = _eq_descriptions(p)
    return {
        "workflow": name,
        "description": (
            f"One {p.noun} at a time: investigate ({w.summary}), then decide; exit once every {p.noun} "
            "of the batch is decided. Guards: paper Eqs. 4-6."
            + (f" EXPLORATORY: {p.decision_tool} is bound to the {p.noun} of the last record." if bound else "")
        ),
        "tools": list(p.all_tools),
        "check_modules": [CHECK_MODULE],
        "variables": {"batch": [], w.bind_var: None},
        "initial": "S_investigate",
        "exit": "S_done",
        "pause": [],
        "states": {
            "S_investigate": {
                "instructions": w.investigate,
                "exit_conditions": [],
                "allow": list(p.data_tools + p.optional_tools) + [p.record_tool] + read_only,
            },
            "S_decide": {"instructions": w.decide, "exit_conditions": [], "allow": [decision_rule] + read_only},
            "S_done": {"instructions": w.done, "allow": list(p.listing_tools)},
        },
        "transitions": [
            {"from": "S_investigate", "to": "S_decide", "description": eq4,
             "guard": {"hard": [{"check": "item_recorded_exclusively", "with": dict(params, bind_var=w.bind_var)}]}},
            {"from": "S_decide", "to": "S_investigate", "description": eq5,
             "guard": {"hard": [{"check": "item_decided_since_record", "with": dict(params)}]}},
            {"from": "S_investigate", "to": "S_done", "description": eq6,
             "guard": {"hard": [{"check": "batch_complete", "with": dict(params, batch_var="batch")}]}},
        ],
    }


def stop_only_workflow(p: Procedure, w: Wording) -> dict:
    """The Stop-only ablation: one working state permitting every tool; S_done is the way out."""
    return {
        "workflow": w.stop_name,
        "description": "Stop-only ablation: one working state that permits every tool; the stop gate keeps the agent working until the batch is complete and it exits.",
        "tools": list(p.all_tools),
        "check_modules": [CHECK_MODULE],
        "variables": {"batch": []},
        "initial": "S_work",
        "exit": "S_done",
        "pause": [],
        "states": {
            "S_work": {"instructions": w.stop_work, "allow": ["*"]},
            "S_done": {"instructions": w.done, "allow": list(p.listing_tools)},
        },
        "transitions": [
            {
                "from": "S_work",
                "to": "S_done",
                "description": f"Every {p.noun} of the batch has a decision (the only way out, so the turn can end when the work is done).",
                "guard": {"hard": [{"check": "batch_complete", "with": dict(p.check_params(), batch_var="batch")}]},
            }
        ],
    }


# -- rendering --------------------------------------------------------------------------------------

class _BlockDumper(yaml.SafeDumper):
    """Writes multi-line strings as literal blocks, so instructions stay readable; no anchors."""

    def ignore_aliases(self, data: object) -> bool:
        return True


def _str_representer(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _str_representer)


def dump(doc: dict) -> str:
    return yaml.dump(doc, Dumper=_BlockDumper, sort_keys=False, width=100, allow_unicode=True)


def header(w: Wording, lines: list[str]) -> str:
    out = list(w.generated_by) + [f"# {line}" if line else "#" for line in lines]
    return "\n".join(out) + "\n"


def workflow_files(p: Procedure, w: Wording) -> dict[Path, str]:
    """The five workflow files (relative path under the preregistration folder -> text)."""
    main_name = w.main_file.name
    main = per_item_workflow(p, w, name=w.name, bound=False)
    bound = per_item_workflow(p, w, name=w.name + "Bound", bound=True)
    return {
        w.main_file: header(w, [
            "Condition FSM, and Gates-only (the runner installs no stop gate for it).",
            "Paper section 3: S_investigate -> S_decide -> S_investigate, S_investigate -> S_done.",
            f"Static permissions: S_decide admits {p.decision_tool} for ANY {p.noun} (the route the paper left open).",
        ]) + dump(main),
        STOP_ONLY_FILE: header(w, [
            "Condition Stop-only: a single working state permitting all tools, stop gate only.",
            "S_done is the exit state, entered when the batch is complete, so the workflow can be left",
            "(and the turn ended) once the work is done.",
        ]) + dump(stop_only_workflow(p, w)),
        BOUND_FILE: header(w, [
            "EXPLORATORY - NOT PART OF THE PREREGISTERED SET OF CONDITIONS.",
            f"Like {main_name}, but S_decide admits {p.decision_tool} only for the",
            f"{p.noun} of the last record (frame variable `{w.bind_var}`, set by the S_investigate -> S_decide guard).",
        ]) + dump(bound),
        LEAN_FILE: header(w, header_lines(main_name)) + dump(lean_workflow(main, w.name + "Lean", p, w)),
        LEAN_BOUND_FILE: header(w, bound_header_lines(p, w))
        + dump(lean_workflow(bound, w.name + "LeanBound", p, w)),
    }


# -- the wording of any task --------------------------------------------------------------------------

def _camel(text: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in text.replace("-", "_").split("_") if part)


def _early_exit_note(p: Procedure) -> str:
    """The investigate instruction's sentence on the SOP's early exits (empty: the task has none)."""
    if not p.exit_tools:
        return ""
    parts = []
    for tool, covered in p.exit_tools:
        rest = [c for c in covered if c != tool]
        parts.append(f"{tool} refuses it" + (f" (then {', '.join(rest)} {'is' if len(rest) == 1 else 'are'} not needed)" if rest else ""))
    return (f"   If {'; or if '.join(parts)}, the SOP's procedure for this {p.noun} ends there: "
            "go on with step 2.\n")


def generic_wording(task_name: str, p: Procedure, *, sop_path: str, sop_sha256: str,
                    tool_order_note: str = "") -> Wording:
    """How the workflows of ``task_name`` (any task but the referral study's) say what to do."""
    n = number_word(len(p.data_tools))
    tools = ", ".join(p.data_tools)
    retrieve = f"{all_of(len(p.data_tools), 'data sets')} for it: {tools}" if len(p.data_tools) != 1 else f"its data set: {tools}"
    return Wording(
        name=f"{_camel(task_name)}Per{_camel(p.noun)}",
        stop_name=f"{_camel(task_name)}StopOnly",
        main_file=Path(f"workflows/{task_name}_per_{p.noun.replace(' ', '_')}.yaml"),
        generated_by=[
            f"# Generated by study/fsm/task_workflows.py from the SOP of task {task_name}",
            f"# ({sop_path}, sha256 {sop_sha256}).",
            f"# Do not edit by hand: run `study fsm build --task {task_name}`.",
        ],
        investigate=(
            f"Investigate ONE {p.noun}, the next undecided one of the batch (list_batch shows it).\n"
            f"1. Retrieve {retrieve}{tool_order_note}.\n"
            + _early_exit_note(p)
            + f"2. Apply the SOP to those results and call {p.record_tool} for the {p.noun}.\n"
            "3. self_check with target S_decide, then transition with the token it returns.\n"
            f"Do not retrieve another {p.noun}'s data before this {p.noun} is decided."
        ),
        decide=(
            f"Submit the decision for the {p.noun} you just recorded: call {p.decision_tool} with its "
            f"{p.item_arg} and the decision your record names (as the SOP prescribes).\n"
            f"Then self_check with target S_investigate and transition back to investigate the next {p.noun}."
        ),
        done=f"Every {p.noun} of the batch has a decision. Call exit to leave the workflow; then you may end your turn.",
        stop_work=(
            f"Process the {p.plural} of the batch one at a time, as the SOP and the first message describe. "
            f"When every {p.noun} has a decision, self_check with target S_done and transition."
        ),
        summary=f"{n} data tool{'s' if len(p.data_tools) != 1 else ''}, the record",
        lean={
            "S_investigate": f"Investigate the next undecided {p.noun}: its {n} data set{'s' if len(p.data_tools) != 1 else ''}, then {p.record_tool}.",
            "S_decide": f"Call {p.decision_tool} for it with the decision your record names.",
            "S_done": "The batch is complete: you may end your turn.",
        },
        bind_var="item",
    )
