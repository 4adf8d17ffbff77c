"""The viewer reads only sessions inside the sessions folder and listens on 127.0.0.1 only; bad
input to `study view` is one line and exit code 2 (4 when there is nothing to show)."""

from __future__ import annotations

import http.client
import json
import os
import shutil
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest
from click.testing import CliRunner

from study.cli import main
from study.view.paths import Refused, file_key, session_dir
from study.view.server import bind

SESSION = "exploratory/sim-drifting/Plain/seed-2-first-8"


def test_names_outside_the_sessions_folder_or_not_sessions_are_refused(golden_corpus, tmp_path):
    assert session_dir(golden_corpus, SESSION) == (golden_corpus / SESSION).resolve()
    outside = tmp_path / "outside"
    shutil.copytree(golden_corpus / SESSION, outside)          # a real session, but not in the folder
    os.symlink(outside, golden_corpus / "link")
    for name, why in [("../outside", "is outside the sessions folder"), (str(outside), "is not a session of"),
                      ("link", "is outside the sessions folder"), ("exploratory", "is not a session folder"),
                      ("", "is not a session of"), (f"{SESSION}/../../../../../outside", "is outside the sessions folder")]:
        with pytest.raises(Refused, match=why):
            session_dir(golden_corpus, name)


def _get(base: str, raw_path: str) -> tuple[int, bytes]:
    """GET a path exactly as written (no client-side normalisation of '..')."""
    url = urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    conn.request("GET", raw_path)
    response = conn.getresponse()
    return response.status, response.read()


@pytest.mark.xdist_group("view-sim-corpus")   # sim_corpus is made once per worker: its tests share one
@pytest.mark.e2e
def test_the_server_listens_on_loopback_and_refuses_paths_outside(server, sim_corpus):
    assert server.startswith("http://127.0.0.1:")
    (sim_corpus.parent / "secret").mkdir(exist_ok=True)
    (sim_corpus.parent / "secret" / "meta.json").write_text("{}")
    status, body = _get(server, "/api/session?session=" + quote("../secret", safe=""))
    assert (status, json.loads(body)["error"]) == (404, "'../secret' is outside the sessions folder; only sessions "
                                                         f"inside {sim_corpus.resolve()} are shown")
    for raw in ["/api/events?session=%2Fetc&page=0", "/api/transcript?session=..%2F..%2F..%2Fetc",
                "/api/account?session=..&account=x"]:
        assert _get(server, raw)[0] == 404, raw
    assert _get(server, "/static/../../../pyproject.toml")[0] == 404
    assert _get(server, "/static/%2e%2e/cli.py")[0] == 404
    status, body = _get(server, "/api/account?session=" + quote(SESSION, safe="") + "&account=ACC999999")
    assert (status, json.loads(body)["error"]) == (404, f"no such page of {SESSION}")


def test_bind_is_loopback_only_and_a_taken_port_is_a_usage_error(golden_corpus):
    sock = bind(0)
    try:
        host, port = sock.getsockname()
        assert host == "127.0.0.1"
        result = CliRunner().invoke(main, ["view", "--sessions", str(golden_corpus), "--port", str(port)])
        assert result.exit_code == 2
        assert result.output == (f"Error: cannot listen on 127.0.0.1:{port} (Address already in use); pass another "
                                 "--port, or --port 0 for any free one.\n")
    finally:
        sock.close()


def test_usage_errors_and_nothing_to_show(golden_corpus, tmp_path):
    run = lambda *args: CliRunner().invoke(main, ["view", *args])  # noqa: E731
    missing = tmp_path / "nope"
    result = run("--sessions", str(missing))
    assert (result.exit_code, result.output) == (2, f"Error: {missing}: no such folder. Pass the sessions folder "
                                                    "with --sessions DIR.\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run("--sessions", str(empty))
    assert result.exit_code == 4 and result.output.startswith(f"Error: no session under {empty}.")
    inside = golden_corpus / "viewer"
    result = run("--sessions", str(golden_corpus), "--bundle", str(inside))
    assert result.exit_code == 2 and "is inside the sessions folder" in result.output and not inside.exists()
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    result = run("--sessions", str(golden_corpus), "--bundle", str(busy))
    assert result.exit_code == 2 and "is not empty and holds no earlier bundle" in result.output
    assert sorted(p.name for p in busy.iterdir()) == ["notes.txt"]
    result = run("--sessions", str(golden_corpus), "--no-transcripts")
    assert (result.exit_code, result.output) == (2, "Error: --no-transcripts goes with --bundle OUT; the server "
                                                    "reads transcripts only when asked.\n")


def test_file_keys_are_safe_and_distinct():
    assert file_key("exploratory/sim-x/FSM/seed-2") == "exploratory~002fsim-x~002fFSM~002fseed-2"
    assert file_key("..") == "~002e~002e" and file_key("a..b") == "a..b"
    assert file_key("a/b") != file_key("a~002fb".replace("~", "_"))
