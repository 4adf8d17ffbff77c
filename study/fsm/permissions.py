"""Permission rules: which tool calls a state admits (the paper's P(s), Eq. 1).

A state has ``allow`` and ``deny`` rules. A rule names tools by a glob over the tool's name
(``fnmatch`` syntax: ``*``, ``?``, ``[ab]``) and may add predicates over the call's arguments.
A call is admitted when no deny rule matches it and at least one allow rule does.

Argument predicates (one operator per argument):

- ``equals: V`` — the argument equals V;
- ``one_of: [V, ...]`` — the argument is one of the listed values;
- ``matches: REGEX`` — the argument (as text) matches the regular expression in full;
- ``equals_var: NAME`` — the argument equals the frame variable NAME;
- ``in_var: NAME`` — the argument is an element of the frame variable NAME (a list).

The ``*_var`` operators let a permission refer to the current frame (e.g. bind a decision to the
account of the last record), which static permissions cannot.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from typing import Any

#: Argument operators and what their operand must be.
ARG_OPERATORS = ("equals", "one_of", "matches", "equals_var", "in_var")

_MISSING = object()


@dataclass(frozen=True)
class ArgPredicate:
    """One predicate over one named argument."""

    arg: str
    op: str
    operand: Any

    def check(self, args: dict[str, Any], variables: dict[str, Any]) -> str | None:
        """None if the predicate holds, else a sentence saying why not."""
        value = args.get(self.arg, _MISSING)
        shown = "missing" if value is _MISSING else repr(value)
        if self.op == "equals":
            if value is _MISSING or value != self.operand:
                return f"argument {self.arg} must be {self.operand!r} (got {shown})"
        elif self.op == "one_of":
            if value is _MISSING or value not in self.operand:
                return f"argument {self.arg} must be one of {list(self.operand)!r} (got {shown})"
        elif self.op == "matches":
            if value is _MISSING or re.fullmatch(self.operand, str(value)) is None:
                return f"argument {self.arg} must match /{self.operand}/ (got {shown})"
        elif self.op == "equals_var":
            expected = variables.get(self.operand, _MISSING)
            if expected is _MISSING:
                return f"argument {self.arg} must equal variable {self.operand}, which is not set yet"
            if value is _MISSING or value != expected:
                return f"argument {self.arg} must be {expected!r} (variable {self.operand}; got {shown})"
        elif self.op == "in_var":
            pool = variables.get(self.operand, _MISSING)
            if not isinstance(pool, (list, tuple, set, frozenset)):
                return f"argument {self.arg} must be in variable {self.operand}, which is not a list"
            if value is _MISSING or value not in pool:
                return f"argument {self.arg} must be one of variable {self.operand} (got {shown})"
        else:  # the loader admits only ARG_OPERATORS
            raise ValueError(f"unknown argument operator {self.op!r}")
        return None


@dataclass(frozen=True)
class Rule:
    """An allow or deny rule: a tool-name glob plus optional argument predicates."""

    tool: str
    args: tuple[ArgPredicate, ...] = ()
    reason: str | None = None
    line: int = 0
    #: a registered rule check (study.fsm.rule_checks): the rule applies only when it gives a reason
    check: Any = None

    def names(self, tool: str) -> bool:
        return fnmatch.fnmatchcase(tool, self.tool)

    def argument_problem(self, args: dict[str, Any], variables: dict[str, Any]) -> str | None:
        """None if every argument predicate holds, else the first failure."""
        for predicate in self.args:
            problem = predicate.check(args, variables)
            if problem is not None:
                return problem
        if self.check is not None and self.check.run(args, variables) is None:
            return f"the condition '{self.check.name}' does not hold"
        return None

    def describe(self) -> str:
        if not self.args:
            return self.tool
        conds = ", ".join(f"{p.arg} {p.op} {p.operand!r}" for p in self.args)
        return f"{self.tool} ({conds})"


@dataclass(frozen=True)
class Permissions:
    """The allow and deny rules of one state."""

    allow: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()
    #: allow-rule globs per tool name, precomputed by the workflow over its vocabulary
    _allow_by_tool: dict[str, tuple[Rule, ...]] = field(default_factory=dict, compare=False)
    _deny_by_tool: dict[str, tuple[Rule, ...]] = field(default_factory=dict, compare=False)

    @classmethod
    def build(cls, allow: tuple[Rule, ...], deny: tuple[Rule, ...], vocabulary: tuple[str, ...]) -> "Permissions":
        """Index the rules by tool so the gate does no glob matching at call time."""
        return cls(
            allow=allow,
            deny=deny,
            _allow_by_tool={t: tuple(r for r in allow if r.names(t)) for t in vocabulary},
            _deny_by_tool={t: tuple(r for r in deny if r.names(t)) for t in vocabulary},
        )

    def decide(self, tool: str, args: dict[str, Any], variables: dict[str, Any]) -> str | None:
        """None if the call is admitted, else the reason it is not."""
        for rule in self._deny_by_tool.get(tool, ()):
            if rule.check is not None:  # the check's reason says why (study.fsm.rule_checks)
                if all(p.check(args, variables) is None for p in rule.args):
                    because = rule.check.run(args, variables)
                    if because is not None:
                        return rule.reason or because
                continue
            if rule.argument_problem(args, variables) is None:
                return rule.reason or f"{tool} is denied here by rule '{rule.describe()}'"
        problems = []
        for rule in self._allow_by_tool.get(tool, ()):
            problem = rule.argument_problem(args, variables)
            if problem is None:
                return None
            problems.append(problem)
        if problems:
            return f"{tool} is refused here: " + "; or ".join(problems)
        return f"{tool} is not permitted in this state"

    def permitted_tools(self, vocabulary: tuple[str, ...]) -> list[str]:
        """Tools with at least one allow rule and no unconditional deny rule, in vocabulary order."""
        out = []
        for tool in vocabulary:
            if not self._allow_by_tool.get(tool):
                continue
            if any(not r.args and r.check is None for r in self._deny_by_tool.get(tool, ())):
                continue
            out.append(tool)
        return out
