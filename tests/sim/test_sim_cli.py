"""``study sim serve``: a standalone server that says how to point plain ``claude`` at it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request

from click.testing import CliRunner

from study.sim.cli import sim


def test_serve_prints_the_url_and_the_environment_and_answers_requests():
    process = subprocess.Popen([sys.executable, "-m", "study.cli", "sim", "serve", "--policy", "blind", "--seed", "3"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        lines = [process.stdout.readline() for _ in range(6)]
        url = re.search(r"listening on (http://127\.0\.0\.1:\d+)", lines[0]).group(1)
        assert "SIMULATED" in lines[0]
        assert f"ANTHROPIC_BASE_URL={url}" in lines[2] and "ANTHROPIC_API_KEY=" in lines[2]
        assert "claude -p" in lines[3] and '"args": ["tools", "serve", "--seed", "3"' in lines[4]
        body = {"model": "m", "tools": [{"name": "mcp__sopbench__list_batch"}],
                "messages": [{"role": "user", "content": "go"}]}
        request = urllib.request.Request(url + "/v1/messages", data=json.dumps(body).encode(), method="POST",
                                         headers={"anthropic-beta": "claude-code-20250219"})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert json.loads(response.read())["content"][0]["name"] == "mcp__sopbench__list_batch"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_serve_refuses_a_bad_option_with_the_choices():
    result = CliRunner().invoke(sim, ["serve", "--policy", "genius"])
    assert result.exit_code != 0 and "oracle" in result.output
    result = CliRunner().invoke(sim, ["serve", "--fault-at", "0", "--fault", "quota"])
    assert result.exit_code != 0 and "fault_at" in result.output
