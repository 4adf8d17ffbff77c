"""Month-end close: six monthly periods of a synthetic trading company, one fresh context each.

``world.generate`` makes the company of a seed, ``books.close_books`` its true close (the answers,
never stored), ``workspace.build_run`` lays out a run and releases one period's inputs at a time,
``check_step.py`` is the standalone step check the FSM's guards run (it never sees an answer),
``scorer.score`` scores each period's report, ``workflow.yaml`` is the FSM and ``texts/`` the two
conditions' prompts (``prompts.first_message``). docs/staged.md.
"""

from pathlib import Path

#: the FSM workflow of the close (its guards run ../checks/check_step.py in the workspace)
WORKFLOW = Path(__file__).resolve().with_name("workflow.yaml")
