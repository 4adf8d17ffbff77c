"""A workspace session's run, read from its log (``events.jsonl``) alone: its fresh contexts, and
in each what the agent did with the CLI's own tools (commands and their output, edits as the old
and the new text, writes, reads), the commits its commands made, the FSM's moves (each refused one
with its check's message), the gate's refusals and the stop gate's blocks; as the viewer shows
them and the Inspect export groups them. The family's ``transcript`` part (layer 6; the viewer and
the export ask it through ``study.families.registry``): its work is a run of fresh contexts (the
reading's ``CONTEXTS``), ``contexts(events)``.

``contexts(events)`` gives one dict per context, in order: ``n``, ``unit`` (the period or stage it
was for), ``ended`` (``context_end``'s words, or None while it runs), ``state`` (the FSM state it
began in), ``seq`` (its ``context_start``), ``counts`` and ``items``. Events before the first
context (the runner entering the workflow) belong to the first; a log without contexts is one
context (``n`` None). Each item is a dict with ``kind`` and ``seq``:

- ``command``: ``command`` (the shell text), ``output`` (what it printed: Claude Code's
  stdout and stderr, Codex CLI's output), ``tool`` (the runtime's name);
- ``edit``: ``path``, ``changes`` (each ``old`` and ``new`` text: Claude Code's Edit and MultiEdit)
  or ``patch`` (a patch's text: Codex CLI's apply_patch), ``paths`` (every file it touches);
- ``write``: ``path``, ``content`` (of a file Codex CLI adds with a patch: the patch's lines for
  it); ``read``: ``path``; ``search``: ``pattern``, ``path``;
- ``call``: another tool (the FSM's: ``server`` ``fsm``), ``server``, ``tool``, ``args``;
- every call item: ``ok``, ``state`` (the FSM state), ``result`` (texts cut), or ``error`` and
  ``denied`` (the tool-call gate refused it; ``error`` is the gate's reason);
- ``commit``: ``sha``, ``parents``, ``subject``, ``files``; ``transition``: ``from``, ``to``,
  ``ok``, ``reason`` (a refused move's reason is its guard's output: the check's problems);
  ``stop``: ``outcome`` (``blocked``: the stop gate sent the agent back, ``reason`` its words),
  ``left``; ``text``: the agent's ``text``; ``resume``, ``compaction``; ``end``: ``ended``.

Paths are shown as the FSM's vocabulary names them (``actions``: relative to the workspace); a
call the gate refused has none, and its absolute path is shown relative to the workspace when the
log's other paths tell where the workspace was. Texts are cut to ``cap`` characters (``cut``
gives the full length). Nothing here raises on fields of other types than the runner writes.
"""

from __future__ import annotations

import posixpath
from typing import Any

import orjson

from study.transcripts import codex

TEXT_CAP = 4000
#: The runtimes' own names of their tools, by what they do.
SHELL_TOOLS = {"Bash", "shell", "exec_command", "local_shell", "container.exec"}
EDIT_TOOLS = {"Edit", "MultiEdit", "apply_patch", "NotebookEdit"}
WRITE_TOOLS = {"Write"}
READ_TOOLS = {"Read"}
SEARCH_TOOLS = {"Glob", "Grep", "LS"}
COUNTED = ("calls", "commands", "edits", "denied", "commits", "moves", "refused_moves", "blocks")


def _cut(value: Any, cap: int | None) -> dict[str, Any]:
    text = value if isinstance(value, str) else "" if value is None else orjson.dumps(value, default=str).decode()
    if cap is None or len(text) <= cap:
        return {"text": text}
    return {"text": text[:cap], "cut": len(text)}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _json(text: Any) -> Any:
    if not isinstance(text, str) or not text.startswith("{"):
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return None


def _output(result: Any) -> Any:
    """What a shell call printed: Claude Code's result is JSON with ``stdout`` and ``stderr``."""
    parsed = _json(result)
    if isinstance(parsed, dict) and ("stdout" in parsed or "stderr" in parsed):
        parts = [p for p in (parsed.get("stdout"), parsed.get("stderr")) if isinstance(p, str) and p]
        return "\n".join(parts)
    return result


def _read_content(result: Any) -> Any:
    """What a Read returned: Claude Code's result is JSON with the file's ``content``."""
    parsed = _json(result)
    if isinstance(parsed, dict) and isinstance(parsed.get("file"), dict) and "content" in parsed["file"]:
        return parsed["file"]["content"]
    return result


class _Paths:
    """Absolute paths shown relative to the workspace, once the log tells where it was."""

    def __init__(self, workspace: str) -> None:
        self.marker = f"/{workspace.strip('/') or 'workspace'}/"
        self.root: str | None = None

    def learn(self, path: str | None) -> None:
        if self.root is None and path and path.startswith("/") and self.marker in path:
            self.root = path[:path.index(self.marker) + len(self.marker) - 1]

    def show(self, path: Any) -> str | None:
        if not isinstance(path, str):
            return None
        if self.root and path.startswith("/"):
            relative = posixpath.relpath(path, self.root)
            return relative if not relative.startswith("../../") else path
        return path


def _action_paths(event: dict[str, Any]) -> list[str]:
    actions = event.get("actions") if isinstance(event.get("actions"), list) else []
    return [a["args"]["path"] for a in actions if isinstance(a, dict) and isinstance(a.get("args"), dict)
            and isinstance(a["args"].get("path"), str)]


def _action_command(event: dict[str, Any]) -> str | None:
    actions = event.get("actions") if isinstance(event.get("actions"), list) else []
    for a in actions:
        if isinstance(a, dict) and a.get("tool") == "shell" and isinstance(a.get("args"), dict):
            return _str(a["args"].get("command"))
    return None


def _command_of(args: dict[str, Any]) -> str | None:
    command = args.get("command", args.get("cmd"))
    if isinstance(command, list):
        return " ".join(str(c) for c in command)
    return _str(command)


def _added(args: dict[str, Any], path: str | None) -> str | None:
    """What a patch of Codex CLI's writes into the file it adds (its ``*** Add File:`` section, the
    patch being the call's ``command``: apply_patch's, or a shell heredoc's): the file ``path``
    names, or the patch's only added file."""
    patch = _command_of(args)
    added = codex.added_files(patch) if patch else {}
    if path is not None:
        for name, content in added.items():
            if name == path or name.endswith("/" + path):
                return content
    return next(iter(added.values())) if len(added) == 1 else None


def _kind(event: dict[str, Any]) -> str:
    """What a call of the CLI's own tools does: its actions' vocabulary first, else its name."""
    tool = str(event.get("tool"))
    actions = event.get("actions") if isinstance(event.get("actions"), list) else []
    said = {a.get("tool") for a in actions if isinstance(a, dict)}
    for kind in ("edit", "write"):
        if kind in said:
            return kind
    if "shell" in said or tool in SHELL_TOOLS:
        return "command"
    if tool in EDIT_TOOLS:
        return "edit"
    if tool in WRITE_TOOLS:
        return "write"
    if tool in READ_TOOLS or "read" in said:
        return "read"
    if tool in SEARCH_TOOLS:
        return "search"
    return "call"


class _Builder:
    def __init__(self, workspace: str, cap: int | None) -> None:
        self.cap = cap
        self.paths = _Paths(workspace)
        self.out: list[dict[str, Any]] = []
        self.early: list[dict[str, Any]] = []     # before the first context
        self.state: Any = None

    def _items(self) -> list[dict[str, Any]]:
        return self.out[-1]["items"] if self.out else self.early

    def call(self, event: dict[str, Any]) -> dict[str, Any]:
        args = event.get("args") if isinstance(event.get("args"), dict) else {}
        denied = event.get("allowed") is False
        ok = event.get("ok") is True and not denied
        server = event.get("server")
        kind = "call" if server is not None else _kind(event)
        item: dict[str, Any] = {"kind": kind, "seq": event.get("seq"), "tool": event.get("tool"), "ok": ok,
                                "state": event.get("state")}
        if server is not None:
            item["server"] = server
        if denied:
            item["denied"] = True
        if not ok:
            item["error"] = _cut(event.get("error"), self.cap)
        result = event.get("result") if ok else None
        for path in (args.get("file_path"), args.get("path"), args.get("notebook_path")):
            self.paths.learn(_str(path))
        named = [self.paths.show(p) or p for p in _action_paths(event)]
        path = named[0] if named else self.paths.show(args.get("file_path") or args.get("path") or args.get("notebook_path"))
        if kind == "command":
            item["command"] = _action_command(event) or _command_of(args) or ""
            if ok:
                item["output"] = _cut(_output(result), self.cap)
            if isinstance(event.get("result_cut_chars"), int):
                item["output_cut_chars"] = event["result_cut_chars"]
        elif kind == "edit":
            item["path"], item["paths"] = path, named or ([path] if path else [])
            edits = args.get("edits") if isinstance(args.get("edits"), list) else [args]
            changes = [{"old": _cut(e.get("old_string"), self.cap), "new": _cut(e.get("new_string"), self.cap)}
                       for e in edits if isinstance(e, dict) and ("old_string" in e or "new_string" in e)]
            if changes:
                item["changes"] = changes
            patch = _str(args.get("input")) or _command_of(args) or _str(args.get("patch"))
            if not changes and patch:
                item["patch"] = _cut(patch, self.cap)
        elif kind == "write":
            item["path"] = path
            item["content"] = _cut(args.get("content") if "content" in args else _added(args, path), self.cap)
        elif kind == "read":
            item["path"] = path
            if ok:
                item["result"] = _cut(_read_content(result), self.cap)
        elif kind == "search":
            item["pattern"], item["path"] = _str(args.get("pattern")), path
            if ok:
                item["result"] = _cut(result, self.cap)
        else:
            item["args"] = args
            if ok:
                item["result"] = _cut(result, self.cap)
        return item

    def add(self, event: dict[str, Any]) -> None:
        kind, seq = event.get("kind"), event.get("seq")
        if kind == "context_start":
            self.out.append({"n": event.get("n"), "unit": event.get("unit"), "ended": None, "state": self.state,
                             "seq": seq, "items": self.early if not self.out else []})
            self.early = []
            return
        items = self._items()
        if kind == "tool_call":
            items.append(self.call(event))
        elif kind == "commit":
            items.append({"kind": "commit", "seq": seq, "sha": _str(event.get("sha")), "subject": _cut(event.get("subject"), self.cap),
                          "parents": [p for p in event.get("parents") or [] if isinstance(p, str)] if isinstance(event.get("parents"), list) else [],
                          "files": [f for f in event.get("files") or [] if isinstance(f, str)] if isinstance(event.get("files"), list) else []})
        elif kind == "transition":
            if event.get("ok") is True:
                self.state = event.get("to")
            items.append({"kind": "transition", "seq": seq, "from": event.get("from"), "to": event.get("to"),
                          "ok": event.get("ok") is True, "reason": _cut(event.get("reason"), self.cap)})
        elif kind == "stop":
            items.append({"kind": "stop", "seq": seq, "outcome": event.get("outcome"), "left": event.get("accounts_left"),
                          "reason": _cut(event.get("reason"), self.cap)})
        elif kind == "assistant_text":
            items.append({"kind": "text", "seq": seq, **_cut(event.get("text"), self.cap)})
        elif kind in ("resume", "compaction"):
            items.append({"kind": kind, "seq": seq, "n": event.get("n"), "trigger": event.get("trigger")})
        elif kind == "context_end":
            if self.out:
                self.out[-1]["ended"] = _str(event.get("ended")) or str(event.get("ended"))
            items.append({"kind": "end", "seq": seq, "ended": event.get("ended")})

    def close(self) -> list[dict[str, Any]]:
        if not self.out:
            self.out.append({"n": None, "unit": None, "ended": None, "state": None, "seq": None, "items": self.early})
        elif self.early:
            self.out[0]["items"][:0] = self.early
        for context in self.out:
            context["counts"] = counts(context["items"])
            first = next((i for i in context["items"] if i["kind"] == "transition" and i["ok"] or i.get("state")), None)
            if first is not None:         # the state it began in (a month-end period: entered anew)
                context["state"] = first["to"] if first["kind"] == "transition" else first["state"]
        return self.out


def counts(items: list[dict[str, Any]]) -> dict[str, int]:
    """How many calls, commands, edits (writes included), refusals, commits, FSM moves, refused
    moves and stop-gate blocks ``items`` hold."""
    calls = [i for i in items if "ok" in i and i["kind"] not in ("transition",)]
    moves = [i for i in items if i["kind"] == "transition"]
    return {"calls": len(calls), "commands": sum(i["kind"] == "command" for i in calls),
            "edits": sum(i["kind"] in ("edit", "write") for i in calls), "denied": sum(bool(i.get("denied")) for i in calls),
            "commits": sum(i["kind"] == "commit" for i in items), "moves": sum(i["ok"] for i in moves),
            "refused_moves": sum(not i["ok"] for i in moves),
            "blocks": sum(i["kind"] == "stop" and i.get("outcome") == "blocked" for i in items)}


def contexts(events: list[dict[str, Any]], *, cap: int | None = TEXT_CAP) -> list[dict[str, Any]]:
    """The contexts of a workspace session's log (see the module docstring)."""
    start = next((e for e in events if isinstance(e, dict) and e.get("kind") == "session_start"), {})
    out = _Builder(_str(start.get("workspace")) or "workspace", cap)
    for event in events:
        if isinstance(event, dict):
            out.add(event)
    return out.close()
