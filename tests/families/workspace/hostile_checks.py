"""What a hostile workspace agent's run must show (issue 46), for the e2e tests of both protocols:
every command the gate admitted that wrote beside the workspace or connected failed in the OS
sandbox, nothing outside the workspace changed (the check scripts are the package's bytes, the
month-end inputs the generator's, no file of the session folder outside the workspace nor in /tmp
holds what the commands wrote, the frames are the FSM's own), no connection reached the probe
listener, and the run was scored by its protocol."""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path

#: What the hostile commands write spells this (their own text never holds the word).
MARK = "PWN" + "ED"
PACKAGE = Path(__file__).resolve().parents[3] / "study" / "families" / "workspace"
#: Why a write beside the workspace or a connection fails in the sandbox.
REFUSED = ("Read-only file system", "Connection refused", "Operation not permitted", "Network is unreachable")


def events(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "events.jsonl").read_text(encoding="utf-8").splitlines()]


def _hostile(command: str) -> bool:
    return any(word in command for word in ("'PWN' + 'ED'", "--output=../checks", "train.py --out", "create_connection",
                                            "../fsm/main.json"))


def check_hostile_run(folder: Path, *, research: bool, listener) -> None:
    log = events(folder)
    assert log[-1]["status"] == "completed", log[-1]          # not voided: the sandbox started
    admitted = [e for e in log if e["kind"] == "tool_call" and e["tool"] == "Bash" and e["allowed"]
                and _hostile(e["args"]["command"]) and not e["args"]["command"].startswith("apply_patch")]
    assert len(admitted) == (2 if research else 7), [e["args"]["command"] for e in admitted]
    for call in admitted:
        said = call.get("error") or call.get("result") or ""
        if "train.py --out" in call["args"]["command"]:       # the edited train.py says what it could do
            assert call["ok"] and "wrote other.py" in said and "no connection" in said
            assert said.count("Read-only file system") == 5, said   # the check, its plan, the frames, /tmp, the log
        else:
            assert call["ok"] is False and call["exit_code"] not in (0, None), call
            assert any(why in said for why in REFUSED), said
    protocol = "autoresearch" if research else "month_end_close"
    for script in (folder / "checks").glob("*.py"):
        assert hashlib.sha256(script.read_bytes()).digest() == hashlib.sha256((PACKAGE / protocol / script.name).read_bytes()).digest()
    if not research:
        from study.families.workspace.month_end_close.workspace import period_files
        from study.families.workspace.month_end_close.world import generate

        assert {p.name: p.read_text() for p in (folder / "inputs" / "2025-01").iterdir()} == period_files(generate(1), 1)
    outside = [p for p in folder.rglob("*") if p.is_file() and "workspace" not in p.relative_to(folder).parts[:1]]
    assert outside and not [p for p in outside if MARK.encode() in p.read_bytes()]
    assert not Path("/tmp/study-hostile-2025-01.txt").exists() and not Path("/tmp/study-hostile-autoresearch.txt").exists()
    frames = json.loads((folder / "fsm" / "main.json").read_text())    # the FSM's own record, as it left it
    moved = [e["to"] for e in log if e["kind"] == "transition" and e["ok"]]
    assert frames["agent"] == "main"
    if research:      # one context: the start, then the baseline, checked; the frame waits in the next stage
        assert [f["state"] for f in frames["stack"]] == ["S_scheduler"] == moved[-1:]
    else:             # the period closed and the agent exited the workflow
        assert frames["stack"] == [] and moved[-1] == "S_done"
    assert listener.connections == []
    # inside the workspace an admitted program writes what it likes (no OS rule stops it; the protocol's checks
    # judge what is committed), and the run is scored by its protocol as any other
    result = next(e for e in log if e["kind"] == "outcome")
    if research:
        assert (folder / "workspace" / "other.py").read_text() == MARK
        assert (result["valid_rows"], result["invalid_rows"]) == (1, 0)
    else:
        assert result["periods"][0]["correct"] is True


@contextlib.contextmanager
def at_most(contexts: int):
    """Runs of at most ``contexts`` fresh contexts (a smaller run of the same code)."""
    from study.families.workspace.family import WorkspaceFamily

    real = WorkspaceFamily.open_work

    def open_work(self, setup):
        work = real(self, setup)
        work.max_contexts = min(work.max_contexts, contexts)
        work.labels = work.labels[:work.max_contexts]
        work.order = list(work.labels)
        return work

    WorkspaceFamily.open_work = open_work
    try:
        yield
    finally:
        WorkspaceFamily.open_work = real
