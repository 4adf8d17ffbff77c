"""Transient API errors the CLI retried (issue 24, "exact words"): HTTP 529 (overloaded) and
429 (rate limit) answered once each, then the model goes on. Each retry is an ``api_retry``
event (status, type, attempt, the wait; ``t`` says when), ``study status`` counts them, and the
session is not voided (only an error that ends the call voids). Real CLI against a scripted model."""

from __future__ import annotations

import pytest

from study.runner.status import format_table, scan

pytestmark = pytest.mark.e2e


def test_each_retried_api_error_is_logged_counted_in_status_and_voids_nothing(kit):
    (account,) = kit.batch(2, 1)
    steps = [("error", 529, "overloaded_error", "Overloaded"), ("error", 429, "rate_limit_error", "Slow down"),
             *kit.full_account(account)]
    ran = kit.run("Plain", steps, accounts=1)
    assert (ran.status, ran.meta["voided"]) == ("completed", False)
    kit.check_well_formed(ran.events)
    retries = ran.kinds("api_retry")
    assert [(e["call"], e["status"], e["error"], e["attempt"]) for e in retries] == [
        (0, 529, "overloaded", 1), (0, 429, "rate_limit", 2)]
    assert all(e["wait_s"] > 0 and e["max_retries"] >= 1 for e in retries)
    (row,) = scan(kit.out_root)
    assert row.api_retries == 2 and row.status == "completed"
    assert "2 API error(s) retried by the CLI" in format_table([row])
