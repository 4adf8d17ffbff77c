"""The τ²-bench family as the runner sees it: which sessions a study has, and each one's ``Work``.

A τ²-bench study (``preregistration/studies/<name>/study.yaml``, ``family: tau2``, ``unit: task``)
names in its ``params`` the domain, the split, the file of its frozen task order (the split's
task ids by the sha256 of each id, ``data.frozen_order``; a segment of a run extends this list,
never reorders it), the customer's model (a models.yaml alias; the paper's gpt-5.4-mini) with its
arguments, and the judge's (None where no task's reward needs one: Telecom). Session ``k`` of the
study is the ``k``-th task of that order (its folder ``task-<k>``): the task id goes into the log
(``session_start``'s ``order``, ``outcome``) and never into anything the agent, the customer's
instructions or the FSM see.

``open_work`` builds the session's :class:`Tau2Work` from the runner's set-up: the study's frozen
texts (``texts/``), the customer's and the judge's endpoints (``WorkSetup.options``: the runner
resolves the models, or starts the simulator's customer for a simulated session, and meters
them: each response priced, logged and counted against the spending cap), the Telecom
controller under an FSM condition, and the seed ``tau2 run`` gives trial 0 under the study's
``tau2_seed`` (300, tau2's default: ``conversation.trial_seed``), as the paper's one run per task.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .availability import tau2_problem

#: The roles of the models a τ²-bench session needs beside the agent's.
SIDE_ROLES = ("customer", "judge")


class Tau2StudyError(ValueError):
    """A τ²-bench study's study.yaml or order file that cannot be used: the message says what to do."""


def order_of(study: Any) -> list[str]:
    """The study's frozen task order (its ``params.order`` file, one task id a line)."""
    params = study.params
    name = params.get("order")
    if not isinstance(name, str) or not name:
        raise Tau2StudyError(f"{study.root / 'study.yaml'}: params.order must name the frozen task order file "
                             "(e.g. orders/telecom-test.txt)")
    path = study.root / name
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise Tau2StudyError(f"{path}: the frozen task order cannot be read ({exc.strerror or exc}); restore it "
                             f"from the repository (git checkout -- {path})") from None
    ids = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    if len(set(ids)) != len(ids) or not ids:
        raise Tau2StudyError(f"{path}: the frozen task order must list each task id once, one a line")
    return ids


def domain_of(study: Any) -> str:
    domain = study.params.get("domain")
    if domain not in ("telecom", "airline", "retail", "mock"):
        raise Tau2StudyError(f"{study.root / 'study.yaml'}: params.domain must be telecom, airline, retail or mock, "
                             f"not {domain!r}")
    return domain


class Tau2Family:
    name = "tau2"

    def problem(self) -> str | None:
        return tau2_problem()

    def units(self, study: Any) -> list[int]:
        return list(range(1, len(order_of(study)) + 1))

    def check_unit(self, study: Any, unit: int, *, exploratory: bool) -> None:
        """Session ``unit`` is a position 1..N of the study's frozen task order."""
        try:
            order = order_of(study)
            domain_of(study)
        except Tau2StudyError as exc:
            raise ValueError(str(exc)) from None
        if isinstance(unit, bool) or not isinstance(unit, int) or not 1 <= unit <= len(order):
            raise ValueError(f"study {study.name} numbers its sessions by the position of a task in its frozen order: "
                             f"give --seed(s) between 1 and {len(order)} (e.g. --seeds 1-12 for the first segment)")

    def task_id(self, study: Any, unit: int) -> str:
        return order_of(study)[unit - 1]

    def side_models(self, study: Any) -> dict[str, str | None]:
        """role -> the models.yaml alias of the model playing it (None: nobody: no judge)."""
        return {role: study.params.get(f"{role}_model") for role in SIDE_ROLES}

    def sim_context(self, study: Any, unit: int) -> dict[str, Any]:
        """What the simulator's τ²-bench policies may read of session ``unit`` (the ground truth)."""
        return {"domain": domain_of(study), "task_id": self.task_id(study, unit)}

    def open_work(self, setup: Any) -> Any:
        from .controller import TelecomController
        from .conversation import TAU2_SEED, trial_seed
        from .work import Tau2Work

        prepared = setup.prepared
        study, unit = prepared.study, prepared.spec.seed
        domain = domain_of(study)
        controller = TelecomController() if prepared.condition.uses_fsm and domain == "telecom" else None
        options = setup.options
        customer = _endpoint(options.get("customer"), study.params.get("customer_args"))
        if customer is None:
            raise Tau2StudyError(f"{study.root / 'study.yaml'}: params.customer_model must name the customer's model")
        judge = options.get("judge")
        return Tau2Work(domain, self.task_id(study, unit), customer, texts=Path(study.root) / "texts",
                        judge=_endpoint(judge, study.params.get("judge_args")), controller=controller,
                        emit=setup.emit, session_dir=setup.session_dir, max_steps=study.params.get("max_steps"),
                        seed=trial_seed(_int(study.params.get("tau2_seed"), TAU2_SEED)),
                        may_judge=(judge or {}).get("open"))


def _int(value: Any, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise Tau2StudyError(f"params.tau2_seed must be a whole number (tau2 run's --seed, 300 by default), not {value!r}")
    return value


def _endpoint(option: dict[str, Any] | None, args: Any) -> Any:
    """A side model the runner resolved (``WorkSetup.options``) as tau2's LiteLLM endpoint: the
    simulator's speaks the Anthropic Messages API; a real model's arguments (the paper's
    ``reasoning_effort: medium``) are the study's; an OpenAI model is reached by Chat Completions.
    Each response's usage goes to the runner's ``on_usage`` (priced, logged, capped)."""
    from .conversation import ModelEndpoint, register_meter

    if option is None:
        return None
    api = "anthropic-messages" if option["api"] == "anthropic-messages" else "openai-chat"
    extra = () if option.get("simulated") else tuple(sorted((args or {}).items()))
    return ModelEndpoint(option["model_id"], api=api, base_url=option.get("base_url"), api_key=option.get("api_key"),
                         args=extra, meter=register_meter(option.get("on_usage")))


FAMILY = Tau2Family()
