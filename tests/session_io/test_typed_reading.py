"""The typed fast path of the reader (``reader._typed_read``) agrees with the reference reading
(``reader._parse`` then ``reader.validate_log``).

The contract: whenever the fast path returns a log, the reference reading of the same bytes has
no issue at all (no error, no warning), the same events, the same ``start`` and ``end``, and
the scorer gives the same score from either. The fast path may decline a log the reference finds
clean (that is only slower), but a broken log must never take it.

Checked on every log of the golden archives, and on logs mutated from a few real ones by a
deterministic fuzzer (fixed seeds): each mutation is a named function below.
"""

from __future__ import annotations

import json
import random
import tarfile
from collections import Counter
from pathlib import Path
from typing import Any, Callable

import msgspec
import pytest

from analysis.scoring import score_log
from study.session_io.events import EVENT_TYPES, REQUIRED_FIELDS
from study.session_io.folders import EVENTS_NAME, find_sessions
from study.session_io.issues import LogError, Rule
from study.session_io.jsontypes import checker
from study.session_io.meta import read_meta
from study.session_io.reader import _parse, _typed_read, read_log, validate_log
from study.session_io.typed_events import from_dicts
from study.session_io.vocabulary import EventKind

GOLDEN = Path(__file__).parent.parent / "golden"
ARCHIVES = ["corpus_logs.tgz", "sim_logs.tgz"]
#: The parts of a score both readings must give alike.
SCORE_FIELDS = ("decisions", "routes", "resumes", "turn_ends", "status", "cost_usd", "order")


# ----------------------------------------------------------------------------- helpers


def _sessions(archive: str, tmp_path: Path) -> list[Path]:
    with tarfile.open(GOLDEN / archive) as tar:
        tar.extractall(tmp_path, filter="data")
    return [f for f in find_sessions(tmp_path) if (f / EVENTS_NAME).exists()]


def _reference(path: Path, data: bytes, meta: Any) -> Any:
    ref = _parse(path, data)
    ref.issues += validate_log(ref, meta)
    return ref


def _breaches(typed: Any, ref: Any, meta: Any) -> list[str]:
    """How a fast-path log breaks the contract with the reference reading (empty: it keeps it)."""
    if typed is None:
        return []
    out = []
    if ref.issues:
        out.append(f"fast path took a log the reference finds issues in: {[str(i) for i in ref.issues][:3]}")
    # (typed.events is the reference parse of the same bytes, made lazily: the structs the
    # scorer reads are what must match the reference's dicts)
    if ref.events != typed.events:
        out.append("events differ")
    try:
        if from_dicts(ref.events) != typed.typed:
            out.append(f"the typed structs ({len(typed.typed)} events) are not the reference's events "
                       f"({len(ref.events)}) as structs")
    except msgspec.ValidationError as exc:
        out.append(f"a reference event is not one of the contract's: {exc}")
    if typed.start != ref.start:
        out.append("start differs")
    if typed.end != ref.end:
        out.append(f"end differs: {typed.end} vs {ref.end}")
    try:
        fast, slow = score_log(typed, meta), score_log(ref, meta)
    except Exception as exc:           # noqa: BLE001 (reported as a breach, not raised)
        out.append(f"scoring raised {exc!r}")
    else:
        out += [f"score.{name} differs" for name in SCORE_FIELDS if getattr(fast, name) != getattr(slow, name)]
    return out


def _both_readings(folder: Path, data: bytes) -> tuple[Any, Any, Any]:
    meta = read_meta(folder, strict=False)
    path = folder / EVENTS_NAME
    return _typed_read(path, data, meta), _reference(path, data, meta), meta


# ----------------------------------------------------------------------------- the golden archives


@pytest.mark.parametrize("archive", ARCHIVES)
def test_both_readings_agree_on_every_log_of_the_golden_archives(archive, tmp_path):
    folders = _sessions(archive, tmp_path)
    assert folders
    breaches, declined_clean = [], []
    for folder in folders:
        typed, ref, meta = _both_readings(folder, (folder / EVENTS_NAME).read_bytes())
        breaches += [f"{folder.relative_to(tmp_path)}: {b}" for b in _breaches(typed, ref, meta)]
        if typed is None and ref.issues == []:
            declined_clean.append(str(folder.relative_to(tmp_path)))
    assert breaches == []
    assert declined_clean == [], "the fast path declined logs the reference finds clean"


def test_read_log_of_a_clean_golden_log_takes_the_fast_path(tmp_path):
    folder = _sessions("sim_logs.tgz", tmp_path)[0]
    log = read_log(folder / EVENTS_NAME, meta=read_meta(folder, strict=False))
    assert log.issues == [] and log._events is None        # the typed read: no dicts built yet
    ref = _reference(folder / EVENTS_NAME, (folder / EVENTS_NAME).read_bytes(), None)
    assert log.events == ref.events and log.typed == from_dicts(ref.events)


# ----------------------------------------------------------------------------- mutations
#
# Each takes the lines of a valid log (bytes, without their newlines) and a random.Random and
# returns the mutated file. ``_event(lines, rng, test)`` picks a line whose event passes ``test``.

Lines = list[bytes]


def _join(lines: Lines) -> bytes:
    return b"".join(line + b"\n" for line in lines)


def _loads(line: bytes) -> dict[str, Any]:
    return json.loads(line)


def _dumps(event: dict[str, Any]) -> bytes:
    return json.dumps(event).encode()


def _pick(lines: Lines, rng: random.Random, test: Callable[[dict[str, Any]], bool] = lambda e: True,
          *, first: int = 0) -> int:
    choices = [i for i, line in enumerate(lines) if i >= first and test(_loads(line))]
    if not choices:
        pytest.skip("no event fits")     # never for the base logs used here (checked by the stats)
    return rng.choice(choices)


def _replaced(lines: Lines, index: int, new: bytes | list[bytes]) -> bytes:
    return _join(lines[:index] + (new if isinstance(new, list) else [new]) + lines[index + 1:])


def _with_event(lines: Lines, index: int, edit: Callable[[dict[str, Any]], None]) -> bytes:
    event = _loads(lines[index])
    edit(event)
    return _replaced(lines, index, _dumps(event))


def _hints(event: dict[str, Any]) -> dict[str, Any]:
    """The typed fields of an event (its kind's definition, with ``seq`` and ``t``)."""
    import typing
    return {"seq": int, "t": str, **typing.get_type_hints(EVENT_TYPES[event["kind"]])}


def _successful_sopbench_call(e: dict[str, Any]) -> bool:
    return (e["kind"] == "tool_call" and e["ok"] is True and e["allowed"] is True
            and e.get("server", "sopbench") == "sopbench" and isinstance(e["account"], str))


#: How a value of each JSON type is retyped (one of these, at random).
_RETYPE = {
    int: [True, 1.0, "1"],        # 1.0: an integral float is still not an int
    float: [True, "1.5", None],
    bool: [0, 1, "true", None],
    str: [None, 1, True],
    type(None): [0, False],
    list: [{}, "[]"],
    dict: [[], "{}"],
}


def retype_a_field(lines: Lines, rng: random.Random) -> bytes:
    """A typed field of one event gets a value of another JSON type (int->bool, int->1.0,
    int->"1", str->null, bool->0, ...); valid only where the field's annotation allows it."""
    index = _pick(lines, rng)
    event = _loads(lines[index])
    name = rng.choice([k for k in _hints(event) if k in event])
    event[name] = rng.choice(_RETYPE[type(event[name])])
    return _replaced(lines, index, _dumps(event))


def delete_a_required_field(lines: Lines, rng: random.Random) -> bytes:
    index = _pick(lines, rng)
    event = _loads(lines[index])
    del event[rng.choice(["seq", "t", "kind", *REQUIRED_FIELDS[event["kind"]]])]
    return _replaced(lines, index, _dumps(event))


def add_an_unknown_field(lines: Lines, rng: random.Random) -> bytes:
    value = rng.choice([1, 1.5, "x", None, True, [1, "a"], {"nested": {"k": [None]}}])
    return _with_event(lines, _pick(lines, rng), lambda e: e.__setitem__("zz_unknown", value))


def duplicate_kind_key_with_another_kind(lines: Lines, rng: random.Random) -> bytes:
    """``"kind"`` twice in one object: the file's first kind, then another (the last one wins
    in a dict)."""
    index = _pick(lines, rng, first=1)
    other = rng.choice([k.value for k in EventKind if k.value != _loads(lines[index])["kind"]])
    return _replaced(lines, index, lines[index][:-1] + b', "kind": "' + other.encode() + b'"}')


def duplicate_seq_key_after(lines: Lines, rng: random.Random) -> bytes:
    """``"seq"`` again at the end of the object with another number (the last one wins)."""
    index = _pick(lines, rng)
    return _replaced(lines, index, lines[index][:-1] + b', "seq": %d}' % (index + rng.choice([1, 7, -1])))


def duplicate_seq_key_before(lines: Lines, rng: random.Random) -> bytes:
    """A wrong ``"seq"`` first, then the right one (the last one wins: still valid)."""
    index = _pick(lines, rng)
    return _replaced(lines, index, b'{"seq": 999, ' + lines[index][1:])


def duplicate_ok_key_true_then_false(lines: Lines, rng: random.Random) -> bytes:
    index = _pick(lines, rng, _successful_sopbench_call)
    return _replaced(lines, index, lines[index][:-1] + b', "ok": false}')


def duplicate_ok_key_badly_typed_first(lines: Lines, rng: random.Random) -> bytes:
    """``"ok": "yes"`` first, then the file's ``"ok"`` (the last one wins: still valid)."""
    index = _pick(lines, rng, lambda e: e["kind"] == "tool_call")
    return _replaced(lines, index, b'{"ok": "yes", ' + lines[index][1:])


def insert_a_blank_line(lines: Lines, rng: random.Random) -> bytes:
    index = rng.randrange(1, len(lines))
    return _join(lines[:index] + [b""] + lines[index:])


def insert_a_blank_line_first(lines: Lines, rng: random.Random) -> bytes:
    return b"\n" + _join(lines)


def insert_a_whitespace_only_line(lines: Lines, rng: random.Random) -> bytes:
    index = rng.randrange(1, len(lines))
    return _join(lines[:index] + [rng.choice([b" ", b"\t", b"  \t ", b"\r"])] + lines[index:])


def append_a_whitespace_only_line(lines: Lines, rng: random.Random) -> bytes:
    return _join(lines) + b"   \n"


def insert_a_vertical_tab_line(lines: Lines, rng: random.Random) -> bytes:
    """A line of ``\\v`` or ``\\f`` (Python's bytes.strip calls them whitespace; JSON does not)."""
    index = rng.randrange(1, len(lines))
    return _join(lines[:index] + [rng.choice([b"\x0b", b"\x0c"])] + lines[index:])


def crlf_line_endings(lines: Lines, rng: random.Random) -> bytes:
    return _join(lines).replace(b"\n", b"\r\n")


def drop_the_trailing_newline(lines: Lines, rng: random.Random) -> bytes:
    return _join(lines)[:-1]


def cut_the_last_line_short(lines: Lines, rng: random.Random) -> bytes:
    """A torn last line (a crash while it was written): a warning for the reference reading."""
    data = _join(lines)[:-1]
    return data[:len(data) - rng.randrange(2, 30)]


def swap_two_lines(lines: Lines, rng: random.Random) -> bytes:
    i, j = sorted(rng.sample(range(len(lines)), 2))
    swapped = list(lines)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    return _join(swapped)


def duplicate_a_line(lines: Lines, rng: random.Random) -> bytes:
    index = rng.randrange(len(lines))
    return _join(lines[:index + 1] + [lines[index]] + lines[index + 1:])


def truncate_to_first_lines_and_the_last(lines: Lines, rng: random.Random) -> bytes:
    """The first N lines and the last one, nothing renumbered (seq breaks before the end)."""
    return _join(lines[:rng.randrange(1, len(lines) - 2)] + lines[-1:])


def huge_integer_in_a_typed_int_field(lines: Lines, rng: random.Random) -> bytes:
    index = _pick(lines, rng, lambda e: any(type(v) is int for k, v in e.items() if k != "seq"))
    event = _loads(lines[index])
    name = rng.choice([k for k, v in event.items() if type(v) is int and k != "seq"])
    event[name] = rng.choice([10**20, 123456789012345678901234567, -(10**25)])
    return _replaced(lines, index, _dumps(event))


def huge_integer_as_seq(lines: Lines, rng: random.Random) -> bytes:
    return _with_event(lines, _pick(lines, rng), lambda e: e.__setitem__("seq", 10**22 + e["seq"]))


def huge_integer_inside_args(lines: Lines, rng: random.Random) -> bytes:
    index = _pick(lines, rng, lambda e: e["kind"] == "tool_call")
    return _with_event(lines, index, lambda e: e["args"].__setitem__("n", 123456789012345678901234))


def _into_t(lines: Lines, rng: random.Random, junk: bytes) -> bytes:
    """``junk`` at the start of one event's ``t`` (a known string field)."""
    index = _pick(lines, rng)
    return _replaced(lines, index, lines[index].replace(b'"t": "', b'"t": "' + junk, 1))


def _unknown_field(lines: Lines, rng: random.Random, value: bytes) -> bytes:
    """One event gains the field ``zz_unknown`` holding the raw JSON ``value``."""
    index = _pick(lines, rng)
    return _replaced(lines, index, lines[index][:-1] + b', "zz_unknown": ' + value + b"}")


def invalid_utf8_in_a_known_string_field(lines: Lines, rng: random.Random) -> bytes:
    return _into_t(lines, rng, b"\xff\xfe")


def invalid_utf8_in_an_unknown_field(lines: Lines, rng: random.Random) -> bytes:
    return _unknown_field(lines, rng, b'"a\xc3\x28b"')


def lone_surrogate_in_a_known_string_field(lines: Lines, rng: random.Random) -> bytes:
    return _into_t(lines, rng, b"\\ud800")


def lone_surrogate_in_an_unknown_field(lines: Lines, rng: random.Random) -> bytes:
    return _unknown_field(lines, rng, b'"\\ud800"')


def nan_in_a_float_field(lines: Lines, rng: random.Random) -> bytes:
    index = _pick(lines, rng, lambda e: e["kind"] in ("call_end", "session_end"))
    return _replaced(lines, index, lines[index].replace(b'"cost_usd": ', b'"cost_usd": NaN, "was": ', 1))


def nan_in_an_unknown_field(lines: Lines, rng: random.Random) -> bytes:
    return _unknown_field(lines, rng, rng.choice([b"NaN", b"Infinity"]))


def deep_array_in_an_unknown_field(lines: Lines, rng: random.Random) -> bytes:
    """A nested array a few hundred deep (see the test below for one deeper than the parser goes)."""
    depth = rng.randrange(50, 300)
    index = _pick(lines, rng)
    return _replaced(lines, index, lines[index][:-1] + b', "zz_unknown": ' + b"[" * depth + b"]" * depth + b"}")


def successful_call_for_an_account_not_in_the_batch(lines: Lines, rng: random.Random) -> bytes:
    index = _pick(lines, rng, _successful_sopbench_call)
    return _with_event(lines, index, lambda e: e.__setitem__("account", "ACC999999"))


def failed_call_for_an_account_not_in_the_batch(lines: Lines, rng: random.Random) -> bytes:
    """ok false: the account rule is about successful calls only (still valid)."""
    index = _pick(lines, rng, _successful_sopbench_call)
    return _with_event(lines, index, lambda e: e.update(account="ACC999999", ok=False))


def second_session_start(lines: Lines, rng: random.Random) -> bytes:
    """A line becomes a copy of session_start (keeping its own seq and t)."""
    index = _pick(lines, rng, first=1)
    old, start = _loads(lines[index]), _loads(lines[0])
    return _replaced(lines, index, _dumps({**start, "seq": old["seq"], "t": old["t"]}))


def event_after_session_end(lines: Lines, rng: random.Random) -> bytes:
    """A copy of an event appended after session_end, with the next seq and the last t."""
    last = _loads(lines[-1])
    extra = {**_loads(lines[_pick(lines, rng, lambda e: e["kind"] == "tool_call")]), "seq": last["seq"] + 1,
             "t": last["t"]}
    return _join(lines + [_dumps(extra)])


def _usage_at(lines: Lines, rng: random.Random) -> tuple[int, bytes]:
    index = _pick(lines, rng, lambda e: e["kind"] not in ("session_start", "session_end"))
    old = _loads(lines[index])
    usage = {"seq": old["seq"], "t": old["t"], "kind": "usage", "call": 0, "priced_usd": 0.01,
             "session_cost_usd": 0.01}
    return index, _dumps(usage)


def usage_event_in_a_schema_1_log(lines: Lines, rng: random.Random) -> bytes:
    assert _loads(lines[0])["schema"] == 1
    index, usage = _usage_at(lines, rng)
    return _replaced(lines, index, usage)


def usage_event_in_a_schema_2_log(lines: Lines, rng: random.Random) -> bytes:
    """The same in a log whose session_start says schema 2 (valid)."""
    index, usage = _usage_at(lines, rng)
    start = {**_loads(lines[0]), "schema": 2}
    return _replaced([_dumps(start)] + lines[1:], index, usage)


def _t_back(lines: Lines, rng: random.Random, seconds: float) -> bytes:
    from datetime import datetime, timedelta
    index = rng.randrange(2, len(lines))
    before = datetime.fromisoformat(_loads(lines[index - 1])["t"])
    t = (before - timedelta(seconds=seconds)).isoformat(timespec="microseconds").replace("+00:00", "Z")
    return _with_event(lines, index, lambda e: e.__setitem__("t", t))


def t_back_by_1_second(lines: Lines, rng: random.Random) -> bytes:
    """Within the clock slack: valid for the reference reading."""
    return _t_back(lines, rng, 1.0)


def t_back_by_10_seconds(lines: Lines, rng: random.Random) -> bytes:
    return _t_back(lines, rng, 10.0)


def status_not_in_the_enum(lines: Lines, rng: random.Random) -> bytes:
    return _with_event(lines, len(lines) - 1, lambda e: e.__setitem__("status", rng.choice(["finished", "", "Completed"])))


def stop_outcome_not_in_the_literal(lines: Lines, rng: random.Random) -> bytes:
    index = _pick(lines, rng, lambda e: e["kind"] == "stop")
    return _with_event(lines, index, lambda e: e.__setitem__("outcome", rng.choice(["paused", "Ended", ""])))


def negative_figure_in_a_valued_event(lines: Lines, rng: random.Random) -> bytes:
    """A cost, count or duration of session_end or call_end made negative (rule ``range``)."""
    index = _pick(lines, rng, lambda e: e["kind"] in ("call_end", "session_end")
                  and any(type(v) in (int, float) for k, v in e.items() if k != "seq"))
    event = _loads(lines[index])
    name = rng.choice(sorted(k for k, v in event.items() if type(v) in (int, float) and k != "seq"))
    event[name] = -abs(event[name]) - rng.choice([1, 0.5, 10**6])
    return _replaced(lines, index, _dumps(event))


def negative_token_count_in_an_unknown_field(lines: Lines, rng: random.Random) -> bytes:
    """A field the contract does not name, on a valued event (the typed structs skip it unread)."""
    index = _pick(lines, rng, lambda e: e["kind"] in ("call_end", "session_end", "usage"))
    value = rng.choice([{"input_tokens": -5}, {"usage": {"output_tokens": -1}}, {"tokens": [3, -2]}])
    return _with_event(lines, index, lambda e: e.update(value))


def cost_below_the_streamed_price(lines: Lines, rng: random.Random) -> bytes:
    """A usage event pricing the call far above the session's cost (rule ``cost``), in a schema 2 log."""
    index, usage = _usage_at(lines, rng)
    event = {**_loads(usage), "priced_usd": 1000.0 * rng.choice([1, 3, 7])}
    start = {**_loads(lines[0]), "schema": 2}
    return _replaced([_dumps(start)] + lines[1:], index, _dumps(event))


def decisions_beyond_the_batch(lines: Lines, rng: random.Random) -> bytes:
    batch = len(_loads(lines[0])["order"])
    return _with_event(lines, len(lines) - 1, lambda e: e.__setitem__("decisions", batch + rng.randrange(1, 50)))


def bom_at_the_start(lines: Lines, rng: random.Random) -> bytes:
    return b"\xef\xbb\xbf" + _join(lines)


def two_objects_on_one_line(lines: Lines, rng: random.Random) -> bytes:
    """Two consecutive events on one line (the newline between them lost or replaced)."""
    index = rng.randrange(1, len(lines) - 2)
    glue = rng.choice([b"", b" ", b"\r", b"\t"])
    return _join(lines[:index] + [lines[index] + glue + lines[index + 1]] + lines[index + 2:])


def two_objects_on_the_first_line(lines: Lines, rng: random.Random) -> bytes:
    return _join([lines[0] + lines[1]] + lines[2:])


MUTATIONS = [retype_a_field, delete_a_required_field, add_an_unknown_field, duplicate_kind_key_with_another_kind,
             duplicate_seq_key_after, duplicate_seq_key_before, duplicate_ok_key_true_then_false,
             duplicate_ok_key_badly_typed_first, insert_a_blank_line, insert_a_blank_line_first,
             insert_a_whitespace_only_line, append_a_whitespace_only_line, insert_a_vertical_tab_line,
             crlf_line_endings, drop_the_trailing_newline, cut_the_last_line_short, swap_two_lines,
             duplicate_a_line, truncate_to_first_lines_and_the_last, huge_integer_in_a_typed_int_field,
             huge_integer_as_seq, huge_integer_inside_args, invalid_utf8_in_a_known_string_field,
             invalid_utf8_in_an_unknown_field, lone_surrogate_in_a_known_string_field,
             lone_surrogate_in_an_unknown_field, nan_in_a_float_field, nan_in_an_unknown_field,
             deep_array_in_an_unknown_field, successful_call_for_an_account_not_in_the_batch,
             failed_call_for_an_account_not_in_the_batch, second_session_start, event_after_session_end,
             usage_event_in_a_schema_1_log, usage_event_in_a_schema_2_log, t_back_by_1_second,
             t_back_by_10_seconds, status_not_in_the_enum, stop_outcome_not_in_the_literal,
             negative_figure_in_a_valued_event, negative_token_count_in_an_unknown_field,
             cost_below_the_streamed_price, decisions_beyond_the_batch, bom_at_the_start,
             two_objects_on_one_line, two_objects_on_the_first_line]

#: Small real logs the mutations start from (schema 1, with stop events and a session_end).
BASES = [("sim_logs.tgz", "simlogs/exploratory/sim-drifting/Plain/seed-3-first-8"),
         ("sim_logs.tgz", "simlogs/exploratory/sim-drifting/Remind-loop/seed-3-first-8"),
         ("corpus_logs.tgz", "sessions/haiku-4.5/Remind/seed-5")]
SEEDS = range(4)


@pytest.fixture(scope="module")
def bases(tmp_path_factory) -> list[Path]:
    out = []
    for archive, folder in BASES:
        root = tmp_path_factory.mktemp(archive.split(".")[0])
        with tarfile.open(GOLDEN / archive) as tar:
            tar.extractall(root, filter="data")
        out.append(root / folder)
    return out


def _mutants(bases: list[Path]):
    for folder in bases:
        lines = (folder / EVENTS_NAME).read_bytes().split(b"\n")[:-1]
        for mutation in MUTATIONS:
            for seed in SEEDS:
                rng = random.Random(f"{mutation.__name__}/{folder.name}/{seed}")
                yield folder, mutation.__name__, seed, mutation(lines, rng)


def test_the_base_logs_are_clean_and_take_the_fast_path(bases):
    for folder in bases:
        typed, ref, meta = _both_readings(folder, (folder / EVENTS_NAME).read_bytes())
        assert ref.issues == [] and typed is not None and _breaches(typed, ref, meta) == []


def test_no_mutated_log_takes_the_fast_path_unless_both_readings_agree(bases):
    breaches, stats = [], Counter()
    for folder, name, seed, data in _mutants(bases):
        typed, ref, meta = _both_readings(folder, data)
        stats[name, "fast" if typed is not None else "ref-clean-but-declined" if ref.issues == []
              else "ref-warning-only" if ref.valid else "ref-invalid"] += 1
        breaches += [f"{name} (base {folder.parent.name}/{folder.name}, seed {seed}): {b}"
                     for b in _breaches(typed, ref, meta)]
    print("\nmutation outcomes (cases):")
    for name in dict.fromkeys(m.__name__ for m in MUTATIONS):
        print(f"  {name:52} " + ", ".join(f"{k[1]} {v}" for k, v in sorted(stats.items()) if k[0] == name))
    assert sum(stats.values()) == len(bases) * len(MUTATIONS) * len(SEEDS)
    assert breaches == [], "\n".join(breaches)


# ----------------------------------------------------------------------------- expected directions

#: Mutations that always break a rule: the fast path declines them and the reference names an error.
BREAKING = [delete_a_required_field, duplicate_seq_key_after, swap_two_lines, duplicate_a_line,
            truncate_to_first_lines_and_the_last, huge_integer_as_seq, invalid_utf8_in_a_known_string_field,
            invalid_utf8_in_an_unknown_field, lone_surrogate_in_a_known_string_field,
            lone_surrogate_in_an_unknown_field, nan_in_a_float_field, nan_in_an_unknown_field,
            successful_call_for_an_account_not_in_the_batch, second_session_start, event_after_session_end,
            usage_event_in_a_schema_1_log, t_back_by_10_seconds, status_not_in_the_enum,
            stop_outcome_not_in_the_literal, negative_figure_in_a_valued_event,
            negative_token_count_in_an_unknown_field, cost_below_the_streamed_price, decisions_beyond_the_batch,
            bom_at_the_start, two_objects_on_one_line, two_objects_on_the_first_line]
#: Mutations that keep the log valid and clean: both readings take it (the fast path included).
KEEPING = [add_an_unknown_field, duplicate_seq_key_before, duplicate_ok_key_true_then_false, crlf_line_endings,
           huge_integer_inside_args, deep_array_in_an_unknown_field, failed_call_for_an_account_not_in_the_batch,
           usage_event_in_a_schema_2_log]
#: Mutations that keep the log clean but that the fast path leaves to the reference reading (it
#: takes only one event per line, a last line with its newline and ``t`` never going back).
DECLINED_BUT_CLEAN = [insert_a_blank_line, insert_a_blank_line_first, insert_a_whitespace_only_line,
                      append_a_whitespace_only_line, insert_a_vertical_tab_line, drop_the_trailing_newline,
                      t_back_by_1_second]


def _readings_of(mutation: Callable[[Lines, random.Random], bytes], folder: Path):
    """(seed, mutated bytes, fast-path log, reference log, meta) of ``mutation`` of ``folder``'s
    log for each seed."""
    lines = (folder / EVENTS_NAME).read_bytes().split(b"\n")[:-1]
    for seed in SEEDS:
        data = mutation(lines, random.Random(seed))
        yield (seed, data, *_both_readings(folder, data))


@pytest.mark.parametrize("mutation", BREAKING, ids=lambda m: m.__name__)
def test_a_breaking_mutation_is_declined_by_the_fast_path_and_an_error_for_the_reference(mutation, bases):
    for seed, _, typed, ref, _ in _readings_of(mutation, bases[0]):
        assert not ref.valid, f"seed {seed}: the reference finds no error"
        assert typed is None, f"seed {seed}: the fast path took a log with {[str(i) for i in ref.errors][:2]}"


@pytest.mark.parametrize("mutation", KEEPING, ids=lambda m: m.__name__)
def test_a_harmless_mutation_is_clean_and_takes_the_fast_path(mutation, bases):
    for seed, _, typed, ref, meta in _readings_of(mutation, bases[0]):
        assert ref.issues == [], f"seed {seed}: {[str(i) for i in ref.issues]}"
        assert typed is not None and _breaches(typed, ref, meta) == []


@pytest.mark.parametrize("mutation", DECLINED_BUT_CLEAN, ids=lambda m: m.__name__)
def test_a_clean_log_the_fast_path_declines_is_read_clean_the_reference_way(mutation, bases, tmp_path):
    for seed, data, typed, ref, _ in _readings_of(mutation, bases[0]):
        assert typed is None and ref.issues == [], f"seed {seed}: {[str(i) for i in ref.issues]}"
    (tmp_path / EVENTS_NAME).write_bytes(data)
    assert read_log(tmp_path / EVENTS_NAME).events == ref.events      # strict: no error


def test_a_retyped_field_is_valid_exactly_where_its_annotation_allows_the_new_type(bases):
    folder = bases[0]
    lines = (folder / EVENTS_NAME).read_bytes().split(b"\n")[:-1]
    outcomes = Counter()
    for seed in range(40):
        data = retype_a_field(lines, random.Random(seed))
        (changed,) = [new for old, new in zip(lines, data.split(b"\n")) if old != new]
        event = _loads(changed)
        allowed = all(checker(hint)(event[name]) for name, hint in _hints(event).items() if name in event)
        typed, ref, _ = _both_readings(folder, data)
        outcomes[allowed] += 1
        if allowed:
            assert ref.valid, f"seed {seed}: {changed[:120]!r}"
        else:
            assert typed is None and Rule.EVENT in {i.rule for i in ref.errors}, f"seed {seed}: {changed[:120]!r}"
    assert outcomes[True] and outcomes[False]      # both kinds of retyping were made


def test_a_torn_last_line_is_a_warning_and_declined_by_the_fast_path(bases):
    folder = bases[0]
    lines = (folder / EVENTS_NAME).read_bytes().split(b"\n")[:-1]
    data, path = cut_the_last_line_short(lines, random.Random(0)), folder / EVENTS_NAME
    # without meta.json (which says completed: a log without its session_end is then an error)
    typed, ref = _typed_read(path, data, None), _reference(path, data, None)
    assert typed is None and ref.valid and [i.rule for i in ref.issues] == [Rule.TORN]


# ----------------------------------------------------------------------------- read_log on a file


def test_read_log_raises_for_two_objects_on_one_line(bases, tmp_path):
    lines = (bases[0] / EVENTS_NAME).read_bytes().split(b"\n")[:-1]
    path = tmp_path / EVENTS_NAME
    path.write_bytes(_join(lines[:3] + [lines[3] + lines[4]] + lines[5:]))
    with pytest.raises(LogError) as caught:
        read_log(path)
    assert caught.value.issue.rule == Rule.JSON and caught.value.issue.line == 4
    assert not read_log(path, strict=False).valid


def test_read_log_raises_for_a_wrongly_typed_field_and_reports_it_when_not_strict(bases, tmp_path):
    lines = (bases[0] / EVENTS_NAME).read_bytes().split(b"\n")[:-1]
    path = tmp_path / EVENTS_NAME
    path.write_bytes(_with_event(lines, 2, lambda e: e.__setitem__("ok", 1)))
    with pytest.raises(LogError) as caught:
        read_log(path)
    assert caught.value.issue.rule == Rule.EVENT and caught.value.issue.line == 3
    log = read_log(path, strict=False)
    assert not log.valid and len(log.events) == len(lines)


def test_the_reporting_read_of_an_array_nested_deeper_than_the_parser_goes_does_not_raise(bases, tmp_path):
    """``read_log(strict=False)`` never raises; a line of 4 KB (far under the line cap) nested
    2,000 deep is an error of the log, not an exception of the reader."""
    lines = (bases[0] / EVENTS_NAME).read_bytes().split(b"\n")[:-1]
    path = tmp_path / EVENTS_NAME
    path.write_bytes(_replaced(lines, 3, lines[3][:-1] + b', "zz_unknown": ' + b"[" * 2000 + b"]" * 2000 + b"}"))
    log = read_log(path, strict=False)
    assert not log.valid


def test_a_log_built_in_code_with_an_event_outside_the_contract_is_not_scored(bases):
    """A ``LogRead`` made from dicts (as the viewer's and the tests' are) is scored through the
    same structs; an event missing a required field is a ``LogError`` naming the file, not a
    score computed from defaults."""
    from study.session_io.reader import LogRead

    start = _loads((bases[0] / EVENTS_NAME).read_bytes().split(b"\n")[0])
    log = LogRead(Path("/x/events.jsonl"), [start, {"seq": 1, "t": start["t"], "kind": "tool_call", "tool": "x"}])
    with pytest.raises(LogError, match="/x/events.jsonl"):
        score_log(log)
