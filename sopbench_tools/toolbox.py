"""The tools the agent sees: their single implementation and the per-session tool state.

``ToolBox`` answers every tool call of one session. Two thin adapters serve it: ``server.py``
(an MCP server over stdio, ``python -m sopbench_tools``) and ``sdk_server.py`` (the same server
in process for ``claude-agent-sdk``). ``docs/contracts.md`` ("Tools the agent sees") fixes the
names, arguments and result format.

The six SOP-Bench tools keep SOP-Bench's names, descriptions and input schemas (read from the
vendored ``toolspecs.json``). The fields each data tool returns follow SOP-Bench's own
implementation (``referral_abuse_detection_v2/tools.py`` in ``amazon-science/SOP-Bench``, commit
156e9ecd), column for column and with its types:

============================  ==========================================================
tool                          fields (besides ``account_id``)
============================  ==========================================================
investigate_account           user_email, registration_timestamp, address_validity (bool),
                              email_pattern_suspicious (bool), website_verified (bool),
                              business_description, account_status, connected_accounts
                              (int), login_geographic_consistency (bool), account_age_days
                              (int)
analyze_traffic_patterns      revenue_amount (float), click_through_rate (float),
                              page_views (int), device_distribution,
                              referral_source_quality, payment_method_shared (bool),
                              order_patterns_suspicious (bool)
analyze_temporal_patterns     registration_burst_detected (bool),
                              off_hours_activity_percentage (float),
                              activity_spike_detected (bool)
get_violation_history         previous_violations_count (int), last_violation_date
                              (string, null when empty), warning_issued (bool),
                              account_rehabilitation_status
get_financial_impact          total_lifetime_revenue (float), refund_rate_percentage
                              (float), customer_complaint_count (int)
determine_enforcement_action  SOP-Bench's fixed note (never a decision)
============================  ==========================================================

One deliberate difference: SOP-Bench reads the CSV with pandas, which turns the string
``None`` of ``account_rehabilitation_status`` into NaN; here it stays the string ``"None"``,
the value the SOP names ("Active/Probation/None"). Values come from
``test_set_without_outputs.csv``, so no gold label can reach a result.

Our own tools: ``record_analysis`` (the STEP 1–4 record), ``submit_decision`` (the first
successful one per account is the decision) and the read-only ``list_batch`` and
``list_decisions``. Every argument is validated; a bad call returns an error result
``Error: <what was wrong>. <the valid form>`` and records nothing.

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
from typing import Any, Callable

from .dataset import ACTIONS, Task, load_task

DATA_TOOLS = (
    "investigate_account",
    "analyze_traffic_patterns",
    "analyze_temporal_patterns",
    "get_violation_history",
    "get_financial_impact",
)
LOOKUP_TOOLS = ("determine_enforcement_action",)
RECORD_TOOL = "record_analysis"
DECISION_TOOL = "submit_decision"
LISTING_TOOLS = ("list_batch", "list_decisions")
ALL_TOOLS = DATA_TOOLS + LOOKUP_TOOLS + (RECORD_TOOL, DECISION_TOOL) + LISTING_TOOLS

#: STEP 1 score names (keys of ``record_analysis.step1_scores``).
SCORE_KEYS = ("abusive_account_creation", "misleading_ad_copy", "personal_orders", "temporal_fraud", "no_violation")
#: STEP 2 results.
VIOLATION_TYPES = (
    "Abusive Account Creation",
    "Misleading Ad Copy",
    "Personal Orders",
    "Temporal Fraud",
    "No Violation",
    "Inconclusive",
)
#: STEP 3 results (``NONE`` for No Violation and Inconclusive).
SEVERITIES = ("CRITICAL", "HIGH", "MEDIUM", "LOW", "NONE")


def _csv_bool(text: str) -> bool:
    if text not in ("True", "False"):
        raise ValueError(f"not a CSV boolean: {text!r}")
    return text == "True"


#: Each data tool's fields and their type, as in SOP-Bench's tools.py (see module docstring).
DATA_FIELDS: dict[str, tuple[tuple[str, Callable[[str], Any]], ...]] = {
    "investigate_account": (
        ("user_email", str),
        ("registration_timestamp", str),
        ("address_validity", _csv_bool),
        ("email_pattern_suspicious", _csv_bool),
        ("website_verified", _csv_bool),
        ("business_description", str),
        ("account_status", str),
        ("connected_accounts", int),
        ("login_geographic_consistency", _csv_bool),
        ("account_age_days", int),
    ),
    "analyze_traffic_patterns": (
        ("revenue_amount", float),
        ("click_through_rate", float),
        ("page_views", int),
        ("device_distribution", str),
        ("referral_source_quality", str),
        ("payment_method_shared", _csv_bool),
        ("order_patterns_suspicious", _csv_bool),
    ),
    "analyze_temporal_patterns": (
        ("registration_burst_detected", _csv_bool),
        ("off_hours_activity_percentage", float),
        ("activity_spike_detected", _csv_bool),
    ),
    "get_violation_history": (
        ("previous_violations_count", int),
        ("last_violation_date", str),
        ("warning_issued", _csv_bool),
        ("account_rehabilitation_status", str),
    ),
    "get_financial_impact": (
        ("total_lifetime_revenue", float),
        ("refund_rate_percentage", float),
        ("customer_complaint_count", int),
    ),
}

#: What SOP-Bench's determine_enforcement_action returns, for every account.
ENFORCEMENT_NOTE = {
    "message": "Enforcement action determined successfully",
    "note": "Agent must calculate violation scores and risk severity to determine final action",
}

_ACCOUNT_SCHEMA = {"type": "string", "description": "Unique identifier for the account"}
_NO_ARGS_SCHEMA = {"type": "object", "properties": {}, "additionalProperties": False}

#: Descriptions and input schemas of our own tools (the SOP-Bench ones come from toolspecs.json).
OWN_TOOL_SPECS: dict[str, dict[str, Any]] = {
    RECORD_TOOL: {
        "description": (
            "Records your STEP 1-4 analysis of one account (SOP section 5.7): the five STEP 1 "
            "scores, the STEP 2 violation type, the STEP 3 risk severity (NONE for No Violation "
            "and Inconclusive) and the STEP 4 enforcement action."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "account_id": _ACCOUNT_SCHEMA,
                "step1_scores": {
                    "type": "object",
                    "description": "STEP 1: the five violation indicator scores",
                    "properties": {key: {"type": "integer", "minimum": 0} for key in SCORE_KEYS},
                    "required": list(SCORE_KEYS),
                    "additionalProperties": False,
                },
                "step2_violation_type": {"type": "string", "enum": list(VIOLATION_TYPES)},
                "step3_risk_severity": {"type": "string", "enum": list(SEVERITIES)},
                "step4_action": {"type": "string", "enum": list(ACTIONS)},
            },
            "required": ["account_id", "step1_scores", "step2_violation_type", "step3_risk_severity", "step4_action"],
            "additionalProperties": False,
        },
    },
    DECISION_TOOL: {
        "description": (
            "Submits the final enforcement decision for one account: one of the seven actions "
            "of SOP section 6.1. The first decision submitted for an account is final and "
            "cannot be changed."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "account_id": _ACCOUNT_SCHEMA,
                "action": {"type": "string", "enum": list(ACTIONS), "description": "The enforcement action"},
            },
            "required": ["account_id", "action"],
            "additionalProperties": False,
        },
    },
    "list_batch": {
        "description": "Lists the accounts of this batch in processing order, with how many have been decided.",
        "inputSchema": _NO_ARGS_SCHEMA,
    },
    "list_decisions": {
        "description": "Lists the decisions submitted so far, in submission order.",
        "inputSchema": _NO_ARGS_SCHEMA,
    },
}

_EXAMPLE_ID = "ACC100042"
_EXAMPLE_SCORES = ", ".join(f'"{key}": 0' for key in SCORE_KEYS)
#: The valid form of each tool's call, quoted in its error messages.
USAGE = {
    **{name: f'Call {name} with {{"account_id": "<an account id of this batch, e.g. {_EXAMPLE_ID}>"}}.'
       for name in DATA_TOOLS + LOOKUP_TOOLS},
    RECORD_TOOL: (
        f'Call record_analysis with {{"account_id": "<account id>", "step1_scores": {{{_EXAMPLE_SCORES}}} '
        "(integers >= 0), \"step2_violation_type\": one of " + ", ".join(VIOLATION_TYPES)
        + ', "step3_risk_severity": one of ' + ", ".join(SEVERITIES)
        + ', "step4_action": one of the seven actions (' + ", ".join(ACTIONS) + ")}."
    ),
    DECISION_TOOL: (
        'Call submit_decision with {"account_id": "<account id>", "action": one of '
        + ", ".join(f'"{a}"' for a in ACTIONS) + "}."
    ),
    "list_batch": "Call list_batch with no arguments ({}).",
    "list_decisions": "Call list_decisions with no arguments ({}).",
}

#: Each tool's arguments and the kind of value each must hold.
ARGUMENTS: dict[str, tuple[tuple[str, str], ...]] = {
    **{name: (("account_id", "account"),) for name in DATA_TOOLS + LOOKUP_TOOLS},
    RECORD_TOOL: (
        ("account_id", "account"),
        ("step1_scores", "scores"),
        ("step2_violation_type", "violation_type"),
        ("step3_risk_severity", "severity"),
        ("step4_action", "action"),
    ),
    DECISION_TOOL: (("account_id", "account"), ("action", "action")),
    "list_batch": (),
    "list_decisions": (),
}


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one call: ``text`` is what the agent sees; ``data`` the JSON object on success."""

    ok: bool
    text: str
    data: dict | None
    #: the ``account_id`` argument when it was a non-empty string, else None
    account: str | None


class ToolStateError(RuntimeError):
    """The state folder cannot be used (another batch's state, or a damaged file)."""


class _BadCall(Exception):
    """Internal: a call is refused; ``what`` says why, ``valid_form`` (default: the tool's
    USAGE) what to do instead."""

    def __init__(self, what: str, valid_form: str | None = None):
        super().__init__(what)
        self.what = what
        self.valid_form = valid_form


def _utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _type_name(value: Any) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
            dict: "object", type(None): "null"}.get(type(value), type(value).__name__)


class _JsonlLog:
    """An append-only JSON-lines file; each append is flushed and fsynced before it returns."""

    def __init__(self, path: Path):
        self.path = path

    def load(self) -> list[dict]:
        """The entries written so far. A torn last line (a write cut by a crash, never
        confirmed to the agent) is cut off; damage anywhere else stops with an error."""
        if not self.path.exists():
            return []
        raw = self.path.read_bytes()
        lines = raw.split(b"\n")
        complete, tail = lines[:-1], lines[-1]
        if tail:
            with open(self.path, "r+b") as f:
                f.truncate(len(raw) - len(tail))
        entries = []
        for number, line in enumerate(complete, start=1):
            try:
                entries.append(json.loads(line))
            except json.JSONDecodeError:
                raise ToolStateError(
                    f"{self.path}, line {number}, is not valid JSON; the tool state is damaged. "
                    "Repair or remove that line, or start with a fresh --state-dir."
                ) from None
        return entries

    def append(self, entry: dict) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry, ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())


class ToolBox:
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

    def _validate(self, name: str, args: Any) -> dict[str, Any]:
        if not isinstance(args, dict):
            raise _BadCall(f"the arguments must be a JSON object, got {_type_name(args)}")
        expected = ARGUMENTS[name]
        expected_names = [arg for arg, _kind in expected]
        extra = [key for key in args if key not in expected_names]
        if extra:
            takes = "takes no arguments" if not expected else "takes only " + ", ".join(expected_names)
            raise _BadCall(f"unexpected argument {', '.join(map(repr, extra))} ({name} {takes})")
        values = {}
        for arg, kind in expected:
            if arg not in args:
                raise _BadCall(f"missing argument {arg!r}")
            values[arg] = getattr(self, f"_check_{kind}")(arg, args[arg])
        return values

    @staticmethod
    def _check_string(arg: str, value: Any) -> str:
        if not isinstance(value, str):
            raise _BadCall(f"argument {arg!r} must be a string, got {_type_name(value)} {json.dumps(value)}")
        if not value.strip():
            raise _BadCall(f"argument {arg!r} is empty")
        return value

    def _check_account(self, arg: str, value: Any) -> str:
        value = self._check_string(arg, value)
        if value not in self.task.rows:
            raise _BadCall(f"unknown account id {value!r} (call list_batch for the ids of this batch)")
        if value not in self._batch:
            raise _BadCall(f"account {value!r} is not in this batch (call list_batch for its {len(self.order)} accounts)")
        return value

    @classmethod
    def _check_choice(cls, arg: str, value: Any, choices: tuple[str, ...], what: str) -> str:
        value = cls._check_string(arg, value)
        if value not in choices:
            raise _BadCall(f"{arg} {value!r} is not {what}")
        return value

    def _check_action(self, arg: str, value: Any) -> str:
        return self._check_choice(arg, value, ACTIONS, "one of the seven enforcement actions")

    def _check_violation_type(self, arg: str, value: Any) -> str:
        return self._check_choice(arg, value, VIOLATION_TYPES, "one of the STEP 2 violation types")

    def _check_severity(self, arg: str, value: Any) -> str:
        return self._check_choice(arg, value, SEVERITIES, "one of the STEP 3 risk severities")

    @staticmethod
    def _check_scores(arg: str, value: Any) -> dict[str, int]:
        if not isinstance(value, dict):
            raise _BadCall(f"argument {arg!r} must be an object, got {_type_name(value)} {json.dumps(value)}")
        missing = [k for k in SCORE_KEYS if k not in value]
        extra = [k for k in value if k not in SCORE_KEYS]
        if missing or extra:
            problems = ([f"lacks {', '.join(missing)}"] if missing else []) + ([f"has unknown key(s) {', '.join(extra)}"] if extra else [])
            raise _BadCall(f"{arg} {' and '.join(problems)}")
        scores = {}
        for key in SCORE_KEYS:
            score = value[key]
            if isinstance(score, float) and score.is_integer():
                score = int(score)
            if isinstance(score, bool) or not isinstance(score, int) or score < 0:
                raise _BadCall(f"{arg}.{key} must be an integer >= 0, got {_type_name(value[key])} {json.dumps(value[key])}")
            scores[key] = score
        return scores

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
