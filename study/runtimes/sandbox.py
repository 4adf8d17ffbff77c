"""The operating-system sandbox of the agent's commands in a workspace, on each runtime.

The FSM's gate reads a command's text; what an admitted program then writes or connects to is
bounded only by an OS sandbox (docs/fsm.md, "What bounds the agent's commands"). Both runtimes
bring one:

- **Claude Code** sandboxes its ``Bash`` tool with bubblewrap (filesystem) and socat (its network
  proxy), Debian's ``bubblewrap`` and ``socat``. :func:`claude_settings` is the ``sandbox`` block
  of the CLI's ``--settings`` (verified on the bundled CLI 2.1.332): ``enabled``,
  ``failIfUnavailable`` (without it a CLI that cannot sandbox runs the commands unconfined and
  says nothing), ``allowUnsandboxedCommands: false`` (the model's ``dangerouslyDisableSandbox``
  is ignored), the network shut (``strictAllowlist`` with no allowed domain: the proxy refuses
  every host; a direct connection finds an empty network namespace), and the writable paths:
  the working folder (the CLI's own default, less ``.git/config``, ``.git/hooks`` and the like,
  which it keeps read-only) plus the temporary folder ``CLAUDE_CODE_TMPDIR`` names (the CLI
  writes ``claude-<uid>/`` there; a session gives it a private one). Everything else is
  read-only to the commands. The file tools (Read, Edit, Write) are not sandboxed: the FSM's gate
  and the CLI's permission rules (``Edit(./**)``) bound them.
- **Codex CLI** runs every command in its ``workspace-write`` sandbox (its own bubblewrap and
  seccomp, ``config.sandbox_settings``). With a system ``bwrap`` installed it execs its helper
  ``codex-linux-sandbox`` from a link it makes in its home, and it refuses to make that link
  under its temporary folder (``$TMPDIR``, else /tmp): :data:`CODEX_TMPDIR` is the folder of its
  home the adapter names as its ``TMPDIR`` instead, so a session folder under /tmp works.

A sandbox that cannot start is the runtime's failure, never the agent's: :func:`claude_problem`
refuses a Claude Code workspace session before it starts; :func:`looks_like_sandbox_failure`
spots a command that failed because the sandbox did not start, which the session then voids once
the runtime's own probe (:func:`claude_problem`, :func:`codex_problem`) confirms it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Mapping, Sequence

#: The Debian packages Claude Code's sandbox needs on Linux (and what provides them).
CLAUDE_PACKAGES = {"bwrap": "bubblewrap", "socat": "socat"}
INSTALL = "apt-get install bubblewrap socat"
#: The folder of a Codex home that the adapter gives Codex as its TMPDIR (see the module docstring).
CODEX_TMPDIR = "tmpdir"
#: Seconds a probe of the sandbox may take.
PROBE_TIMEOUT_S = 30.0

#: What a command's output starts with when the sandbox, not the command, failed: bubblewrap's own
#: errors (it prints ``bwrap: …`` and exits before the command runs), Codex's helper missing, and
#: Claude Code's refusal once its sandbox stopped being available.
_FAILURE_STARTS = ("bwrap: ",)
_FAILURE_TEXTS = ("codex-linux-sandbox", "Sandbox is required (sandbox.failIfUnavailable)",
                  "sandbox required but unavailable")


def claude_settings(*, writable: Sequence[Path] = (), read_only: Sequence[Path] = ()) -> dict[str, Any]:
    """The ``sandbox`` settings of a Claude Code workspace session (see the module docstring):
    ``writable``, folders beside the working folder its commands may write too (a protocol's
    declared output folders); ``read_only``, files and folders inside it they may not write
    (``denyWrite``: exact paths, which the CLI binds read-only; ``study claude`` gives a project's
    FSM frames, workflows and hook settings)."""
    filesystem: dict[str, Any] = {"allowWrite": [str(p) for p in writable]}
    if read_only:
        filesystem["denyWrite"] = [str(p) for p in read_only]
    return {"sandbox": {
        "enabled": True,
        "failIfUnavailable": True,
        "allowUnsandboxedCommands": False,
        "network": {"allowedDomains": [], "strictAllowlist": True},
        "filesystem": filesystem,
    }}


def claude_problem(env: Mapping[str, str] | None = None) -> str | None:
    """Why Claude Code cannot sandbox commands here (one line saying what to install), or None:
    ``bwrap`` and ``socat`` on the CLI's PATH, and bubblewrap able to start a sandbox (a
    read-only root, no network; it fails where user namespaces are off)."""
    path = (env or os.environ).get("PATH", os.defpath)
    missing = [CLAUDE_PACKAGES[tool] for tool in CLAUDE_PACKAGES if shutil.which(tool, path=path) is None]
    if missing:
        what = f"{missing[0]} is not" if len(missing) == 1 else "neither is"
        return f"Claude Code's sandbox needs bubblewrap and socat, and {what} installed here: {INSTALL}"
    bwrap = shutil.which("bwrap", path=path)
    argv = [str(bwrap), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--die-with-parent",
            "--", "true"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bubblewrap cannot start a sandbox here ({bwrap}: {exc})"
    if done.returncode != 0:
        said = _first_line(done.stderr or done.stdout) or f"exit {done.returncode}"
        return f"bubblewrap cannot start a sandbox here, which Claude Code's sandbox needs: {said}"
    return None


def codex_problem(binary: Path, env: Mapping[str, str], cwd: Path) -> str | None:
    """Why Codex CLI cannot run a command in its sandbox with this home and environment (its
    ``CODEX_HOME``'s ``config.toml`` sets the sandbox), or None: ``codex sandbox -- true`` in
    ``cwd``, the same sandbox the agent's commands run in."""
    try:
        done = subprocess.run([str(binary), "sandbox", "--", "true"], capture_output=True, text=True, env=dict(env),
                              cwd=str(cwd), timeout=PROBE_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"Codex CLI's sandbox could not be tried ({exc})"
    if done.returncode != 0:
        lines = [line for line in (done.stderr + "\n" + done.stdout).splitlines()
                 if line.strip() and not line.startswith("WARNING: proceeding")]
        said = next((line for line in lines if looks_like_sandbox_failure(line)), lines[0] if lines else "")
        return f"Codex CLI's sandbox cannot start here: {said or f'exit {done.returncode}'}"
    return None


def looks_like_sandbox_failure(output: str) -> bool:
    """Whether a failed command's output is a sandbox that did not start rather than the command's
    own (bubblewrap's ``bwrap: …``, Codex's missing ``codex-linux-sandbox``, Claude Code's refusal
    once its required sandbox is gone). A command can print the same words: the caller confirms
    with the runtime's probe before it voids anything."""
    lines = [line for line in output.splitlines() if line.strip() and not line.startswith("Exit code ")]
    first = lines[0].strip() if lines else ""
    return first.startswith(_FAILURE_STARTS) or any(text in first for text in _FAILURE_TEXTS)


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


class SandboxUnavailable(RuntimeError):
    """The sandbox of a workspace session's commands cannot start (the message says why, in one
    line): an infrastructure failure, never the agent's (``classify_error`` of each runtime)."""
