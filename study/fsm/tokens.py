"""Transition tokens: what ``FsmRuntime.self_check`` issued a token for, and the digest under which
a spent token is remembered (tokens live only in memory; see ``runtime.py``)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class _Grant:
    """What a token was issued for."""

    depth: int
    workflow: str
    state: str
    target: str
    commits: int


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()
