"""Sessions of several tasks: the viewer's matrix groups them by task, with a Task column in the
session table and in the per-condition means, and only then (a one-task folder looks as before).
Documents and a real headless Chromium. Screenshots land in /tmp/viewer-shots/."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from study.view import documents
from study.view.load import Store

from .conftest import screenshot, serving
from .test_browser import _wait

GOODS = "tasks/dangerous_goods/exploratory/sim-drifting/FSM/seed-2-first-8"


def _two_tasks(golden_corpus: Path) -> Path:
    """The golden referral sessions plus a copy of one whose meta.json names another task."""
    source = golden_corpus / "exploratory" / "sim-drifting" / "FSM" / "seed-2-first-8"
    shutil.copytree(source, golden_corpus / GOODS)
    meta = json.loads((golden_corpus / GOODS / "meta.json").read_text())
    (golden_corpus / GOODS / "meta.json").write_text(json.dumps({**meta, "task": "dangerous_goods"}))
    return golden_corpus


def test_the_matrix_document_names_each_sessions_task_and_groups_by_it(golden_corpus):
    one = documents.matrix_doc(Store(golden_corpus))
    assert one["tasks"] == ["referral_abuse_detection_v2"]
    assert {r["task"] for r in one["sessions"]} == {"referral_abuse_detection_v2"}
    doc = documents.matrix_doc(Store(_two_tasks(golden_corpus)))
    assert doc["tasks"] == ["referral_abuse_detection_v2", "dangerous_goods"]
    assert [r["name"] for r in doc["sessions"] if r["task"] == "dangerous_goods"] == [GOODS]
    assert doc["sessions"][-1]["name"] == GOODS and len(doc["sessions"]) == len(one["sessions"]) + 1
    fsm = [(g["task"], g["sessions"]) for g in doc["groups"] if g["condition"] == "FSM"]
    assert fsm == [("referral_abuse_detection_v2", 2), ("dangerous_goods", 1)]


@pytest.mark.e2e
def test_the_matrix_shows_a_task_column_only_for_sessions_of_several_tasks(golden_corpus, browser, tmp_path):
    from selenium.webdriver.common.by import By

    with serving(golden_corpus, tmp_path) as (base, _proc):
        browser.get(base)
        rows = _wait(browser, "#matrix tbody tr", 10)
        assert browser.find_element(By.CSS_SELECTOR, "#matrix th").text == "Model"
        assert not browser.find_elements(By.CSS_SELECTOR, "#matrix td.task, #groups td.task")
        _two_tasks(golden_corpus)          # the same server reads the folder anew: the page, loaded again
        browser.refresh()
        rows = _wait(browser, "#matrix tbody tr", 11)
        heads = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#matrix th")]
        assert heads[:3] == ["Task", "Model", "Condition"]
        assert [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#matrix td.task")] == (
            ["referral_abuse_detection_v2"] * 10 + ["dangerous_goods"])
        assert rows[-1].get_attribute("data-name") == GOODS
        cells = [td.text for td in browser.find_elements(
            By.CSS_SELECTOR, '#groups tr[data-group="dangerous_goods sim:drifting FSM"] td')]
        assert cells[:4] == ["dangerous_goods", "sim:driftingSIMULATED", "FSM", "1"]
        box = browser.find_element(By.ID, "filter")
        box.send_keys("dangerous")
        assert browser.find_element(By.ID, "count").text == "1 of 11 sessions"
        screenshot(browser, tmp_path, "9-matrix-tasks")
