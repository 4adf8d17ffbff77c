"""The typed events of ``events.jsonl`` (docs/contracts.md, "Session log"), one definition per kind.

Each kind is a ``TypedDict`` of the fields its line carries besides ``seq``, ``t`` and ``kind``:
required keys must be present, ``NotRequired`` ones may be; every present field of the
definition must have its annotated JSON type; further fields are allowed (the contract says
"more fields are allowed") and unchecked. The same definitions are used by the writer
(``EventLog.emit`` refuses an unknown kind, a missing field or a wrongly typed one) and by the
validator (``reader.validate_log``), so a log the writer accepts is one the reader accepts, and
``typed_events`` derives from them the msgspec structs that the reader's fast path decodes into.
Beside the kinds every family's log may hold (``EventKind``), a task family's own kinds are defined
in its folder (its ``events`` part, found through ``study.families.registry``) and checked the same.

Schema 2 adds the kind ``usage`` (the running cost after each streamed model response) and the
status ``interrupted``; ``call_end`` is part of the schema (schema 1 logs carry it too). Schema 3
adds the agent runtime to ``session_start`` (``runtime``: ``claude-code`` or ``codex``, required
from schema 3; a log of schema 1 or 2 was written by Claude Code, the only runtime then, and may
not name another one) and, for a runtime pinned by a lock of its own (Codex CLI's npm lock), that
lock's sha256 (``runtime_lock_sha256``). Readers accept schemas 1 to 3 (``READABLE_SCHEMAS``);
``usage`` in a schema 1 log is an error.
"""

import typing
from typing import Any, Mapping, NotRequired, TypedDict

from .jsontypes import Check, checker, describe, shown
from .vocabulary import EventKind, SessionStatus

#: The schema the writer writes (``session_start.schema``).
SCHEMA_VERSION = 3
#: The schemas this package reads.
READABLE_SCHEMAS = (1, 2, 3)
#: Kinds that a log of an earlier schema cannot hold: kind -> first schema with it.
SINCE_SCHEMA = {EventKind.USAGE: 2, EventKind.API_RETRY: 2}
#: The first schema whose session_start names its runtime (``runtime`` required from then on).
RUNTIME_SINCE_SCHEMA = 3
#: The runtime of every log of an earlier schema.
EARLIER_RUNTIME = "claude-code"


def runtime_problem(schema: Any, runtime: Any) -> str | None:
    """What is wrong with session_start's ``runtime`` for its ``schema`` (None: nothing; an
    unreadable schema is reported by the schema rule). The runtime names are
    ``study.protocol.runtimes.RUNTIMES``'; this module stays below that package, so it checks only
    the form and the earlier schemas' one runtime, and the record check names unknown runtimes."""
    if not isinstance(schema, int) or isinstance(schema, bool) or schema not in READABLE_SCHEMAS:
        return None
    if schema >= RUNTIME_SINCE_SCHEMA:
        if not isinstance(runtime, str) or not runtime:
            return f"a schema {schema} session_start must name its runtime (e.g. 'runtime': 'claude-code')"
        return None
    if runtime is not None and runtime != EARLIER_RUNTIME:
        return (f"a schema {schema} log was written by {EARLIER_RUNTIME}, the only runtime before schema "
                f"{RUNTIME_SINCE_SCHEMA}; it cannot name runtime {runtime!r}")
    return None


class SessionStart(TypedDict):
    schema: int
    condition: str
    seed: int
    model: str
    simulated: bool
    manifest_sha256: str | None
    code_version: str | None
    cli_version: str | None
    order: list[str]                      # the batch, in processing order
    limits: dict
    exploratory: NotRequired[bool]
    model_id: NotRequired[str | None]
    sdk_version: NotRequired[str | None]  # claude-agent-sdk (schema 2)
    lock_sha256: NotRequired[str | None]  # the lock file the environment was installed from (schema 2)
    task: NotRequired[str]                # the SOP-Bench task (absent: the preregistered referral task)
    runtime: NotRequired[str]             # the agent runtime (schema 3, required there; earlier: claude-code)
    runtime_lock_sha256: NotRequired[str | None]  # the runtime's own lock file (Codex CLI's npm lock; schema 3)
    family: NotRequired[str]              # the task family (study.families; absent: sopbench)
    study: NotRequired[str]               # another study than the main one (preregistration/studies/<study>)


class ToolCall(TypedDict):
    tool: str                             # bare name
    args: dict
    account: str | None                   # the account_id argument (a non-empty string) or null
    allowed: bool                         # false: refused by the tool-call gate
    ok: bool                              # returned without error (false when refused)
    state: str | None                     # FSM state or null
    server: NotRequired[str]              # "sopbench" (default) or "fsm"
    result: NotRequired[str | None]
    error: NotRequired[str | None]
    call_id: NotRequired[str | None]
    reminder_attached: NotRequired[bool]
    exit_code: NotRequired[int | None]    # a workspace's shell command: its exit status


Transition = TypedDict("Transition", {"from": str | None, "to": str | None, "ok": bool, "reason": str | None})


class Stop(TypedDict):
    accounts_left: int
    outcome: typing.Literal["ended", "blocked"]
    reason: NotRequired[str | None]
    block_cap_reached: NotRequired[bool]
    stop_hook_active: NotRequired[bool]


class Resume(TypedDict):
    n: int                                # 1, 2, ...
    accounts_left: NotRequired[int]


class Compaction(TypedDict):
    trigger: str                          # "auto" or "manual"


class AssistantText(TypedDict):
    text: str


class CallEnd(TypedDict):
    """One per ``query()`` call that reported a result (readers may ignore it)."""

    n: int                                # 0 = first call, then the resume number
    cost_usd: float                       # this call
    session_cost_usd: float               # the session so far
    subtype: NotRequired[str | None]
    is_error: NotRequired[bool | None]
    turns: NotRequired[int | None]
    priced_usd: NotRequired[float | None]  # the runner's list price of the call's streamed usage
    decisions: NotRequired[int | None]
    accounts_left: NotRequired[int | None]


class Usage(TypedDict):
    """Schema 2: the running cost after each streamed model response of the main thread."""

    call: int                             # the call's resume index n (0 = first call)
    priced_usd: float | None              # this call so far, at models.yaml list prices
    session_cost_usd: float               # the session so far, this call included
    context: NotRequired[int]             # a run of fresh contexts: the context the response is of


class ModelUsage(TypedDict):
    """One response of a model the session calls beside the agent's (a benchmark study's customer,
    its judge): its usage, priced at models.yaml's list prices and counted in the session's cost
    and against its spending cap."""

    role: str                             # what the model plays: customer, judge
    model: str                            # its models.yaml alias (sim:<policy> for the simulator's)
    usage: dict[str, int]                 # the response's tokens in the price keys (input, output, cache_read, ...)
    priced_usd: float | None              # the response at list price (None: the model has no list prices)
    session_cost_usd: float               # the session so far, this response included
    model_id: NotRequired[str]            # the model id sent


class Proposal(TypedDict):
    """A workflow change the agent proposed (``propose_workflow_change``; FSM-propose). Never applied
    during the session; the whole proposal is in the session's ``fsm/proposals.jsonl``."""

    id: str                               # the proposal's id in fsm/proposals.jsonl (p1, p2, ...)
    workflow: str
    state: str | None                     # the state the agent was in
    valid: bool                           # the proposed workflow passes the loader's checks
    problems: int                         # how many problems the checks found
    reason: NotRequired[str]


class ApiRetry(TypedDict):
    """Schema 2 (since this kind was added): the CLI met a transient API error (HTTP 529
    overloaded, 429 rate limit, 5xx) and retries the request after a wait. Logged from the
    CLI's ``api_retry`` stream message; voids nothing (only an error that ends the call does)."""

    call: int                             # the call's resume index n (0 = first call)
    status: int | None                    # the HTTP status of the error
    error: str | None                     # its type as the CLI names it (overloaded, rate_limit, ...)
    attempt: int                          # 1, 2, ... of the CLI's retries of that request
    max_retries: NotRequired[int | None]
    wait_s: float | None                  # how long the CLI waits before the retry


class ContextStart(TypedDict):
    """A run of fresh contexts (a staged protocol): context ``n`` (1, 2, ...) begins, a new CLI
    session that shares only the workspace's files and the FSM's frames with the ones before."""

    n: int
    unit: NotRequired[str | None]         # what the context is for (a period, a stage)


class ContextEnd(TypedDict):
    n: int
    ended: str                            # how: a status's words (ended_with_accounts_left, limit:turns, ...)
    unit: NotRequired[str | None]


class Outcome(TypedDict):
    """A family's scored result of the session's work, as its own evaluator gives it (a
    benchmark's reward and its parts, a protocol's scores); the fields beyond ``family`` are the
    family's (its ``reading`` part reads them)."""

    family: str


class Commit(TypedDict):
    """A session in a workspace: a commit the agent's call added to the workspace's history."""

    sha: str
    parents: list[str]
    subject: str
    files: list[str]                      # the files the commit changed


class SessionEnd(TypedDict):
    status: SessionStatus
    cost_usd: float | None
    turns: int
    duration_s: float
    error: NotRequired[str | None]
    cost_complete: NotRequired[bool]
    cost_estimated_usd: NotRequired[float | None]
    resumes: NotRequired[int]
    decisions: NotRequired[int | None]
    accounts_left: NotRequired[int | None]
    cli_stop_s: NotRequired[float | None]  # time taken to stop the CLI when the runner ended the call
    side_cost_usd: NotRequired[float]      # the part of cost_usd the models beside the agent's cost (model_usage)


#: The definition of each kind every family's log may hold.
_COMMON: dict[EventKind, type] = {
    EventKind.SESSION_START: SessionStart,
    EventKind.TOOL_CALL: ToolCall,
    EventKind.TRANSITION: Transition,
    EventKind.STOP: Stop,
    EventKind.RESUME: Resume,
    EventKind.COMPACTION: Compaction,
    EventKind.ASSISTANT_TEXT: AssistantText,
    EventKind.CALL_END: CallEnd,
    EventKind.USAGE: Usage,
    EventKind.MODEL_USAGE: ModelUsage,
    EventKind.PROPOSAL: Proposal,
    EventKind.API_RETRY: ApiRetry,
    EventKind.CONTEXT_START: ContextStart,
    EventKind.CONTEXT_END: ContextEnd,
    EventKind.OUTCOME: Outcome,
    EventKind.COMMIT: Commit,
    EventKind.SESSION_END: SessionEnd,
}
assert set(_COMMON) == set(EventKind), "every EventKind needs a definition"


def _with_families(common: dict[EventKind, type]) -> dict[str, type]:
    """``common`` with each task family's own kinds (its ``events`` part's ``EVENT_TYPES``, asked
    through ``study.families.registry``), listed before ``outcome``: after the kinds of a run of
    fresh contexts, where the format has always listed a family's kinds. A family's kind may not
    be another's nor a common one."""
    from study.families.registry import parts

    own: dict[str, type] = {}
    for family, module in parts("events"):
        for kind, definition in module.EVENT_TYPES.items():
            if kind in common or kind in own:
                raise ValueError(f"the {family} family's event kind {kind!r} is already defined")
            own[kind] = definition
    out: dict[str, type] = {}
    for kind, definition in common.items():
        if kind == EventKind.OUTCOME:
            out.update(own)
        out[kind] = definition
    return out


#: The definition of each kind: the common ones (keyed by their ``EventKind``) and every family's
#: own (keyed by their names).
EVENT_TYPES: dict[str, type] = _with_families(_COMMON)

#: The fields every kind must have beyond seq, t and kind (derived from the definitions).
REQUIRED_FIELDS: dict[str, tuple[str, ...]] = {
    kind: tuple(k for k in typing.get_type_hints(td) if k in td.__required_keys__)
    for kind, td in EVENT_TYPES.items()
}


def _field_checks(td: type) -> tuple[tuple[str, bool, Any, Check], ...]:
    hints = typing.get_type_hints(td)
    return tuple((name, name in td.__required_keys__, hint, checker(hint)) for name, hint in hints.items())


_CHECKS = {str(kind): _field_checks(td) for kind, td in EVENT_TYPES.items()}
_MISSING = object()


def field_problems(kind: Any, fields: Mapping[str, Any]) -> list[str]:
    """What is wrong with an event's fields for its kind (empty if nothing): an unknown kind, a
    missing field, a field of the wrong type. ``fields`` may include ``seq``, ``t``, ``kind``."""
    checks = _CHECKS.get(kind) if isinstance(kind, str) else None
    if checks is None:
        return [f"unknown event kind {kind!r} (kinds: {', '.join(EVENT_TYPES)})"]
    problems = []
    for name, required, hint, ok in checks:
        value = fields.get(name, _MISSING)
        if value is _MISSING:
            if required:
                problems.append(f"{kind} lacks required field {name!r}")
        elif not ok(value):
            problems.append(f"{kind} field {name!r} must be {describe(hint)}, not {shown(value)}")
    return problems


def event_problems(event: Any) -> list[str]:
    """What is wrong with one event read back (``field_problems``, plus ``seq`` and ``t``)."""
    if type(event) is not dict:
        return [f"an event must be a JSON object, not {shown(event)}"]
    problems = []
    if type(event.get("seq")) is not int or type(event.get("t")) is not str:
        for name, typ in (("seq", int), ("t", str)):
            if name not in event:
                problems.append(f"event lacks {name!r}")
            elif not checker(typ)(event[name]):
                problems.append(f"event field {name!r} must be {describe(typ)}, not {shown(event[name])}")
    if "kind" not in event:
        return problems + ["event lacks 'kind'"]
    return problems + field_problems(event["kind"], event)
