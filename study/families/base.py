"""The seam between the runtime-neutral runner and a task family: one session's ``Work``.

The runner (``study.runner.wiring``) asks the session's family for its ``Work`` once, before the
first call (``Family.open_work(setup)``), and from then on reads only this interface:

- the units of work (``order``: logged in ``session_start``), which are done (``decisions``) and
  how many are left (``accounts_left``: 0 means the session's work is complete), and the next one;
- the MCP tool servers the agent is offered (``servers``: name -> ``study.tooling.ToolProvider``),
  served by the runtime adapter to its CLI (the bridge logs every call and, through the FSM's
  hooks, gates it); the workflow's tool names are the bare names of the first server's tools;
- whether the agent works in a workspace with the CLI's own tools (``workspace``,
  ``builtin_tools``);
- the texts: the first message of each context, the continuation message (the resume message and
  the stop gate's, one wording), the reminder attached once per unit and the Sys copy;
- what the bridge must know of a call: whether it retrieves a unit's data (the reminder attaches
  to the first such call of each unit), whether it is a decision (the no-decision clock starts
  again), which unit it names (for the log of a refused call);
- ``finish(emit, voided=...)``: once, when the session ends, before ``session_end`` (a
  benchmark's own evaluation, written to the log as events of the family's kinds);
- a run of fresh contexts (protocols run in stages, each context a new CLI session that shares
  only the files and the FSM's frames): ``contexts_after()`` (None: one context), ``end_context``
  and ``next_context()`` (the next context's first message); ``study.runner.ending`` decides when
  a context ends and the next one starts.

Where the agent's commands run (optional members: the runner and the adapters read each with
``getattr`` and the default in brackets, so a family without them is unchanged):

- ``command_shell(shares, host_commands=()) -> Path | None`` [None: the CLI's own shell, on the
  host]: the shell the CLI runs the agent's commands with (an executable named ``bash``, whose
  exit status is the command's), e.g. one that runs them in a container of the work's own.
  ``shares`` are folders of the CLI's own that this shell must see at the same paths (the adapter
  names them: the CLI writes its shell snapshot or its temporary files there and reads them back);
  ``host_commands`` are commands the CLI itself runs with that shell which must run on the host,
  exactly as given (Codex CLI runs its hook commands with the user's shell). Claude Code is given
  it as ``CLAUDE_CODE_SHELL``; Codex CLI, which takes the shell from the password database, runs
  with a private one naming it (``study.runtimes.codex.login_shell``) and its shell snapshots off.
  Called once, when the adapter opens.
- ``commands_confined`` [False]: the work's commands are confined by the place its shell runs them
  (its own container: no network, only the workspace and the shares mounted), so the CLI's own OS
  sandbox is not needed; it would refuse that shell what it needs (Codex's ``workspace-write``
  sandbox denies it the docker socket). The adapters then run the CLI without one.
- ``file_tools_fenced`` [False]: the CLI's own file tools (reads, edits, writes, patches) may
  touch only the workspace: the runner refuses a call naming any other path before the tool-call
  gate, under every condition alike (its ``tool_call`` is logged refused, with the reason). The
  CLI's file tools act on the host, where files the agent must not read may lie.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

from study.tooling import ToolProvider, ToolResult

from .registry import DEFAULT_FAMILY  # noqa: F401  (the family of a log or preregistration that names none)

#: ``emit(kind, **fields)``: a line of the session log (``study.session_io.writer.EventLog.emit``).
Emit = Callable[..., Any]


@dataclass
class WorkSetup:
    """What the runner gives a family to build one session's work (everything already checked).

    ``prepared`` is the runner's ``Prepared`` session (its spec, condition, model, limits, task,
    workflow, reminder), ``session_dir`` the session's folder (the family keeps its state below
    it), ``emit`` the session log's writer; ``options`` holds family-specific things the runner
    started for the session (a customer simulator's endpoint, say); ``agent_root`` is where the
    family lays out what the agent works in (a workspace, say): a folder outside the session
    folder whose path names nothing of the session (``study.runner.agent_folder``; None: the
    session folder), which the runner links from the session folder and moves into it at the end."""

    prepared: Any
    session_dir: Path
    emit: Emit
    options: dict[str, Any] = field(default_factory=dict)
    agent_root: Path | None = None


class Work(Protocol):
    """One session's work, as the runner, the runtime adapters and the bridge see it."""

    family: str
    #: the units of work, in order (session_start's ``order``)
    order: list[str]
    #: MCP tool servers offered to the agent: name -> provider (the first one's tools are the
    #: workflow's bare tool names)
    servers: dict[str, ToolProvider]
    #: the CLI's own tools (shell, edits, reads) are on
    builtin_tools: bool
    #: the folder the agent works in (a git repository), or None: the session's own work/ folder
    workspace: Path | None
    #: the text attached once per unit to the result of its first data call (None: no reminder)
    reminder: str | None

    @property
    def decisions(self) -> dict[str, Any]:
        """Unit -> outcome, for every unit done, in the order they were done."""

    @property
    def accounts_left(self) -> int:
        """Units not done yet (0: the session's work is complete)."""

    def next_undecided(self) -> str | None:
        """The first unit of ``order`` not done yet."""

    def first_message(self, condition: Any) -> str:
        """The first user message of the session (its first context)."""

    def continuation_message(self, state: str | None = None) -> str:
        """The resume message and the stop gate's message (``state``: the FSM's, where the
        condition names it)."""

    def system_append(self) -> str:
        """The copy of the procedure the Sys conditions append to the CLI's system prompt."""

    def is_data_call(self, tool: str, result: ToolResult) -> bool:
        """A successful call that retrieves a unit's data (the reminder's occasion)."""

    def is_decision(self, tool: str) -> bool:
        """A call that may complete a unit (the no-decision clock starts again once one does)."""

    def item_of(self, tool: str, args: Any) -> str | None:
        """The unit a call names by its arguments (the log of a refused call)."""

    def start_fields(self) -> dict[str, Any]:
        """The family's own fields of ``session_start`` (SOP-Bench: the task's name)."""

    def fsm_variables(self) -> dict[str, Any]:
        """The FSM frame's first variables (SOP-Bench: the batch)."""

    def sim_options(self) -> dict[str, Any]:
        """What the simulator of a ``sim:`` model is told of the work (``study.sim.SimServer``'s
        keyword options: the task it plays, or the family's own policy's ground truth)."""

    def finish(self, emit: Emit, *, voided: bool = False) -> None:
        """Once, when the session ends, before ``session_end`` (``voided``: the session is voided,
        e.g. interrupted; an evaluation is then pointless). An exception voids the session."""

    # ----- a run of fresh contexts (a staged protocol); a one-context session answers None -------

    def contexts_after(self) -> int | None:
        """How many contexts follow the running one (None: the session is one context)."""

    def context_label(self) -> str | None:
        """What the running context is for (a period, a stage), for the log."""

    def end_context(self, ended: str, emit: Emit) -> None:
        """The running context has ended (``ended``: how, a status's words)."""

    def next_context(self) -> str:
        """Open the next context (its files, say) and give its first message."""


class Family(Protocol):
    """A task family (one subpackage of ``study.families``)."""

    name: str

    def problem(self) -> str | None:
        """Why this family cannot run here (one line saying what to do), or None."""

    def units(self, study: Any) -> list[int]:
        """The sessions a study of the family plans, by number (seeds, or task positions)."""

    def check_unit(self, study: Any, unit: int, *, exploratory: bool) -> None:
        """Raise ValueError (one line saying what to do) if ``unit`` is no session of ``study``."""

    def side_models(self, study: Any) -> dict[str, str | None]:
        """Models a session needs beside the agent's: role -> models.yaml alias (None: none)."""

    def sim_context(self, study: Any, unit: int) -> dict[str, Any]:
        """What the simulator's policies of the family may read of a session (its ground truth)."""

    def open_work(self, setup: WorkSetup) -> Work:
        """The work of one session."""

    # Optional (read with ``getattr``; a family without them is unchanged):
    #
    # ``unit_problem(study, unit) -> str | None``: what this machine lacks for session ``unit``
    # beyond what ``problem()`` checks (the unit's task data, its image): one line saying what to
    # do, or None. Checked before a real run starts (``study run``, ``study run-all``), never by a
    # dry run, which plans without them.
    #
    # ``published_costs(study, model, condition) -> dict | None``: the paper's published figures
    # for one session of ``study`` by ``model`` (a models.yaml alias) under ``condition``, for the
    # dry run's estimate: ``cost_usd`` (the mean), ``seconds`` (a typical wall time, or None) and
    # ``basis`` (where they are published, in words); None where none are published.
