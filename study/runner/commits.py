"""The commits a workspace session's agent makes, read from the workspace's git history.

After each call of the CLI's own tools the bridge asks ``new_commits(workspace, last)``: the
commits reachable from HEAD and not from ``last`` (the HEAD seen before), oldest first, each with
its sha, parents, subject and the files it changed; and the new HEAD. A workspace that is no git
repository (or whose git cannot be read) gives none.

The workspace's ``.git`` is the agent's to write (Codex CLI's sandbox keeps it writable so the
agent can commit), and the runner reads it outside any sandbox: git runs with no system or global
configuration, none of the settings by which a repository's own could make a read run a program
(``SAFE_GIT``), and no repository above the workspace.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

#: Settings that override the repository's own: no read of it runs a program.
SAFE_GIT = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat",
            "-c", "diff.external=", "-c", "log.showSignature=false", "-c", "core.untrackedCache=false")


def _git(workspace: str, *args: str) -> str | None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0",
               GIT_CEILING_DIRECTORIES=str(Path(workspace).resolve().parent))
    try:
        done = subprocess.run(["git", *SAFE_GIT, "-C", workspace, *args], capture_output=True, text=True, timeout=30,
                              env=env, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def head(workspace: str) -> str | None:
    out = _git(workspace, "rev-parse", "--verify", "-q", "HEAD")
    return out.strip() if out else None


def new_commits(workspace: str, last: str | None) -> tuple[list[dict[str, Any]], str | None]:
    """The commits HEAD gained since ``last`` (None: the first look, which reports none) and HEAD."""
    now = head(workspace)
    if now is None or last is None or now == last:
        return [], now
    listing = _git(workspace, "log", "--reverse", "--format=%H%x00%P%x00%s", f"{last}..{now}")
    if listing is None:   # history rewritten (a reset): HEAD's own commit only
        listing = _git(workspace, "log", "-1", "--format=%H%x00%P%x00%s", now) or ""
    commits = []
    for line in listing.splitlines():
        sha, parents, subject = (line.split("\x00") + ["", ""])[:3]
        files = _git(workspace, "diff-tree", "--no-ext-diff", "--no-textconv", "--no-commit-id", "--name-only", "-r",
                     "--root", sha) or ""
        commits.append({"sha": sha, "parents": parents.split(), "subject": subject,
                        "files": [f for f in files.splitlines() if f]})
    return commits, now
