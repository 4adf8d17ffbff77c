"""The session container (study/families/swebench/container.py): a command runs inside the
instance's image with the workspace visible at its own path, no network, and its exit status
kept, directly and through the shell a CLI is given; and no container outlives its owner,
whether the owner stops it, is terminated or is killed outright."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from study.families.swebench import container as c

pytestmark = pytest.mark.xdist_group("swebench-docker")
NO_NETWORK = "python3 -c 'import socket; socket.create_connection((\"1.1.1.1\", 80), timeout=3)'"


def _exists(name: str) -> bool:
    return subprocess.run(["docker", "inspect", name], capture_output=True).returncode == 0


def test_a_command_runs_in_the_image_sees_the_workspace_has_no_network_and_keeps_its_status(instance_image, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "from_host.txt").write_text("host\n")
    with c.SessionContainer(instance_image, workspace) as box:
        done = box.run("test -d /testbed && cat from_host.txt && pwd && echo inside > from_container.txt; exit 7")
        assert (done.returncode, done.stdout) == (7, f"host\n{workspace.resolve()}\n")
        assert (workspace / "from_container.txt").read_text() == "inside\n"
        offline = box.run(NO_NETWORK)
        assert offline.returncode == 1 and "Network is unreachable" in offline.stderr
        assert box.run("python3 -m pytest --version").returncode == 0, "the image's own Python and pytest"
    assert not _exists(box.name)


def test_the_cli_shell_runs_bash_in_the_container_in_the_cli_s_folder_with_its_status(instance_image, tmp_path):
    workspace, home = tmp_path / "ws", tmp_path / "home"
    (workspace / "sub").mkdir(parents=True)
    with c.SessionContainer(instance_image, workspace, mounts=(home,)) as box:
        shell = c.write_shell(box, tmp_path / "bin")
        assert shell.name == "bash"
        env = {**os.environ, "HOME": str(home), "GIT_EDITOR": "true"}
        done = subprocess.run([str(shell), "-c", "test -d /testbed && pwd && echo $HOME $GIT_EDITOR; exit 5"],
                              cwd=workspace / "sub", env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        assert (done.returncode, done.stdout) == (5, f"{(workspace / 'sub').resolve()}\n{home.resolve()} true\n")
        outside = subprocess.run([str(shell), "-c", "pwd"], cwd=tmp_path, capture_output=True, text=True)
        assert outside.stdout == f"{workspace.resolve()}\n", "a folder not mounted runs in the workspace"
        offline = subprocess.run([str(shell), "-c", NO_NETWORK], cwd=workspace, capture_output=True, text=True)
        assert offline.returncode == 1 and "Network is unreachable" in offline.stderr


OWNER = textwrap.dedent("""
    import sys, time
    from study.families.swebench.container import SessionContainer
    box = SessionContainer(sys.argv[1], sys.argv[2]).start()
    print(box.name, flush=True)
    time.sleep(600)
""")


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_no_container_outlives_its_owner(instance_image, tmp_path, how):
    owner = subprocess.Popen([sys.executable, "-c", OWNER, instance_image, str(tmp_path)], stdout=subprocess.PIPE,
                             text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    name = owner.stdout.readline().strip()
    assert name and _exists(name)
    owner.send_signal(how)
    owner.wait(timeout=30)
    deadline = time.monotonic() + 20
    while _exists(name) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _exists(name), f"{name} outlived its owner's {how.name}"


def test_reap_orphans_removes_containers_whose_owner_is_gone(instance_image):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout.strip()
    name = f"sweb-session-orphan-{dead}"
    subprocess.run(["docker", "run", "-d", "--name", name, "--label", f"{c.LABEL}={name}", "--label", f"{c.OWNER_LABEL}={dead}",
                    "--network", "none", instance_image, "sleep", "600"], check=True, capture_output=True)
    try:
        assert name in c.reap_orphans()
        assert not _exists(name)
    finally:
        subprocess.run(["docker", "rm", "-f", name], capture_output=True)
