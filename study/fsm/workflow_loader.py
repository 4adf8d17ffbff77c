"""Loading a workflow YAML (its format: ``workflow.py``) into the fields of a ``Workflow``, validating it on the way.

``_Loader`` collects every problem with its line and what to fix, and raises one
:class:`WorkflowError` listing them all; ``_Loader(text, file).fields()`` are the keyword
arguments of the validated ``Workflow`` (``Workflow.from_text`` makes it from them). The parts it
builds and the error are ``workflow_parts.py``'s.
"""

from __future__ import annotations

import fnmatch
import hashlib
import importlib
import re
from collections import deque
from typing import Any, Mapping

from study.protocol.yaml_lines import LineList, LineMap, YamlError, load_yaml_with_lines

from .builtin_tools import BUILTIN_RULE_KEYS, rule_pattern
from .checks import DEFAULT_SHELL_TIMEOUT_S, get_check, registered_checks
from .permissions import ARG_OPERATORS, ArgPredicate, Permissions, Rule
from .rule_checks import RuleCheck, observer_names, rule_check_names
from .workflow_parts import NamedCheck, Problem, ShellCheck, SoftCheck, State, Transition, WorkflowError

TOP_KEYS = ("workflow", "description", "tools", "check_modules", "variables", "initial", "exit", "pause", "states", "transitions",
            "observers")
REQUIRED_TOP_KEYS = ("workflow", "tools", "initial", "exit", "states")
STATE_KEYS = ("instructions", "exit_conditions", "allow", "deny")
RULE_KEYS = ("tool", "args", "reason", "check", "with")
TRANSITION_KEYS = ("from", "to", "guard", "description", "automatic", "quiet")
GUARD_KEYS = ("hard", "soft")
NAMED_CHECK_KEYS = ("check", "with")
SHELL_CHECK_KEYS = ("command", "timeout", "sha256")
SOFT_KEYS = ("prompt",)
_SHA256 = re.compile(r"[0-9a-f]{64}")


class _Loader:
    """Turns the YAML tree into a Workflow's fields, collecting every problem on the way."""

    def __init__(self, text: str, file: str):
        self.text = text
        self.file = file
        self.problems: list[Problem] = []

    def problem(self, line: int | None, message: str) -> None:
        self.problems.append(Problem(line, message))

    def fail_if_problems(self) -> None:
        if self.problems:
            self.problems.sort(key=lambda p: (p.line or 0))
            raise WorkflowError(self.file, self.problems)

    # -- entry ---------------------------------------------------------------------------------

    def fields(self) -> dict[str, Any]:
        """The validated workflow's fields (``Workflow(**fields)``); raise WorkflowError listing
        every problem."""
        try:
            doc = load_yaml_with_lines(self.text)
        except YamlError as exc:
            if exc.path == ("states",):
                msg = (
                    f"duplicate state {exc.key!r} (first defined at line {exc.first_line}); "
                    "each state is defined once: rename or merge one of them"
                )
            else:
                msg = exc.message
            raise WorkflowError(self.file, [Problem(exc.line, msg)]) from None
        if not isinstance(doc, LineMap):
            raise WorkflowError(self.file, [Problem(1, "a workflow file must be a YAML mapping with keys " + ", ".join(REQUIRED_TOP_KEYS))])

        self.unknown_keys(doc, TOP_KEYS, "the workflow")
        for key in REQUIRED_TOP_KEYS:
            if key not in doc:
                self.problem(doc.line, f"missing required key '{key}'")
        self.fail_if_problems()

        name = self.string(doc, "workflow")
        tools = self.tools(doc)
        self.import_check_modules(doc)
        variables = doc.get("variables") or LineMap()
        if not isinstance(variables, dict):
            self.problem(doc.key_line("variables"), "'variables' must be a mapping of variable name to default value")
            variables = LineMap()
        states_node = doc["states"]
        if not isinstance(states_node, LineMap) or not states_node:
            self.problem(doc.key_line("states"), "'states' must be a non-empty mapping of state name to its definition")
            self.fail_if_problems()
        states = {sname: self.state(str(sname), snode, states_node.key_line(sname), tools, variables) for sname, snode in states_node.items()}
        initial = self.state_ref(doc, "initial", states)
        exit_state = self.state_ref(doc, "exit", states)
        pause = self.pause(doc, states)
        transitions = self.transitions(doc, states, exit_state)
        if initial in states and exit_state in states:
            self.graph_checks(states_node, initial, exit_state, transitions)
        observers = self.observers(doc)
        self.fail_if_problems()
        return dict(
            name=name,
            file=self.file,
            sha256=hashlib.sha256(self.text.encode("utf-8")).hexdigest(),
            description=str(doc.get("description") or ""),
            tools=tools,
            variables=_plain(variables),
            initial=initial,
            exit=exit_state,
            pause=frozenset(pause),
            states=states,
            transitions=transitions,
            _tool_set=frozenset(tools),
            **observers,
        )

    # -- pieces ----------------------------------------------------------------------------------

    def unknown_keys(self, node: LineMap, known: tuple[str, ...], where: str) -> None:
        for key in node:
            if key not in known:
                close = [k for k in known if k.lower() == str(key).lower() or k.startswith(str(key)[:3])]
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                self.problem(node.key_line(key), f"unknown key '{key}' in {where}{hint}; allowed keys: {', '.join(known)}")

    def string(self, doc: LineMap, key: str) -> str:
        value = doc.get(key)
        if not isinstance(value, str) or not value.strip():
            self.problem(doc.key_line(key), f"'{key}' must be a non-empty string")
            return ""
        return value

    def tools(self, doc: LineMap) -> tuple[str, ...]:
        node = doc["tools"]
        if not isinstance(node, LineList) or not node:
            self.problem(doc.key_line("tools"), "'tools' must be a non-empty list of the tool names the workflow's rules may use")
            return ()
        seen: dict[str, int] = {}
        for i, tool in enumerate(node):
            line = node.item_line(i)
            if not isinstance(tool, str) or not tool:
                self.problem(line, "each entry of 'tools' must be a tool name (a string)")
            elif tool in seen:
                self.problem(line, f"tool '{tool}' is listed twice in 'tools' (first at line {seen[tool]}); remove one")
            else:
                seen[tool] = line
        return tuple(seen)

    def import_check_modules(self, doc: LineMap) -> None:
        node = doc.get("check_modules") or []
        if not isinstance(node, list):
            self.problem(doc.key_line("check_modules"), "'check_modules' must be a list of importable Python module names")
            return
        for i, module in enumerate(node):
            line = node.item_line(i) if isinstance(node, LineList) else doc.key_line("check_modules")
            try:
                importlib.import_module(str(module))
            except ImportError as exc:
                self.problem(line, f"check module '{module}' cannot be imported ({exc}); install it or fix the name")

    def state(self, name: str, node: Any, line: int, tools: tuple[str, ...], variables: Mapping[str, Any]) -> State:
        if node is None:
            node = LineMap()
            node.line = line
        if not isinstance(node, LineMap):
            self.problem(line, f"state '{name}' must be a mapping (use {{}} for a state with no rules)")
            return State(name, "", (), Permissions.build((), (), tools), line)
        self.unknown_keys(node, STATE_KEYS, f"state '{name}'")
        instructions = node.get("instructions") or ""
        if not isinstance(instructions, str):
            self.problem(node.key_line("instructions"), f"state '{name}': 'instructions' must be text")
            instructions = ""
        conditions = node.get("exit_conditions") or []
        if not isinstance(conditions, list) or not all(isinstance(c, str) for c in conditions):
            self.problem(node.key_line("exit_conditions"), f"state '{name}': 'exit_conditions' must be a list of sentences")
            conditions = []
        allow = self.rules(node, "allow", name, tools, variables)
        deny = self.rules(node, "deny", name, tools, variables)
        return State(name, instructions, tuple(conditions), Permissions.build(allow, deny, tools), line)

    def rules(self, node: LineMap, key: str, state: str, tools: tuple[str, ...], variables: Mapping[str, Any]) -> tuple[Rule, ...]:
        items = node.get(key)
        if items is None:
            return ()
        if not isinstance(items, LineList):
            self.problem(node.key_line(key), f"state '{state}': '{key}' must be a list of rules (tool globs or {{tool, args}} mappings)")
            return ()
        rules = []
        for i, item in enumerate(items):
            line = items.item_line(i)
            rule = self.rule(item, line, f"state '{state}' {key} rule", tools, variables, deny=key == "deny")
            if rule is not None:
                rules.append(rule)
        return tuple(rules)

    def rule(self, item: Any, line: int, where: str, tools: tuple[str, ...], variables: Mapping[str, Any], *,
             deny: bool = False) -> Rule | None:
        if isinstance(item, str):
            glob, args_node, reason = item, None, None
        elif isinstance(item, LineMap):
            self.unknown_keys(item, RULE_KEYS + BUILTIN_RULE_KEYS, where)
            glob, args_node, reason = item.get("tool"), item.get("args"), item.get("reason")
            if not isinstance(glob, str):
                self.problem(line, f"{where}: 'tool' must be a tool name or glob")
                return None
        else:
            self.problem(line, f"{where}: a rule is a tool name/glob or a mapping with 'tool' (and optional 'args', 'reason')")
            return None
        if not any(fnmatch.fnmatchcase(t, glob) for t in tools):
            self.problem(line, f"{where} names unknown tool '{glob}': no tool in 'tools' matches it; add the tool to 'tools' or fix the name")
            return None
        predicates = []
        if args_node is not None:
            if not isinstance(args_node, LineMap):
                self.problem(line, f"{where}: 'args' must map argument names to one predicate each, e.g. {{account_id: {{equals_var: account}}}}")
                return None
            for arg, pred in args_node.items():
                pline = args_node.key_line(arg)
                if not isinstance(pred, dict) or len(pred) != 1:
                    self.problem(pline, f"{where}: argument '{arg}' needs exactly one operator, one of {', '.join(ARG_OPERATORS)}")
                    continue
                op, operand = next(iter(pred.items()))
                if op not in ARG_OPERATORS:
                    self.problem(pline, f"{where}: unknown argument operator '{op}'; use one of {', '.join(ARG_OPERATORS)}")
                    continue
                if op in ("equals_var", "in_var") and operand not in variables:
                    self.problem(pline, f"{where}: '{op}: {operand}' refers to a variable the workflow does not declare; add it under 'variables'")
                    continue
                if op == "one_of" and not isinstance(operand, list):
                    self.problem(pline, f"{where}: 'one_of' takes a list of values")
                    continue
                if op == "matches":
                    try:
                        re.compile(str(operand))
                    except re.error as exc:
                        self.problem(pline, f"{where}: 'matches' has an invalid regular expression: {exc}")
                        continue
                predicates.append(ArgPredicate(str(arg), op, tuple(operand) if op == "one_of" else operand))
        if isinstance(item, LineMap) and any(key in item for key in BUILTIN_RULE_KEYS):
            pattern, problem = rule_pattern(item, glob, deny=deny)
            if pattern is None:
                self.problem(problem[0], f"{where}: {problem[1]}")
                return None
            predicates.append(pattern)
        check = self.rule_check(item, line, where) if isinstance(item, LineMap) else None
        return Rule(glob, tuple(predicates), reason if isinstance(reason, str) else None, line, check)

    def rule_check(self, item: LineMap, line: int, where: str) -> RuleCheck | None:
        """A rule's ``check: NAME`` with its ``with:`` parameters (study.fsm.rule_checks)."""
        name, params = item.get("check"), item.get("with")
        if name is None:
            if params is not None:
                self.problem(line, f"{where}: 'with' gives a rule check's parameters; name the check with 'check'")
            return None
        if name not in rule_check_names():
            known = ", ".join(rule_check_names()) or "none"
            self.problem(line, f"{where}: rule names missing rule check '{name}' (registered: {known}); register it with "
                               "study.fsm.rule_checks.register_rule_check in a module listed under 'check_modules'")
            return None
        if params is not None and not isinstance(params, dict):
            self.problem(line, f"{where}: 'with' must map parameter names to values")
            return None
        return RuleCheck(str(name), tuple(sorted(_plain(params or {}).items())))

    def observers(self, doc: LineMap) -> dict[str, Any]:
        """``observers: [NAME, ...]`` (only when present: a workflow without them is unchanged)."""
        node = doc.get("observers")
        if node is None:
            return {}
        if not isinstance(node, list) or not all(isinstance(n, str) for n in node):
            self.problem(doc.key_line("observers"), "'observers' must be a list of registered observer names")
            return {}
        for name in node:
            if name not in observer_names():
                known = ", ".join(observer_names()) or "none"
                self.problem(doc.key_line("observers"), f"unknown observer '{name}' (registered: {known}); register it with "
                                                         "study.fsm.rule_checks.register_observer in a module listed under 'check_modules'")
        return {"observers": tuple(node)}

    def state_ref(self, doc: LineMap, key: str, states: Mapping[str, State]) -> str:
        value = doc.get(key)
        if value not in states:
            self.problem(doc.key_line(key), f"'{key}' names unknown state '{value}'; declared states: {', '.join(states)}")
        return str(value)

    def pause(self, doc: LineMap, states: Mapping[str, State]) -> list[str]:
        node = doc.get("pause") or []
        if not isinstance(node, list):
            self.problem(doc.key_line("pause"), "'pause' must be a list of state names")
            return []
        for i, name in enumerate(node):
            if name not in states:
                line = node.item_line(i) if isinstance(node, LineList) else doc.key_line("pause")
                self.problem(line, f"pause state '{name}' is not a declared state; declared states: {', '.join(states)}")
        return [str(n) for n in node]

    def transitions(self, doc: LineMap, states: Mapping[str, State], exit_state: str) -> dict[tuple[str, str], Transition]:
        node = doc.get("transitions") or []
        if not isinstance(node, LineList):
            self.problem(doc.key_line("transitions"), "'transitions' must be a list of {from, to, guard} mappings")
            return {}
        out: dict[tuple[str, str], Transition] = {}
        for i, item in enumerate(node):
            line = node.item_line(i)
            if not isinstance(item, LineMap):
                self.problem(line, "a transition is a mapping with 'from', 'to' and an optional 'guard'")
                continue
            self.unknown_keys(item, TRANSITION_KEYS, "a transition")
            source, target = item.get("from"), item.get("to")
            bad = False
            for key, value in (("from", source), ("to", target)):
                if value not in states:
                    self.problem(item.key_line(key) if key in item else line, f"transition '{key}' names unknown state '{value}'; declared states: {', '.join(states)}")
                    bad = True
            if bad:
                continue
            if source == exit_state:
                self.problem(line, f"transition out of the exit state '{exit_state}' (to '{target}'): the exit state only leaves the workflow through `exit`; remove it")
                continue
            if (source, target) in out:
                self.problem(line, f"a second transition {source} -> {target} (first at line {out[(source, target)].line}); merge their guards")
                continue
            hard, soft = self.guard(item, f"transition {source} -> {target}")
            automatic = item.get("automatic", False)
            if not isinstance(automatic, bool):
                self.problem(item.key_line("automatic"), f"transition {source} -> {target}: 'automatic' must be true or false, not {automatic!r}")
                automatic = False
            quiet = item.get("quiet", False)
            if not isinstance(quiet, bool):
                self.problem(item.key_line("quiet"), f"transition {source} -> {target}: 'quiet' must be true or false, not {quiet!r}")
                quiet = False
            elif quiet and not automatic:
                self.problem(item.key_line("quiet"), f"transition {source} -> {target}: 'quiet' applies to automatic transitions only (the agent requests the others and reads their result); set automatic: true or remove quiet")
                quiet = False
            out[(source, target)] = Transition(source, target, hard, soft, str(item.get("description") or ""), line, automatic,
                                               quiet)
        return out

    def guard(self, item: LineMap, where: str) -> tuple[tuple[NamedCheck | ShellCheck, ...], SoftCheck | None]:
        node = item.get("guard")
        if node is None:
            return (), None
        if not isinstance(node, LineMap):
            self.problem(item.key_line("guard"), f"{where}: 'guard' must be a mapping with 'hard' (a list of checks) and optional 'soft'")
            return (), None
        self.unknown_keys(node, GUARD_KEYS, f"the guard of {where}")
        hard: list[NamedCheck | ShellCheck] = []
        items = node.get("hard") or []
        if not isinstance(items, LineList):
            self.problem(node.key_line("hard"), f"{where}: 'hard' must be a list of checks")
            items = LineList()
        for i, check in enumerate(items):
            parsed = self.hard_check(check, items.item_line(i), where)
            if parsed is not None:
                hard.append(parsed)
        soft = None
        if "soft" in node:
            snode = node["soft"]
            if not isinstance(snode, LineMap) or not isinstance(snode.get("prompt"), str):
                self.problem(node.key_line("soft"), f"{where}: 'soft' must be a mapping with a 'prompt' for the reviewer")
            else:
                self.unknown_keys(snode, SOFT_KEYS, f"the soft check of {where}")
                soft = SoftCheck(snode["prompt"], node.key_line("soft"))
        return tuple(hard), soft

    def hard_check(self, check: Any, line: int, where: str) -> NamedCheck | ShellCheck | None:
        if not isinstance(check, LineMap) or ("check" in check) == ("command" in check):
            self.problem(line, f"{where}: a hard check is either {{check: NAME, with: {{...}}}} (a registered Python check) or {{command: \"...\", timeout: SECONDS}}")
            return None
        if "command" in check:
            self.unknown_keys(check, SHELL_CHECK_KEYS, f"a shell check of {where}")
            command = check["command"]
            timeout = check.get("timeout", DEFAULT_SHELL_TIMEOUT_S)
            if not isinstance(command, str) or not command.strip():
                self.problem(line, f"{where}: 'command' must be a non-empty shell command")
                return None
            if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
                self.problem(check.key_line("timeout"), f"{where}: 'timeout' must be a positive number of seconds")
                return None
            digests = check.get("sha256", {})
            if not isinstance(digests, dict) or not all(
                    isinstance(path, str) and path.strip() and isinstance(digest, str) and _SHA256.fullmatch(digest)
                    for path, digest in digests.items()):
                self.problem(check.key_line("sha256") if "sha256" in check else line,
                             f"{where}: 'sha256' must map each file the command runs (a path, relative to the folder "
                             "the command runs in) to its sha256 (64 lowercase hex digits)")
                return None
            return ShellCheck(command, float(timeout), line, tuple((str(k), str(v)) for k, v in digests.items()))
        self.unknown_keys(check, NAMED_CHECK_KEYS, f"a named check of {where}")
        name = check["check"]
        registered = get_check(str(name))
        if registered is None:
            known = ", ".join(registered_checks()) or "none"
            self.problem(line, f"{where}: guard names missing check '{name}' (registered: {known}); register it with study.fsm.register_check in a module listed under 'check_modules'")
            return None
        params = check.get("with") or {}
        if not isinstance(params, dict):
            self.problem(check.key_line("with"), f"{where}: 'with' must be a mapping of parameters for check '{name}'")
            return None
        missing = [p for p in registered.required_params if p not in params]
        unknown = [p for p in params if p not in registered.required_params + registered.optional_params]
        if missing:
            self.problem(line, f"{where}: check '{name}' needs parameters {missing} under 'with'")
        if unknown:
            self.problem(check.key_line("with"), f"{where}: check '{name}' takes no parameter {unknown}; it takes {list(registered.required_params + registered.optional_params)}")
        if missing or unknown:
            return None
        return NamedCheck(str(name), _plain(params), registered, line)

    def graph_checks(self, states_node: LineMap, initial: str, exit_state: str, transitions: Mapping[tuple[str, str], Transition]) -> None:
        forward: dict[str, set[str]] = {s: set() for s in states_node}
        backward: dict[str, set[str]] = {s: set() for s in states_node}
        for source, target in transitions:
            forward[source].add(target)
            backward[target].add(source)
        reachable = _closure(initial, forward)
        reaches_exit = _closure(exit_state, backward)
        for state in states_node:
            line = states_node.key_line(state)
            if state not in reachable:
                self.problem(line, f"state '{state}' is unreachable from the initial state '{initial}'; add a transition into it or remove it")
            elif state not in reaches_exit:
                self.problem(line, f"state '{state}' has no path to the exit state '{exit_state}'; add a transition out of it")


def _closure(start: str, edges: Mapping[str, set[str]]) -> set[str]:
    seen = {start}
    queue = deque([start])
    while queue:
        for nxt in edges.get(queue.popleft(), ()):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


def _plain(value: Any) -> Any:
    """LineMap/LineList -> dict/list (parameters handed to checks are plain values)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
