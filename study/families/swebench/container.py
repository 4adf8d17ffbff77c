"""A session's container: the instance's image, the workspace at its own path, no network.

The agent CLI runs on the host (its hooks and MCP servers are the study's Python processes
there); the commands its shell tool runs execute in this container, where the repository's
dependencies are (docs/swebench.md, "How the agent's commands run in the instance's
environment"). :class:`SessionContainer` starts one container per session from the instance image
with the workspace (and the CLI's home and temporary folder, which its shell tool reads and
writes) bind-mounted at the same paths, ``--network none``; :meth:`SessionContainer.run` runs a
command in it; :func:`write_shell` writes the executable a CLI is given as its shell (Claude
Code: ``CLAUDE_CODE_SHELL``), which hands its arguments to ``bash`` in the container and returns
its exit status.

No container is left behind, whatever ends the session:

- the container's only process (under docker's init) is ``cat >/dev/null`` reading the standard
  input of the ``docker run -i --rm`` client this object holds open through a pipe. Whatever ends
  this process, even SIGKILL, the pipe closes, ``cat`` ends, the container stops and docker
  (``--rm``, done by the daemon) removes it: measured in the tests;
- :meth:`SessionContainer.stop` (and the context manager, atexit and the SIGTERM, SIGINT and SIGHUP
  handlers installed while a container runs) removes it at once with ``docker rm -f``;
- every container is labelled with its owner's pid; :func:`reap_orphans` removes those whose
  owner is gone (a net for a daemon restarted while the client died, say).
"""

from __future__ import annotations

import atexit
import os
import shlex
import signal
import subprocess
import threading
import time
import uuid
from pathlib import Path

from .docker_env import docker

LABEL = "org.sop-fidelity-study.session"
OWNER_LABEL = "org.sop-fidelity-study.owner-pid"
#: host variables a command keeps in the container (PATH is the image's own, never the host's)
FORWARDED = ("HOME", "TMPDIR", "LANG", "TERM", "GIT_EDITOR", "CLAUDECODE", "AI_AGENT",
             "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")

_live: dict[str, "SessionContainer"] = {}
_lock = threading.Lock()
_previous_handlers: dict[int, object] = {}


class ContainerError(RuntimeError):
    """The session container could not be started (an infrastructure failure of the session)."""


def _stop_all() -> None:
    with _lock:
        containers = list(_live.values())
    for container in containers:
        container.stop()


def _on_signal(signum, frame):   # pragma: no cover - exercised in a subprocess by the tests
    _stop_all()
    previous = _previous_handlers.get(signum)
    if callable(previous):
        previous(signum, frame)
    elif previous == signal.SIG_IGN:
        return
    else:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


def _install_handlers() -> None:
    if threading.current_thread() is not threading.main_thread():
        return   # signal handlers can only be set from the main thread; atexit and the pipe remain
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        current = signal.getsignal(signum)
        if current is not _on_signal:
            _previous_handlers[signum] = current
            signal.signal(signum, _on_signal)


atexit.register(_stop_all)


class SessionContainer:
    """One session's container. ``workspace`` (and each of ``mounts``) is bind-mounted read-write
    at its own resolved path, so a path means the same on the host and in the container."""

    def __init__(self, image: str, workspace: Path, *, mounts: tuple[Path, ...] = (), network: bool = False,
                 name: str | None = None, user: str | None = None, also_at: str | None = None):
        self.image = image
        self.workspace = Path(workspace).resolve()
        self.mounts = tuple(dict.fromkeys([self.workspace, *(Path(m).resolve() for m in mounts)]))
        #: a second path the workspace is mounted at (SWE-bench's /testbed, where an image's
        #: installed package points), or None
        self.also_at = also_at
        self.network = network
        self.name = name or f"sweb-session-{uuid.uuid4().hex[:12]}"
        self.user = user or (None if os.getuid() == 0 else f"{os.getuid()}:{os.getgid()}")
        self._client: subprocess.Popen | None = None

    # -- life ------------------------------------------------------------------------------------
    def run_args(self) -> list[str]:
        args = ["docker", "run", "-i", "--rm", "--init", "--name", self.name,
                "--label", f"{LABEL}={self.name}", "--label", f"{OWNER_LABEL}={os.getpid()}",
                "--workdir", str(self.workspace)]
        if not self.network:
            args += ["--network", "none"]
        if self.user:
            args += ["--user", self.user]
        for path in self.mounts:
            args += ["--volume", f"{path}:{path}"]
        if self.also_at:
            args += ["--volume", f"{self.workspace}:{self.also_at}"]
        return [*args, self.image, "sh", "-c", "exec cat >/dev/null"]

    def start(self, timeout: float = 60) -> "SessionContainer":
        for path in self.mounts:
            path.mkdir(parents=True, exist_ok=True)
        self._client = subprocess.Popen(self.run_args(), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, start_new_session=True)
        with _lock:
            _live[self.name] = self
        _install_handlers()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._client.poll() is not None:
                said = self._client.stderr.read().decode(errors="replace").strip()
                self._forget()
                raise ContainerError(f"the session container did not start: {said or 'docker run exited'}")
            state = docker("inspect", "-f", "{{.State.Running}}", self.name, check=False, timeout=30)
            if state.returncode == 0 and state.stdout.strip() == "true":
                return self
            time.sleep(0.1)
        self.stop()
        raise ContainerError(f"the session container {self.name} did not start within {timeout:.0f} s")

    def stop(self) -> None:
        """Remove the container now (idempotent)."""
        client, self._client = self._client, None
        if client is None:
            return
        try:
            if client.stdin:
                client.stdin.close()
        except OSError:
            pass
        docker("rm", "-f", self.name, check=False, timeout=60)
        try:
            client.wait(timeout=30)
        except subprocess.TimeoutExpired:
            client.kill()
        self._forget()

    def _forget(self) -> None:
        with _lock:
            _live.pop(self.name, None)

    @property
    def running(self) -> bool:
        state = docker("inspect", "-f", "{{.State.Running}}", self.name, check=False, timeout=30)
        return state.returncode == 0 and state.stdout.strip() == "true"

    def __enter__(self) -> "SessionContainer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- commands --------------------------------------------------------------------------------
    def exec_args(self, cwd: Path | str | None = None, env: dict[str, str] | None = None,
                  stdin: bool = True) -> list[str]:
        """``docker exec`` up to the command: run in ``cwd`` (the workspace by default) with ``env``."""
        args = ["docker", "exec"] + (["-i"] if stdin else []) + ["--workdir", str(cwd or self.workspace)]
        if self.user:
            args += ["--user", self.user]
        for key, value in (env or {}).items():
            args += ["--env", f"{key}={value}"]
        return [*args, self.name]

    def run(self, command: str, cwd: Path | str | None = None, env: dict[str, str] | None = None,
            timeout: float | None = None, input: str | None = None) -> subprocess.CompletedProcess:
        """Run ``command`` with ``bash -c`` in the container; its exit status, output and errors."""
        return subprocess.run([*self.exec_args(cwd, env, stdin=input is not None), "bash", "-c", command],
                              capture_output=True, text=True, timeout=timeout, input=input)


def write_shell(container: SessionContainer, folder: Path, host_commands: tuple[str, ...] = ()) -> Path:
    """Write ``folder/bash``: the shell a CLI is given. It runs ``bash`` with the CLI's arguments in
    the container, in the CLI's working folder when that is mounted (else the workspace), with the
    forwarded variables (:data:`FORWARDED`), and exits with bash's exit status. Its name is ``bash``
    because Claude Code accepts a shell only by that name (or ``zsh``).

    ``host_commands``: commands the CLI itself runs with this shell that must run on the host, as
    ``-c COMMAND`` (or ``-lc``) with COMMAND exactly one of them: the CLI's own hook commands (Codex
    CLI runs its hooks with the user's shell). Nothing else runs on the host: any other command,
    one with more arguments, or one that differs by a byte, runs in the container."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    mounted = " ".join(shlex.quote(str(p)) for p in container.mounts)
    forwarded = " ".join(FORWARDED)
    user = f"--user {shlex.quote(container.user)} " if container.user else ""
    host = ""
    if host_commands:
        patterns = "|".join(shlex.quote(c) for c in host_commands)
        host = f"""if [ "$#" -eq 2 ] && {{ [ "$1" = -c ] || [ "$1" = -lc ]; }}; then
    case "$2" in
        {patterns}) exec /bin/sh -c "$2" ;;
    esac
fi
"""
    script = f"""#!/bin/sh
# The CLI's shell, run in the session container {container.name}: written by
# study/families/swebench/container.py (write_shell). Its exit status is the command's.
{host}cwd=$(pwd -P 2>/dev/null) || cwd=
inside={shlex.quote(str(container.workspace))}
for root in {mounted}; do
    case "$cwd/" in "$root"/*) inside=$cwd ;; esac
done
env_args=""
for name in {forwarded}; do
    eval "isset=\\${{$name+set}}"
    [ "$isset" = set ] && env_args="$env_args --env $name"
done
if [ -t 0 ]; then interactive="-it"; else interactive="-i"; fi
# $env_args is unquoted on purpose: names only, split into words
exec docker exec $interactive --workdir "$inside" {user}$env_args {shlex.quote(container.name)} /bin/bash "$@"
"""
    path = folder / "bash"
    path.write_text(script)
    path.chmod(0o755)
    return path


def reap_orphans() -> list[str]:
    """Remove the study's session containers whose owner process is gone; their names."""
    listed = docker("ps", "-a", "--filter", f"label={LABEL}", "--format",
                    f'{{{{.Names}}}} {{{{.Label "{OWNER_LABEL}"}}}}', check=False, timeout=30)
    removed = []
    for line in listed.stdout.splitlines():
        name, _, owner = line.partition(" ")
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            docker("rm", "-f", name, check=False, timeout=60)
            removed.append(name)
    return removed
