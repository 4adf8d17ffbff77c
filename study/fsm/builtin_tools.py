"""The agent CLIs' own tools in one vocabulary: ``shell``, ``read``, ``edit`` and ``write``.

A workflow that lists any of these four names in its ``tools`` gates the runtime's built-in
tools by what they do, the same way on Claude Code and Codex CLI (docs/fsm.md, "The CLI's own
tools"): a rule names the shell with a command pattern, ``{tool: shell, command: "python
train.py*"}``, and reads, edits and writes with a path pattern relative to the workspace,
``{tool: edit, path: "train.py"}``. This module is the one place that maps a hook's
``tool_name`` and ``tool_input`` to that vocabulary (:func:`actions_of`); the rules' patterns are
:class:`CommandPattern` and :class:`PathPattern`.

How each runtime names its tools in a hook (Claude Code 2.1.332; Codex CLI 0.169.0, both
checked against the real CLIs offline):

=========================  ==============================================  =====================
the hook's ``tool_name``   ``tool_input``                                   actions
=========================  ==============================================  =====================
``Bash``                   ``command`` (Codex's ``exec_command`` reaches    ``shell``; an
                           its hooks as ``Bash`` with ``command`` = its     ``apply_patch``
                           ``cmd``)                                         heredoc: the patch's
``apply_patch`` (Codex)    ``command``: the patch text                      one per file (below)
``Write``                  ``file_path``                                    ``write``
``Edit``, ``MultiEdit``    ``file_path``                                    ``edit``
``NotebookEdit``           ``notebook_path``                                ``edit``
``Read``                   ``file_path``                                    ``read``
``Glob``, ``Grep``         ``path`` (default: the working folder)           ``read`` of the folder
=========================  ==============================================  =====================

A patch (``*** Begin Patch`` ... ``*** End Patch``) is one action per file it names: ``*** Add
File: P`` writes P, ``*** Update File: P`` and ``*** Delete File: P`` edit P, ``*** Move to: Q``
(after an update of P) writes Q as well. Codex runs a shell command of the exact form
``apply_patch <<'EOF' ... EOF`` (or ``apply_patch 'PATCH'``, optionally after ``cd DIR &&``) as
that patch, so such a command is the patch's actions here too; any other command is a ``shell``
action. Every other built-in tool (``TodoWrite``, ``WebFetch``, Codex's ``write_stdin``, ...)
has no action: the workflow gates it by its own name, as before.

Paths: a relative path is taken from the call's working folder (the hook's ``cwd``), then made
relative to the workspace root and normalised (``.``, ``..``, symbolic links resolved); a path
that ends up outside the workspace never matches a path pattern, whatever the pattern says.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The built-in vocabulary: a workflow naming any of these in ``tools`` gates built-in calls by it.
SHELL, READ, EDIT, WRITE = "shell", "read", "edit", "write"
BUILTIN_TOOLS = (SHELL, READ, EDIT, WRITE)
PATH_TOOLS = (READ, EDIT, WRITE)

#: A rule's keys for the built-in tools' patterns (besides ``tool``, ``args``, ``reason``).
BUILTIN_RULE_KEYS = ("command", "compound", "path")

#: Claude Code's file tools (Codex names none of these) -> (action, the argument holding the path).
_FILE_TOOLS = {
    "Write": (WRITE, "file_path"),
    "Edit": (EDIT, "file_path"),
    "MultiEdit": (EDIT, "file_path"),
    "NotebookEdit": (EDIT, "notebook_path"),
    "Read": (READ, "file_path"),
    "Glob": (READ, "path"),
    "Grep": (READ, "path"),
}
SHELL_TOOL = "Bash"
PATCH_TOOL = "apply_patch"

_PATCH_HEADER = re.compile(r"^\*\*\* (Add File|Update File|Delete File|Move to): (.+)$")
_PATCH_KIND = {"Add File": WRITE, "Update File": EDIT, "Delete File": EDIT, "Move to": WRITE}
#: ``[cd DIR &&] apply_patch <<'EOF'\n PATCH \nEOF`` (the heredoc form Codex runs as a patch).
_HEREDOC = re.compile(r"\A\s*(?:cd\s+(?P<dir>\S+)\s*&&\s*)?(?:apply_patch|applypatch)\s*<<-?\s*(?P<q>['\"]?)(?P<tag>\w+)(?P=q)[ \t]*\n"
                      r"(?P<body>.*?)\n[ \t]*(?P=tag)\s*\Z", re.DOTALL)
#: What makes a command more than one simple command: control operators, redirections,
#: subshells, command or process substitution, a second line.
_COMPOUND_TOKENS = set("();<>|&")
_SUBSTITUTION = ("`", "$(", "<(", ">(", "\n", "\r")


@dataclass(frozen=True)
class Action:
    """One built-in call in the vocabulary: ``tool`` one of :data:`BUILTIN_TOOLS`; ``args`` for
    ``shell`` ``{"command"}``, for the others ``{"path"}`` (the workspace-relative POSIX path, or
    the absolute path when it is outside the workspace, then with ``"outside": True``)."""

    tool: str
    args: dict[str, Any] = field(default_factory=dict)
    #: the absolute, resolved path a read, edit or write touches (None for ``shell``)
    where: str | None = None


def patch_files(patch: str) -> list[tuple[str, str]]:
    """(action, path) for every file a patch names, in order (see the module docstring). Every
    header line counts, wherever it is, so a file the patch touches is never missed."""
    out = []
    for line in patch.splitlines():
        found = _PATCH_HEADER.match(line.strip())
        if found:
            out.append((_PATCH_KIND[found.group(1)], found.group(2).strip()))
    return out


def shell_patch(command: str) -> tuple[str, str | None] | None:
    """(patch, the folder it is applied in or None) when ``command`` is a patch Codex runs as
    ``apply_patch`` (a heredoc, or the patch as the one argument), else None."""
    found = _HEREDOC.match(command)
    if found:
        return found.group("body"), found.group("dir")
    if "apply_patch" not in command and "applypatch" not in command:
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if len(words) == 2 and words[0] in ("apply_patch", "applypatch") and "*** Begin Patch" in words[1]:
        return words[1], None
    return None


def relative_path(raw: str, cwd: str | None, root: str | None) -> tuple[str, bool]:
    """(the path relative to ``root`` as POSIX text, True) for a path inside the workspace, or
    (its absolute, normalised form, False) for one outside. ``raw`` relative: from ``cwd`` (default
    ``root``). Symbolic links are resolved, so a link out of the workspace is outside."""
    base = cwd or root or os.getcwd()
    full = os.path.realpath(os.path.join(base, os.path.expanduser(raw)))
    top = os.path.realpath(root or base)
    try:
        rel = os.path.relpath(full, top)
    except ValueError:  # another drive (Windows)
        return full, False
    if rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel):
        return full, False
    return Path(rel).as_posix(), True


def _path_action(tool: str, raw: Any, cwd: str | None, root: str | None) -> Action:
    raw = raw if isinstance(raw, str) and raw else "."
    path, inside = relative_path(raw, cwd, root)
    where = os.path.realpath(os.path.join(cwd or root or os.getcwd(), os.path.expanduser(raw)))
    return Action(tool, {"path": path} if inside else {"path": path, "outside": True}, where)


def _patch_actions(patch: str, cwd: str | None, root: str | None) -> list[Action]:
    return [_path_action(tool, path, cwd, root) for tool, path in patch_files(patch)]


def actions_of(tool_name: str, tool_input: Any, cwd: str | None = None, root: str | None = None) -> list[Action] | None:
    """The vocabulary's actions of one built-in call (see the module docstring), or None when
    ``tool_name`` is no built-in tool with a meaning in it (an MCP tool, ``TodoWrite``, ...).
    ``cwd``: the call's working folder (the hook input's ``cwd``); ``root``: the workspace root
    (default ``cwd``)."""
    args = tool_input if isinstance(tool_input, dict) else {}
    root = root or cwd
    if tool_name == SHELL_TOOL:
        command = args.get("command")
        command = command if isinstance(command, str) else ""
        patch = shell_patch(command)
        if patch is not None:
            body, folder = patch
            return _patch_actions(body, os.path.join(cwd or root or os.getcwd(), folder) if folder else cwd, root)
        return [Action(SHELL, {"command": command})]
    if tool_name == PATCH_TOOL:
        patch = args.get("command", args.get("input", args.get("patch")))
        return _patch_actions(patch if isinstance(patch, str) else "", cwd, root)
    if tool_name in _FILE_TOOLS:
        tool, key = _FILE_TOOLS[tool_name]
        return [_path_action(tool, args.get(key), cwd, root)]
    return None


# -- the rules' patterns --------------------------------------------------------------------------


def uses_vocabulary(tools: tuple[str, ...]) -> bool:
    """Whether a workflow with this tool list gates built-in calls by the vocabulary."""
    return any(tool in BUILTIN_TOOLS for tool in tools)


def touches(action: Action, folder: Path) -> bool:
    """Whether an edit or write changes something inside ``folder`` (e.g. the FSM's frames)."""
    if action.tool not in (EDIT, WRITE) or action.where is None:
        return False
    top = os.path.realpath(folder)
    return action.where == top or action.where.startswith(top + os.sep)


def permitted_patterns(permissions: Any, tools: list[str]) -> list[str]:
    """The permitted tools as a refusal names them, the built-in ones with their allow rules'
    patterns: ``shell (command matches 'python train.py*')``, ``edit (path matches 'train.py')``."""
    out = []
    for tool in tools:
        rules = [r for r in permissions.allow if r.names(tool)] if tool in BUILTIN_TOOLS else []
        patterns = [p for r in rules for p in r.args if isinstance(p, (CommandPattern, PathPattern))]
        if rules and len(patterns) == len(rules):
            out.append(f"{tool} ({' or '.join(f'{p.arg} matches {p.pattern!r}' for p in patterns)})")
        else:
            out.append(tool)
    return out


def simple_command(command: str) -> bool:
    """Whether ``command`` is one simple command: no control operator (``;``, ``&``, ``|``,
    ``&&``, ``||``), redirection, subshell, command or process substitution or second line, outside
    quotes (a backquote or ``$(`` anywhere counts: they run inside double quotes too)."""
    if any(s in command for s in _SUBSTITUTION):
        return False
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # an unclosed quote
        return False
    return not any(token and set(token) <= _COMPOUND_TOKENS for token in tokens)


def normal_command(command: str) -> str:
    """The command as a pattern is matched against: its words joined by single spaces."""
    return " ".join(command.split())


@dataclass(frozen=True)
class CommandPattern:
    """A rule's ``command:`` pattern: a glob (``*`` any text, ``?`` one character, ``[...]``)
    over the whole command, whose words are compared with single spaces between them. In an allow
    rule it matches only a simple command (:func:`simple_command`) unless the rule says
    ``compound: true``; in a deny rule it matches any command text. It works as an argument
    predicate of the rule (``check(args, variables)``)."""

    pattern: str
    compound: bool = False
    arg: str = "command"
    op: str = "matches"   # as a rule describes itself: "shell (command matches 'python *')"

    @property
    def operand(self) -> str:
        return self.pattern

    def check(self, args: dict[str, Any], variables: dict[str, Any]) -> str | None:
        command = args.get("command")
        if not isinstance(command, str):
            return f"the command must match '{self.pattern}' (got no command)"
        shown = normal_command(command)
        if not self.compound and not simple_command(command):
            return (f"the command must be one simple command matching '{self.pattern}' (got {shown!r}, which "
                    "chains commands, redirects, or substitutes: run each command on its own)")
        if not fnmatch.fnmatchcase(shown, normal_command(self.pattern)):
            return f"the command must match '{self.pattern}' (got {shown!r})"
        return None


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A path glob as a regular expression: ``*`` and ``?`` never cross a ``/``, ``**`` does
    (``src/**`` is everything under src/, ``**/*.py`` every .py file), ``[...]`` a character class.
    Written here because the standard library's ``glob.translate`` is Python 3.13's (the package
    supports 3.11) and ``fnmatch`` lets ``*`` cross folders."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1:i + 2] in ("!", "]") else i + 1)
            if end < 0:
                out.append(re.escape(c))
                i += 1
                continue
            body = pattern[i + 1:end]
            body = "^" + body[1:] if body.startswith("!") else body
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def normal_pattern(pattern: str) -> str:
    """A path pattern without a leading ``./`` and repeated or trailing slashes."""
    parts = [p for p in pattern.split("/") if p not in ("", ".")]
    return "/".join(parts)


@dataclass(frozen=True)
class PathPattern:
    """A rule's ``path:`` pattern: a glob (:func:`glob_regex`) over the workspace-relative,
    normalised path of a read, edit or write. A path outside the workspace never matches."""

    pattern: str
    arg: str = "path"
    op: str = "matches"

    @property
    def operand(self) -> str:
        return self.pattern

    def check(self, args: dict[str, Any], variables: dict[str, Any]) -> str | None:
        path = args.get("path")
        if not isinstance(path, str):
            return f"the path must match '{self.pattern}' (got no path)"
        if args.get("outside"):
            return f"the path must match '{self.pattern}' inside the workspace (got {path}, which is outside it)"
        if not glob_regex(normal_pattern(self.pattern)).match(path):
            return f"the path must match '{self.pattern}' (got {path})"
        return None


def rule_pattern(item: Any, tool: str, *, deny: bool = False) -> tuple[CommandPattern | PathPattern | None, tuple[int | None, str]]:
    """A workflow rule's ``command`` (with ``compound``) or ``path`` pattern; or None and (line,
    what to fix). ``item``: the rule's mapping as the loader reads it (``key_line(key)``). A deny
    rule's command pattern matches any command text, simple or not (so ``ls; rm x`` is caught by
    a deny rule ``*rm *``)."""
    def refuse(key: str, message: str) -> tuple[None, tuple[int | None, str]]:
        return None, (item.key_line(key), message)

    if "command" in item and "path" in item:
        return refuse("path", f"a rule has either 'command' (tool shell) or 'path' (tools {', '.join(PATH_TOOLS)}), not both")
    key = "command" if "command" in item else "path" if "path" in item else None
    if key is None:
        return refuse("compound", "'compound' goes with a 'command' pattern of tool shell")
    if tool not in ((SHELL,) if key == "command" else PATH_TOOLS):
        names = "tool shell" if key == "command" else "tools " + ", ".join(PATH_TOOLS)
        return refuse(key, f"'{key}' applies to the built-in {names}, not '{tool}'; name one of them in 'tool' (and in 'tools')")
    problem = pattern_problem(key, item[key])
    if problem is not None:
        return refuse(key, problem)
    if key == "path":
        if "compound" in item:
            return refuse("compound", "'compound' goes with a 'command' pattern of tool shell, not a path")
        return PathPattern(item[key]), (None, "")
    compound = item.get("compound", False)
    if not isinstance(compound, bool):
        return refuse("compound", f"'compound' must be true or false, not {compound!r}")
    return CommandPattern(item[key], compound or deny), (None, "")


def pattern_problem(key: str, value: Any) -> str | None:
    """Why ``value`` is no valid ``command:`` or ``path:`` pattern (None: it is)."""
    if not isinstance(value, str) or not value.strip():
        return f"'{key}' must be a non-empty pattern (text)"
    if key == "path":
        if value.startswith(("/", "~")) or re.match(r"^[A-Za-z]:[\\/]", value):
            return f"'path' patterns are relative to the workspace; write '{value.lstrip('/')}' without the leading '/'"
        if ".." in value.split("/"):
            return "'path' patterns name paths inside the workspace: remove the '..'"
    return None
