"""Whether a session ran on the simulator: one fact with several witnesses, which must agree
before any command counts the session (docs/contracts.md, "Validation of a log", rule
``simulated``).

The witnesses, each saying "simulated", "a real model" or nothing:

- the flag: ``session_start.simulated`` (meta.json's must equal it: rule ``meta-log``);
- the model: a ``sim:<policy>`` model is the simulator; any other name is a real model's;
- the endpoint: the simulator listens on loopback only, so a ``session_start.base_url`` on another
  host is a real model's (a loopback endpoint says nothing: a local server may serve a real model);
- the simulator's ground truth ``sim_truth.jsonl`` in the session folder (its absence says
  nothing: an archive may leave it out);
- the ids of the log's tool calls and of the transcript's responses and tool calls: the
  simulator's (Claude Code: ``msg_sim…``, ``toolu_sim…``; Codex CLI: ``resp_sim…``, ``call_sim…``)
  or a model API's (``msg_…``, ``toolu_…``, ``resp_…``, ``call_…``); other ids say nothing.

A **generated** log (``analysis.corpus``: the corpus generator writes ``cli_version: "none"``,
as no CLI ran) stands for the plan's models and carries their names, so its model's name is not
a witness; it is simulated by what it is, and must say so. That is no loophole: a generated log
is counted only as simulated, so every table it reaches is titled SIMULATED whatever its model
names, and ``study audit`` refuses it (no CLI ran it, no frozen runtime, no transcript).

The transcript is read only when the session folder holds one (``transcript_witnesses``); the
caches of the reading commands key a session on its transcript and truth file too
(``RECORD_FILES``), so a warm ``study tables`` or ``study status`` reads none.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import msgspec

from .folders import RECORD_FILES, SIM_TRUTH_NAME, TRANSCRIPT_NAME  # noqa: F401  (RECORD_FILES: re-exported)
SIM_MODEL_PREFIX = "sim:"
#: The simulator's ids (``study.sim``: responses and tool calls, on either API).
SIM_IDS = ("msg_sim", "resp_sim", "toolu_sim", "call_sim")
#: A model API's ids (Anthropic Messages: ``msg_``, ``toolu_``; OpenAI Responses: ``resp_``, ``call_``).
API_IDS = ("msg_", "resp_", "toolu_", "call_")
#: ``session_start.cli_version`` of a log no CLI wrote (the corpus generator's).
GENERATED_CLI = "none"
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


@dataclass(frozen=True)
class Witness:
    """What one record says: ``simulated`` (True: the simulator, False: a real model) and how,
    in words (``says``)."""

    simulated: bool
    says: str


def generated(start: Mapping[str, Any]) -> bool:
    """A log no CLI wrote: the corpus generator's (``cli_version: "none"``)."""
    return start.get("cli_version") == GENERATED_CLI


def log_witnesses(start: Mapping[str, Any], call_ids: Iterable[Any]) -> list[Witness]:
    """The witnesses inside the log: its flag, model, endpoint, and its tool calls' ids."""
    out: list[Witness] = []
    flag = start.get("simulated")
    if type(flag) is bool:
        out.append(Witness(flag, f"session_start says simulated: {str(flag).lower()}"))
    model = start.get("model")
    if generated(start):
        out.append(Witness(True, f"no CLI wrote its log (cli_version {GENERATED_CLI!r}: a generated corpus)"))
    elif isinstance(model, str):
        out.append(Witness(model.startswith(SIM_MODEL_PREFIX), f"its model is {model}"))
    host = _host(start.get("base_url"))
    if host is not None and host not in LOOPBACK:
        out.append(Witness(False, f"its endpoint {host} is not on loopback, where the simulator listens"))
    out += id_witnesses(call_ids, "its tool calls carry")
    return out


def folder_witnesses(folder: Path, runtime: str | None) -> list[Witness]:
    """The witnesses beside the log: the simulator's truth file and the transcript's ids."""
    return truth_witnesses(Path(folder)) + transcript_witnesses(Path(folder), runtime)


def truth_witnesses(folder: Path) -> list[Witness]:
    """The simulator's ground truth in the folder (its absence says nothing)."""
    if os.path.lexists(Path(folder) / SIM_TRUTH_NAME):
        return [Witness(True, f"its folder holds the simulator's {SIM_TRUTH_NAME}")]
    return []


def transcript_witnesses(folder: Path, runtime: str | None) -> list[Witness]:
    """The ids of the transcript's model responses and tool calls (none without a readable
    transcript: a missing or unreadable one is the audit's to fail)."""
    file = folder / TRANSCRIPT_NAME
    if not os.path.lexists(file):
        return []
    ids = transcript_ids(folder, runtime)
    return id_witnesses(ids, TRANSCRIPT_IDS) if ids is not None else []


#: How the transcript's ids witness (``id_witnesses``' ``what``).
TRANSCRIPT_IDS = "its transcript's responses and tool calls carry"


def transcript_ids(folder: Path, runtime: str | None) -> list[str] | None:
    """The ids of the transcript's model responses and their tool calls; None when it cannot be
    read, or no reader here knows its runtime. Read here, in the log's layer, as the runtime's
    reader in ``study.transcripts`` reads them (its ``responses``: the same records, the same ids;
    ``tests/session_io/test_witnesses.py`` holds the two to each other on real transcripts)."""
    import orjson

    from .safe_files import TRANSCRIPT_CAP, read_capped

    found = _ID_READERS.get(runtime or "claude-code")
    if found is None:
        return None
    read, markers, decoder = found
    try:
        data = read_capped(folder / TRANSCRIPT_NAME, within=folder, max_bytes=TRANSCRIPT_CAP)
    except OSError:
        return None
    ids: list[str] = []
    for raw in _lines_with(data, markers):   # records that hold no id are never parsed
        try:    # the fields that hold ids, decoded into structs (the rest skipped unread)
            ids += [i for i in read(msgspec.structs.asdict(decoder.decode(raw)), structs=True) if isinstance(i, str)]
            continue
        except (msgspec.DecodeError, msgspec.ValidationError):
            pass          # another shape than the structs': read as a dict, exactly as study.transcripts does
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue                  # the CLI's own file: a torn line is not the study's record
        if isinstance(obj, dict):
            ids += [i for i in read(obj) if isinstance(i, str)]
    return ids


def _claude_code_ids(line: dict[str, Any], structs: bool = False) -> list[Any]:
    """A Claude Code transcript record's response id and tool_use ids (``study.transcripts.claude_code.
    responses``: the main thread's assistant records, the CLI's synthetic messages left out).
    ``structs``: ``line`` is ``_CCLine`` as a dict (its message and blocks still structs)."""
    if line.get("type") != "assistant" or line.get("isSidechain") is True:
        return []
    message = line.get("message")
    if structs:
        if message is None:
            return []
        content = message.content
        message = {"id": message.id, "model": message.model}
        blocks = [{"type": b.type, "id": b.id} for b in content] if isinstance(content, list) else []
    else:
        message = message if isinstance(message, dict) else {}
        content = message.get("content")
        blocks = content if isinstance(content, list) else ()
    if message.get("model") == "<synthetic>" or not isinstance(message.get("id"), str):
        return []
    return [message["id"], *(b.get("id") for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use")]


def _codex_ids(line: dict[str, Any], structs: bool = False) -> list[Any]:
    """A Codex CLI rollout record's function call id or response id (``study.transcripts.codex.responses``)."""
    payload = line.get("payload")
    if structs:
        payload = {} if payload is None else {"type": payload.type, "call_id": payload.call_id,
                                              "response_id": payload.response_id}
    payload = payload if isinstance(payload, dict) else {}
    if line.get("type") == "response_item" and payload.get("type") == "function_call":
        return [payload.get("call_id")]
    if line.get("type") == "token_usage_record":
        return [payload.get("response_id")]
    return []


class _Block(msgspec.Struct):
    type: Any = None
    id: Any = None


class _Message(msgspec.Struct):
    id: Any = None
    model: Any = None
    content: list[_Block] | str | None = None


class _CCLine(msgspec.Struct):
    """The fields of a Claude Code transcript record that hold ids (the rest is skipped unread; a
    record of another shape fails to decode and is read as a dict instead)."""

    type: Any = None
    isSidechain: Any = None       # noqa: N815 (the CLI's key)
    message: _Message | None = None


class _Payload(msgspec.Struct):
    type: Any = None
    call_id: Any = None
    response_id: Any = None


class _CodexLine(msgspec.Struct):
    """The fields of a Codex CLI rollout record that hold ids."""

    type: Any = None
    payload: _Payload | None = None


#: Each runtime's reader of a record's ids, the bytes every record that holds one contains, and
#: the decoder of its fields that hold ids.
_ID_READERS = {"claude-code": (_claude_code_ids, (b'"assistant"',), msgspec.json.Decoder(_CCLine)),
               "codex": (_codex_ids, (b'"function_call"', b'"token_usage_record"'), msgspec.json.Decoder(_CodexLine))}


def _lines_with(data: bytes, markers: tuple[bytes, ...]) -> list[bytes]:
    """The lines of ``data`` holding any of ``markers``, in file order: found by searching the
    bytes (a transcript is mostly tool results, which are never split into lines or parsed)."""
    spans = set()
    for marker in markers:
        at = data.find(marker)
        while at != -1:
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            end = len(data) if end == -1 else end
            spans.add((start, end))
            at = data.find(marker, end)
    return [data[start:end] for start, end in sorted(spans)]


def response_ids(responses: Iterable[Mapping[str, Any]]) -> list[Any]:
    """The ids of responses as ``study.transcripts``' ``responses`` gives them, and of their tool calls."""
    ids: list[Any] = []
    for response in responses:
        ids.append(response.get("id"))
        ids += [use.get("id") for use in response.get("tool_uses") or () if isinstance(use, Mapping)]
    return ids


def id_witnesses(ids: Iterable[Any], what: str) -> list[Witness]:
    """What ids say: the simulator's, a model API's (one witness each kind found), or nothing."""
    sim = real = None
    for value in ids:
        if not isinstance(value, str):
            continue
        if value.startswith(SIM_IDS):
            sim = sim or value
        elif value.startswith(API_IDS):
            real = real or value
    out = []
    if sim is not None:
        out.append(Witness(True, f"{what} the simulator's ids ({_short(sim)})"))
    if real is not None:
        out.append(Witness(False, f"{what} a model API's ids ({_short(real)})"))
    return out


def _short(value: str) -> str:
    return value if len(value) <= 24 else value[:20] + "…"


def _host(url: Any) -> str | None:
    if not isinstance(url, str) or not url:
        return None
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


def contradiction(witnesses: list[Witness]) -> str | None:
    """The message when the witnesses disagree (some say simulated, some a real model), else None."""
    sim = [w.says for w in witnesses if w.simulated]
    real = [w.says for w in witnesses if not w.simulated]
    if not sim or not real:
        return None
    return (f"its records disagree on whether it ran on the simulator: {'; '.join(sim)} (the simulator), but "
            f"{'; '.join(real)} (a real model)")


def simulated_by(witnesses: list[Witness]) -> str | None:
    """The first witness that the session ran on the simulator, other than its flag (None: none)."""
    return next((w.says for w in witnesses if w.simulated and not w.says.startswith("session_start says")), None)


__all__ = ["API_IDS", "GENERATED_CLI", "RECORD_FILES", "SIM_IDS", "SIM_MODEL_PREFIX", "SIM_TRUTH_NAME",
           "TRANSCRIPT_IDS", "Witness", "contradiction", "folder_witnesses", "generated", "id_witnesses",
           "log_witnesses", "response_ids", "simulated_by", "transcript_ids", "transcript_witnesses",
           "truth_witnesses"]
