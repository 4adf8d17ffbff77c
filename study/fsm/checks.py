"""Guard checks: named Python checks (a registry), shell-command checks, and the soft reviewer.

A transition's guard is a list of *hard* checks, all of which must pass, and optionally one
*soft* check (a review by an independent model), which runs only when a reviewer is plugged in.

**Named checks** are Python functions registered under a name with :func:`register_check`. A
workflow names them (``check: NAME``, parameters under ``with:``) and lists the modules that
register them (``check_modules:``). A check receives a :class:`GuardContext` — the frame's
history, variables, current state, target and its parameters — and returns a
:class:`CheckResult`. So that a guard need not rescan a long history, a check may declare a
*tracker*: an object built from the check's parameters that the runtime feeds every history
event as it is appended (and replays on load); the check then reads the tracker.

**Shell checks** (``command: "..."``) run through ``/bin/sh`` with the tool log and the
variables written to temporary files whose paths are in the environment (``FSM_TOOL_LOG``: one
JSON event a line; ``FSM_VARIABLES``: a JSON object; also ``FSM_WORKFLOW``, ``FSM_STATE``,
``FSM_TARGET``). Exit status 0 passes; otherwise the command's output is the message. A command
that is missing or runs past its timeout fails the guard, and the message says which. A check
that names the files it runs with their sha256 (``sha256: {PATH: HEX}``, the frozen digests) is
refused without running when any of them is missing or differs: a changed check script never
decides a transition (its ``sha256`` names what changed).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol, Sequence

#: Default time a shell check may run, in seconds (a workflow's ``timeout:`` overrides it).
DEFAULT_SHELL_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class CheckResult:
    """The verdict of one check: ``ok``, a message for the agent, variables to set on commit."""

    ok: bool
    message: str = ""
    set_variables: Mapping[str, Any] = field(default_factory=dict)


class Tracker(Protocol):
    """Incremental state a check keeps over the history (built from the check's parameters)."""

    def add(self, position: int, event: Mapping[str, Any]) -> None:
        """Take in the history event at ``position`` (called once per event, in order)."""


@dataclass(frozen=True)
class GuardContext:
    """What a check may read: the frame's history and variables, and where the agent wants to go."""

    workflow: str
    state: str
    target: str
    history: Sequence[Mapping[str, Any]]
    variables: Mapping[str, Any]
    params: Mapping[str, Any]
    tracker: Any = None
    #: the transition is automatic: the runtime, not the agent, moves once the guard holds
    automatic: bool = False


@dataclass(frozen=True)
class RegisteredCheck:
    """A named Python check as registered."""

    name: str
    fn: Callable[[GuardContext], CheckResult]
    #: builds the check's tracker from its parameters (None: the check reads ``history``)
    tracker: Callable[[Mapping[str, Any]], Tracker] | None
    #: parameter names the check requires under ``with:``
    required_params: tuple[str, ...]
    #: parameter names it also accepts
    optional_params: tuple[str, ...]


_REGISTRY: dict[str, RegisteredCheck] = {}


def register_check(
    name: str,
    *,
    tracker: Callable[[Mapping[str, Any]], Tracker] | None = None,
    params: Sequence[str] = (),
    optional: Sequence[str] = (),
) -> Callable[[Callable[[GuardContext], CheckResult]], Callable[[GuardContext], CheckResult]]:
    """Decorator: register ``fn`` as the check ``name``. Registering a name twice is an error."""

    def decorator(fn: Callable[[GuardContext], CheckResult]) -> Callable[[GuardContext], CheckResult]:
        existing = _REGISTRY.get(name)
        if existing is not None and existing.fn is not fn:
            raise ValueError(f"check {name!r} is already registered by {existing.fn.__module__}")
        _REGISTRY[name] = RegisteredCheck(name, fn, tracker, tuple(params), tuple(optional))
        return fn

    return decorator


def get_check(name: str) -> RegisteredCheck | None:
    return _REGISTRY.get(name)


def registered_checks() -> list[str]:
    return sorted(_REGISTRY)


def tracker_key(check: RegisteredCheck, params: Mapping[str, Any]) -> tuple[Any, str] | None:
    """Checks with the same tracker factory and parameters share one tracker instance."""
    if check.tracker is None:
        return None
    return (check.tracker, json.dumps(params, sort_keys=True, default=str))


class Reviewer(Protocol):
    """A soft checker: asks an independent model (or anything else) to review the transition."""

    def review(self, prompt: str, context: GuardContext) -> CheckResult: ...


def changed_files(sha256: Sequence[tuple[str, str]], cwd: Path | None = None) -> list[str]:
    """What differs of the files a shell check runs from their frozen sha256 (``sha256``: (path,
    hex digest); a relative path from ``cwd``, default the process's folder): one line each."""
    import hashlib

    out = []
    for path, want in sha256:
        full = Path(cwd or Path.cwd()) / path
        try:
            got = hashlib.sha256(full.read_bytes()).hexdigest()
        except OSError as exc:
            out.append(f"{path} cannot be read ({exc.strerror or exc})")
            continue
        if got != want:
            out.append(f"{path} has sha256 {got[:12]}…, not the frozen {want[:12]}…")
    return out


def run_shell_check(command: str, timeout_s: float, context: GuardContext, cwd: Path | None = None,
                    sha256: Sequence[tuple[str, str]] = ()) -> CheckResult:
    """Run one shell check (after checking the files it runs against ``sha256``, see the module
    docstring). Never raises for a failing, missing or slow command."""
    changed = changed_files(sha256, cwd)
    if changed:
        return CheckResult(False, f"guard command `{command}` was not run: the check it runs has changed since the "
                                  f"workflow was frozen ({'; '.join(changed)}), so it cannot decide this transition")
    with tempfile.TemporaryDirectory(prefix="fsm-guard-") as tmp:
        log_path = Path(tmp) / "tool_log.jsonl"
        vars_path = Path(tmp) / "variables.json"
        with open(log_path, "w", encoding="utf-8") as fh:
            for event in context.history:
                fh.write(json.dumps(event, ensure_ascii=False, default=str) + "\n")
        vars_path.write_text(json.dumps(dict(context.variables), ensure_ascii=False, default=str), encoding="utf-8")
        env = dict(os.environ)
        env.update(
            FSM_TOOL_LOG=str(log_path),
            FSM_VARIABLES=str(vars_path),
            FSM_WORKFLOW=context.workflow,
            FSM_STATE=context.state,
            FSM_TARGET=context.target,
        )
        try:
            proc = subprocess.Popen(
                ["/bin/sh", "-c", command],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                text=True,
                env=env,
                cwd=str(cwd) if cwd else None,
                start_new_session=True,  # so a timeout can kill the command's whole process group
            )
        except OSError as exc:
            return CheckResult(False, f"guard command `{command}` could not start: {exc}")
        try:
            output, _ = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.communicate()
            return CheckResult(
                False,
                f"guard command `{command}` timed out after {timeout_s:g} s; a timeout counts as a "
                "failed guard (raise the check's `timeout:` if the command needs longer)",
            )
    output = (output or "").strip()
    if proc.returncode == 0:
        return CheckResult(True, output)
    if proc.returncode == 127:
        return CheckResult(False, f"guard command not found: `{command}` (exit 127): {output[-500:]}")
    tail = output[-1000:] if output else "(no output)"
    return CheckResult(False, f"guard command `{command}` failed (exit {proc.returncode}): {tail}")
