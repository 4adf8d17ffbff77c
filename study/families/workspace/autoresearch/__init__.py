"""AutoResearch: tune a classifier in 25 trials over eight stages, every trial a ledger row.

``workspace.build_run`` lays out a run (the git workspace from ``template/`` and the stage check
beside it), ``stage_check.py`` is the standalone check the FSM's guards run, ``scorer.score`` scores
a ledger from the workspace alone, ``workflow.yaml`` is the FSM and ``texts/`` the two
conditions' prompts (``texts.first_message``). docs/staged.md.
"""

from pathlib import Path

#: the FSM workflow of the protocol (its guards run ../checks/stage_check.py in the workspace)
WORKFLOW = Path(__file__).resolve().with_name("workflow.yaml")
