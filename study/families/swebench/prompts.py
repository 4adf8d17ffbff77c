"""The two agents' first messages for a SWE-bench task (the studies copy them: texts/plain.md, texts/fsm.md).

``prompts/plain.md`` (Plain): the task and the four steps (investigate; root cause, "do not
modify source code yet"; fix; verify), with investigation.md and root_cause.md committed.
``prompts/fsm.md`` (FSM): the same task with the paragraph on the workflow SWEDebug
(``workflow.yaml``) in place of the list. Neither asks for tests. Each is filled with
the issue's text alone: nothing the grading uses (gold patch, test patch, test names) reaches
them, and :func:`render` refuses an issue text that contains a test name it is given.
"""

from __future__ import annotations

from pathlib import Path

PROMPTS = Path(__file__).resolve().parent / "prompts"
CONDITIONS = ("Plain", "FSM")
WORKFLOW = Path(__file__).resolve().parent / "workflow.yaml"


def template(condition: str) -> str:
    if condition not in CONDITIONS:
        raise ValueError(f"no SWE-bench prompt for condition {condition!r}: the conditions are {', '.join(CONDITIONS)}")
    return (PROMPTS / f"{condition.lower()}.md").read_text()


def render(condition: str, problem_statement: str, graded_tests: list[str] = ()) -> str:
    """The first message of ``condition`` for an issue. ``graded_tests`` (FAIL_TO_PASS and
    PASS_TO_PASS names, when the caller has them) are checked to be absent from the message."""
    text = template(condition).replace("{problem_statement}", problem_statement.strip())
    leaked = [name for name in graded_tests if name and name in text]
    if leaked:
        raise ValueError(f"the issue text names graded tests ({', '.join(leaked[:3])}): it may not reach the agent")
    return text
