"""How fast `study view` opens a 200-account FSM session (goal: under 1 s locally, issue 15).

Runs a full 200-account ``oracle`` FSM session on the simulator (a few minutes; or pass
``--session DIR`` to reuse one), starts ``study view`` on it, then times:

- the session document cold (the server reads the log, scores it with evidence and builds the
  page's document) and warm (kept), an account document and a page of events, over HTTP;
- in headless Chromium (when Debian's chromium is installed), opening the session page on a fresh
  server until its 200-account strip is drawn: the time a person waits.

Prints each time, the document's size and its ratio to the 1-second goal.

    python benchmarks/bench_viewer.py [--session DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote, urlencode

GOAL_S = 1.0


def _start(root: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "study.cli", "view", "--sessions", str(root), "--port", "0"],
                            stdout=subprocess.PIPE, text=True)
    match = re.search(r"http://127\.0\.0\.1:\d+/", proc.stdout.readline())
    if not match:
        proc.kill()
        raise SystemExit("study view did not start")
    return proc, match.group()


def _get(url: str) -> tuple[float, bytes]:
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as response:
        body = response.read()
    return time.perf_counter() - start, body


def _browser_open(base: str, name: str, accounts: int) -> float | None:
    if not (Path("/usr/bin/chromium").exists() and Path("/usr/bin/chromedriver").exists()):
        return None
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    profile = tempfile.mkdtemp(prefix="bench-viewer-chrome-")
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    try:
        driver.get(base + "static/style.css")     # the browser is up; the page itself is not loaded yet
        start = time.perf_counter()
        driver.get(f"{base}#/s/{quote(name, safe='')}")
        WebDriverWait(driver, 120).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#strip a")) == accounts)
        return time.perf_counter() - start
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--session", type=Path, default=None, help="a session folder to reuse (default: run one)")
    args = parser.parse_args()
    if args.session is None:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from _sim_sessions import run

        session_dir, wall = run("oracle", "FSM", 1, None)
        print(f"ran a SIMULATED 200-account oracle FSM session in {wall:.0f} s: {session_dir}")
    else:
        session_dir = args.session.resolve()
    root, name = session_dir.parent, session_dir.name
    events = sum(1 for _ in (session_dir / "events.jsonl").open())
    print(f"session: {events} events, events.jsonl {(session_dir / 'events.jsonl').stat().st_size / 1e6:.1f} MB")

    proc, base = _start(root)
    try:
        query = lambda **p: urlencode({"session": name, **p})  # noqa: E731
        cold, body = _get(f"{base}api/session?{query()}")
        warm, _ = _get(f"{base}api/session?{query()}")
        doc, size = json.loads(body), len(body)
        account = doc["strip"][len(doc["strip"]) // 2]["account"]
        acc, acc_body = _get(f"{base}api/account?{query(account=account)}")
        page, page_body = _get(f"{base}api/events?{query(page=5)}")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    rows = [("session document, cold (read + score + build)", cold, size),
            ("session document, warm", warm, size),
            (f"account document ({account})", acc, len(acc_body)),
            ("events page (200 events)", page, len(page_body))]
    proc, base = _start(root)          # a fresh server: the browser's open is cold too
    try:
        opened = _browser_open(base, name, len(doc["strip"]))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    if opened is not None:
        rows.append(("browser: session page opened, strip drawn (cold server)", opened, size))
    for label, seconds, nbytes in rows:
        print(f"{label:58s} {seconds * 1000:8.0f} ms  {nbytes / 1e3:7.0f} kB  time / 1 s goal = {seconds / GOAL_S:.3f}")
    worst = max(s for _l, s, _b in rows)
    print(f"slowest / goal = {worst / GOAL_S:.3f} ({'met' if worst <= GOAL_S else 'NOT met'})")


if __name__ == "__main__":
    main()
