"""Cross-checks of a session's three records: ``meta.json``, ``events.jsonl`` and the CLI's
``transcript.jsonl``, for ``study audit``.

The rules every command applies are ``study.session_io``'s, and the audit reads them from there
(``reader``: meta.json against the log, its summary fields included; ``values``: every cost,
token count, count and duration finite and >= 0, the cost at least ``MIN_COST_SHARE`` of the
streamed usage's list price, no count of decisions beyond the batch; ``witnesses``: the
witnesses of simulated agree): a session that breaks one is never counted by any command. An
edit made *consistently* (the same change in meta.json and in the log) passes those; what it
cannot easily keep consistent is the other records of the same session, which only the audit
reads in full. ``check_records`` adds:

- **the log with itself**, for a finished run: the decisions and resumes it counts against
  ``session_end``'s, the cost against the sum of its calls and the estimate;
- **simulated**: the evidence that the session ran on the simulator (a ``sim:`` model, the
  simulator's ids, its ``sim_truth.jsonl``), which makes it simulated in the audit's report;
- **the log with the transcript**: every logged tool call has its ``tool_use`` in the transcript
  with the same name and arguments, every ``tool_use`` of the study's servers is logged, and the
  logged ``usage`` events are the list price of the transcript's model responses, one by one.

What a consistent forgery of all three files can still do, and what only an external anchor
catches, is in docs/contracts.md ("What the audit's cross-checks catch").
"""

from __future__ import annotations

import math
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from study.session_io.folders import EVENTS_NAME, TRANSCRIPT_NAME as TRANSCRIPT
from study.transcripts.kept import CONTEXTS_DIR
from study.session_io.reader import read_log
from study.session_io.safe_files import TRANSCRIPT_CAP, read_capped
from study.session_io.values import MIN_COST_SHARE, USD_SLACK  # noqa: F401  (the shared rule's, re-exported)
from study.session_io.witnesses import SIM_TRUTH_NAME as SIM_TRUTH  # noqa: F401  (re-exported)
from study.session_io.witnesses import TRANSCRIPT_IDS, id_witnesses, log_witnesses, response_ids, simulated_by
from study.session_io.witnesses import truth_witnesses

#: The servers whose tools the study logs (``tool_call.server``; absent means sopbench).
LOGGED_SERVERS = ("sopbench", "fsm")


@dataclass
class RecordCheck:
    """What the cross-checks found: ``problems`` fail the session, ``notes`` say what could not
    be checked; ``simulated`` is the evidence that the session ran on the simulator (or None)."""

    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    simulated: str | None = None


def check_records(path: Path, meta: dict[str, Any]) -> RecordCheck:
    """Cross-check the session folder ``path`` (its ``meta`` as the audit read it: a dict of
    meta.json's well-typed fields)."""
    found = RecordCheck()
    log = read_log(path / EVENTS_NAME, strict=False)
    events = [e for e in log.events if isinstance(e, dict)]
    start = next((e for e in events if e.get("kind") == "session_start"), {})
    end = next((e for e in reversed(events) if e.get("kind") == "session_end"), {})
    _log_against_itself(events, start, end, found.problems)
    transcript = _read_transcript(path, found)
    found.simulated = _simulated_evidence(path, start, events, transcript)
    if transcript is not None:
        _log_against_transcript(events, start, transcript, found.problems)
    return found


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# ----- the log with itself -----------------------------------------------------------------------

def _log_against_itself(events: list[dict], start: dict, end: dict, problems: list[str]) -> None:
    """What holds of a finished run's log (the ranges and the cost's share of the streamed usage
    are the reader's rules, ``study.session_io.values``)."""
    if not end:
        return
    calls = [e for e in events if e.get("kind") == "call_end"]
    family = start.get("family") or "sopbench"
    if family == "sopbench":
        decided = {e.get("account") for e in events if e.get("kind") == "tool_call"
                   and e.get("tool") == "submit_decision" and e.get("ok") is True and e.get("allowed") is True
                   and e.get("server", "sopbench") == "sopbench"}
        what = f"the log's tool calls decide {len(decided)} accounts"
    else:   # another family's units: a τ²-bench conversation ended, a context of a staged run ended
        unit = "conversation_end" if family == "tau2" else "context_end"
        decided = {i for i, e in enumerate(events) if e.get("kind") == unit}
        what = f"the log has {len(decided)} {unit} events"
    if isinstance(end.get("decisions"), int) and end["decisions"] != len(decided):
        problems.append(f"session_end says {end['decisions']} decisions but {what}")
    resumes = sum(e.get("kind") == "resume" for e in events)
    if isinstance(end.get("resumes"), int) and end["resumes"] != resumes:
        problems.append(f"session_end says {end['resumes']} resumes but the log has {resumes} resume events")
    cost = _number(end.get("cost_usd"))
    reported = [_number(c.get("cost_usd")) for c in calls]
    if cost is not None and calls and None not in reported:
        expected = sum(reported) + (_number(end.get("cost_estimated_usd")) or 0.0)
        if abs(cost - expected) > USD_SLACK * (len(calls) + 2):
            problems.append(f"session_end cost_usd {cost} is not the sum of its calls' costs and the estimate "
                            f"({round(expected, 6)})")


def _number(value: Any) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else None


# ----- simulated ---------------------------------------------------------------------------------

def _simulated_evidence(path: Path, start: dict, events: list[dict], transcript: list[dict] | None) -> str | None:
    """The first witness that the session ran on the simulator (``study.session_io.witnesses``; that
    the witnesses agree is the reader's rule ``simulated``, which every command applies)."""
    ids = [e.get("call_id") for e in events if e.get("kind") == "tool_call"]
    witnesses = log_witnesses(start, ids)
    if transcript is not None:
        witnesses += id_witnesses(response_ids(_responses(transcript, start.get("runtime") or "claude-code")),
                                  TRANSCRIPT_IDS)
    return simulated_by(witnesses + truth_witnesses(path))


# ----- the transcript ----------------------------------------------------------------------------

def _read_transcript(path: Path, found: RecordCheck) -> list[dict] | None:
    """The transcript's JSON objects, or None (with a problem or a note) when it cannot be read; a
    run of fresh contexts: every ended context's (``contexts/context-<n>.transcript.jsonl``, in
    order) before the last one's."""
    earlier = sorted((path / CONTEXTS_DIR).glob(f"context-*.{TRANSCRIPT}"),
                     key=lambda p: int(p.name.split(".")[0].split("-")[1]) if p.name.split(".")[0].split("-")[1].isdigit()
                     else 0) if (path / CONTEXTS_DIR).is_dir() else []
    lines: list[dict] = []
    for file in earlier:
        read = _read_one(file, path, found)
        if read is None:
            return None
        lines += read
    last = _read_one(path / TRANSCRIPT, path, found)
    return None if last is None else lines + last


def _read_one(file: Path, path: Path, found: RecordCheck) -> list[dict] | None:
    try:
        info = os.lstat(file)
    except FileNotFoundError:
        found.problems.append(f"no {file.relative_to(path)}: the log's tool calls and usage cannot be checked against "
                              "the CLI's transcript; restore it from the session archive")
        return None
    if not stat.S_ISREG(info.st_mode):
        found.problems.append(f"{file.relative_to(path)} is not a regular file (a link or special file); restore the "
                              "session folder from its archive")
        return None
    try:   # opened without blocking, regular files only, capped (a swap since the lstat is caught)
        data = read_capped(file, within=path, max_bytes=TRANSCRIPT_CAP)
    except OSError as exc:
        found.problems.append(f"{file.relative_to(path)} cannot be read ({exc.strerror or exc}); restore the "
                              "session folder from its archive")
        return None
    lines = []
    for raw in data.splitlines():
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue   # the CLI's own file: a torn line is not the study's record
        if isinstance(obj, dict):
            lines.append(obj)
    return lines




def _responses(transcript: list[dict], runtime: str) -> list[dict]:
    """The transcript's model responses, each ``{"id", "usage", "tool_uses"}``, read by the reader
    of the CLI that wrote it (``study.transcripts``)."""
    from study.transcripts import claude_code, codex

    return (codex if runtime == "codex" else claude_code).responses(transcript)


def _log_against_transcript(events: list[dict], start: dict, transcript: list[dict], problems: list[str]) -> None:
    responses = _responses(transcript, start.get("runtime") or "claude-code")
    uses = {b.get("id"): b for r in responses for b in r["tool_uses"]}
    calls = [e for e in events if e.get("kind") == "tool_call"]
    missing, differ = [], []
    runtime = start.get("runtime") or "claude-code"
    # TEMPORARY until the family registry lands (the audit then asks the family's reading.BUILTIN_TOOLS)
    builtin = start.get("family") in ("workspace", "swebench")
    for call in calls:
        use = uses.get(call.get("call_id"))
        if use is None:
            missing.append(call)
        elif builtin and "server" not in call:
            if not _builtin_matches(use, call, runtime):
                differ.append(call)
        elif use.get("name") != f"mcp__{call.get('server', 'sopbench')}__{call.get('tool')}" \
                or use.get("input") != call.get("args"):
            differ.append(call)
    for what, listed in (("has no tool_use in the transcript", missing),
                         ("differs from its tool_use in the transcript (name or arguments)", differ)):
        if listed:
            first = listed[0]
            problems.append(f"{len(listed)} logged tool call(s) {what}, the first at seq {first.get('seq')} "
                            f"({first.get('tool')} {_short(first.get('args'))})")
    logged = {c.get("call_id") for c in calls}
    servers = LOGGED_SERVERS + tuple(s for s in {c.get("server") for c in calls} if isinstance(s, str))
    prefixes = tuple(f"mcp__{server}__" for server in servers)
    unlogged = [u for u in uses.values() if u.get("id") not in logged
                and (str(u.get("name", "")).startswith(prefixes)
                     or (builtin and not str(u.get("name", "")).startswith("mcp__")))]
    if unlogged and not _cut_at_the_end(unlogged, responses):
        problems.append(f"{len(unlogged)} tool call(s) of the transcript are not in the log, the first "
                        f"{unlogged[0].get('name')} {_short(unlogged[0].get('input'))}")
    _usage_against_responses(events, start, responses, problems)


#: Codex CLI's own tools as its transcript names them -> as its hooks (and so the log) name them.
_CODEX_HOOK_NAMES = {"exec_command": "Bash", "shell": "Bash", "local_shell": "Bash"}


def _builtin_matches(use: dict, call: dict, runtime: str) -> bool:
    """A logged call of the CLI's own tool is its transcript's tool_use: Claude Code's by name and
    input; Codex CLI's shell by its command (the transcript's ``cmd``, the hook's ``command``)."""
    name, given, args = use.get("name"), use.get("input"), call.get("args")
    if runtime != "codex":
        return name == call.get("tool") and given == args
    given = given if isinstance(given, dict) else {}
    args = args if isinstance(args, dict) else {}
    if _CODEX_HOOK_NAMES.get(str(name)) == call.get("tool"):
        return (given.get("cmd") or given.get("command")) == args.get("command")
    return name == call.get("tool")


def _cut_at_the_end(unlogged: list[dict], responses: list[dict]) -> bool:
    """The only unlogged tool calls are those of the last response (a call ended as it asked)."""
    last = {b.get("id") for b in responses[-1]["tool_uses"]} if responses else set()
    return all(u.get("id") in last for u in unlogged)


def _usage_against_responses(events: list[dict], start: dict, responses: list[dict], problems: list[str]) -> None:
    """Each ``usage`` event is the call's running list price after one more response of the
    transcript. A response the stream did not complete (the runner ended its call) has no usage
    event: one such response is skipped at the end of each call; and the CLI, stopped by the
    runner, may not have written the last streamed response."""
    prices = start.get("prices_per_mtok")
    usage = [e for e in events if e.get("kind") == "usage"]
    if not usage or not isinstance(prices, dict):
        return
    from study.protocol.models import price_usage

    try:
        priced = [price_usage(r["usage"], prices) for r in responses]
    except (KeyError, TypeError, ValueError):
        problems.append("session_start's prices_per_mtok cannot price the transcript's usage")
        return
    index, call, running = 0, None, 0.0
    for event in usage:
        key = (event.get("context"), event.get("call"))   # a run of fresh contexts: each context's calls
        if key != call:
            if call is not None and index < len(priced) and not _matches(event, priced[index]):
                index += 1           # the previous call's last response, cut before it completed
            call, running = key, 0.0
        if index >= len(priced):
            if event is usage[-1]:   # the runner ended the call before the CLI wrote the response
                return
            problems.append(f"the log has {len(usage)} usage events but the transcript only {len(responses)} "
                            f"model responses (usage at seq {event.get('seq')} has no response)")
            return
        running += priced[index]
        expected = _number(event.get("priced_usd"))
        if expected is None or abs(expected - round(running, 6)) > USD_SLACK:
            problems.append(f"usage at seq {event.get('seq')} says the call cost {event.get('priced_usd')!r} so far, "
                            f"but the transcript's responses price at {round(running, 6)}")
            return
        index += 1
    if len(priced) - index > len({(e.get('context'), e.get('call')) for e in usage}):
        problems.append(f"the transcript has {len(priced) - index} model responses after the last logged usage")


def _matches(event: dict, price: float) -> bool:
    expected = _number(event.get("priced_usd"))
    return expected is not None and abs(expected - round(price, 6)) <= USD_SLACK


# ----- the batch against the frozen order ----------------------------------------------------------

def check_order(root: Path, files: dict[str, str], start: dict, problems: list[str], notes: list[str]) -> None:
    """A confirmatory session's batch is the frozen order of its seed in the manifest then in
    effect (``files``: path -> sha256): an exploratory session's first N accounts relabelled as
    confirmatory, or a batch of another seed, is not."""
    from sopbench_tools.orders import order_file_name, read_order_file

    from .files import sha256_file

    seed, order = start.get("seed"), start.get("order")
    if not isinstance(seed, int) or not isinstance(order, list):
        return
    rel = f"preregistration/orders/{order_file_name(seed)}"
    if rel not in files:
        problems.append(f"seed {seed} had no frozen order when the session started, so it cannot be a "
                        "confirmatory session")
        return
    path = Path(root) / rel
    if not path.is_file() or sha256_file(path) != files[rel]:
        notes.append(f"{rel} as it was in effect is not on disk; the batch was not compared with it")
        return
    frozen = read_order_file(path)
    if order != frozen:
        problems.append(f"its batch ({len(order)} accounts) is not the frozen order of seed {seed} "
                        f"({len(frozen)} accounts, {rel})")



def check_study_unit(root: Path, files: dict[str, str], start: dict, study: str, problems: list[str],
                     notes: list[str]) -> None:
    """A confirmatory session of another study than the main one is one of that study's frozen
    units when it started (``files``: the manifest then in effect): a τ²-bench session's task the
    one at its position of the study's frozen task order, a staged protocol's run a preregistered
    seed. A study.yaml or order file no longer on disk as it was is a note, not a failure."""
    from study.protocol.studies import STUDIES_DIR, STUDY_FILE
    from study.protocol.yaml_lines import YamlError, load_yaml, read_yaml_text

    from .files import sha256_file

    folder = f"preregistration/{STUDIES_DIR}/{study}"
    rel = f"{folder}/{STUDY_FILE}"
    if rel not in files:
        problems.append(f"study {study} was not preregistered when the session started ({rel} was not frozen)")
        return
    path = Path(root) / rel
    if not path.is_file() or sha256_file(path) != files[rel]:
        notes.append(f"{rel} as it was in effect is not on disk; the session's unit was not checked")
        return
    try:
        params = (load_yaml(read_yaml_text(path)) or {}).get("params") or {}
    except (YamlError, OSError, AttributeError):
        notes.append(f"{rel} could not be read; the session's unit was not checked")
        return
    seed, order = start.get("seed"), start.get("order")
    if isinstance(params.get("order"), str):   # numbered by task: the task at its position of the frozen order
        order_rel = f"{folder}/{params['order']}"
        order_path = Path(root) / order_rel
        if order_rel not in files or not order_path.is_file() or sha256_file(order_path) != files[order_rel]:
            notes.append(f"{order_rel} as it was in effect is not on disk; the session's task was not checked")
            return
        frozen = [line.strip() for line in order_path.read_text(encoding="utf-8").splitlines()
                  if line.strip() and not line.startswith("#")]
        if not isinstance(seed, int) or not 1 <= seed <= len(frozen) or order != [frozen[seed - 1]]:
            problems.append(f"its task is not the one at position {seed} of the study's frozen order ({order_rel})")
    elif isinstance(params.get("seeds"), list) and seed not in params["seeds"]:
        problems.append(f"seed {seed} is not a preregistered seed of study {study} ({rel})")
