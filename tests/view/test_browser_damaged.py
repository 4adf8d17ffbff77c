"""In the browser: a damaged session's page says what is wrong with it (every broken rule, the
events that could be read), a refused transcript says why, and a malformed address is a message,
never an uncaught error. Screenshots land in /tmp/viewer-shots/."""

from __future__ import annotations

import os
from urllib.parse import quote

import pytest

from .conftest import screenshot, serving
from .test_browser import _wait

pytestmark = pytest.mark.e2e

NUL = "exploratory/sim-drifting/Remind-loop/seed-2-first-8"
LINKED = "exploratory/sim-drifting/Plain/seed-2-first-8"


def _severe(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def test_damaged_session_refused_transcript_and_malformed_address(golden_corpus, browser, tmp_path):
    from selenium.webdriver.common.by import By

    events = golden_corpus / NUL / "events.jsonl"
    data = events.read_bytes()
    events.write_bytes(data[: len(data) // 2].rsplit(b"\n", 1)[0] + b"\n" + b"\x00" * 4096 + b"\n" + b'{"seq": 99}\n')
    os.symlink("/etc/hostname", golden_corpus / LINKED / "transcript.jsonl")
    with serving(golden_corpus, tmp_path) as (base, _proc):
        browser.get(base + "#/s/" + quote(NUL, safe=""))
        box = _wait(browser, "#damaged", 1)[0]
        items = [li.text for li in box.find_elements(By.CSS_SELECTOR, "li")]
        assert box.text.startswith("These records break the log rules; the session is never scored")
        assert any("line of 4,096 NUL bytes (a crash left a hole in the file)" in i for i in items), items
        assert any("[rule seq]" in i or "[rule event]" in i for i in items), items
        assert browser.find_element(By.ID, "show-events").text.startswith("Show the ")
        screenshot(browser, tmp_path, "4-damaged")

        browser.get(base + "#/s/" + quote(LINKED, safe=""))
        _wait(browser, "#show-transcript", 1)[0].click()
        refused = _wait(browser, "#transcript-refused", 1)[0]
        assert refused.text == ("transcript.jsonl is a link to /etc/hostname, outside the session folder; only files "
                                "inside it are read; it is not shown")

        browser.get(base + "#/s/%E0%A4%A/a/x")
        bad = _wait(browser, "#bad-address", 1)[0]
        assert bad.text.startswith("This address is malformed (URI malformed): #/s/%E0%A4%A/a/x")
        assert _severe(browser) == []
        browser.find_element(By.LINK_TEXT, "Back to the sessions").click()
        _wait(browser, "#matrix tbody tr")
