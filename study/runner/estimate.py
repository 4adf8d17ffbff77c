"""What a matrix will cost before it runs: expected spend and wall time per model and condition.

``estimate(planned, root, caps)`` looks, for each model (on its runtime) and condition of the
sessions about to run, for a basis, in this order:

1. **your own finished sessions** of that model, runtime and condition under the sessions folder
   (not voided; any batch size: cost and time are scaled per account to the batch to run): the
   expected value is their mean, the range their minimum to maximum;
2. **the paper's published per-session costs** (Sun et al., *Keeping LLM Agents on Procedure*,
   Table 1: mean cost of a 200-account session at list price, Claude Haiku 4.5 and Sonnet 4.6),
   scaled per account; the paper publishes no spread per condition, so the range runs from the
   mean to the larger of the mean and the paper's most expensive Haiku 4.5 session ($13.87) for
   Haiku, and is the mean alone otherwise; it publishes no wall time per condition (its longest
   session took 115 minutes). A study of another family gives its own published figures where it
   has them (``Family.published_costs``: the mean cost and a typical wall time of one session);
3. otherwise **unknown** (a model without a basis, or without list prices: the cost cannot be
   known before it is spent).

The worst case is always known: each session ends at its spending cap (limits.yaml), so the
cap times the sessions bounds the spend. A session's cost, and so its cap and your finished
sessions' basis, covers every model it calls: the agent's and those beside it (a benchmark study's
customer and judge, named under their group with their list prices; a judge is asked only while
the cap leaves room, so a session passes its cap by at most that one call). Estimates of
simulated sessions are of simulated costs. Nothing here writes anything or needs a key.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from study.session_io.folders import find_sessions

PAPER = "the paper (Sun et al., Table 1: mean cost of a 200-account session at list price)"
#: Table 1 of the paper: mean cost per 200-account session (USD), by model alias and condition.
PUBLISHED_COST = {
    ("haiku-4.5", "Plain"): 0.96, ("haiku-4.5", "Sys"): 1.07, ("haiku-4.5", "Remind"): 0.65,
    ("haiku-4.5", "Plain-loop"): 1.71, ("haiku-4.5", "Sys-loop"): 2.21, ("haiku-4.5", "Remind-loop"): 3.01,
    ("haiku-4.5", "FSM"): 10.64,
    ("sonnet-4.6", "Plain"): 20.94, ("sonnet-4.6", "Remind-loop"): 20.89, ("sonnet-4.6", "FSM"): 53.26,
}
PUBLISHED_ACCOUNTS = 200
#: "the most expensive Haiku 4.5 session cost $13.87 and the longest took 115 minutes" (appendix A)
PUBLISHED_MAX_COST = {"haiku-4.5": 13.87}
PUBLISHED_LONGEST_MIN = 115


@dataclass(frozen=True)
class Range:
    expected: float
    low: float
    high: float

    def times(self, k: float) -> "Range":
        return Range(self.expected * k, self.low * k, self.high * k)


@dataclass(frozen=True)
class Estimate:
    """The sessions of one model (on its runtime) and condition about to run."""

    model: str                 # the model as tables name it: alias, plus " on <runtime>" off Claude Code
    condition: str
    sessions: int
    accounts: int              # accounts per session (the batch to run)
    spend: Range | None        # USD for all these sessions
    wall_s: Range | None       # seconds, one after the other
    basis: str                 # where the numbers come from
    cap_usd: float             # the spending cap of one session
    simulated: bool
    #: what one session's work is, when not a batch of accounts (another study's: "task", "run")
    unit: str = "accounts"
    #: the models a session calls beside the agent's, each "role alias (prices)" (``beside_agent``)
    beside: tuple[str, ...] = ()

    @property
    def worst_usd(self) -> float:
        return self.cap_usd * self.sessions


def _finished(root: Path) -> list[dict[str, Any]]:
    """meta.json of every finished, non-voided session under ``root`` (read once)."""
    out = []
    if not root.is_dir():
        return out
    for folder in find_sessions(root):
        try:
            meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(meta, dict) or meta.get("voided") or meta.get("status") in (None, "running", "unfinished"):
            continue
        if isinstance(meta.get("cost_usd"), (int, float)) and isinstance(meta.get("accounts"), int) and meta["accounts"] > 0:
            out.append(meta)
    return out


def _per_account(values: list[float]) -> Range:
    return Range(sum(values) / len(values), min(values), max(values))


def estimate(planned: Iterable[Any], root: Path) -> list[Estimate]:
    """Estimates for the sessions ``planned`` to run (``Prepared`` sessions), from the finished
    sessions under ``root``, else the paper (see the module docstring)."""
    from study.protocol.runtimes import DEFAULT_RUNTIME, runtime_label

    groups: dict[tuple, list[Any]] = {}
    for p in planned:
        groups.setdefault((p.model.name, p.model.runtime, p.condition.name, _accounts(p)), []).append(p)
    history = _finished(root)
    out = []
    for (model, runtime, condition, accounts), members in groups.items():
        first = members[0]
        mine = [m for m in history if m.get("model") == model and m.get("condition") == condition
                and (m.get("runtime") or DEFAULT_RUNTIME) == runtime]
        spend = wall = None
        if mine:
            spend = _per_account([m["cost_usd"] / m["accounts"] for m in mine]).times(accounts * len(members))
            times = [m["duration_s"] / m["accounts"] for m in mine if isinstance(m.get("duration_s"), (int, float))]
            wall = _per_account(times).times(accounts * len(members)) if times else None
            basis = f"your {len(mine)} finished session(s) of {model} / {condition} (scaled per account)"
        elif (published := _published_by_family(first, model, condition, runtime)) is not None:
            spend = Range(published["cost_usd"], published["cost_usd"], published["cost_usd"]).times(len(members))
            seconds = published.get("seconds")
            wall = Range(seconds, seconds, seconds).times(len(members)) if seconds is not None else None
            basis = str(published["basis"])
        elif (model, condition) in PUBLISHED_COST and runtime == DEFAULT_RUNTIME:
            mean = PUBLISHED_COST[(model, condition)] / PUBLISHED_ACCOUNTS
            high = max(mean, PUBLISHED_MAX_COST.get(model, 0.0) / PUBLISHED_ACCOUNTS)
            spend = Range(mean, mean, high).times(accounts * len(members))
            basis = (f"{PAPER}: ${PUBLISHED_COST[(model, condition)]:.2f} a session; no spread or wall time per condition "
                     f"is published (its longest session took {PUBLISHED_LONGEST_MIN} min)")
        elif first.model.prices_per_mtok is None:
            basis = f"unknown: {model} has no list prices, so its cost is known only once spent"
        else:
            basis = f"unknown: no finished session of {model} / {condition} and none published"
        shown = model if runtime == DEFAULT_RUNTIME else f"{model} on {runtime_label(runtime)}"
        study = getattr(first, "study", None)
        unit = "accounts" if study is None or study.main else ("task" if study.unit == "task" else "run")
        out.append(Estimate(shown, condition, len(members), accounts, spend, wall, basis,
                            first.limits.spending_usd, first.model.simulated, unit, beside_agent(first)))
    return out


def beside_agent(prepared: Any) -> tuple[str, ...]:
    """The models a prepared session calls beside the agent's (its study's family's side models: a
    benchmark's customer and judge), as "role alias (list prices per million tokens)"; a simulated
    session's are the simulator's, priced as its stand-in on Claude Code. None for the main study."""
    from study.families import family
    from study.protocol.models import ModelError, load_models

    study = getattr(prepared, "study", None)
    if study is None or study.main:
        return ()
    try:
        sides = family(study.family).side_models(study)
        table = load_models(study.models_file())
    except (ModelError, ValueError, KeyError):
        return ()
    out = []
    for role, alias in sides.items():
        if alias is None or (role == "judge" and prepared.model.simulated):   # the simulator plays no judge
            continue
        prices = table.simulator_prices if prepared.model.simulated else (
            table.models[alias].prices_per_mtok if alias in table.models else None)
        name = "the simulator" if prepared.model.simulated else alias
        price = (f"${prices['input']:g} in / ${prices['output']:g} out per Mtok" if prices
                 else "no list prices: its cost is not known")
        out.append(f"{role} {name} ({price})")
    return tuple(out)


def _published_by_family(prepared: Any, model: str, condition: str, runtime: str) -> dict[str, Any] | None:
    """The published figures of one session of another family's study (``Family.published_costs``),
    for the runtime the paper ran it on (the study's default runtime), or None."""
    from study.protocol.runtimes import DEFAULT_RUNTIME

    study = getattr(prepared, "study", None)
    if study is None or study.main or runtime != DEFAULT_RUNTIME:
        return None
    from study.families import family

    published = getattr(family(study.family), "published_costs", None)
    return published(study, model, condition) if published is not None else None


def _accounts(prepared: Any) -> int:
    """The accounts of a prepared session's batch (``--accounts``, else its task's items); another
    study's session is one unit (a task's conversation, a staged run)."""
    study = getattr(prepared, "study", None)
    if study is not None and not study.main:
        return 1
    return prepared.spec.accounts or (len(prepared.task.item_ids) if prepared.task is not None else PUBLISHED_ACCOUNTS)


def _money(x: float) -> str:
    return f"${x:,.2f}"


def _minutes(s: float) -> str:
    if s < 90:
        return f"{s:.0f} s"
    return f"{s / 60:,.0f} min" if s < 5400 else f"{s / 3600:,.1f} h"


def render(estimates: list[Estimate], jobs: int) -> list[str]:
    """The estimate as lines: a row per model and condition, then the totals and the worst case."""
    if not estimates:
        return ["Nothing to run: no spend."]
    lines = ["Expected spend and wall time (sessions to run; range in brackets):"]
    width = max(len(e.model) for e in estimates)
    for e in estimates:
        spend = (f"{_money(e.spend.expected)} [{_money(e.spend.low)}-{_money(e.spend.high)}]"
                 if e.spend is not None else "unknown")
        wall = (f"{_minutes(e.wall_s.expected)} [{_minutes(e.wall_s.low)}-{_minutes(e.wall_s.high)}]"
                if e.wall_s is not None else "unknown")
        sim = " (SIMULATED costs)" if e.simulated else ""
        size = f"{e.accounts:>3} accounts" if e.unit == "accounts" else f"  1 {e.unit}{' ' * (8 - len(e.unit))}"
        lines.append(f"  {e.model:<{width}}  {e.condition:<12} {e.sessions:>3} x {size}  "
                     f"spend {spend}{sim}  wall {wall}")
        lines.append(f"  {'':<{width}}  basis: {e.basis}")
        if e.beside:
            lines.append(f"  {'':<{width}}  beside the agent: {'; '.join(e.beside)}: in each session's cost and cap")
    known = [e for e in estimates if e.spend is not None]
    worst = sum(e.worst_usd for e in estimates)
    total = Range(sum(e.spend.expected for e in known), sum(e.spend.low for e in known),
                  sum(e.spend.high for e in known)) if known else None
    unknown = len(estimates) - len(known)
    lines.append(f"Total spend: {_money(total.expected)} expected [{_money(total.low)}-{_money(total.high)}]"
                 if total else "Total spend: unknown")
    if unknown and total:
        lines[-1] += f", plus {unknown} model/condition group(s) with no estimate"
    by_cap: dict[float, int] = {}
    for e in estimates:
        by_cap[e.cap_usd] = by_cap.get(e.cap_usd, 0) + e.sessions
    lines.append(f"Worst case, every session at its spending cap (limits.yaml): {_money(worst)} "
                 f"({' + '.join(f'{n} x {_money(cap)}' for cap, n in sorted(by_cap.items()))})")
    if any(e.beside for e in estimates):
        lines[-1] += ("; the cap counts every model a session calls, and a judge asked below it may pass it by "
                      "its one call")
    walls = [e.wall_s for e in estimates if e.wall_s is not None]
    if walls:
        serial = sum(w.expected for w in walls)
        lines.append(f"Wall time: {_minutes(serial)} one after the other, about {_minutes(serial / max(1, jobs))} "
                     f"with --jobs {jobs} (of the groups with an estimate)")
    return lines


def environ_without_keys(specs: Iterable[Any], environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a dry run checks its specs in: each real model's key variable set to a
    placeholder where it is missing (a dry run needs no key; nothing is sent anywhere)."""
    from study.protocol.models import SIM_PREFIX, load_models

    env = dict(os.environ if environ is None else environ)
    table = load_models()
    for spec in specs:
        name = spec.model or table.default
        entry = table.models.get(name) if not name.startswith(SIM_PREFIX) else None
        if entry is not None and not env.get(entry.api_key_env):
            env[entry.api_key_env] = "dry-run-placeholder"
    return env
