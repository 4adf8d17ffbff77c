"""The command ``study sim serve`` prints runs as printed (issue 11): a shell runs exactly the
printed lines, i.e. ``study claude -p …`` (the bundled Claude Code CLI) with the SOP-Bench tools
from ``study tools serve``, against the running simulator, and the batch gets decided."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from sopbench_tools.dataset import gold_labels
from sopbench_tools.orders import order_for_seed

pytestmark = pytest.mark.e2e

BIN = str(Path(sys.executable).parent)  # where the install put the `study` command


def _printed_command(serve: subprocess.Popen) -> tuple[str, str]:
    lines = []
    while not lines or not lines[-1].startswith("Press Ctrl-C"):
        line = serve.stdout.readline()
        assert line, "study sim serve ended before printing its command:\n" + "".join(lines)
        lines.append(line)
    url = re.search(r"listening on (http://127\.0\.0\.1:\d+)", lines[0]).group(1)
    command = "".join(line for line in lines if line.startswith("  "))
    return url, command


def test_the_command_printed_by_sim_serve_runs_as_printed(tmp_path):
    env = {**os.environ, "PATH": BIN + os.pathsep + os.environ.get("PATH", ""), "HOME": str(tmp_path)}
    truth = tmp_path / "sim_truth.jsonl"
    serve = subprocess.Popen(["study", "sim", "serve", "--policy", "oracle", "--seed", "2", "--truth", str(truth)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        url, command = _printed_command(serve)
        assert command.lstrip().startswith(f"ANTHROPIC_BASE_URL={url} ") and "\n  study claude -p '" in command
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
    finally:
        serve.send_signal(signal.SIGINT)
        rest, _ = serve.communicate(timeout=30)
    requests = int(re.search(r"Stopped after (\d+) requests", rest).group(1))
    assert requests > 5
    # the oracle decided every account of the printed batch (5 accounts of seed 2), correctly, through the tools
    decisions = {}
    for line in truth.read_text().splitlines():
        record = json.loads(line)
        if record.get("kind") == "decision":
            decisions[record["account"]] = record["action"]
    gold = gold_labels()
    assert decisions == {a: gold[a] for a in order_for_seed(2)[:5]}
