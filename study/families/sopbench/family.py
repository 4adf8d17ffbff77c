"""The SOP-Bench family's ``FAMILY``: a batch of a SOP-Bench task's items as a session's ``Work``.

``FAMILY.open_work(setup)`` makes the session's ``ToolBox`` (``sopbench_tools``: the seed's order,
cut to ``--accounts``; its records and decisions under ``tools/``) and wraps it as the session's
``Work``: the items are the units, a unit is done when its decision is submitted, the one tool
server is ``sopbench``, and the texts are the preregistration's (``texts.py``: the first message,
the continuation message, the reminder, the Sys copy), filled in for the task.
"""

from __future__ import annotations

from typing import Any

from sopbench_tools.toolbox import ToolBox
from study.tooling import ToolResult

from ..base import Emit, WorkSetup
from .texts import continuation_message, first_message, system_prompt_append

#: The name of the tool server the agent sees the task's tools on (``mcp__sopbench__<tool>``).
SERVER = "sopbench"


class SopBenchWork:
    """A batch of items as a session's ``Work`` (``study.families.base.Work``), over a ``ToolBox``.

    ``task`` is the session's task as the runner prepared it (None: the project's); the first
    message and the Sys copy are written for it, the continuation message for the toolbox's task
    (the same task: the toolbox resolves None to the project's)."""

    family = "sopbench"
    builtin_tools = False
    workspace = None

    def __init__(self, box: ToolBox, task: Any = None, reminder: str | None = None):
        self.box = box
        self.task = task
        self.reminder = reminder
        self.servers = {SERVER: box}

    # ----- the units ---------------------------------------------------------------------------

    @property
    def order(self) -> list[str]:
        return self.box.order

    @property
    def decisions(self) -> dict[str, Any]:
        return self.box.decisions

    @property
    def accounts_left(self) -> int:
        return self.box.accounts_left

    def next_undecided(self) -> str | None:
        return self.box.next_undecided()

    # ----- the texts ---------------------------------------------------------------------------

    def first_message(self, condition: Any) -> str:
        return first_message(condition, len(self.box.order), task=self.task)

    def continuation_message(self, state: str | None = None) -> str:
        return continuation_message(self.box.accounts_left, self.box.next_undecided(), state, self.box.task)

    def system_append(self) -> str:
        return system_prompt_append(task=self.task)

    # ----- what the bridge asks of a call ------------------------------------------------------

    def is_data_call(self, tool: str, result: ToolResult) -> bool:
        return result.ok and tool in self.box.task.data_tools and bool(result.account)

    def is_decision(self, tool: str) -> bool:
        return tool == self.box.task.decision.tool

    def item_of(self, tool: str, args: Any) -> str | None:
        account = args.get(self.box.task.item.id_column) if isinstance(args, dict) else None
        return account if isinstance(account, str) else None

    # ----- what the log and the simulator are told ---------------------------------------------

    def start_fields(self) -> dict[str, Any]:
        return {"task": self.box.task.name}

    def sim_options(self) -> dict[str, Any]:
        return {"task": self.box.task.name}

    def fsm_variables(self) -> dict[str, Any]:
        return {"batch": list(self.box.order)}

    # ----- the end -----------------------------------------------------------------------------

    def finish(self, emit: Emit, *, voided: bool = False) -> None:
        """Nothing to do: the decisions are in the log as they were made."""

    def contexts_after(self) -> int | None:
        return None   # one context: a batch session is resumed, never restarted

    def context_label(self) -> str | None:
        return None

    def end_context(self, ended: str, emit: Emit) -> None:
        raise NotImplementedError("a SOP-Bench batch runs in one context")

    def next_context(self) -> str:
        raise NotImplementedError("a SOP-Bench batch runs in one context")


class SopBenchFamily:
    name = "sopbench"

    def problem(self) -> str | None:
        return None

    def units(self, study: Any) -> list[int]:
        from sopbench_tools.orders import frozen_seeds

        return list(frozen_seeds())

    def check_unit(self, study: Any, unit: int, *, exploratory: bool) -> None:
        """The main study's seeds are checked by the runner's preflight (``check_seed``)."""

    def side_models(self, study: Any) -> dict[str, str | None]:
        return {}

    def sim_context(self, study: Any, unit: int) -> dict[str, Any]:
        return {}

    def open_work(self, setup: WorkSetup) -> SopBenchWork:
        prepared = setup.prepared
        spec = prepared.spec
        box = ToolBox.for_seed(spec.seed, spec.accounts, state_dir=setup.session_dir / "tools", task=prepared.task)
        return SopBenchWork(box, prepared.task, prepared.reminder)


FAMILY = SopBenchFamily()

__all__ = ["FAMILY", "SERVER", "SopBenchFamily", "SopBenchWork"]
