"""Actions as each runtime's own tool calls, and a request read back into a :class:`ContextView`.

What the CLIs take and show, checked against the real CLIs offline (Claude Code 2.1.332, Codex
CLI 0.169.0; docs/simulator.md):

* Claude Code: ``Bash`` (``command``), ``Write`` (``file_path``, absolute, and ``content``),
  ``Edit`` (``file_path``, ``old_string``, ``new_string``). It refuses to write or edit a file
  that exists before it has been read in the context, so an edit (or a write) of a file not yet
  read is preceded by a ``Read`` of it; those reads are the responder's, not the policy's, and
  are not steps of the view.
* Codex CLI: the shell is ``exec_command`` (``cmd``). Edits are patches (``*** Begin Patch`` ...):
  the ``apply_patch`` custom tool when Codex offers it (a model it has catalog metadata for),
  otherwise the patch as a shell command ``apply_patch <<'EOF'`` ... ``EOF``, which Codex runs
  as the same patch (and which its default instructions tell a model without metadata to use).
  A patch adds a file (its content as ``+`` lines; Codex ends the file with a newline) or
  updates one (``-`` the old lines, ``+`` the new ones).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any

from study.fsm.builtin_tools import shell_patch
from study.sim.conversation import Event, Said, ToolCall, ToolOutcome, UserText, read_conversation, visible_text
from study.sim.protocol import ToolUse
from study.sim.responses_conversation import read_input, tool_names as responses_tool_names

from .actions import Action, ContextView, EditFile, EndTurn, McpCall, Outcome, Say, Shell, WriteFile

MESSAGES, RESPONSES = "anthropic-messages", "openai-responses"
_CLAUDE_ROOT = re.compile(r"Primary working directory: (.+)")
_CODEX_ROOT = re.compile(r"<cwd>(.*?)</cwd>")
_HEADER = re.compile(r"^\*\*\* (Add File|Update File|Delete File|Move to): (.+)$")
_CONTEXT = re.compile(r"<workspace-context>(.*?)</workspace-context>", re.DOTALL)
_KINDS = {cls.__name__: cls for cls in (Shell, WriteFile, EditFile, McpCall, Say, EndTurn)}


# -- patches ------------------------------------------------------------------------------------


def _lines(text: str) -> list[str]:
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")


def patch_of(action: WriteFile | EditFile) -> str:
    """The Codex patch that makes the write or the edit (one file)."""
    if isinstance(action, WriteFile):
        body = [f"*** Add File: {action.path}"] + ["+" + line for line in _lines(action.content)]
    else:
        body = [f"*** Update File: {action.path}", "@@"] + ["-" + line for line in _lines(action.old)]
        body += ["+" + line for line in _lines(action.new)] if action.new else []
    return "\n".join(["*** Begin Patch", *body, "*** End Patch"]) + "\n"


def heredoc(patch: str) -> str:
    """The patch as the shell command Codex runs as ``apply_patch`` (no line of a patch is
    ``EOF``: every line is a header or starts with ``+``, ``-``, ``@`` or a space)."""
    return "apply_patch <<'EOF'\n" + patch.rstrip("\n") + "\nEOF"


def action_of_patch(patch: str) -> WriteFile | EditFile | None:
    """The write or edit of a patch's first file (what :func:`patch_of` made), or None."""
    path, kind, minus, plus = None, None, [], []
    for line in patch.splitlines():
        header = _HEADER.match(line.strip())
        if header:
            if path is not None:
                break
            kind, path = header.group(1), header.group(2).strip()
        elif path is not None and line.startswith("-"):
            minus.append(line[1:])
        elif path is not None and line.startswith("+"):
            plus.append(line[1:])
    if path is None:
        return None
    if kind == "Add File":
        return WriteFile(path, "\n".join(plus) + "\n")
    return EditFile(path, "\n".join(minus), "\n".join(plus))


# -- actions as tool calls ------------------------------------------------------------------------


def absolute(path: str, root: str | None) -> str:
    return path if os.path.isabs(path) or root is None else os.path.join(root, path)


def relative(path: str, root: str | None) -> str:
    """A path the CLI shows, as the policy names it: relative to the workspace when inside it."""
    if root is None or not os.path.isabs(path):
        return path
    rel = os.path.relpath(path, root)
    return path if rel == ".." or rel.startswith(".." + os.sep) else Path(rel).as_posix()


def tool_use(api: str, action: Action, root: str | None, tools: set[str]) -> ToolUse:
    """The runtime's own call for one action (``tools``: the tool names the request offers)."""
    if isinstance(action, McpCall):
        return ToolUse(f"mcp__{action.server}__{action.tool}", dict(action.args))
    if api == MESSAGES:
        if isinstance(action, Shell):
            return ToolUse("Bash", {"command": action.command})
        if isinstance(action, WriteFile):
            return ToolUse("Write", {"file_path": absolute(action.path, root), "content": action.content})
        if isinstance(action, EditFile):
            return ToolUse("Edit", {"file_path": absolute(action.path, root), "old_string": action.old, "new_string": action.new})
    else:
        if isinstance(action, Shell):
            return ToolUse("exec_command", {"cmd": action.command})
        if isinstance(action, (WriteFile, EditFile)):
            patch = patch_of(action)
            if "apply_patch" in tools:
                return ToolUse("apply_patch", {"input": patch}, freeform=True)
            return ToolUse("exec_command", {"cmd": heredoc(patch)})
    raise ValueError(f"{type(action).__name__} is no tool call")


# -- a request read back ----------------------------------------------------------------------------


def _texts(value: Any) -> list[str]:
    """Every text of a request body's system prompt, messages or input items."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    if isinstance(value, dict):
        return [t for key in ("text", "content") if key in value for t in _texts(value[key])]
    return []


def workspace_root(api: str, body: dict) -> str | None:
    """The CLI's working folder as its request states it (Claude Code's environment section,
    Codex's ``<environment_context>``)."""
    pattern = _CLAUDE_ROOT if api == MESSAGES else _CODEX_ROOT
    sources = [body.get("system"), body.get("messages")] if api == MESSAGES else [body.get("input")]
    for text in _texts(sources):
        found = pattern.search(text)
        if found:
            return found.group(1).strip()
    return None


def offered_tools(api: str, body: dict) -> set[str]:
    if api == MESSAGES:
        return {str(t.get("name", "")) for t in body.get("tools") or [] if isinstance(t, dict)}
    return responses_tool_names(body)


def _action(call: ToolCall, root: str | None) -> Action | str | None:
    """The action a call was (a Claude Code ``Read``: the path it read, as text; an unknown tool: None)."""
    args = call.args if isinstance(call.args, dict) else {}
    if call.server is not None:
        return McpCall(call.server, call.tool, dict(args))
    if call.tool in ("Bash", "exec_command"):
        command = str(args.get("command", args.get("cmd", "")))
        patch = shell_patch(command)
        return (action_of_patch(patch[0]) or Shell(command)) if patch else Shell(command)
    if call.tool == "apply_patch":
        return action_of_patch(str(args.get("input", args.get("command", ""))))
    if call.tool == "Write":
        return WriteFile(relative(str(args.get("file_path", "")), root), str(args.get("content", "")))
    if call.tool == "Edit":
        return EditFile(relative(str(args.get("file_path", "")), root), str(args.get("old_string", "")),
                        str(args.get("new_string", "")))
    if call.tool == "Read":
        return relative(str(args.get("file_path", "")), root)
    return None


class Reading:
    """A request read as the agent's context: the :class:`ContextView`, the workspace root, the
    offered tools, and (Claude Code) the paths read or written in the context so far."""

    def __init__(self, api: str, body: dict, root: str | None = None):
        self.api = api
        self.root = root or workspace_root(api, body)
        self.tools = offered_tools(api, body)
        self.view = ContextView()
        self.known: set[str] = set()   # paths Claude Code has read (or tried to) or written
        self.ids: list[str] = []       # the calls folded into the view (a summary names them)
        events: list[Event] = (read_conversation(body.get("messages") or []) if api == MESSAGES
                               else read_input([i for i in body.get("input") or [] if isinstance(i, dict)]))
        self._fold(events)

    def _fold(self, events: list[Event]) -> None:
        view = self.view
        pending: dict[str, Action | str | None] = {}
        for event in events:
            if isinstance(event, UserText):
                if event.kind == "summary":      # a compaction: the context so far, as summary_text wrote it
                    restored = context_of_summary(event.text)
                    if restored is not None:
                        (self.view, self.ids), view = restored, restored[0]
                        pending.clear()
                elif event.kind == "first" and not view.prompt and not view.steps:
                    view.prompt = visible_text(event.text)
                elif event.kind in ("stop_block", "resume"):
                    view.continued(event.text)
            elif isinstance(event, Said):
                view.steps.append((EndTurn(event.text) if event.ends_turn else Say(event.text), Outcome(True, "")))
            elif isinstance(event, ToolCall):
                if event.id in self.ids:         # kept after a compaction, and in its summary already
                    continue
                pending[event.id] = _action(event, self.root)
            elif isinstance(event, ToolOutcome):
                action = pending.pop(event.call.id, None)
                if isinstance(action, str):            # the responder's own Read
                    self.known.add(self._key(action))
                elif action is not None:
                    if isinstance(action, (WriteFile, EditFile)) and event.ok:
                        self.known.add(self._key(action.path))
                    view.steps.append((action, Outcome(event.ok, event.text, event.denied)))
                    self.ids.append(event.call.id)

    def _key(self, path: str) -> str:
        """One name per file: relative to the workspace inside it, absolute and normalised outside
        (``../checks/x.py`` and the absolute path Claude Code shows for it are one file)."""
        return relative(os.path.normpath(absolute(path, self.root)), self.root)

    def needs_read(self, action: Action) -> bool:
        """Claude Code must read a file before it edits or replaces it."""
        return (self.api == MESSAGES and isinstance(action, (WriteFile, EditFile))
                and self._key(action.path) not in self.known)


def summary_text(reading: Reading) -> str:
    """The compaction summary a workspace agent writes: a readable line and its whole context (and
    the ids of its calls, which Claude Code may keep after the summary), so that it goes on where
    it was (:func:`context_of_summary` reads it back)."""
    view = reading.view
    data = {"prompt": view.prompt, "continuations": view.continuations, "continued_after": view.continued_after,
            "steps": [[{"kind": type(a).__name__, **asdict(a)}, asdict(o)] for a, o in view.steps], "ids": reading.ids}
    return (f"<summary>\nWorking in the workspace: {len(view.calls)} calls so far, {len(view.denials)} refused.\n"
            f"<workspace-context>{json.dumps(data)}</workspace-context>\n</summary>")


def context_of_summary(text: str) -> tuple[ContextView, list[str]] | None:
    """The context a :func:`summary_text` holds and the ids of its calls (None: it holds none)."""
    found = _CONTEXT.search(text)
    if not found:
        return None
    try:
        data = json.loads(found.group(1))
        steps = [(_KINDS[a.pop("kind")](**a), Outcome(**o)) for a, o in data["steps"]]
    except (ValueError, KeyError, TypeError):
        return None
    view = ContextView(str(data.get("prompt", "")), steps, list(data.get("continuations", [])),
                       list(data.get("continued_after", [])))
    return view, [str(i) for i in data.get("ids", [])]


def read_tool_use(path: str, root: str | None) -> ToolUse:
    return ToolUse("Read", {"file_path": absolute(path, root)})


def is_side_request(api: str, body: dict[str, Any]) -> bool:
    """A request that is not the agent's main loop (Claude Code's title query: no tools)."""
    return api == MESSAGES and not body.get("tools")
