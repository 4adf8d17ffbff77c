"""The viewer in a real headless Chromium: the matrix over simulator sessions, filtering, a session,
an interleaved account with its breaking call highlighted; the static bundle from file:// shows
the same pages. Screenshots of the three pages land in the test folder and /tmp/viewer-shots/."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from analysis.scoring import score_session_dir
from study.session_io.reader import read_log
from study.cli import main

from .conftest import screenshot

pytestmark = pytest.mark.e2e

PLAIN = "exploratory/sim-adversarial/Plain/seed-2-first-6"
#: The adversarial policy interleaves once: it retrieves the second account's data, then the
#: third's, then decides the second (study/sim/policies.py, Adversarial).
INTERLEAVED, BREAKER = "ACC100019", "ACC100104"
TIMEOUT = 60


def score_log_events(session_dir: Path) -> list[dict]:
    return read_log(session_dir / "events.jsonl").events


def _wait(driver, css: str, count: int | None = None):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    def ready(d):
        found = d.find_elements(By.CSS_SELECTOR, css)
        return found if found and (count is None or len(found) == count) else False
    return WebDriverWait(driver, TIMEOUT).until(ready)


def _visible_rows(driver) -> list[str]:
    from selenium.webdriver.common.by import By

    return [r.get_attribute("data-name") for r in driver.find_elements(By.CSS_SELECTOR, "#matrix tbody tr")
            if r.is_displayed()]


def _walk(driver, start_url: str, tmp_path: Path, shots: bool) -> dict[str, str]:
    """Matrix -> filter -> session -> interleaved account; the text of each page."""
    from selenium.webdriver.common.by import By

    driver.get(start_url)
    rows = _wait(driver, "#matrix tbody tr", 12)
    texts = {"matrix": driver.find_element(By.ID, "main").text}
    # every session of this corpus is simulated: each row carries the mark, the page the banner
    assert all("SIMULATED" in r.text for r in rows)
    assert driver.find_element(By.ID, "simulated").is_displayed()
    if shots:
        screenshot(driver, tmp_path, "1-matrix")
    driver.find_element(By.ID, "filter").send_keys("adversarial plain")
    assert _visible_rows(driver) == [PLAIN]
    assert driver.find_element(By.ID, "count").text == "1 of 12 sessions"
    driver.find_element(By.CSS_SELECTOR, f'#matrix tr[data-name="{PLAIN}"]').click()

    strip = _wait(driver, "#strip a", 6)
    assert driver.find_element(By.ID, "simulated").is_displayed()
    texts["session"] = driver.find_element(By.ID, "main").text
    assert "$0.03 (simulated, priced as claude-haiku-4-5)" in texts["session"]
    cells = {a.get_attribute("data-account"): a.get_attribute("class") for a in strip}
    if shots:
        screenshot(driver, tmp_path, "2-session")
    # the escape route "ends turn" links its stop event: the event list opens at it, highlighted
    driver.find_element(By.CSS_SELECTOR, '#routes tr[data-route="ends_turn"] a').click()
    target = _wait(driver, "#events tr.target", 1)[0]
    texts["stop"] = target.get_attribute("id") + " " + target.text
    # the transcript is loaded only when asked for, a page at a time
    driver.find_element(By.ID, "show-transcript").click()
    texts["conversation"] = _wait(driver, "#show-raw", 1) and driver.find_element(By.CSS_SELECTOR, "#transcript .pager").text
    driver.find_element(By.ID, "show-raw").click()
    _wait(driver, "#show-conversation", 1)
    texts["transcript"] = _wait(driver, "#transcript .pager")[0].text
    strip = _wait(driver, "#strip a", 6)
    driver.find_element(By.CSS_SELECTOR, f'#strip a[data-account="{INTERLEAVED}"]').click()

    breaking = _wait(driver, "#calls .event.breaking", 1)[0]
    _wait(driver, "#compare-with")         # filled in once the matrix is loaded
    assert driver.find_element(By.ID, "simulated").is_displayed()
    texts["account"] = driver.find_element(By.ID, "main").text
    texts["breaking"] = breaking.get_attribute("data-seq") + " " + breaking.text
    texts["foc"] = driver.find_element(By.CSS_SELECTOR, '#clauses tr[data-clause="foc"]').text
    texts["cells"] = repr(sorted(cells.items()))
    if shots:
        screenshot(driver, tmp_path, "3-account")
    return texts


@pytest.mark.xdist_group("view-sim-corpus")   # sim_corpus is made once per worker: its tests share one
def test_matrix_filter_session_and_breaking_call_and_the_same_from_the_bundle(server, browser, sim_corpus, tmp_path):
    score = score_session_dir(sim_corpus / PLAIN, evidence=True)
    ev = next(e for e in score.evidence if e.score.account == INTERLEAVED)
    assert not ev.score.foc and ev.other[1] == BREAKER

    served = _walk(browser, server, tmp_path, shots=True)
    stop = next(e for e in score_log_events(sim_corpus / PLAIN) if e["kind"] == "stop")
    assert served["stop"].startswith(f"seq-{stop['seq']} {stop['seq']} ") and "ended, 3 accounts left" in served["stop"]
    lines = len((sim_corpus / PLAIN / "transcript.jsonl").read_text().splitlines())
    assert served["transcript"].endswith(f"page 1 of {-(-lines // 100)} ({lines} lines)")
    # the breaking call is the scorer's: its seq, the other account, and the foc row's evidence
    seq = ev.other[0]
    assert served["breaking"].startswith(f"{seq} seq {seq} ")
    assert f"other account {BREAKER}" in served["breaking"] and "breaks focus" in served["breaking"]
    assert served["foc"] == (f"foc ✗ a data call for {BREAKER} (seq {seq}) lies between this account's first "
                             f"retrieval (seq {min(ev.retrieved.values())}) and its decision (seq "
                             f"{ev.score.decision_seq}) breaking call: seq {seq} ({BREAKER})")
    # the strip's classes are the scorer's: FC, compliant-but-wrong, not compliant, undecided
    classes = {d.account: ("fc" if d.correct else "wrong") if d.compliant else "noncompliant" for d in score.decisions}
    want = sorted((a, classes.get(a, "undecided")) for a in score.order)
    assert served["cells"] == repr(want)

    out = tmp_path / "bundle"
    result = CliRunner().invoke(main, ["view", "--sessions", str(sim_corpus), "--bundle", str(out)])
    assert result.exit_code == 0, result.output
    bundled = _walk(browser, (out / "index.html").as_uri(), tmp_path / "bundle-shots", shots=False)
    assert {k: (v, served[k]) for k, v in bundled.items() if v != served[k]} == {}
