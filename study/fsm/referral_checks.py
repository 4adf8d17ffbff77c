"""The study's guard checks (paper, Eqs. 4-6), as named checks over the frame's history.

They read only which tools were called, with which item argument (``account_id``), in which
order, and whether the call succeeded: never data values, decisions' contents or gold labels,
and they do not encode the SOP's decision logic. The tool names come from the workflow (the
``with:`` parameters the build script writes), so these checks fit any "investigate one item,
record it, decide it" procedure.

Notation as in the paper: ``r`` is the position of the last successful record call, ``x`` the
item it names, ``i_d`` the position of the last successful call of data tool ``d`` for ``x``
before ``r``, ``i* = min_d i_d``.

- ``item_recorded_exclusively`` (S_investigate -> S_decide, Eq. 4): x is undecided, every i_d
  exists, and no data tool succeeded for another item after i*. Sets the variable ``account``
  (parameter ``bind_var``) to x on success.
- ``item_decided_since_record`` (S_decide -> S_investigate, Eq. 5): x was decided after r.
- ``batch_complete`` (S_investigate -> S_done, Eq. 6): every item of the variable ``batch``
  (parameter ``batch_var``) has a decision.

A required tool marked as an early exit of the SOP (optional parameter ``exit_tools``: tool ->
the data tools it stands for) that refuses an item (a failed call) counts as a successful call of
itself and of the required tools after it, for that item, at the refusal's position.

A required tool that names the item by another argument than ``item_arg`` (optional parameters
``item_keys``: tool -> that argument, and ``item_tables``: argument -> its value -> the item; the
workflows of content_flagging, whose ``userid`` is unique per post) has its calls attributed to
the item the table gives for the argument's value (``sopbench_tools.tasks.attribution.aliased_item``).

Their messages call an item an "account" unless the optional parameter ``item_noun`` names it
(the workflows of other tasks than the referral study's, ``study.fsm.task_workflows``).

A decision is a successful call of the decision tool (the tool server refuses a second decision
for an item, so the first success is the decision).
"""

from __future__ import annotations

import bisect
from typing import Any, Mapping

from sopbench_tools.tasks.attribution import aliased_item

from .checks import CheckResult, GuardContext, register_check

PARAMS = ("data_tools", "record_tool", "decision_tool", "item_arg")
#: the optional parameters every one of the three checks takes
OPTIONAL = ("item_noun", "exit_tools", "item_keys", "item_tables")


class ProcedureTracker:
    """What the three checks need, kept up to date event by event (no rescans of the history)."""

    def __init__(self, params: Mapping[str, Any]):
        self.data_tools: tuple[str, ...] = tuple(params["data_tools"])
        self.record_tool: str = params["record_tool"]
        self.decision_tool: str = params["decision_tool"]
        self.item_arg: str = params["item_arg"]
        #: the SOP's early exits (optional): tool -> the data tools a refusal of it stands for
        self.exit_tools: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in (params.get("exit_tools") or {}).items()}
        #: tools that name the item by another argument (optional): tool -> argument -> value -> item
        self.item_keys: dict[str, str] = dict(params.get("item_keys") or {})
        self.item_tables: dict[str, dict[str, str]] = {k: dict(v) for k, v in (params.get("item_tables") or {}).items()}
        #: (data tool, item) -> position of its last successful call
        self.last_data: dict[tuple[str, str], int] = {}
        #: positions and items of all successful data calls, in order
        self.data_positions: list[int] = []
        self.data_items: list[str] = []
        #: the last successful record: position, item, and each data tool's last position then
        self.record_position: int | None = None
        self.record_item: str | None = None
        self.record_data: dict[str, int] = {}
        #: item -> position of its last successful decision call
        self.decided: dict[str, int] = {}

    def add(self, position: int, event: Mapping[str, Any]) -> None:
        if event.get("kind") != "call":
            return
        args = event.get("args") or {}
        tool = event.get("tool")
        item = args.get(self.item_arg)
        if item is None and self.item_keys:
            item = aliased_item(tool, args, self.item_keys, self.item_tables)
        if item is None:
            return
        item = str(item)
        if not event.get("ok"):
            # an early exit: the tool refused the item, which stands for it and the tools after it
            covered = self.exit_tools.get(str(tool), ())
            for d in covered:
                self.last_data[(d, item)] = position
            if covered:
                self.data_positions.append(position)
                self.data_items.append(item)
            return
        if tool in self.data_tools:
            self.last_data[(tool, item)] = position
            self.data_positions.append(position)
            self.data_items.append(item)
        elif tool == self.record_tool:
            self.record_position = position
            self.record_item = item
            self.record_data = {d: self.last_data[(d, item)] for d in self.data_tools if (d, item) in self.last_data}
        elif tool == self.decision_tool:
            self.decided[item] = position

    def others_after(self, position: int, item: str) -> list[str]:
        """Items other than ``item`` with a successful data call after ``position`` (first-seen order)."""
        start = bisect.bisect_right(self.data_positions, position)
        seen: dict[str, None] = {}
        for other in self.data_items[start:]:
            if other != item:
                seen.setdefault(other, None)
        return list(seen)


def _tracker(ctx: GuardContext) -> ProcedureTracker:
    return ctx.tracker


def _noun(ctx: GuardContext, plural: bool = False) -> str:
    """The item noun of the messages ("account" unless the workflow names another)."""
    noun = str(ctx.params.get("item_noun", "account"))
    return (noun + "s" if not noun.endswith("s") else noun) if plural else noun


def _then(ctx: GuardContext) -> str:
    """The end of a refusal: the agent transitions itself, unless the transition is automatic."""
    return "." if ctx.automatic else ", then transition."


@register_check("item_recorded_exclusively", tracker=ProcedureTracker, params=PARAMS, optional=("bind_var",) + OPTIONAL)
def item_recorded_exclusively(ctx: GuardContext) -> CheckResult:
    """Eq. 4: the last record's item is undecided, fully and exclusively investigated."""
    t, noun = _tracker(ctx), _noun(ctx)
    Noun = noun[:1].upper() + noun[1:]
    if t.record_position is None:
        return CheckResult(False, f"No {t.record_tool} yet: investigate one {noun} with all of {', '.join(t.data_tools)}, call {t.record_tool} for it{_then(ctx)}")
    x = t.record_item
    if x in t.decided:
        return CheckResult(False, f"{Noun} {x} of the last {t.record_tool} already has a decision; investigate and record the next undecided {noun}.")
    missing = [d for d in t.data_tools if d not in t.record_data]
    if missing:
        return CheckResult(
            False,
            f"Missing data for {noun} {x} before its {t.record_tool}: {', '.join(missing)} "
            f"{'was' if len(missing) == 1 else 'were'} not called successfully for it. Call {'it' if len(missing) == 1 else 'them'}, "
            f"call {t.record_tool} for {x} again{_then(ctx)}",
        )
    first = min(t.record_data.values())
    others = t.others_after(first, x)
    if others:
        return CheckResult(
            False,
            f"Interleaved {_noun(ctx, True)}: data for {', '.join(others)} was retrieved after the first data call for "
            f"{noun} {x}. Process one {noun} at a time: retrieve {x}'s data again with no other {noun} in "
            f"between, call {t.record_tool} for {x} again{_then(ctx)}",
        )
    bind = ctx.params.get("bind_var", "account")
    return CheckResult(True, f"{Noun} {x} is fully investigated and recorded; submit its decision.", {bind: x})


@register_check("item_decided_since_record", tracker=ProcedureTracker, params=PARAMS, optional=OPTIONAL)
def item_decided_since_record(ctx: GuardContext) -> CheckResult:
    """Eq. 5: some call after the last record decides its item."""
    t, noun = _tracker(ctx), _noun(ctx)
    Noun = noun[:1].upper() + noun[1:]
    if t.record_position is None:
        return CheckResult(False, f"No {t.record_tool} yet, so there is no {noun} to have decided.")
    x = t.record_item
    if t.decided.get(x, -1) > t.record_position:
        return CheckResult(True, f"{Noun} {x} is decided.")
    return CheckResult(False, f"{Noun} {x} (the last {t.record_tool}) has no decision since its record: call {t.decision_tool} for {x} first.")


@register_check("batch_complete", tracker=ProcedureTracker, params=PARAMS, optional=("batch_var",) + OPTIONAL)
def batch_complete(ctx: GuardContext) -> CheckResult:
    """Eq. 6: every item of the batch variable has a decision."""
    t = _tracker(ctx)
    var = ctx.params.get("batch_var", "batch")
    batch = ctx.variables.get(var)
    if not isinstance(batch, list) or not batch:
        return CheckResult(False, f"The variable '{var}' (the batch) is not set to a list of {_noun(ctx, True)}, so the batch cannot be complete.")
    undecided = [str(a) for a in batch if str(a) not in t.decided]
    if undecided:
        shown = ", ".join(undecided[:5]) + (", ..." if len(undecided) > 5 else "")
        return CheckResult(False, f"The batch is not complete: {len(undecided)} of {len(batch)} {_noun(ctx, True)} have no decision ({shown}). Next: {undecided[0]}.")
    return CheckResult(True, f"All {len(batch)} {_noun(ctx, True)} are decided.")
