"""A Codex CLI session's transcript in ``study view`` (issue 49 item 13): the FSM's state note,
which Codex CLI writes as a developer message after the call its PostToolUse hook ran on, is shown
as the hook's note, never as a user message among the prompts. A golden session given a rollout
written by hand in the forms Codex CLI 0.169.0 writes; the documents and a real headless Chromium.
Screenshots land in /tmp/viewer-shots/."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import pytest

from study.view.load import Store

from .conftest import screenshot, serving
from .test_browser import _wait

SESSION = "exploratory/sim-drifting/FSM/seed-2-first-8"
PROMPT = "You are running an unattended batch of 8 referral-program accounts."
NOTE = "moved from S_investigate to S_record Now in workflow state S_record. Record the decision."


def _item(n: int, payload: dict) -> str:
    return json.dumps({"timestamp": f"2026-11-30T21:12:{n:02d}.000Z", "type": "response_item", "payload": payload})


def _as_codex(corpus: Path) -> Path:
    """The golden session as a Codex CLI session: its meta.json names the runtime, its transcript a
    prompt, an MCP call with the hook's note between the call and its output, and the model's text."""
    folder = corpus / SESSION
    meta = json.loads((folder / "meta.json").read_text())
    (folder / "meta.json").write_text(json.dumps({**meta, "runtime": "codex"}))
    lines = [
        _item(1, {"type": "message", "role": "user", "content": [{"type": "input_text", "text": PROMPT}]}),
        _item(2, {"type": "function_call", "name": "get_account", "namespace": "mcp__sopbench",
                  "arguments": json.dumps({"account_id": "ACC100185"}), "call_id": "call_1"}),
        _item(3, {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": NOTE}]}),
        _item(4, {"type": "function_call_output", "call_id": "call_1",
                  "output": [{"type": "input_text", "text": "Wall time: 0.0061 seconds\nOutput:"},
                             {"type": "input_text", "text": '{"account_id": "ACC100185"}'}]}),
        _item(5, {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Recorded."}]}),
    ]
    (folder / "transcript.jsonl").write_text("\n".join(lines) + "\n")
    return corpus


@pytest.mark.e2e
def test_a_codex_hook_note_is_the_hooks_not_the_users(golden_corpus, browser, tmp_path):
    from selenium.webdriver.common.by import By

    corpus = _as_codex(golden_corpus)
    store = Store(corpus)
    (turns, _other), refused = store.conversation(store.session(SESSION), None)
    assert refused is None
    assert [(t["role"], t.get("hook", False)) for t in turns] == [
        ("user", False), ("call", False), ("user", True), ("assistant", False)]
    with serving(corpus, tmp_path) as (base, _proc):
        browser.get(base + "#/s/" + quote(SESSION, safe=""))
        _wait(browser, "#show-transcript").pop().click()
        shown = _wait(browser, "#transcript .turn", 4)
        assert [t.get_attribute("data-role") for t in shown] == ["user", "call", "hook", "assistant"]
        note = browser.find_element(By.CSS_SELECTOR, "#transcript .turn.hook")
        assert note.text.startswith("note of the PostToolUse hook (the harness's, after the call; not the user's)")
        assert NOTE in note.text
        assert [t.text for t in browser.find_elements(By.CSS_SELECTOR, "#transcript .turn.user .text")] == [PROMPT]
        screenshot(browser, tmp_path, "codex-hook-note")
        errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors
