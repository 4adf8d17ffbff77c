"""The SWE-bench family as the runner sees it: a study's sessions, and each one's ``Work``.

A SWE-bench study (``preregistration/studies/<name>/study.yaml``, ``family: swebench``, ``unit:
task``) names in its ``params`` its task source (``tasks``: ``local``, the package's own
instances, or ``verified``, SWE-bench Verified; ``sources.py``), its task set (``set``:
``local``, ``easy-100``, ``hard-100``), the file of its frozen task list (``order``: instance ids
in the draw's hash order) and, for Hard-100, its two halves (``halves: [50, 50]``: the first 50
of the list and the other 50). Session ``k`` is the ``k``-th instance of that list (its folder
``task-<k>``). A study whose list is not yet built (Hard-100 before ``study swebench build --set
hard-100 --dataset EXPORT``) refuses every session with the command that builds it.

One session is one instance (:class:`SweBenchWork`, the seam's ``Work``):

- the workspace (``workspace/`` of the session folder) is the repository at its base commit (a
  git repository: its history is the phase log); the first message is the study's frozen text
  (``texts/plain.md`` or ``texts/fsm.md``) with the issue's text, and nothing else of the
  instance: no gold patch, test patch or test name reaches the agent, the FSM or the workflow;
- the agent's commands run in the session's own container (``container.py``: the instance's
  image, no network, only the workspace and the CLI's shares mounted), through the shell the CLI
  is given (``command_shell``), under Plain and FSM alike; so the CLI runs without its own OS
  sandbox (``commands_confined``), and its file tools, which act on the host, are fenced to the
  workspace by the runner (``file_tools_fenced``), where nothing of the grading lies;
- the session is one context (``contexts_after()`` 0): it ends when the agent ends its turn (under
  the FSM, only once the workflow lets it: its stop gate holds the turn until EXIT), at the time
  limit (``limit:wall_time``, the time-out), or at a cap;
- at its end (``finish``) the container is removed; unless the session is voided, the final patch
  (``measures.final_patch``: the notes left out) is graded by the official harness on a freshly
  built image, its predictions, report and logs kept in ``grading/``, and the ``outcome`` event
  records the verdict (resolved or unresolved) with the paper's process measures. A harness that
  cannot grade (an image that does not build, a container error) voids the session as an
  infrastructure failure: it is never an unresolved task.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from . import sources

FAMILY_NAME = "swebench"
SETS = ("local", "easy-100", "hard-100")
BUILD_COMMAND = "study swebench build --set hard-100 --dataset EXPORT"
#: The message of the stop gate (and of a resume, which neither condition makes).
CONTINUE = ("The task is not finished: go on with the debugging procedure where the repository and its history show "
            "you are{state}, and end your turn only when the fix is committed{exit}.")
#: The paper's figures per task (Table 9, Easy-100, Claude Sonnet 4.6): mean cost over the tasks
#: that finished within the time limit, median wall time.
PUBLISHED = {("easy-100", "sonnet-4.6", "Plain"): (1.30, 310.0), ("easy-100", "sonnet-4.6", "FSM"): (1.73, 381.0)}


class SweBenchStudyError(ValueError):
    """A SWE-bench study's study.yaml or task list that cannot be used: the message says what to do."""


class GradingFailed(RuntimeError):
    """The official harness could not grade the session's patch: an infrastructure failure."""


def source_of(study: Any) -> str:
    source = study.params.get("tasks")
    if source not in sources.SOURCES:
        raise SweBenchStudyError(f"{study.root / 'study.yaml'}: params.tasks must be one of "
                                 f"{', '.join(sources.SOURCES)}, not {source!r}")
    return source


def set_of(study: Any) -> str:
    chosen = study.params.get("set")
    if chosen not in SETS:
        raise SweBenchStudyError(f"{study.root / 'study.yaml'}: params.set must be one of {', '.join(SETS)}, not "
                                 f"{chosen!r}")
    return chosen


def order_of(study: Any) -> list[str]:
    """The study's frozen task list (its ``params.order`` file, one instance id a line)."""
    name = study.params.get("order")
    if not isinstance(name, str) or not name:
        raise SweBenchStudyError(f"{study.root / 'study.yaml'}: params.order must name the frozen task list "
                                 "(e.g. tasks.txt)")
    path = study.root / name
    if not path.is_file():
        if set_of(study) == "hard-100":
            raise SweBenchStudyError(f"study {study.name} has no frozen task list yet ({path.name}): Hard-100 is drawn "
                                     f"from the dataset's full rows, so build it on a machine with an export of "
                                     f"SWE-bench Verified: {BUILD_COMMAND} (docs/swebench.md), then record it with "
                                     "study prereg amend")
        raise SweBenchStudyError(f"{path}: the frozen task list is missing; restore it from the repository "
                                 f"(git checkout -- {path})")
    ids = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()
           if line.strip() and not line.startswith("#")]
    if not ids or len(set(ids)) != len(ids):
        raise SweBenchStudyError(f"{path}: the frozen task list must list each instance id once, one a line")
    return ids


def half_of(study: Any, unit: int) -> int | None:
    """Which half of Hard-100 session ``unit`` is in (1 or 2), None for a study without halves."""
    halves = study.params.get("halves")
    if not halves:
        return None
    return 1 if unit <= int(halves[0]) else 2


class SweBenchWork:
    """One SWE-bench instance in its own repository and container (the seam's ``Work``)."""

    family = FAMILY_NAME
    builtin_tools = True
    reminder = None
    commands_confined = True
    file_tools_fenced = True

    def __init__(self, task: sources.Task, session_dir: Path, *, uses_fsm: bool, texts: Path, task_set: str,
                 half: int | None = None, agent_root: Path | None = None):
        self.task = task
        self.session_dir = Path(session_dir)
        self.uses_fsm = uses_fsm
        self.texts = Path(texts)
        self.task_set = task_set
        self.half = half
        self.order = [task.instance_id]
        self.servers: dict[str, Any] = {}
        self.ended: dict[str, str] = {}
        self.image = sources.session_image(task)
        #: the agent's folder (``WorkSetup.agent_root``: a path that names nothing of the session; the
        #: session folder itself when the runner gives none): the workspace and the container's shell
        self.agent_root = Path(agent_root) if agent_root is not None else self.session_dir
        self.workspace = self.agent_root / "workspace"
        self.base = sources.make_workspace(task, self.workspace, self.image)
        from .task_repo import git

        # the agent's commits need an author in the container, where no user configuration is
        git(self.workspace, "config", "user.name", "SWE-bench agent")
        git(self.workspace, "config", "user.email", "agent@swebench.invalid")
        git(self.workspace, "config", "commit.gpgsign", "false")
        # Python's bytecode caches are no change of the repository (real repositories ignore them in
        # .gitignore; the package's small ones have none): so the tree the FSM's guards see as clean
        # and the patch graded hold none of them (a local exclude: the tree is untouched)
        exclude = self.workspace / ".git" / "info" / "exclude"
        exclude.parent.mkdir(parents=True, exist_ok=True)
        with open(exclude, "a", encoding="utf-8") as handle:
            handle.write("__pycache__/\n*.py[co]\n.pytest_cache/\n")
        self.box: Any = None
        self.opened = time.monotonic()

    # ----- where the commands run ------------------------------------------------------------------

    def command_shell(self, shares: list[Path], host_commands: tuple[str, ...] = ()) -> Path:
        """The session's container (started now), and the shell that runs commands in it (the
        CLI's own ``host_commands`` on the host: ``container.write_shell``)."""
        from .container import SessionContainer, write_shell

        if self.box is None:
            self.box = SessionContainer(self.image, self.workspace, mounts=tuple(shares), also_at=self.task.testbed)
            self.box.start()
        return write_shell(self.box, self.agent_root / "container" / "shell", tuple(host_commands))

    def stop_container(self) -> None:
        if self.box is not None:
            self.box.stop()

    # ----- the units: the one task, in one context ---------------------------------------------------

    @property
    def decisions(self) -> dict[str, Any]:
        return dict(self.ended)

    @property
    def accounts_left(self) -> int:
        return len(self.order) - len(self.ended)

    def next_undecided(self) -> str | None:
        return next((u for u in self.order if u not in self.ended), None)

    def contexts_after(self) -> int | None:
        return 0

    def context_label(self) -> str | None:
        return self.task.instance_id

    def end_context(self, ended: str, emit: Any) -> None:
        self.ended[self.task.instance_id] = ended

    def next_context(self) -> str:
        raise RuntimeError("a SWE-bench session is one context")

    # ----- the texts ---------------------------------------------------------------------------------

    def first_message(self, condition: Any) -> str:
        return first_message(self.texts, self.uses_fsm, self.task.problem_statement)

    def continuation_message(self, state: str | None = None) -> str:
        return CONTINUE.format(state=f" (workflow state {state})" if state else "",
                               exit=" and the workflow exited" if self.uses_fsm else "")

    def system_append(self) -> str | None:
        return None

    # ----- what the bridge asks of a call -------------------------------------------------------------

    def is_data_call(self, tool: str, result: Any) -> bool:
        return False

    def is_decision(self, tool: str) -> bool:
        return False

    def item_of(self, tool: str, args: Any) -> str | None:
        return None

    def start_fields(self) -> dict[str, Any]:
        return {"tasks": self.task.source, "task_set": self.task_set, "half": self.half, "repo": self.task.repo,
                "base_commit": self.base, "image": self.image, "workspace": "workspace"}

    def sim_options(self) -> dict[str, Any]:
        return {}

    def fsm_variables(self) -> dict[str, Any]:
        return {"base": self.base}

    # ----- the end -----------------------------------------------------------------------------------

    def finish(self, emit: Any, *, voided: bool = False) -> None:
        """Remove the container; unless voided, grade the final patch and record the outcome."""
        self.stop_container()
        if voided:
            return
        emit("outcome", family=self.family, **self.score())

    def score(self) -> dict[str, Any]:
        from .measures import final_patch, measures

        patch = final_patch(self.workspace, self.base)
        found = measures(self.workspace, self.base, patch)
        started = time.monotonic()
        grade = sources.grade(self.task, patch, self.session_dir / "grading")
        if grade.infrastructure_failure:
            raise GradingFailed(f"the official harness could not grade the patch: {grade.reason} (its logs: grading/)")
        return {"instance_id": self.task.instance_id, "tasks": self.task.source, "verdict": grade.outcome,
                "resolved": grade.resolved, "reason": grade.reason, **tests_passed(grade.report), **found,
                "grading_run": grade.run_id, "grading_s": round(time.monotonic() - started, 3)}


def first_message(texts: Path, uses_fsm: bool, problem_statement: str) -> str:
    """The first message: the study's frozen text of the condition with the issue's text, nothing else."""
    template = (Path(texts) / ("fsm.md" if uses_fsm else "plain.md")).read_text(encoding="utf-8")
    return template.replace("{problem_statement}", problem_statement.strip())


def tests_passed(report: dict | None) -> dict[str, Any]:
    """The harness's report as counts: FAIL_TO_PASS and PASS_TO_PASS passed / graded (None: no report)."""
    status = (report or {}).get("tests_status") or {}
    out: dict[str, Any] = {}
    for key in ("FAIL_TO_PASS", "PASS_TO_PASS"):
        tests = status.get(key)
        out[key.lower()] = None if tests is None else [len(tests.get("success", [])),
                                                      len(tests.get("success", [])) + len(tests.get("failure", []))]
    return out


class SweBenchFamily:
    name = FAMILY_NAME

    def problem(self) -> str | None:
        """Docker (its daemon, buildx) and the official harness: one line saying what to install.
        Asked once a process (a matrix's preflight asks it for every session)."""
        if not hasattr(self, "_problem"):
            from .docker_env import docker_problem, harness_problem

            self._problem = docker_problem() or harness_problem()
        return self._problem

    def units(self, study: Any) -> list[int]:
        return list(range(1, len(order_of(study)) + 1))

    def check_unit(self, study: Any, unit: int, *, exploratory: bool) -> None:
        try:
            source_of(study)
            order = order_of(study)
        except SweBenchStudyError as exc:
            raise ValueError(str(exc)) from None
        if isinstance(unit, bool) or not isinstance(unit, int) or not 1 <= unit <= len(order):
            raise ValueError(f"study {study.name} numbers its sessions by the position of an instance in its frozen "
                             f"task list: give --seed(s) between 1 and {len(order)}")

    def task_id(self, study: Any, unit: int) -> str:
        return order_of(study)[unit - 1]

    def unit_problem(self, study: Any, unit: int) -> str | None:
        """A real run's needs beyond docker and the harness: a Verified instance's export row and
        image; a local instance's base image (its session image is built from it)."""
        if source_of(study) == sources.VERIFIED:
            from .verified import unit_problem

            return unit_problem(self.task_id(study, unit))
        from . import base_image

        name = base_image.image_name()
        if not base_image.image_exists(name):
            return f"the local base image {name} is missing: build it with scripts/swebench-base-image (about 3 minutes)"
        return None

    def published_costs(self, study: Any, model: str, condition: str) -> dict[str, Any] | None:
        found = PUBLISHED.get((study.params.get("set"), model, condition))
        if found is None:
            return None
        cost, seconds = found
        return {"cost_usd": cost, "seconds": seconds,
                "basis": (f"the paper (Table 9, Easy-100, Claude Sonnet 4.6, {condition}): mean cost ${cost:.2f} a task "
                          f"(over the tasks that finished in time), median time {seconds:.0f} s a task; no spread is "
                          "published")}

    def side_models(self, study: Any) -> dict[str, str | None]:
        return {}

    def sim_context(self, study: Any, unit: int) -> dict[str, Any]:
        """What the simulator's agents may read of session ``unit``: the instance and its fix."""
        source, instance_id = source_of(study), self.task_id(study, unit)
        return {"source": source, "instance_id": instance_id, "truth": sources.ground_truth(source, instance_id)}

    def open_work(self, setup: Any) -> SweBenchWork:
        prepared = setup.prepared
        study, unit = prepared.study, prepared.spec.seed
        task = sources.task(source_of(study), self.task_id(study, unit))
        return SweBenchWork(task, setup.session_dir, uses_fsm=prepared.condition.uses_fsm,
                            texts=Path(study.root) / "texts", task_set=set_of(study), half=half_of(study, unit),
                            agent_root=getattr(setup, "agent_root", None))


FAMILY = SweBenchFamily()

__all__ = ["FAMILY", "GradingFailed", "SweBenchFamily", "SweBenchStudyError", "SweBenchWork", "order_of"]
