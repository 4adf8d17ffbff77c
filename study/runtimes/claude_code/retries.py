"""The CLI's ``api_retry`` stream message as the runner logs it (an ``api_retry`` event).

Claude Code retries a request that met a transient API error (HTTP 529 overloaded, 429 rate
limit, 5xx) and reports each retry in its stream as a system message ``api_retry`` with
``attempt``, ``max_retries``, ``retry_delay_ms``, ``error_status`` and ``error``. The runner logs
each one (docs/contracts.md); a retry voids nothing, only an error that ends the call does.
The runner adds the call's number (``call``).
"""

from __future__ import annotations

from typing import Any

from study.session_io.events import ApiRetry


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def retry_fields(data: dict[str, Any]) -> ApiRetry:
    """The fields of the ``api_retry`` event for the CLI's message ``data`` (all but ``call``)."""
    wait = data.get("retry_delay_ms")
    return {"status": _int(data.get("error_status")),
            "error": str(data["error"]) if data.get("error") is not None else None,
            "attempt": _int(data.get("attempt")) or 0, "max_retries": _int(data.get("max_retries")),
            "wait_s": round(wait / 1000, 3) if isinstance(wait, (int, float)) and not isinstance(wait, bool) else None}
