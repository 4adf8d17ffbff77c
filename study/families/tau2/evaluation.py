"""Scoring by the benchmark: tau2's own evaluator on the conversation's ``SimulationRun``.

``evaluate_simulation`` (tau2/evaluator/evaluator.py) multiplies the checks the task's
``reward_basis`` names: environment (DB hash, environment assertions), actions, communication,
and natural-language assertions, which need a judge model. Without a judge, tau2 refuses to score
a task whose basis has ``NL_ASSERTION`` (it raises): such a task is recorded ``judged: false``
with its reward ``None`` (neither passed nor failed) and the deterministic parts still computed.
A task whose basis names ``NL_ASSERTION`` but that lists no assertion (29 of retail's 40 test
tasks) needs no judge: tau2's NL evaluator scores an empty list 1.0 without calling a model, so
it is scored with ``ALL_WITH_NL_ASSERTIONS`` offline too, exactly as tau2 scores it with a judge.
With a judge (a :class:`~study.families.tau2.conversation.ModelEndpoint`), tau2's NL-assertion
evaluator is pointed at it (tau2 reads its judge model from a module constant; it is set for the
call and restored) and the task is scored with ``ALL_WITH_NL_ASSERTIONS``.

``parts`` holds every check tau2 computed, by tau2's ``RewardType`` name (``DB``,
``ENV_ASSERTION``, ``ACTION``, ``COMMUNICATE``, ``NL_ASSERTION``), whether or not the basis names it.
"""

from __future__ import annotations

import threading
from typing import Any

from .conversation import ModelEndpoint, import_tau2

_judge_lock = threading.Lock()
#: Termination reasons tau2 scores (any other scores 0: "terminated prematurely").
SCORED = ("agent_stop", "user_stop")


def _parts(info: Any) -> dict[str, float]:
    return {str(getattr(k, "value", k)): float(v) for k, v in (info.reward_breakdown or {}).items()}


def evaluate(simulation: Any, task: Any, domain: str, judge: "ModelEndpoint | RecordedJudge | None" = None) -> dict[str, Any]:
    """tau2's verdict on ``simulation``: ``reward`` (None when not judged), ``parts``,
    ``reward_basis``, ``judged``, ``note`` (tau2's, e.g. a premature termination) and
    ``reward_info`` (tau2's ``RewardInfo``, to keep in the simulation record)."""
    import_tau2()
    from tau2.data_model.tasks import RewardType
    from tau2.evaluator import evaluator as tau2_evaluator
    from tau2.evaluator.evaluator_action import ActionEvaluator
    from tau2.evaluator.evaluator_communicate import CommunicateEvaluator
    from tau2.evaluator.evaluator_env import EnvironmentEvaluator
    from tau2.registry import registry

    criteria = task.evaluation_criteria
    basis = [str(getattr(b, "value", b)) for b in (criteria.reward_basis if criteria is not None else [])]
    needs_judge = RewardType.NL_ASSERTION.value in basis and bool(criteria.nl_assertions)
    # NL_ASSERTION named with no assertion listed: tau2's NL evaluator answers 1.0 without a model
    nl_without_judge = RewardType.NL_ASSERTION.value in basis and not needs_judge
    reason = str(getattr(simulation.termination_reason, "value", simulation.termination_reason))
    parts: dict[str, float] = {}
    if criteria is not None and reason in SCORED:
        messages = simulation.messages
        env = EnvironmentEvaluator.calculate_reward(environment_constructor=registry.get_env_constructor(domain),
                                                    task=task, full_trajectory=messages, solo_mode=False)
        parts.update(_parts(env))
        parts.update(_parts(ActionEvaluator.calculate_reward(task=task, full_trajectory=messages)))
        parts.update(_parts(CommunicateEvaluator.calculate_reward(task=task, full_trajectory=messages)))
    if needs_judge and judge is None:
        if reason in SCORED:
            return {"reward": None, "parts": parts, "reward_basis": basis, "judged": False,
                    "note": "NL_ASSERTION is in the task's reward basis and no judge model was configured: not scored",
                    "reward_info": None}
        # tau2 scores a premature end 0 before it looks at any check: that needs no judge
    with_nl = judge is not None or nl_without_judge
    kind = tau2_evaluator.EvaluationType.ALL_WITH_NL_ASSERTIONS if with_nl else tau2_evaluator.EvaluationType.ALL
    with _judged_by(judge):
        info = tau2_evaluator.evaluate_simulation(simulation=simulation, task=task, evaluation_type=kind,
                                                  solo_mode=False, domain=domain)
    parts.update(_parts(info))
    note = (info.info or {}).get("note") if isinstance(info.info, dict) else None
    judged = judge is not None or not needs_judge or reason not in SCORED  # a premature end scores 0 unjudged
    return {"reward": float(info.reward), "parts": parts, "reward_basis": basis, "judged": judged, "note": note,
            "reward_info": info}


class RecordedJudge:
    """The judge's verdicts a session recorded (``tau2_run.json``'s ``reward_info.nl_assertions``),
    given back to tau2's evaluator in place of a model: how the audit re-scores a judged task
    offline (``evidence.py``). ``checks``: the recorded ``NLAssertionCheck`` records, one per
    assertion of the task in its order; another list is refused by :meth:`checks_for`."""

    def __init__(self, checks: list[Any]):
        self.checks = list(checks)

    def checks_for(self, assertions: list[str]) -> list[Any]:
        said = [getattr(c, "nl_assertion", None) for c in self.checks]
        if said != list(assertions):
            raise ValueError(f"the recorded judge's verdicts name {len(said)} assertion(s) that are not the task's "
                             f"{len(assertions)} in order")
        return list(self.checks)

    def describe(self) -> dict[str, Any]:
        return {"model": "recorded", "api": "recorded", "base_url": None, "args": {}}


class _judged_by:
    """Point tau2's NL-assertion judge at ``judge`` for the block (None: leave it alone; a
    :class:`RecordedJudge`: its recorded verdicts answer instead of a model)."""

    def __init__(self, judge: "ModelEndpoint | RecordedJudge | None"):
        self.judge = judge
        self.saved: tuple[Any, ...] | None = None

    def __enter__(self) -> None:
        if self.judge is None:
            return
        from tau2.evaluator import evaluator_nl_assertions as nl

        _judge_lock.acquire()
        if isinstance(self.judge, RecordedJudge):
            recorded = self.judge
            self.saved = ("recorded", nl.NLAssertionsEvaluator.__dict__["evaluate_nl_assertions"])
            nl.NLAssertionsEvaluator.evaluate_nl_assertions = classmethod(
                lambda cls, trajectory, nl_assertions: recorded.checks_for(nl_assertions))
            return
        self.saved = (nl.DEFAULT_LLM_NL_ASSERTIONS, nl.DEFAULT_LLM_NL_ASSERTIONS_ARGS)
        nl.DEFAULT_LLM_NL_ASSERTIONS, nl.DEFAULT_LLM_NL_ASSERTIONS_ARGS = self.judge.litellm()

    def __exit__(self, *exc: object) -> None:
        if self.saved is None:
            return
        from tau2.evaluator import evaluator_nl_assertions as nl

        if self.saved[0] == "recorded":
            nl.NLAssertionsEvaluator.evaluate_nl_assertions = self.saved[1]
        else:
            nl.DEFAULT_LLM_NL_ASSERTIONS, nl.DEFAULT_LLM_NL_ASSERTIONS_ARGS = self.saved
        _judge_lock.release()
