"""The tools the agent sees: their single implementation and the per-session tool state.

``ToolBox`` answers every tool call of one session. Two thin adapters serve it: ``server.py``
(an MCP server over stdio, ``python -m sopbench_tools``) and ``sdk_server.py`` (the same server
in process for ``claude-agent-sdk``). ``docs/contracts.md`` ("Tools the agent sees") fixes the
names, arguments and result format.

The tools themselves (names, fields, schemas, usage texts) are defined in ``tool_definitions.py``
and their arguments validated by ``argument_checks.py``; ``state_log.py`` holds the files below.

State: with a ``state_dir``, every record and decision is appended to ``records.jsonl`` /
``decisions.jsonl`` there and fsynced before the call returns, and ``batch.json`` holds the
batch; a new ToolBox on the same folder reloads them, so a restarted server loses nothing it
confirmed.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .argument_checks import ArgumentChecks, _BadCall
from .dataset import Task, load_task
from .state_log import ToolStateError, _JsonlLog
from .tool_definitions import (
    ALL_TOOLS,
    ARGUMENTS,
    DATA_FIELDS,
    DATA_TOOLS,
    DECISION_TOOL,
    ENFORCEMENT_NOTE,
    LOOKUP_TOOLS,
    OWN_TOOL_SPECS,
    RECORD_TOOL,
    USAGE,
)


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one call: ``text`` is what the agent sees; ``data`` the JSON object on success."""

    ok: bool
    text: str
    data: dict | None
    #: the ``account_id`` argument when it was a non-empty string, else None
    account: str | None


def _utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


class ToolBox(ArgumentChecks):
    """All tools of one session over one batch of accounts.

    ``order`` is the batch (account ids in processing order); ``state_dir`` the folder for
    the session's records and decisions (None keeps them in memory only). ``call`` never raises
    for bad input: it returns an error result.
    """

    def __init__(self, order: list[str], state_dir: Path | None = None, *, task: Task | None = None):
        self.task = task or load_task()
        self.order = list(order)
        self._check_order()
        self._batch = set(self.order)
        self._specs = {spec["toolSpec"]["name"]: spec["toolSpec"] for spec in self.task.toolspecs}
        self._lock = threading.Lock()
        self.state_dir = Path(state_dir) if state_dir is not None else None
        self._records_log = self._decisions_log = None
        self._records: list[dict] = []
        self._decisions: dict[str, str] = {}
        if self.state_dir is not None:
            self._open_state()

    @classmethod
    def for_seed(cls, seed: int, accounts: int | None = None, state_dir: Path | None = None) -> ToolBox:
        """The batch of ``seed``: its order, cut to the first ``accounts`` ids if given."""
        from .orders import order_for_seed

        order = order_for_seed(seed)
        if accounts is not None:
            if not 1 <= accounts <= len(order):
                raise ValueError(f"--accounts must be between 1 and {len(order)}, got {accounts}")
            order = order[:accounts]
        return cls(order, state_dir)

    def _check_order(self) -> None:
        if not self.order:
            raise ValueError("the batch is empty: give at least one account id")
        unknown = [a for a in self.order if a not in self.task.rows]
        if unknown:
            raise ValueError(f"the batch names unknown account ids {unknown[:5]}; ids are ACC100000 ... ACC100199")
        if len(set(self.order)) != len(self.order):
            raise ValueError("the batch lists an account more than once")

    def _open_state(self) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        batch_file = self.state_dir / "batch.json"
        if batch_file.exists():
            stored = json.loads(batch_file.read_text(encoding="utf-8"))["order"]
            if stored != self.order:
                raise ToolStateError(
                    f"{self.state_dir} holds the tool state of another batch ({len(stored)} accounts, "
                    f"starting {stored[:3]}). Use the same seed and --accounts as before, or a fresh --state-dir."
                )
        else:
            tmp = batch_file.with_suffix(".tmp")
            tmp.write_text(json.dumps({"order": self.order}, indent=1) + "\n", encoding="utf-8")
            os.replace(tmp, batch_file)
        self._records_log = _JsonlLog(self.state_dir / "records.jsonl")
        self._decisions_log = _JsonlLog(self.state_dir / "decisions.jsonl")
        self._records = self._records_log.load()
        for entry in self._decisions_log.load():
            self._decisions.setdefault(entry["account_id"], entry["action"])

    # ----- read-only views for the runner and the tests -------------------------------------

    @property
    def decisions(self) -> dict[str, str]:
        """Account id -> decided action, in submission order."""
        return dict(self._decisions)

    @property
    def records(self) -> list[dict]:
        """Every STEP 1-4 record, in the order they were made."""
        return [dict(r) for r in self._records]

    @property
    def accounts_left(self) -> int:
        return len(self.order) - len(self._decisions)

    def next_undecided(self) -> str | None:
        """The first account of the batch order without a decision (None when all are decided)."""
        return next((a for a in self.order if a not in self._decisions), None)

    def tool_specs(self) -> list[dict]:
        """Every tool as ``{"name", "description", "inputSchema"}``, in the order of ALL_TOOLS."""
        specs = []
        for name in ALL_TOOLS:
            if name in self._specs:
                spec = self._specs[name]
                specs.append({"name": name, "description": spec["description"], "inputSchema": spec["inputSchema"]["json"]})
            else:
                specs.append({"name": name, **OWN_TOOL_SPECS[name]})
        return specs

    # ----- calls ------------------------------------------------------------------------------

    def call(self, name: str, args: dict | None) -> ToolResult:
        """Run one tool call; bad input gives an error result and changes nothing."""
        args = {} if args is None else args
        account = args.get("account_id") if isinstance(args, dict) else None
        account = account if isinstance(account, str) and account else None
        if name not in ARGUMENTS:
            return self._error(f"unknown tool {name!r}", "The tools are: " + ", ".join(ALL_TOOLS) + ".", account)
        with self._lock:
            try:
                values = self._validate(name, args)
                data = self._run(name, values)
            except _BadCall as bad:
                return self._error(bad.what, bad.valid_form or USAGE[name], account)
        return ToolResult(ok=True, text=json.dumps(data, ensure_ascii=False), data=data, account=account)

    @staticmethod
    def _error(what: str, valid_form: str, account: str | None) -> ToolResult:
        return ToolResult(ok=False, text=f"Error: {what}. {valid_form}", data=None, account=account)

    def _run(self, name: str, values: dict[str, Any]) -> dict:
        if name in DATA_TOOLS:
            return self.data_fields(name, values["account_id"])
        if name in LOOKUP_TOOLS:
            return dict(ENFORCEMENT_NOTE)
        if name == RECORD_TOOL:
            return self._record(values)
        if name == DECISION_TOOL:
            return self._decide(values["account_id"], values["action"])
        if name == "list_batch":
            return {"accounts": list(self.order), "count": len(self.order), "decided": len(self._decisions)}
        return {
            "decisions": [{"account_id": a, "action": act} for a, act in self._decisions.items()],
            "count": len(self._decisions),
        }

    def data_fields(self, tool: str, account_id: str) -> dict:
        """The typed fields data tool ``tool`` returns for ``account_id``."""
        row = self.task.rows[account_id]
        fields: dict[str, Any] = {"account_id": account_id}
        for column, convert in DATA_FIELDS[tool]:
            text = row[column]
            fields[column] = None if text == "" else convert(text)
        return fields

    def _record(self, values: dict[str, Any]) -> dict:
        entry = {"n": len(self._records) + 1, "t": _utc_now(), **values}
        if self._records_log is not None:
            self._records_log.append(entry)
        self._records.append(entry)
        return {"recorded": True, "record": entry["n"], **values}

    def _decide(self, account_id: str, action: str) -> dict:
        if account_id in self._decisions:
            raise _BadCall(
                f"account {account_id!r} already has a decision ({self._decisions[account_id]!r}), and the "
                "first decision of an account is final",
                "Submit one decision per account; list_decisions shows the decisions so far and "
                "list_batch the batch.",
            )
        entry = {"n": len(self._decisions) + 1, "t": _utc_now(), "account_id": account_id, "action": action}
        if self._decisions_log is not None:
            self._decisions_log.append(entry)
        self._decisions[account_id] = action
        return {"decided": True, "account_id": account_id, "action": action,
                "decisions": len(self._decisions), "accounts": len(self.order)}
