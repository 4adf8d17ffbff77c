"""A sessions folder is untrusted: the viewer serves and bundles only regular files inside the
session folder (a link to a file elsewhere is refused with the reason, the runner's own
transcript link still reads), and the server answers only requests addressed to 127.0.0.1,
localhost or [::1] with its port (DNS rebinding). All over real HTTP against `study view`."""

from __future__ import annotations

import http.client
import json
import os
from pathlib import Path
from urllib.parse import quote, urlsplit

from click.testing import CliRunner

from study.cli import main

from .conftest import serving

SESSION = "exploratory/sim-drifting/Plain/seed-2-first-8"
OTHER = "exploratory/sim-drifting/FSM/seed-2-first-8"
MARK = "SECRET-OF-THE-VIEWING-USER"


def get(base: str, path: str, host: str | None = None) -> tuple[int, dict]:
    url = urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    conn.putrequest("GET", path, skip_host=host is not None)
    if host is not None:
        conn.putheader("Host", host)
    conn.endheaders()
    response = conn.getresponse()
    body = response.read()
    try:
        return response.status, json.loads(body)
    except ValueError:
        return response.status, {"text": body.decode("utf-8", "replace")}


def api(base: str, kind: str, session: str, **params) -> tuple[int, dict]:
    query = "&".join(f"{k}={quote(str(v), safe='')}" for k, v in {"session": session, **params}.items())
    return get(base, f"/api/{kind}?{query}")


def _secret(tmp_path: Path) -> Path:
    secret = tmp_path / "home-of-the-viewer" / "secret.jsonl"
    secret.parent.mkdir()
    secret.write_text(json.dumps({"type": "user", "message": {"role": "user", "content": MARK}}) + "\n")
    return secret


def _transcript(folder: Path, text: str) -> None:
    (folder / "transcript.jsonl").write_text(
        json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}}) + "\n")


def test_links_to_files_outside_the_session_are_refused_and_never_served(golden_corpus, tmp_path):
    secret = _secret(tmp_path)
    target = golden_corpus / SESSION
    os.symlink(secret, target / "transcript.jsonl")
    other = golden_corpus / OTHER
    (other / "events.jsonl").unlink()
    os.symlink(secret, other / "events.jsonl")
    (other / "meta.json").unlink()
    os.symlink("/etc/passwd", other / "meta.json")
    with serving(golden_corpus, tmp_path) as (base, _proc):
        status, doc = api(base, "transcript", SESSION, page=0)
        assert status == 200 and MARK not in json.dumps(doc)
        assert doc["total"] == 0 and doc["refused"] == (
            f"transcript.jsonl is a link to {secret}, outside the session folder; only files inside it "
            "are read; it is not shown")
        status, doc = api(base, "session", OTHER)
        text = json.dumps(doc)
        assert status == 200 and MARK not in text and "root:" not in text
        assert doc["error"].startswith(f"meta.json cannot be read (is a link to {Path('/etc/passwd').resolve()}, "
                                       "outside the session folder; only files inside it are read) [rule meta-file]")
        assert doc["problems"] == [
            f"meta.json cannot be read (is a link to {Path('/etc/passwd').resolve()}, outside the session "
            "folder; only files inside it are read) [rule meta-file]",
            f"events.jsonl is a link to {secret}, outside the session folder; only files inside it "
            "are read; it is not read [rule file]"]
        assert doc["events_total"] == 0 and doc["meta"] == {"voided": False}
        status, doc = api(base, "events", OTHER, page=0)
        assert status == 200 and doc["events"] == [] and MARK not in json.dumps(doc)
        status, doc = get(base, "/api/matrix")
        assert status == 200 and MARK not in json.dumps(doc) and "root:" not in json.dumps(doc)

    out = tmp_path / "bundle"
    result = CliRunner().invoke(main, ["view", "--sessions", str(golden_corpus), "--bundle", str(out)])
    assert result.exit_code == 0, result.output
    written = "".join(p.read_text() for p in out.rglob("*.js"))
    assert MARK not in written and "root:x:0:0" not in written
    assert "is a link to" in written


def test_the_runners_own_transcript_link_inside_the_session_still_reads(golden_corpus, tmp_path):
    # the runner moves the CLI's transcript into the session and links it back from the CLI's HOME
    # (study/runtimes/claude_code/transcript.py); a transcript.jsonl that is itself a link inside the session reads too
    target = golden_corpus / SESSION
    _transcript(target, "kept by the runner")
    home = target / "home" / ".claude" / "projects" / "work"
    home.mkdir(parents=True)
    (home / "abc.jsonl").symlink_to(os.path.relpath(target / "transcript.jsonl", home))
    other = golden_corpus / OTHER
    _transcript(home, "linked inside the session")
    (home / "transcript.jsonl").rename(home / "cli.jsonl")
    os.symlink(os.path.relpath(home / "cli.jsonl", other), other / "transcript.jsonl")   # points into another session
    inside = golden_corpus / "exploratory/sim-drifting/Plain/seed-3-first-8"
    (inside / "home").mkdir()
    _transcript(inside / "home", "own home")
    os.symlink("home/transcript.jsonl", inside / "transcript.jsonl")
    with serving(golden_corpus, tmp_path) as (base, _proc):
        status, doc = api(base, "transcript", SESSION, page=0)
        assert status == 200 and doc["entries"][0]["blocks"][0]["text"] == "kept by the runner" and "refused" not in doc
        status, doc = api(base, "transcript", "exploratory/sim-drifting/Plain/seed-3-first-8", page=0)
        assert status == 200 and doc["entries"][0]["blocks"][0]["text"] == "own home"
        status, doc = api(base, "transcript", OTHER, page=0)
        assert status == 200 and doc["total"] == 0 and "outside the session folder" in doc["refused"]


def test_only_loopback_host_names_with_the_servers_port_are_answered(golden_corpus, tmp_path):
    with serving(golden_corpus, tmp_path) as (base, _proc):
        port = urlsplit(base).port
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", f"LOCALHOST:{port}"):
            assert get(base, "/api/matrix", host)[0] == 200, host
        for host in ("attacker.example", f"attacker.example:{port}", f"127.0.0.1:{port + 1}", "127.0.0.1",
                     f"127.0.0.1.attacker.example:{port}", ""):
            status, doc = get(base, "/api/matrix", host)
            assert status == 403, host
            assert doc["error"] == (f"refused: Host {host.lower()!r} is not this machine's viewer; open "
                                    f"http://127.0.0.1:{port}/ (only 127.0.0.1, localhost and [::1] with port "
                                    f"{port} are served)")
        assert get(base, "/", "rebound.example")[0] == 403
        assert get(base, "/static/app.js", "rebound.example")[0] == 403
        assert get(base, "/static/app.js")[0] == 200
