"""The files of a preregistered staged-protocol study, written from the family's own files.

``study_files(protocol, name, turns=...)`` gives every file of ``preregistration/studies/<name>/``:
``study.yaml`` (family ``workspace``, numbered by seed; the protocol, its preregistered seeds, the
contexts a run may have), ``conditions.yaml`` (Plain: the procedure in the prompt; FSM: the same
procedure enforced by the protocol's workflow), ``limits.yaml`` (the turn cap of one context, its
time limit, the run's budget checked before each context), ``workflows/<protocol>.yaml`` (the
protocol's workflow, byte for byte), ``plan.md`` and a ``README.md``. The prompts and the
workspace templates are the family's code (``study/families/workspace/``), frozen with it.
``study staged build`` writes them; ``--check`` says whether the files on disk are these bytes.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
#: protocol -> (its package folder, the study's default name, its seeds, its contexts, the paper's turn cap)
PROTOCOLS = {
    "autoresearch": (HERE / "autoresearch", "autoresearch", [1, 2, 3, 4], 10, 200),
    "month-end-close": (HERE / "month_end_close", "month-end-close", [1, 2], 6, 40),
}


def _study_yaml(protocol: str, name: str, seeds: list[int], contexts: int) -> str:
    what = {"autoresearch": "AutoResearch: tune a scikit-learn classifier in 25 audited trials over eight stages",
            "month-end-close": "Month-end close: six monthly periods of a synthetic trading company"}[protocol]
    return f"""# A preregistered staged protocol (the paper's Analysis 3, section 5.3 and appendix D.3), written by
# `study staged build --protocol {protocol}`. Frozen by `study prereg freeze` with the rest of preregistration/.
study: {name}
family: workspace
title: "{what}"
unit: seed            # session s is the run of seed s (its folder seed-<s>)
params:
  protocol: {protocol}
  seeds: [{', '.join(map(str, seeds))}]       # the preregistered runs
  contexts: {contexts}          # fresh contexts a run may have ({'one stage each' if protocol == 'autoresearch' else 'one period each'})
"""


CONDITIONS = """# The two agents of the paper's Analysis 3: Plain gets the procedure in the prompt; FSM the same
# procedure, enforced by the protocol's workflow (its gate admits each state's commands and edits,
# its transitions run the protocol's check script over the workspace, its stop gate holds the turn).
schema: 1
cli_settings:
  token_reminder: default
  disable_nonessential_traffic: true
conditions:
  Plain:
    sop_in_system_prompt: false
    reminder: false
    resume: false
    workflow: null
    tool_gate: false
    stop_gate: false
    fsm_paragraph: false
    state_in_message: false
  FSM:
    sop_in_system_prompt: false
    reminder: false
    resume: false
    workflow: {workflow}
    tool_gate: true
    stop_gate: true
    fsm_paragraph: false
    state_in_message: true
"""


def _limits(protocol: str, turns: int, minutes: float) -> str:
    budget = "budget_per_run: 8            # checked before each context starts (a run may end slightly above it)\n" \
        if protocol == "month-end-close" else ""
    return f"""# The external limits of one run (a session of fresh contexts).
schema: 1
spending:
  default: {12 if protocol == 'month-end-close' else 25}                   # the hard cap, enforced as the usage streams
{budget}turns: {turns}                       # the turn cap of one context
no_decision_minutes: {minutes:g}          # the time limit of one context (a run of contexts has no decisions)
stop_blocks: 50
resumes: 5
resumes_without_decision: 2
wall_time_hours: 6
"""


def _plan(protocol: str, seeds: list[int], turns: int) -> str:
    if protocol == "autoresearch":
        body = ("Valid ledger rows (of 25 required), complete protocol (every row valid, the eight stages in order), "
                "best kept accuracy, cost and time, per campaign; Plain against FSM (Tables 5 and 10a).")
    else:
        body = (f"Correct periods (all eleven report fields within tolerance) of six, each in a fresh context, at "
                f"{turns} turns per period; Plain against FSM (Tables 5 and 10b).")
    return f"""# Study plan: {protocol}

The paper's Analysis 3 (section 5.3, appendix D.3; docs/staged.md). Seeds {', '.join(map(str, seeds))}, one run
per seed and condition, each run a sequence of fresh contexts sharing only the workspace's files and
the FSM's frames.

## Outcome
{body}

## Exclusions and reruns
Voided runs (infrastructure failures, interruptions) are rerun from scratch; nothing else is excluded.
"""


def study_files(protocol: str, name: str | None = None, *, turns: int | None = None,
                minutes: float | None = None, seeds: list[int] | None = None) -> dict[str, str]:
    """Every file of the study of ``protocol`` (relative path -> text)."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"no staged protocol {protocol!r}: the protocols are {', '.join(PROTOCOLS)}")
    folder, default_name, default_seeds, contexts, default_turns = PROTOCOLS[protocol]
    name = name or default_name
    turns = turns or default_turns
    minutes = minutes if minutes is not None else (5.0 if turns >= 40 else 4.0) if protocol == "month-end-close" else 30.0
    seeds = seeds or default_seeds
    workflow = f"{protocol}.yaml"
    return {
        "study.yaml": _study_yaml(protocol, name, seeds, contexts),
        "conditions.yaml": CONDITIONS.format(workflow=workflow),
        "limits.yaml": _limits(protocol, turns, minutes),
        f"workflows/{workflow}": (folder / "workflow.yaml").read_text(encoding="utf-8"),
        "plan.md": _plan(protocol, seeds, turns),
        "README.md": (f"# {name}\n\nWritten by `study staged build --protocol {protocol}`; frozen with the rest of "
                      f"preregistration/ by `study prereg freeze`. Run it with `study run-all --study {name} --seeds "
                      f"{seeds[0]}-{seeds[-1]}` (docs/staged.md).\n"),
    }


def differences(root: Path, protocol: str, name: str | None = None, **options) -> list[str]:
    """The files of the study's folder that are not the builder's bytes (missing, changed, added)."""
    from study.families.study_files import differences as folder_differences

    return folder_differences(root, study_files(protocol, name, **options))
