"""Rule checks and observers: permissions that depend on what the calls so far have shown.

Two additive extension points of the workflow format, for adapters whose rules read evidence no
argument predicate can express (a benchmark adapter's ledger of the faults its calls have shown):

* **Rule checks.** An allow or deny rule may name ``check: NAME`` (parameters under ``with:``): a
  function registered with :func:`register_rule_check`, called as ``fn(args, variables, params)``
  and returning the reason the rule applies (a sentence), or None when it does not. A deny rule
  with a check denies only when its tool glob and argument predicates match *and* the check
  returns a reason, which is what the agent is told; an allow rule with a check admits only when
  the check returns a reason.
* **Observers.** A workflow may list ``observers: [NAME, ...]``: functions registered with
  :func:`register_observer`, called after every completed call as ``fn(call, variables)`` with
  ``call = {"tool", "args", "ok", "result"}`` (``result``: the call's text, when the hook gave it)
  and returning the frame variables to update (or None). The updates are committed with the call,
  before the automatic transitions are tried, so rules and guards read them.

Both are registered by the modules the workflow lists under ``check_modules``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

RuleCheckFn = Callable[[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]], "str | None"]
ObserverFn = Callable[[Mapping[str, Any], Mapping[str, Any]], "Mapping[str, Any] | None"]

_RULE_CHECKS: dict[str, RuleCheckFn] = {}
_OBSERVERS: dict[str, ObserverFn] = {}


def register_rule_check(name: str, fn: RuleCheckFn) -> RuleCheckFn:
    """Register ``fn`` as the rule check ``name`` (a module listed in ``check_modules`` does it)."""
    _RULE_CHECKS[name] = fn
    return fn


def register_observer(name: str, fn: ObserverFn) -> ObserverFn:
    """Register ``fn`` as the observer ``name``."""
    _OBSERVERS[name] = fn
    return fn


def rule_check_names() -> list[str]:
    return sorted(_RULE_CHECKS)


def observer_names() -> list[str]:
    return sorted(_OBSERVERS)


def observer(name: str) -> ObserverFn:
    return _OBSERVERS[name]


@dataclass(frozen=True)
class RuleCheck:
    """A rule's check: the registered function's name and its parameters."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    def run(self, args: Mapping[str, Any], variables: Mapping[str, Any]) -> str | None:
        return _RULE_CHECKS[self.name](args, variables, dict(self.params))


def observe_all(names: tuple[str, ...], call: Mapping[str, Any], variables: dict[str, Any]) -> None:
    """Run the observers in order, each seeing the updates of the ones before."""
    for name in names:
        updates = _OBSERVERS[name](call, variables)
        if updates:
            variables.update(updates)
