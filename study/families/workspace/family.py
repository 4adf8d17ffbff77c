"""The workspace family as the runner sees it: a staged protocol's run, one fresh context at a time.

A workspace study (``preregistration/studies/<name>/study.yaml``, ``family: workspace``, numbered
by seed) names its ``protocol`` (``autoresearch``, ``month-end-close``), its preregistered seeds
and how many contexts a run may have. Session ``s`` is the run of seed ``s``: its folder holds the
agent's git workspace (``workspace/``) and, beside it, the check scripts the FSM's guards run
(``checks/``) and a protocol's read-only inputs (``inputs/``), laid out by the protocol's own
builder (in the agent's folder while the run runs, ``WorkSetup.agent_root``: a path that names
nothing of the session, linked from its folder); the agent's CLI works in ``workspace/`` with its
own tools (shell, reads, edits), its commands in the CLI's OS sandbox (``study.runtimes.sandbox``:
they write the workspace only), and no MCP tool of the study's but the FSM's.

The run is a sequence of fresh contexts (``study.runner.ending``'s rules C1-C4): AutoResearch one
stage per context until the protocol is complete or its contexts are spent; month-end close one
period per context, each period's inputs released into the workspace when its context opens, its
FSM frame started anew (a new instance of the close workflow). At the end the protocol's own
scorer reads the workspace (the ledger and the git history; the period reports against the
generator's close, which no file of the workspace holds) and the ``outcome`` event records it: the
tables (``tables.py``) read that, once every reader's ``verdict`` rule has re-derived it from the
workspace (``evidence.py``, through ``study.session_io.verdicts``).

``--accounts N`` makes a smaller run of the same code (exploratory): N trials per AutoResearch
stage (the baseline always one), N month-end periods.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: The protocols, by the name a study.yaml gives.
PROTOCOLS = ("autoresearch", "month-end-close")
#: The text the continuation message says, by protocol (the resume and stop-gate message).
CONTINUE = {
    "autoresearch": ("The run is not finished: go on with the protocol where the workspace shows you are "
                     "(ledger.tsv and the git history){state}, and end your turn only when this context's stage is "
                     "recorded."),
    "month-end-close": ("The close of this period is not finished: go on with the close procedure where its files "
                        "show you are{state}, and end your turn only when the report and the closing balances are "
                        "written."),
}


class WorkspaceStudyError(ValueError):
    """A workspace study's study.yaml that cannot be used: the message says what to do."""


def protocol_of(study: Any) -> str:
    protocol = study.params.get("protocol")
    if protocol not in PROTOCOLS:
        raise WorkspaceStudyError(f"{study.root / 'study.yaml'}: params.protocol must be one of {', '.join(PROTOCOLS)}, "
                                  f"not {protocol!r}")
    return protocol


def seeds_of(study: Any) -> list[int]:
    seeds = study.params.get("seeds")
    if not isinstance(seeds, list) or not seeds or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 1
                                                           for s in seeds) or len(set(seeds)) != len(seeds):
        raise WorkspaceStudyError(f"{study.root / 'study.yaml'}: params.seeds must list the preregistered seeds "
                                  "(whole numbers from 1, each once)")
    return seeds


class WorkspaceWork:
    """One run of a staged protocol in its own git workspace (the seam's ``Work``). The agent's
    commands may write the workspace only, and ``writable``, folders beside it a protocol declares
    writable (none here); a protocol's read-only inputs live beside the workspace (docs/staged.md)."""

    family = "workspace"
    builtin_tools = True
    reminder = None
    writable: tuple[Path, ...] = ()

    def __init__(self, protocol: str, session_dir: Path, *, seed: int, uses_fsm: bool, turns: int,
                 contexts: int, size: int | None = None):
        self.protocol = protocol
        self.seed = seed
        self.uses_fsm = uses_fsm
        self.turns = turns
        self.servers: dict[str, Any] = {}
        self.size = size
        self.context = 1
        self.ended: dict[str, str] = {}
        root = Path(session_dir)
        if protocol == "autoresearch":
            from .autoresearch.protocol import FULL_PLAN, Plan
            from .autoresearch.workspace import build_run

            self.plan = FULL_PLAN if size is None else Plan.uniform(size)
            self.run = build_run(root, self.plan)
            self.max_contexts = contexts
            self.labels = [f"context {k}" for k in range(1, contexts + 1)]
        else:
            from .month_end_close.workspace import build_run

            self.run = build_run(root, seed)
            periods = self.run.periods
            self.labels = periods[:size] if size is not None else periods
            self.max_contexts = len(self.labels)
            self.run.release(1)
        self.workspace = self.run.workspace
        self.order = list(self.labels)

    # ----- the units: the contexts (AutoResearch) or the periods (month-end close) --------------

    @property
    def decisions(self) -> dict[str, Any]:
        """The units done: each whose context ended, and the running month-end period once its close
        passed the last step's check (its context has not ended yet: the stop that ends it is logged
        first). The contexts a complete AutoResearch run did not need are never done: they were not
        used."""
        done = dict(self.ended)
        running = self.context_label()
        if running is not None and running not in done and self._closed():
            done[running] = "closed"
        return done

    @property
    def accounts_left(self) -> int:
        """The units not done; none once the AutoResearch protocol is complete (the ledger holds every
        trial: the contexts it did not need are left to no one)."""
        if self._complete():
            return 0
        return len(self.order) - len(self.decisions)

    def next_undecided(self) -> str | None:
        return next((u for u in self.order if u not in self.ended), None)

    def _complete(self) -> bool:
        """AutoResearch: every trial of the plan is in the ledger (the workspace's own record)."""
        if self.protocol != "autoresearch":
            return False
        from .autoresearch.stage_check import read_ledger

        try:
            _header, rows = read_ledger(self.run.ledger)
        except (OSError, ValueError):
            return False
        return len(rows) >= self.plan.total

    def _closed(self) -> bool:
        """Month-end close: the running period's close passes the last step's check (its report and
        closing balances written, as the workflow's last guard checks them; for any condition)."""
        if self.protocol != "month-end-close" or self.context > len(self.order):
            return False
        close = self.workspace / "periods" / self.order[self.context - 1] / "close"
        if not ((close / "report.json").is_file() and (close / "closing_balances.json").is_file()):
            return False
        from .month_end_close.check_step import check

        try:
            period, problems = check("6", self.workspace, self.run.inputs)
        except Exception:   # noqa: BLE001 - the agent's files (not UTF-8, JSON nested too deep, ...): not closed,
            return False    # as the guard's check that fails on them (it never crashes the runner)
        return period == self.order[self.context - 1] and not problems

    def contexts_after(self) -> int | None:
        if self._complete():
            return 0
        return max(0, self.max_contexts - self.context)

    def context_label(self) -> str | None:
        return self.order[self.context - 1] if self.context <= len(self.order) else None

    def end_context(self, ended: str, emit: Any) -> None:
        label = self.context_label()
        if label is not None:
            self.ended[label] = ended

    def next_context(self) -> str:
        self.context += 1
        if self.protocol == "month-end-close":
            self.run.release(self.context)
        return self._prompt()

    # ----- the texts ---------------------------------------------------------------------------

    def _prompt(self) -> str:
        condition = "fsm" if self.uses_fsm else "plain"
        if self.protocol == "autoresearch":
            from .autoresearch.prompts import first_message

            return first_message(condition, self.plan, self.context, self.max_contexts)
        from .month_end_close.prompts import first_message

        return first_message(condition, self.order[self.context - 1], self.context, len(self.order), self.turns)

    def first_message(self, condition: Any) -> str:
        return self._prompt()

    def continuation_message(self, state: str | None = None) -> str:
        return CONTINUE[self.protocol].format(state=f" (workflow state {state})" if state else "")

    def system_append(self) -> str | None:
        return None

    # ----- what the bridge asks of a call ------------------------------------------------------

    def is_data_call(self, tool: str, result: Any) -> bool:
        return False

    def is_decision(self, tool: str) -> bool:
        return False    # no decisions: the time limit without one is each context's time limit

    def item_of(self, tool: str, args: Any) -> str | None:
        return None

    def start_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = {"protocol": self.protocol, "workspace": "workspace", "size": self.size}
        if self.protocol == "autoresearch":
            fields["plan"] = dict(self.plan.trials)
        return fields

    def sim_options(self) -> dict[str, Any]:
        return {}

    def fsm_variables(self) -> dict[str, Any]:
        return {}

    @property
    def fresh_frame_per_context(self) -> bool:
        """Each context starts its workflow anew (a month-end period); AutoResearch's state carries."""
        return self.protocol == "month-end-close"

    # ----- the end -----------------------------------------------------------------------------

    def finish(self, emit: Any, *, voided: bool = False) -> None:
        """The protocol's own scorer over the workspace, as the ``outcome`` event (not for a voided run)."""
        if voided:
            return
        emit("outcome", family=self.family, **self.score())

    def score(self) -> dict[str, Any]:
        """The protocol's scorer's outcome (the same function re-derives it from the workspace:
        ``evidence.py``)."""
        if self.protocol == "autoresearch":
            from .autoresearch.scorer import outcome

            return outcome(self.workspace, self.plan, self.seed)
        from .month_end_close.scorer import outcome

        return outcome(self.workspace, self.seed, len(self.order), self.turns)


class WorkspaceFamily:
    name = "workspace"
    #: its sessions run the CLI's own tools: the runtime's sandbox must be able to start (preflight)
    builtin_tools = True

    def problem(self) -> str | None:
        return None

    def units(self, study: Any) -> list[int]:
        return seeds_of(study)

    def check_unit(self, study: Any, unit: int, *, exploratory: bool) -> None:
        try:
            protocol_of(study)
            seeds = seeds_of(study)
        except WorkspaceStudyError as exc:
            raise ValueError(str(exc)) from None
        if isinstance(unit, bool) or not isinstance(unit, int) or unit < 1:
            raise ValueError(f"seed {unit!r} is not a seed: seeds are whole numbers from 1")
        if unit not in seeds and not exploratory:
            raise ValueError(f"seed {unit} is not a preregistered seed of study {study.name} "
                             f"({', '.join(map(str, seeds))}); run it exploratory (--accounts N) or amend the plan")
        if protocol_of(study) == "autoresearch":
            from importlib.util import find_spec

            if find_spec("sklearn") is None:
                raise ValueError("AutoResearch's training script needs scikit-learn, which is not installed: install "
                                 "it with `pip install --require-hashes -r requirements-staged.lock`")

    def check_size(self, study: Any, size: int) -> None:
        """``--accounts N``: N trials per AutoResearch stage, N month-end periods (exploratory)."""
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"--accounts must be a whole number >= 1, got {size!r}")
        if protocol_of(study) == "month-end-close" and size > 6:
            raise ValueError("--accounts N runs the first N of the six periods: give 1 to 6")

    def side_models(self, study: Any) -> dict[str, str | None]:
        return {}

    def sim_context(self, study: Any, unit: int) -> dict[str, Any]:
        return {"protocol": protocol_of(study)}

    def open_work(self, setup: Any) -> WorkspaceWork:
        prepared = setup.prepared
        study = prepared.study
        return WorkspaceWork(protocol_of(study), setup.agent_root or setup.session_dir, seed=prepared.spec.seed,
                             uses_fsm=prepared.condition.uses_fsm, turns=prepared.limits.turns,
                             contexts=int(study.params.get("contexts") or 10), size=prepared.spec.accounts)


FAMILY = WorkspaceFamily()

__all__ = ["FAMILY", "PROTOCOLS", "WorkspaceFamily", "WorkspaceWork"]
