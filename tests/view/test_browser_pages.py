"""The viewer's reading aids in a real headless Chromium: the matrix in the plan's order, sortable,
with per-condition means and the tables' bootstrap CIs, earlier attempts reachable, refreshing
while a session runs; text search over a session's events; the transcript as a conversation with
hook denials and the stop block inline and the raw record one click away; one account under two
sessions side by side. Screenshots land in /tmp/viewer-shots/."""

from __future__ import annotations

import json
import re
import shutil

from pathlib import Path
from urllib.parse import quote

import numpy as np
import pytest

from analysis.statistics import bootstrap_cis
from analysis.tables import condition_order
from study.transcripts.claude_code import turns

from .conftest import screenshot, serving
from .test_browser import BREAKER, INTERLEAVED, PLAIN, _wait
from .test_untrusted_files import api, get

pytestmark = pytest.mark.e2e

FSM = "exploratory/sim-adversarial/FSM/seed-2-first-6"
RUNNING = "exploratory/sim-late/FSM/seed-9"
#: The viewer's refresh period (matrix.js), and the one the refresh test's page runs on: its timers
#: of that period fire sooner (the page's code unchanged; it still says it refreshes every 5 s), so
#: the test waits for each refresh a fraction of a second instead of up to five.
REFRESH_MS = int(re.search(r"^const REFRESH_MS = (\d+);", (Path(__file__).resolve().parents[2] / "study" / "view" / "static"
                                                             / "matrix.js").read_text(), re.MULTILINE).group(1))
FAST_REFRESH_MS = 300


@pytest.fixture
def corpus(sim_corpus, tmp_path) -> Path:
    """The simulator corpus, with an earlier attempt kept inside the Plain session and a session
    that is still running (meta.json says so, the log has only its start)."""
    root = tmp_path / "sessions"
    shutil.copytree(sim_corpus, root, symlinks=True)
    attempt = root / PLAIN / "attempt-1"
    attempt.mkdir()
    for name in ("events.jsonl", "meta.json"):
        shutil.copyfile(root / PLAIN / name, attempt / name)
    running = root / RUNNING
    running.mkdir(parents=True)
    first = (root / FSM / "events.jsonl").read_text().splitlines()[0]
    (running / "events.jsonl").write_text(first + "\n")
    meta = json.loads((root / FSM / "meta.json").read_text())
    (running / "meta.json").write_text(json.dumps({**meta, "status": "running", "seed": 2}))
    return root


def _lcs(a: list, b: list) -> int:
    """The length of a longest common subsequence of ``a`` and ``b``."""
    row = [0] * (len(b) + 1)
    for x in a:
        prev, row = row, [0]
        for j, y in enumerate(b):
            row.append(prev[j] + 1 if x == y else max(prev[j + 1], row[j]))
    return row[-1]


def _texts(driver, css: str) -> list[str]:
    from selenium.webdriver.common.by import By

    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, css)]


def _names(driver) -> list[str]:
    from selenium.webdriver.common.by import By

    return [r.get_attribute("data-name") for r in driver.find_elements(By.CSS_SELECTOR, "#matrix tbody tr")]


@pytest.mark.xdist_group("view-sim-corpus")   # sim_corpus is made once per worker: its tests share one
def test_matrix_order_sorting_means_attempts_and_refresh(corpus, browser, tmp_path):
    from selenium.webdriver.common.by import By

    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": (
        f"(() => {{ const real = window.setTimeout; window.setTimeout = (job, ms, ...rest) => "
        f"real(job, ms === {REFRESH_MS} ? {FAST_REFRESH_MS} : ms, ...rest); }})();")})
    with serving(corpus, tmp_path) as (base, _proc):
        matrix = get(base, "/api/matrix")[1]
        rows = matrix["sessions"]
        browser.get(base)
        _wait(browser, "#matrix tbody tr", len(rows))
        # the plan's order: models (none of these is in the plan: sorted), then conditions.yaml's order, then seed
        conditions = {c: i for i, c in enumerate(condition_order())}
        want = sorted(rows, key=lambda r: (r["model"], conditions[r["condition"]], r["seed"], r["name"]))
        assert _names(browser) == [r["name"] for r in want]
        screenshot(browser, tmp_path, "5-matrix")
        # sortable: FC ascending (missing last), again descending; Seed ascending
        fc = browser.find_element(By.CSS_SELECTOR, 'th[data-column="FC"]')
        fc.click()
        values = [r["fc"] for r in sorted(rows, key=lambda r: _names(browser).index(r["name"]))]
        scored = [v for v in values if v is not None]
        assert scored == sorted(scored) and values[len(scored):] == [None] * (len(values) - len(scored))
        assert fc.get_attribute("aria-sort") == "ascending"
        fc.click()
        values = [r["fc"] for r in sorted(rows, key=lambda r: _names(browser).index(r["name"]))]
        assert [v for v in values if v is not None] == sorted(scored, reverse=True)
        browser.find_element(By.CSS_SELECTOR, 'th[data-column="Seed"]').click()
        seeds = [r["seed"] for r in sorted(rows, key=lambda r: _names(browser).index(r["name"]))]
        assert seeds == sorted(seeds)
        # per model x condition: the mean and the tables' own bootstrap CI over the scored sessions
        group = [r for r in rows if r["model"] == "sim:drifting" and r["condition"] == "Plain"]
        fcs = np.array([r["fc"] for r in group], dtype=float)
        lo, hi = bootstrap_cis([fcs])[0]
        cells = _texts(browser, '#groups tr[data-group="sim:drifting Plain"] td')
        assert cells[2:5] == [str(len(group)), str(len(group)), f"{fcs.mean():.2f} [{lo:.2f}, {hi:.2f}]"]
        # the earlier attempt is reachable from its session's row, and says what it is
        assert next(r for r in rows if r["name"] == PLAIN)["attempts"] == [f"{PLAIN}/attempt-1"]
        assert f"{PLAIN}/attempt-1" not in _names(browser)
        browser.find_element(By.CSS_SELECTOR, f'#matrix tr[data-name="{PLAIN}"] .attempts a').click()
        note = _wait(browser, "#attempt-of", 1)[0]
        assert note.text == f"This is attempt-1, an earlier attempt of {PLAIN}."
        # a running session: the matrix refreshes itself and shows a session that appears meanwhile
        browser.get(base + "#/")
        _wait(browser, "#matrix tbody tr", len(rows))
        assert browser.find_element(By.ID, "refreshing").text == (
            f"1 session(s) running: this page refreshes every {REFRESH_MS // 1000} s.")
        shutil.copytree(corpus / FSM, corpus / "exploratory/sim-late/FSM/seed-10", ignore=shutil.ignore_patterns("home", "work"))
        _wait(browser, "#matrix tbody tr", len(rows) + 1)
        # the running session's own page is drawn again when its log grows
        browser.get(base + "#/s/" + quote(RUNNING, safe=""))
        assert _wait(browser, "#show-events", 1)[0].text == "Show the 1 events"
        assert browser.find_element(By.ID, "refreshing").text.startswith("This session is running")
        second = (corpus / FSM / "events.jsonl").read_text().splitlines()[1]
        with open(corpus / RUNNING / "events.jsonl", "a") as log:
            log.write(second + "\n")
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(browser, 30).until(lambda d: d.find_element(By.ID, "show-events").text == "Show the 2 events")


@pytest.mark.xdist_group("view-sim-corpus")   # sim_corpus is made once per worker: its tests share one
def test_search_conversation_and_side_by_side(corpus, browser, tmp_path):
    from selenium.webdriver.common.by import By

    with serving(corpus, tmp_path) as (base, _proc):
        # text search over every event of the session
        events = []
        page = 0
        while (answer := api(base, "events", FSM, page=page))[0] == 200:
            events += answer[1]["events"]
            page += 1
        hits = [e for e in events if all(w in json.dumps(e, ensure_ascii=False).lower() for w in ("submit_decision", "acc100185"))]
        browser.get(base + "#/s/" + quote(FSM, safe=""))
        _wait(browser, "#strip a", 6)
        browser.find_element(By.ID, "event-search").send_keys("submit_decision ACC100185")
        count = _wait(browser, "#search-count", 1)[0]
        assert count.text == f"{len(hits)} of {len(events)} events hold “submit_decision acc100185”"
        assert [int(x) for x in (r.get_attribute("data-seq") for r in browser.find_elements(By.CSS_SELECTOR, ".search-hits tr"))] == [e["seq"] for e in hits]
        screenshot(browser, tmp_path, "6-search")

        # the conversation: the FSM's denials inline on their calls, the stop block, raw records one click away
        lines = [x for x in (corpus / FSM / "transcript.jsonl").read_bytes().split(b"\n") if x.strip()]
        items, other = turns(lines)
        denied = [t for t in items if t.get("denied")]
        assert len(denied) == sum(1 for e in events if e["kind"] == "tool_call" and e.get("allowed") is False) == 2
        browser.find_element(By.ID, "show-transcript").click()
        _wait(browser, ".conversation .turn")
        pager = browser.find_element(By.CSS_SELECTOR, "#transcript .pager").text
        assert pager.endswith(f"({len(items)} turns; {other} bookkeeping records of the CLI not shown)")
        shown = browser.find_elements(By.CSS_SELECTOR, ".turn.call .denial")
        assert [d.text for d in shown] == ["Denied: " + t["result"]["text"] for t in denied if t["n"] in
                                           {int(x.get_attribute("data-n")) for x in browser.find_elements(By.CSS_SELECTOR, ".turn")}]
        assert shown and shown[0].text.startswith("Denied: PreToolUse:mcp__sopbench__submit_decision hook error: "
                                                  "submit_decision is not permitted in this state (state S_investigate")
        stop = browser.find_element(By.CSS_SELECTOR, ".turn.stop-block")
        assert stop.text.startswith("Stop hook blocked the stop") and "accounts of the batch are still undecided" in stop.text
        assert _texts(browser, ".turn.user .head")[0].startswith("user")
        # arguments and results are collapsed until opened
        first_call = browser.find_element(By.CSS_SELECTOR, ".turn.call details.result")
        assert first_call.get_attribute("open") is None
        screenshot(browser, tmp_path, "7-conversation")
        turn = browser.find_element(By.CSS_SELECTOR, ".turn.stop-block")
        n = int(turn.get_attribute("data-n"))
        turn.find_element(By.CSS_SELECTOR, ".raw-link").click()
        target = _wait(browser, "#transcript .event.target", 1)[0]
        assert target.get_attribute("id") == f"raw-{n}" and target.text.startswith(f"#{n} user")
        browser.find_element(By.ID, "show-conversation").click()
        _wait(browser, ".conversation .turn")

        # one account under two sessions: reached from the account page, clauses compared, calls aligned
        browser.get(base + "#/s/" + quote(PLAIN, safe="") + "/a/" + INTERLEAVED)
        from selenium.webdriver.support.ui import Select

        Select(_wait(browser, "#compare-with", 1)[0]).select_by_value(FSM)
        _wait(browser, "#compare-calls tr[data-i]")
        plain, fsm = (api(base, "account", s, account=INTERLEAVED)[1] for s in (PLAIN, FSM))
        foc = browser.find_element(By.CSS_SELECTOR, '#compare-clauses tr[data-clause="foc"]')
        assert plain["clauses"]["foc"]["ok"] is False and fsm["clauses"]["foc"]["ok"] is True
        assert foc.get_attribute("class") == "differs"
        assert foc.text.startswith(f"foc ✗ a data call for {BREAKER}")
        own = [[e for e in d["events"] if e["kind"] == "tool_call" and not e["other"] and not e["context"]] for d in (plain, fsm)]
        rows = [[c.get_attribute("data-seq") for c in row.find_elements(By.CSS_SELECTOR, "td")[1:]]
                for row in browser.find_elements(By.CSS_SELECTOR, "#compare-calls tr[data-i]")]
        tool = [{e["seq"]: (e.get("server") == "fsm", e["tool"]) for e in side} for side in own]
        for k, side in enumerate(own):      # each side's calls, in order, each once
            assert [int(r[k]) for r in rows if r[k]] == [e["seq"] for e in side]
        paired = [r for r in rows if r[0] and r[1]]
        assert all(tool[0][int(x)] == tool[1][int(y)] for x, y in paired)
        assert len(paired) == _lcs(list(tool[0].values()), list(tool[1].values())) == 7
        screenshot(browser, tmp_path, "8-compare")

