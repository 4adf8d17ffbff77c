"""Property tests over random sequences of agent actions on the study's FSM workflow.

The agent's actions are tool calls (each asks the gate first and runs only if admitted, as in a
session), self-checks, transitions with the right, an old, a forged or no token, and restarts
of the runtime from disk. After every action:

- no submit_decision ever runs in S_investigate;
- the state changes only through a transition whose guard passes, and the guard's verdict
  equals a plain re-computation of the paper's Eqs. 4-6 from the whole history (the runtime
  keeps incremental trackers instead; this checks them);
- every token works at most once;
- the frame on disk equals the frame in memory.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from fsm_helpers import MAIN
from sopbench_tools.tool_definitions import DATA_TOOLS
from study.fsm import FsmRuntime, Workflow
from study.fsm.frames import FrameStore

ACCOUNTS = ("A1", "A2")
TOOLS = Workflow.load(MAIN).tools
STATES = ("S_investigate", "S_decide", "S_done", "S_bogus")


def oracle(history: list[dict], source: str, target: str, batch: list[str]) -> bool:
    """Eqs. 4-6 recomputed naively from the history (positions are history indices)."""
    calls = [(i, e) for i, e in enumerate(history) if e["kind"] == "call" and e["ok"]]

    def acct(e: dict) -> str | None:
        return e["args"].get("account_id")

    def decided(account: str, after: int = -1) -> bool:
        return any(e["tool"] == "submit_decision" and acct(e) == account and i > after for i, e in calls)

    records = [(i, e) for i, e in calls if e["tool"] == "record_analysis"]
    if (source, target) == ("S_investigate", "S_done"):
        return all(decided(a) for a in batch)
    if not records:
        return False
    r, rec = records[-1]
    x = acct(rec)
    if (source, target) == ("S_decide", "S_investigate"):
        return decided(x, after=r)
    assert (source, target) == ("S_investigate", "S_decide")
    if decided(x):
        return False
    last = {}
    for d in DATA_TOOLS:
        positions = [i for i, e in calls if e["tool"] == d and acct(e) == x and i < r]
        if not positions:
            return False
        last[d] = max(positions)
    first = min(last.values())
    return not any(e["tool"] in DATA_TOOLS and acct(e) != x and i > first for i, e in calls)


account = st.sampled_from(ACCOUNTS)
primitive = st.one_of(
    st.tuples(st.just("call"), st.sampled_from(TOOLS), account, st.booleans()),
    st.tuples(st.just("self_check"), st.sampled_from(STATES)),
    st.tuples(st.just("transition"), st.sampled_from(STATES), st.sampled_from(("fresh", "old", "forged", "none"))),
    st.tuples(st.just("move"), st.sampled_from(STATES[:3])),  # self_check, then transition with its token
    st.tuples(st.just("restart")),
)


@st.composite
def episode(draw) -> list[tuple]:
    """One account's procedure with random deviations: a skipped or failed data call, another
    account's data in between, no record, a decision for another account."""
    acc = draw(account)
    other = "A2" if acc == "A1" else "A1"
    skip = draw(st.sampled_from((None,) + DATA_TOOLS))
    steps: list[tuple] = [("call", d, acc, d != skip or draw(st.booleans())) for d in DATA_TOOLS if d != skip or draw(st.booleans())]
    if draw(st.booleans()):
        steps.insert(draw(st.integers(0, len(steps))), ("call", draw(st.sampled_from(DATA_TOOLS)), other, True))
    if draw(st.integers(0, 4)):
        steps.append(("call", "record_analysis", acc, True))
    steps.append(("move", "S_decide"))
    steps.append(("call", "submit_decision", other if not draw(st.integers(0, 4)) else acc, True))
    steps.append(("move", "S_investigate"))
    if draw(st.integers(0, 3)) == 0:
        steps.append(("move", "S_done"))
    return steps


actions = st.lists(st.one_of(primitive.map(lambda a: [a]), episode()), min_size=1, max_size=12).map(
    lambda chunks: [a for chunk in chunks for a in chunk]
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(actions)
def test_random_action_sequences_keep_the_invariants(seq):
    wf = Workflow.load(MAIN)
    batch = list(ACCOUNTS)
    with tempfile.TemporaryDirectory() as tmp:
        frames = Path(tmp)

        def new_runtime() -> FsmRuntime:
            return FsmRuntime(frames, {wf.name: wf}, {"batch": batch}, fsync=False)

        rt = new_runtime()
        rt.enter(wf.name)
        fresh: dict[str, str] = {}  # target -> the last token issued for it
        presented: set[str] = set()
        for action in seq:
            kind = action[0]
            state = rt.state
            history = rt.frames()[-1]["history"] if rt.frames() else []
            if kind == "call":
                tool, acc, ok = action[1:]
                if rt.gate(tool, {"account_id": acc}).allowed:
                    assert not (tool == "submit_decision" and state == "S_investigate")
                    rt.observe(tool, {"account_id": acc}, ok)
                else:
                    assert tool != "submit_decision" or state != "S_decide"
            elif kind == "self_check":
                try:
                    fresh[action[1]] = rt.self_check(action[1])["token"]
                except ValueError:
                    assert state is None or action[1] == "S_bogus" or (state, action[1]) not in wf.transitions
            elif kind in ("transition", "move"):
                if kind == "move":
                    try:
                        fresh[action[1]] = rt.self_check(action[1])["token"]
                    except ValueError:
                        continue
                    action = ("transition", action[1], "fresh")
                target, pick = action[1], action[2]
                token = {"fresh": fresh.get(target), "old": next(iter(presented), None), "forged": "x" * 32, "none": None}[pick]
                result = rt.transition(target, token)
                reused = token in presented
                if token is not None:
                    presented.add(token)
                if reused:
                    assert not result.ok
                event(f"transition {state} -> {target}: {'ok' if result.ok else 'refused'}")
                if result.ok:
                    assert (state, target) in wf.transitions
                    assert oracle(history, state, target, batch)
                    assert rt.state == target
                else:
                    assert rt.state == state
                    if pick == "fresh" and token is not None and not reused and "token" not in result.reason:
                        # a valid token reached the guard: its verdict is the oracle's
                        assert not oracle(history, state, target, batch)
            else:
                rt = new_runtime()
                fresh.clear()
            if kind not in ("transition", "move"):
                assert rt.state == state  # only transitions move the state
            on_disk = [f.to_json() for f in FrameStore(frames).load()]
            assert on_disk == rt.frames()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(("fresh", "again")), min_size=2, max_size=12))
def test_every_token_works_exactly_once(picks):
    """Tokens for a transition that always passes: a fresh one works, a presented one never again."""
    wf = Workflow.from_text(
        "workflow: W\ntools: [t]\ninitial: a\nexit: c\nstates: {a: {}, b: {}, c: {}}\n"
        "transitions: [{from: a, to: b}, {from: b, to: a}, {from: a, to: c}]\n",
        "w.yaml",
    )
    with tempfile.TemporaryDirectory() as tmp:
        rt = FsmRuntime(Path(tmp), {"W": wf}, fsync=False)
        rt.enter("W")
        used: list[str] = []
        for pick in picks:
            target = "b" if rt.state == "a" else "a"
            if pick == "fresh" or not used:
                token = rt.self_check(target)["token"]
                assert rt.transition(target, token).ok
                used.append(token)
            else:
                result = rt.transition(target, used[-1])
                assert not result.ok and "already used" in result.reason
