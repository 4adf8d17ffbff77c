"""Codex CLI's transcript (its rollout JSONL) read as the same conversation turns as Claude Code's,
and as the usage of each model response.

A rollout line is ``{"timestamp", "type", "payload"}`` (Codex CLI 0.169.0). What is read:

- ``response_item`` with payload ``message`` (role ``user``: the prompt, a resume's prompt, a
  Stop-hook block ``<hook_prompt …>R</hook_prompt>``; role ``assistant``: the model's text; role
  ``developer``: Codex's own instructions, or a PostToolUse hook's note between a call and its
  output), ``function_call`` (an MCP tool's: ``namespace`` ``mcp__<server>`` and the bare name;
  Codex's own shell: ``exec_command``) and ``function_call_output``, ``custom_tool_call`` (Codex's
  own ``apply_patch``, its ``input`` the patch) and ``custom_tool_call_output``, ``reasoning``.
  What an output holds is read by :func:`command_result` (the forms are listed there): Codex's
  header, the exit status a command or patch reports, and what the tool wrote; a call the
  PreToolUse hook denied has a plain string (``Tool call blocked by PreToolUse hook: …``, a
  built-in call's ``Command blocked by PreToolUse hook: …``);
- ``event_msg`` ``item_completed`` of an ``McpToolCall`` item: a call whose tool answered with an
  error (``status`` ``failed``, ``result.isError``), e.g. an FSM tool refusing a transition; its
  output item carries only the text, so this is what flags the call's ``error`` (as Claude Code's
  ``tool_result.is_error`` does);
- ``event_msg`` ``item_completed`` of a ``CommandExecution`` item: an agent's shell command as it
  ended (``exit_code``, ``aggregated_output``), written before its PostToolUse hook runs; with
  the output text's own header (:func:`command_output`) it gives each command's exit status
  (:func:`command_exits`, ``RolloutFollower.exit_code``);
- ``compacted``: the summary the conversation continued from after a compaction;
- ``token_usage_record``: one model response's usage (``response_id``, ``usage`` with
  ``input_tokens`` including ``cached_input_tokens``, ``output_tokens`` including reasoning),
  compaction requests included. This is what the runner prices as a session streams
  (``RolloutFollower``) and what the audit compares the ``usage`` events with.

The other records (``session_meta``, ``turn_context``, ``event_msg``, ``world_state``) are not
turns; ``turns`` counts them (an ``McpToolCall``'s ``item_completed`` among them, though it flags
its call).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import orjson

from study.protocol.models import Usage
from . import TEXT_CAP

_STOP_PROMPT = re.compile(r'<hook_prompt hook_run_id="stop:[^"]*">(.*?)</hook_prompt>', re.DOTALL)
BLOCKED = "Tool call blocked by PreToolUse hook: "
COMMAND_BLOCKED = "Command blocked by PreToolUse hook: "
#: The lines of the header Codex CLI 0.169.0 writes before a tool's output, up to ``Output:``
#: (``ExecCommandToolOutput::response_text``: each line only where it has a value).
_HEADER_LINE = re.compile(r"^(?:Chunk ID: .*|Wall time: .*|Process exited with code -?\d+"
                          r"|Process running with session ID .*|Original token count: .*|Total output lines: .*"
                          r"|Exit code: -?\d+)$")
_EXIT_CODE = re.compile(r"^(?:Process exited with code|Exit code:) (-?\d+)$")
#: Codex CLI's own tools, as its transcript names them (the rest are MCP tools, in a namespace).
BUILTIN_TOOLS = ("exec_command", "write_stdin", "apply_patch", "shell", "local_shell")


@dataclass(frozen=True)
class CommandResult:
    """What one of Codex CLI's tool outputs says (:func:`command_result`)."""

    ran: bool                 # Codex ran the tool: the output starts with Codex's header
    exit_code: int | None     # the exit status the command or patch reported (None: none reported)
    running: bool             # the command still runs (``Process running with session ID N``)
    output: str               # what the tool wrote, after the header(s)

    @property
    def ok(self) -> bool:
        """A command or patch that ran and exited 0, or still runs (a built-in tool's success)."""
        return self.ran and (self.exit_code == 0 or (self.exit_code is None and self.running))


def command_result(text: str) -> CommandResult:
    """Codex CLI 0.169.0's output of a tool, read: its header, the exit status, what the tool wrote.

    The forms it writes (checked against the CLI's rollouts and its source, ``response_text`` of
    ``core/src/tools/context.rs``):

    - the shell (``exec_command``, ``write_stdin``): ``Chunk ID: 8c0a7a\\nWall time: 0.0000
      seconds\\nProcess exited with code 0\\nOriginal token count: 12\\nOutput:\\n<output>``; a
      command still running says ``Process running with session ID N`` instead of its exit code;
    - ``apply_patch`` (a ``custom_tool_call``): ``Exit code: 0\\nWall time: 0.1 seconds\\nOutput:\\n
      Success. Updated the following files:\\nA ledger.tsv``; a patch Codex refused is a plain
      line (``apply_patch verification failed: …``, ``patch rejected: …``): not run;
    - a patch written as a shell command (``apply_patch <<'EOF'``, which Codex applies itself):
      ``Wall time: …\\nOutput:\\n`` followed by the patch's own answer as above: two headers, the
      exit status is the inner one's (a header that reports an exit status or a running command
      is the last: what follows is the command's own output, whatever it reads);
    - an MCP tool: ``Wall time: 0.0061 seconds\\nOutput:`` as the first text, the tool's texts after
      it (no exit status: the tool's text says whether it failed);
    - a denial or a refusal (``… blocked by PreToolUse hook: …``): no header, not run.
    """
    ran, code, running = False, None, False
    rest = text
    while code is None and not running:
        lines = rest.split("\n")
        n = 0
        while n < len(lines) and _HEADER_LINE.match(lines[n]):
            n += 1
        if n == 0 or n >= len(lines) or lines[n] != "Output:":
            break
        ran = True
        for line in lines[:n]:
            found = _EXIT_CODE.match(line)
            if found:
                code = int(found.group(1))
            running = running or line.startswith("Process running with session ID")
        rest = "\n".join(lines[n + 1:])
    return CommandResult(ran, code, running and code is None, rest)


_ADD_FILE = "*** Add File: "


def added_files(patch: str) -> dict[str, str]:
    """The content of each file a patch of Codex's adds (``*** Add File: PATH`` and its ``+`` lines,
    each a line of the file), by the path the patch names; the patch may be a shell command's
    (``apply_patch <<'EOF'`` …). A patch that adds no file gives {}."""
    files: dict[str, str] = {}
    path: str | None = None
    for line in patch.split("\n"):
        if line.startswith(_ADD_FILE):
            path = line[len(_ADD_FILE):].strip()
            files[path] = ""
        elif line.startswith("*** ") or (path is not None and not line.startswith("+")):
            path = None
        elif path is not None:
            files[path] += line[1:] + "\n"
    return files


def _cut_text(text: str, cap: int | None = TEXT_CAP) -> dict[str, Any]:
    """A text as a turn keeps it: cut to ``cap`` characters (None: whole), with its full length
    when cut (the same form as ``study.transcripts.claude_code``)."""
    if cap is None:
        return {"text": text, "cut": None}
    return {"text": text[:cap], "cut": len(text) if len(text) > cap else None}


def usage_of(raw: Any) -> Usage:
    """A Responses API ``usage`` (Codex's rollout form) in the price keys: the uncached input is the
    input less its cached part; the Responses API bills no cache writes (their count, where
    given, is kept as 5-minute writes, which its models price at 0)."""
    raw = raw if isinstance(raw, dict) else {}

    def tokens(key: str) -> int:
        value = raw.get(key)
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else 0

    cached = min(tokens("cached_input_tokens"), tokens("input_tokens"))
    return Usage(input=tokens("input_tokens") - cached, output=tokens("output_tokens"),
                 cache_write_5m=tokens("cache_write_input_tokens"), cache_read=cached)


def _lines(data: bytes) -> list[dict[str, Any]]:
    out = []
    for raw in data.splitlines():
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def usage_records(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``token_usage_record`` payloads, in order (one per model response)."""
    return [line["payload"] for line in lines
            if line.get("type") == "token_usage_record" and isinstance(line.get("payload"), dict)]


def responses(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The model responses of a rollout's records, in order: each ``token_usage_record`` closes one
    response, whose ``function_call`` items are those since the previous record; as
    ``{"id", "usage": Usage, "tool_uses": [{"id", "name": "mcp__<server>__<tool>", "input"}], "t": the
    record's time}`` (the form the audit compares a session's log with, whichever CLI wrote the
    transcript)."""
    out: list[dict[str, Any]] = []
    uses: list[dict[str, Any]] = []
    for line in lines:
        payload = line.get("payload") if isinstance(line.get("payload"), dict) else {}
        if line.get("type") == "response_item" and payload.get("type") == "function_call":
            namespace, name = payload.get("namespace"), payload.get("name")
            try:
                args = orjson.loads(payload.get("arguments") or "{}")
            except (orjson.JSONDecodeError, TypeError):
                args = payload.get("arguments")
            uses.append({"id": payload.get("call_id"), "name": f"{namespace}__{name}" if namespace else str(name),
                         "input": args})
        elif line.get("type") == "token_usage_record":
            out.append({"id": payload.get("response_id"), "usage": usage_of(payload.get("usage")), "tool_uses": uses,
                        "t": line.get("timestamp")})
            uses = []
    return out


@dataclass(frozen=True)
class CommandOutput:
    """A built-in call's output as Codex CLI 0.169.0 shows it to the model: a header, then
    ``Output:`` and the text. A command: ``Chunk ID: …``, ``Wall time: … seconds``, ``Process
    exited with code N`` (or ``Process running with session ID N`` while it runs), ``Original
    token count: …``; a patch: ``Exit code: N``, ``Wall time: …``; an MCP tool: ``Wall time: …``."""

    exit_code: int | None     # None: still running, or a header that names none (an MCP tool's)
    wall_time_s: float | None
    running: bool             # the command was still running (``write_stdin`` may feed it)
    output: str               # the text after ``Output:``


_HEADER = re.compile(r"(Chunk ID|Wall time|Process exited with code|Process running with session ID|Exit code|"
                     r"Original token count)\b:? ?(.*)")


def command_output(text: str) -> CommandOutput | None:
    """A built-in call's output text read into its header and its output (:class:`CommandOutput`),
    or None when ``text`` has no such header (a denial, a plain text)."""
    lines = text.split("\n")
    if "Output:" not in lines:
        return None
    at = lines.index("Output:")
    header = [_HEADER.fullmatch(line.strip()) for line in lines[:at]]
    if not header or not all(header):
        return None
    exit_code = wall = None
    running = False
    for found in header:
        key, value = found.group(1), found.group(2).strip()
        if key in ("Process exited with code", "Exit code") and re.fullmatch(r"-?\d+", value):
            exit_code = int(value)
        elif key == "Wall time":
            number = re.match(r"[0-9.]+", value)
            wall = float(number.group(0)) if number else None
        elif key == "Process running with session ID":
            running = True
    return CommandOutput(exit_code, wall, running, "\n".join(lines[at + 1:]))


def command_exits(lines: Any) -> dict[str, int]:
    """The exit status of each agent command of rollout lines, by call id: a ``CommandExecution``
    item's ``exit_code`` (written as the command ends), else the one its output's header names
    (:func:`command_output`)."""
    found: dict[str, int] = {}
    for record in lines:
        payload = record.get("payload") if isinstance(record, dict) else None
        if not isinstance(payload, dict):
            continue
        item = payload.get("item") if isinstance(payload.get("item"), dict) else {}
        if payload.get("type") == "item_completed" and item.get("type") == "CommandExecution" and item.get("id"):
            code = item.get("exit_code")
            if isinstance(code, int) and not isinstance(code, bool):
                found[str(item["id"])] = code
        elif payload.get("type") == "function_call_output" and payload.get("call_id"):
            output = payload.get("output")
            parsed = command_output(output) if isinstance(output, str) else None
            if parsed is not None and parsed.exit_code is not None:
                found.setdefault(str(payload["call_id"]), parsed.exit_code)
    return found


class RolloutFollower:
    """The new usage records of a growing rollout, read from where the last read stopped (a line
    being written is left for the next read), and what it says of the calls read so far."""

    def __init__(self, path: Path | None, home: Path | None = None, thread: str | None = None):
        self.path, self.home, self.thread = path, home, thread
        self.offset = 0
        #: (call id, output text) of every function call's output read so far and not yet taken
        self.outputs: list[tuple[str, str]] = []
        #: the exit status of every agent command read so far, by call id (:func:`command_exits`)
        self.exits: dict[str, int] = {}
        self._usage: list[dict[str, Any]] = []

    def take_outputs(self) -> list[tuple[str, str]]:
        """The function calls' outputs read since the last take (their call ids and texts)."""
        taken, self.outputs = self.outputs, []
        return taken

    @classmethod
    def for_thread(cls, codex_home: Path, thread: str) -> "RolloutFollower":
        return cls(None, codex_home, thread)

    def _find(self) -> Path | None:
        if self.path is None and self.home is not None and self.thread:
            found = sorted(self.home.glob(f"sessions/*/*/*/rollout-*-{self.thread}.jsonl"))
            self.path = found[0] if found else None
        return self.path

    def read_new(self) -> list[dict[str, Any]]:
        """The usage records appended since the last read (of this or of :meth:`exit_code`)."""
        self._read()
        taken, self._usage = self._usage, []
        return taken

    def exit_code(self, call_id: str) -> int | None:
        """The exit status of the agent's command ``call_id``, reading what was appended if needed
        (None: not in the rollout yet)."""
        if call_id not in self.exits:
            self._read()
        return self.exits.get(call_id)

    def _read(self) -> None:
        path = self._find()
        if path is None:
            return
        try:
            with open(path, "rb") as fh:
                fh.seek(self.offset)
                data = fh.read()
        except OSError:
            return
        end = data.rfind(b"\n") + 1
        self.offset += end
        lines = _lines(data[:end])
        self.outputs.extend(function_outputs(lines))
        self.exits.update(command_exits(lines))
        self._usage.extend(usage_records(lines))


def function_outputs(lines: Any) -> list[tuple[str, str]]:
    """(call id, output text) of each ``function_call_output`` response item of rollout lines."""
    found = []
    for record in lines:
        payload = record.get("payload") if isinstance(record, dict) else None
        if isinstance(payload, dict) and payload.get("type") == "function_call_output" and payload.get("call_id"):
            output = payload.get("output")
            text = output if isinstance(output, str) else "\n".join(_texts(output)) if output is not None else ""
            found.append((str(payload["call_id"]), text))
    return found


def _failed_mcp_call(payload: dict[str, Any]) -> str | None:
    """The call id of an ``item_completed`` event of an MCP tool call that failed, else None."""
    item = payload.get("item") if isinstance(payload.get("item"), dict) else {}
    if payload.get("type") != "item_completed" or item.get("type") != "McpToolCall":
        return None
    result = item.get("result") if isinstance(item.get("result"), dict) else {}
    failed = item.get("status") == "failed" or result.get("isError") is True
    return str(item.get("id")) if failed and item.get("id") is not None else None


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [c.get("text", "") for c in content or [] if isinstance(c, dict) and isinstance(c.get("text"), str)]


def _tool(namespace: Any, name: Any) -> str:
    server = namespace[len("mcp__"):] if isinstance(namespace, str) and namespace.startswith("mcp__") else None
    return ("fsm." if server == "fsm" else "") + str(name)


def turns(lines: list[bytes], *, cap: int | None = TEXT_CAP) -> tuple[list[dict[str, Any]], int]:
    """The conversation of a rollout's lines (the turn dicts of ``study.transcripts.claude_code``,
    a call's ``id`` being Codex's ``call_id``; the model's turns get their ``response`` from the
    ``token_usage_record`` that closes it), and how many records are not turns; each text cut to
    ``cap`` characters (None: whole, for the exports)."""
    cut = partial(_cut_text, cap=cap)
    out: list[dict[str, Any]] = []
    calls: dict[str, dict[str, Any]] = {}
    failures: set[str] = set()   # call ids whose MCP tool answered with an error (item_completed)
    builtin: set[str] = set()    # call ids of Codex's own tools (the shell, apply_patch)
    pending: list[dict[str, Any]] = []   # the model's turns since the last token_usage_record
    other = 0
    prompts_seen = False
    for n, raw in enumerate(lines):
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            obj = None
        if not isinstance(obj, dict) or not isinstance(obj.get("payload"), dict):
            other += 1
            continue
        t, payload = obj.get("timestamp"), obj["payload"]
        if obj.get("type") == "compacted":
            out.append({"n": n, "role": "compaction", "t": t, "summary": True, **cut(str(payload.get("message") or ""))})
            continue
        if obj.get("type") != "response_item":
            other += 1
            if obj.get("type") == "token_usage_record":   # closes a response: its turns since the last one
                for turn in pending:
                    turn["response"] = payload.get("response_id")
                pending = []
            if obj.get("type") == "event_msg" and (failed := _failed_mcp_call(payload)) is not None:
                failures.add(failed)
                if failed in calls and calls[failed].get("result") is not None:   # its output came first
                    calls[failed]["error"] = True
            continue
        kind = payload.get("type")
        if kind == "message":
            role, text = payload.get("role"), "\n".join(_texts(payload.get("content"))).strip()
            if role == "assistant":
                out.append({"n": n, "role": "assistant", "t": t, **cut(text)})
                pending.append(out[-1])
            elif role == "user" and (stop := _STOP_PROMPT.search(text)):
                out.append({"n": n, "role": "stop-block", "t": t, **cut(stop.group(1).strip())})
            elif role == "user" and text and not text.startswith("<environment_context>"):
                out.append({"n": n, "role": "user", "t": t, **cut(text)})
                prompts_seen = True
            elif role == "developer" and prompts_seen and out and out[-1].get("role") == "call":
                out.append({"n": n, "role": "user", "t": t, "hook": True, **cut(text)})
            else:
                other += 1
        elif kind == "reasoning":
            summary = "\n".join(_texts(payload.get("summary")))
            if summary:
                out.append({"n": n, "role": "thinking", "t": t, **cut(summary)})
                pending.append(out[-1])
            else:
                other += 1
        elif kind in ("function_call", "custom_tool_call"):
            namespace = payload.get("namespace")
            arguments = payload.get("arguments") if kind == "function_call" else payload.get("input")
            call = {"n": n, "role": "call", "t": t, "id": payload.get("call_id"),
                    "tool": _tool(namespace, payload.get("name")), "args": cut(str(arguments or "")), "result": None}
            if namespace is None and payload.get("name") in BUILTIN_TOOLS:
                builtin.add(str(payload.get("call_id")))
            calls[str(payload.get("call_id"))] = call
            out.append(call)
            pending.append(call)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            call_id = str(payload.get("call_id"))
            texts = _texts(payload.get("output"))
            head = command_result(texts[0]) if texts else command_result("")
            if head.ran:   # what the tool wrote: after Codex's header, and an MCP tool's further texts
                body = "\n".join(([head.output] if head.output or len(texts) == 1 else []) + texts[1:])
            else:
                body = "\n".join(texts)
            blocked = next((p for p in (BLOCKED, COMMAND_BLOCKED) if not head.ran and body.startswith(p)), None)
            call = calls.get(call_id)
            if call is None:
                call = {"n": n, "role": "call", "t": t, "id": payload.get("call_id"), "tool": "?", "args": cut(""),
                        "result": None}
                out.append(call)
            if call_id in builtin:   # Codex's own tool: its exit status says (a patch refused has none)
                error = not head.ok
            else:                    # an MCP tool: its text, or the item Codex completed, says
                error = not head.ran or body.startswith("Error: ") or call_id in failures
            call.update(result=cut(body[len(blocked):] if blocked else body), result_n=n, error=error,
                        denied=blocked is not None)
        else:
            other += 1
    return out, other
