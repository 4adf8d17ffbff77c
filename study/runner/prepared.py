"""What to run (``SessionSpec``) and the same spec resolved against the frozen files
(``Prepared``): plain records, made by ``session.prepare`` and read by the driver, the wiring and
the runtime adapters."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from study.protocol.conditions import Condition
from study.protocol.limits import Limits
from study.protocol.models import ResolvedModel


@dataclass
class SessionSpec:
    """What to run. Only ``condition`` and ``seed`` are required.

    ``manifest_sha256`` is the hash ``study.prereg.check_before_run`` returned; None records
    ``unchecked`` and makes the session exploratory (tests of the run mechanics use this).
    ``limit_overrides`` and ``cli_env`` (extra environment for the CLI) are for tests and
    development; either makes the session exploratory, and both are recorded.
    """

    condition: str
    seed: int
    model: str | None = None
    accounts: int | None = None
    out_root: Path | None = None
    manifest_sha256: str | None = None
    base_url: str | None = None
    limit_overrides: dict[str, float] = field(default_factory=dict)
    cli_env: dict[str, str] = field(default_factory=dict)
    sim_options: dict[str, Any] = field(default_factory=dict)
    #: the task (a vendored task's name or a manifest file); None: the project's. Another task's
    #: sessions than the project's are exploratory (``preflight.check_task``).
    task: str | None = None
    #: the agent runtime (``--runtime``): the simulator's choice (default Claude Code); a real
    #: model alias names its own, which this must then equal
    runtime: str | None = None
    #: the study (``--study``: a study of preregistration/studies/; None: the main one), whose
    #: sessions ``seed`` numbers (by seed, or by a task's position in its frozen order)
    study: str | None = None

    @property
    def exploratory(self) -> bool:
        return (self.accounts is not None or self.manifest_sha256 is None
                or bool(self.limit_overrides) or bool(self.cli_env))


@dataclass
class Prepared:
    """A spec resolved against the frozen files: everything checked before anything starts."""

    spec: SessionSpec
    condition: Condition
    model: ResolvedModel
    limits: Limits
    token_reminder: str
    disable_nonessential_traffic: bool
    session_dir: Path
    workflow: Any | None          # the condition's study.fsm.Workflow, loaded and validated
    reminder: str | None          # the reminder text, for conditions that attach it
    task: Any = None              # the session's sopbench_tools.tasks.Task
    other_task: bool = False      # another task's session than the project's (exploratory)
    #: the task family whose work the session does (``study.families``; None: SOP-Bench's)
    family: str | None = None
    #: the study (``study.protocol.studies.StudyDef``; None: the main one)
    study: Any = None

    @property
    def exploratory(self) -> bool:
        """The spec makes the session exploratory, its condition is outside the preregistered set,
        or its task is not the project's."""
        return self.spec.exploratory or self.condition.exploratory or self.other_task
