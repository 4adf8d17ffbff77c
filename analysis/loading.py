"""Finding, scoring and tabulating every session under a folder, as polars frames.

``load_corpus(root)`` scores each ``events.jsonl`` below ``root`` and returns a ``Corpus``:

- ``sessions``: one row per included session (identity, metrics, FC per window, routes, the
  real turn ends beside the attempts, and the exploratory SOP-Bench-graded correct count);
- ``accounts``: one row per decided account of those sessions (position, inv/rec/foc, …);
- ``excluded``: (path, ``Exclusion``) of every session left out, by the one rule of
  ``study.session_io.record.SessionRecord.exclusion`` (the audit's too): a session folder without
  ``events.jsonl``, a log or meta.json that breaks a rule of ``study.session_io.reader`` (the
  reason names the file, the line and the rule), voided (``meta.json`` voided, or a
  ``session_end`` status that voids), incomplete (no ``session_end``), or exploratory or on the
  development seed 1 (unless ``include_exploratory``);
- ``warnings``: torn last lines that were skipped.

Sessions are found by the one rule of ``study.session_io.folders`` (``attempt-*`` folders are
earlier attempts, never sessions; ``exploratory/`` and the demo output are exploratory).

Sessions of different batch sizes are different sessions: when a model has sessions over more
than one number of accounts, those over fewer accounts than its largest batch are tabulated as a
model of their own, ``<model>, first <N> accounts`` (so the demo's ``seed-2-first-10`` and
``seed-2-first-20`` are two sessions, not duplicates). Sessions of another task than the project's
(``session_start.task``; exploratory) are tabulated as ``<model> on <task>``, and sessions on
another agent runtime than Claude Code (``session_start.runtime``) as ``<model> on <runtime>``
(``sim:oracle on Codex CLI``): each model on each runtime is a row of its own.

Simulated and real sessions are never mixed: a corpus holding both raises ``CorpusError``
unless ``allow_simulated`` is set, and any corpus with a simulated session is ``simulated``
(every artefact made from it is titled SIMULATED).
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sopbench_tools.orders import DEVELOPMENT_SEED
from study.errors import StudyError
from study.procedure.escape_routes import ROUTE_KEYS
from study.session_io.folders import EVENTS_NAME, find_sessions
from study.session_io.reader import read_log
from study.session_io.record import MAIN_STUDY, Exclusion, SessionRecord, read_record

from .score_cache import ScoreCache, without_gc
from .scoring import WINDOW, SessionScore, score_log
from .sopbench_grader import sopbench_correct

if TYPE_CHECKING:
    import polars as pl

#: Below this many sessions, scoring stays in this process (workers cost more than they save).
_PARALLEL_FROM = 64


class CorpusError(StudyError, ValueError):
    """A set of sessions that cannot be analysed together; the message says what to do."""


class NoSuchFolder(CorpusError):
    """The sessions folder does not exist (a usage error)."""


class MixedSessions(CorpusError):
    """Simulated and real sessions in one folder without ``allow_simulated`` (a usage error)."""


@dataclass
class Corpus:
    """The included sessions of one folder, scored, plus what was left out and why."""

    root: Path
    scores: list[SessionScore]
    sessions: pl.DataFrame
    excluded: list[tuple[str, Exclusion]] = field(default_factory=list)   # (path below root, why)
    warnings: list[str] = field(default_factory=list)
    simulated: bool = False
    exploratory: bool = False

    @cached_property
    def accounts(self) -> pl.DataFrame:
        """One row per decided account (``accounts_frame``), built when first asked for: no
        table reads it (the notebooks and ``study score`` explore it), and 200,000 rows cost."""
        return accounts_frame(self.scores)


def find_session_dirs(root: Path) -> list[Path]:
    """Every session folder below ``root`` (or ``root`` itself), sorted (``study.session_io.folders``)."""
    root = Path(root)
    if not root.is_dir():
        raise NoSuchFolder(f"{root}: no such folder. Pass the sessions folder with --sessions "
                          "(default: sessions/ of the project).")
    return find_sessions(root)


#: A session that cannot be scored: its folder and its exclusion (no log, or a broken rule).
Unscorable = tuple[str, Exclusion]


@dataclass(frozen=True)
class Scored:
    """A scored session, its record and what the tables show beside the scorer's metrics."""

    record: SessionRecord
    score: SessionScore
    correct_sopbench: int   # decisions SOP-Bench's own grader counts as correct


def sopbench_correct_count(s: SessionScore) -> int:
    """Decisions SOP-Bench's own grader counts as correct (exploratory; ``analysis.sopbench_grader``)."""
    return sum(sopbench_correct(d.action, d.gold) for d in s.decisions)


def score_or_reason(path: Path, root: Path | None = None) -> Scored | Unscorable:
    """Score one session folder (reading its log once), or say why it cannot be scored (no
    log, a broken rule: ``SessionRecord.exclusion``). ``root``: the folder being analysed."""
    with without_gc():
        record, session = read_record(Path(path), root)
        if not record.scorable or record.study != MAIN_STUDY:   # another study's session: never this scorer's
            return str(path), record.exclusion()
        score = score_log(session.log, session.meta)
        _ = score.correct, score.compliant, score.fc, score.fc_windows    # computed here, handed over with it
        return Scored(record, score, sopbench_correct_count(score))


def score_dirs(dirs: list[Path], workers: int | None = None, root: Path | None = None,
               cache: ScoreCache | None = None) -> list[Scored | Unscorable]:
    """Score session folders, in worker processes when there are many; same order as ``dirs``.
    With ``cache``, a session whose log, meta.json and scoring code are unchanged since it was
    last scored is taken from it (``analysis.score_cache``), and the others are stored there."""
    if cache is None:
        return _score_all(dirs, workers, root)
    found, keys = cache.lookup(dirs, root)
    missing = [i for i, value in enumerate(found) if value is None]
    for i, value in zip(missing, _score_all([dirs[i] for i in missing], workers, root)):
        found[i] = value
        cache.put(keys[i], value)
    return found


def _score_all(dirs: list[Path], workers: int | None, root: Path | None) -> list[Scored | Unscorable]:
    workers = workers or min(os.cpu_count() or 1, 8)
    score = partial(score_or_reason, root=root)
    if workers < 2 or len(dirs) < _PARALLEL_FROM:
        return [score(d) for d in dirs]
    # no collector passes here either: unpickling the workers' scores makes as many objects as
    # scoring them did, and each full pass would walk everything this process already holds
    with without_gc(), ProcessPoolExecutor(workers) as pool:
        return list(pool.map(score, dirs, chunksize=max(1, len(dirs) // (8 * workers))))


def _below(path: str, root: Path) -> str:
    """A session folder's path below ``root`` (``.`` for ``root`` itself; as given if not below it)."""
    try:
        return Path(path).relative_to(root).as_posix() or "."
    except ValueError:
        return str(path)


def frame_row(s: SessionScore, windows: int, ends: int | None = None,
              correct_sopbench: int | None = None) -> dict[str, Any]:
    """One session's row of ``Corpus.sessions`` (``ends``: its real turn ends, if known;
    ``correct_sopbench``: the grader's count, if already known)."""
    fcw = list(s.fc_windows) + [None] * (windows - len(s.fc_windows))
    return {
        "path": s.path, "model": s.model, "condition": s.condition, "seed": s.seed,
        "simulated": s.simulated, "exploratory": s.exploratory, "status": s.status,
        "accounts": len(s.order), "decided": s.decided, "correct": s.correct,
        "compliant": s.compliant, "fc": s.fc, "compliance": s.compliance,
        **{f"fc_w{i + 1}": v for i, v in enumerate(fcw)},
        "cost_usd": s.cost_usd, "resumes": s.resumes,
        **{k: s.routes[k] for k in ROUTE_KEYS},
        "turn_ends": ends,
        "correct_sopbench": sopbench_correct_count(s) if correct_sopbench is None else correct_sopbench,
    }


def sessions_frame(scores: list[SessionScore], ends: dict[str, int] | None = None,
                   graded: dict[str, int] | None = None) -> pl.DataFrame:
    """Per-session metrics, one row per score, sorted by model, condition and seed (``ends``,
    ``graded``: each session's real turn ends and SOP-Bench-graded correct count, by path)."""
    import polars as pl     # imported only where a command needs it: `study score` makes no frame

    windows = max((-(-len(s.order) // WINDOW) for s in scores), default=200 // WINDOW)
    schema = {
        "path": pl.Utf8, "model": pl.Utf8, "condition": pl.Utf8, "seed": pl.Int64,
        "simulated": pl.Boolean, "exploratory": pl.Boolean, "status": pl.Utf8,
        "accounts": pl.Int64, "decided": pl.Int64, "correct": pl.Int64, "compliant": pl.Int64,
        "fc": pl.Int64, "compliance": pl.Float64,
        **{f"fc_w{i + 1}": pl.Int64 for i in range(windows)},
        "cost_usd": pl.Float64, "resumes": pl.Int64, **{k: pl.Int64 for k in ROUTE_KEYS},
        "turn_ends": pl.Int64, "correct_sopbench": pl.Int64,
    }
    ends, graded = ends or {}, graded or {}
    rows = [frame_row(s, windows, ends.get(s.path), graded.get(s.path)) for s in scores]
    return pl.DataFrame(rows, schema=schema, orient="row").sort(["model", "condition", "seed", "path"])


#: Columns of ``Corpus.accounts`` and their polars types (``ACCOUNT_SCHEMA``: the polars schema).
ACCOUNT_COLUMNS = {
    "path": "Utf8", "model": "Utf8", "condition": "Utf8", "seed": "Int64", "account": "Utf8",
    "position": "Int64", "window": "Int64", "decision_index": "Int64", "decision_seq": "Int64",
    "action": "Utf8", "gold": "Utf8", "data_tools": "Int64", "inv": "Boolean",
    "rec": "Boolean", "foc": "Boolean", "compliant": "Boolean", "correct": "Boolean",
    "fc": "Boolean",
}


def __getattr__(name: str) -> Any:
    """``ACCOUNT_SCHEMA``, made when first asked for (polars is imported only where it is used)."""
    if name == "ACCOUNT_SCHEMA":
        return _account_schema()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _account_schema() -> dict[str, Any]:
    import polars as pl

    return {name: getattr(pl, kind) for name, kind in ACCOUNT_COLUMNS.items()}


def accounts_frame(scores: list[SessionScore]) -> pl.DataFrame:
    """Per decided account: the session's identity and the account's scored decision
    (``window`` counts from 1)."""
    import polars as pl

    columns: dict[str, list[Any]] = {name: [] for name in ACCOUNT_COLUMNS}
    for s in scores:
        if not s.decisions:
            continue
        n = len(s.decisions)
        account, position, seq, index, action, gold, data_tools, inv, rec, foc = zip(*s.decisions)
        compliant = [a and b and c for a, b, c in zip(inv, rec, foc)]
        correct = [a == g for a, g in zip(action, gold)]
        for name, values in (("path", [s.path] * n), ("model", [s.model] * n), ("condition", [s.condition] * n),
                             ("seed", [s.seed] * n), ("account", account), ("position", position),
                             ("window", [p // WINDOW + 1 for p in position]), ("decision_index", index),
                             ("decision_seq", seq), ("action", action), ("gold", gold),
                             ("data_tools", data_tools), ("inv", inv), ("rec", rec), ("foc", foc),
                             ("compliant", compliant), ("correct", correct),
                             ("fc", [a and b for a, b in zip(compliant, correct)])):
            columns[name].extend(values)
    return pl.DataFrame(columns, schema=_account_schema())


def load_corpus(root: Path, *, allow_simulated: bool = False, include_exploratory: bool = False,
                workers: int | None = None, dirs: list[Path] | None = None,
                cache: ScoreCache | None = None) -> Corpus:
    """Score every session under ``root`` (or only the session folders ``dirs`` below it); see
    the module docstring for what is excluded. ``cache``: reuse the scores of unchanged sessions
    (``analysis.score_cache``; the numbers are the same without it)."""
    root = Path(root).resolve()
    found = find_session_dirs(root) if dirs is None else sorted(Path(d).resolve() for d in dirs)
    scored = score_dirs(found, workers, root, cache)
    included: list[Scored] = []
    excluded: list[tuple[str, Exclusion]] = []
    warnings: list[str] = []
    for found in scored:
        if isinstance(found, tuple):
            excluded.append((_below(found[0], root), found[1]))
            continue
        warnings.extend(found.score.warnings)
        exclusion = found.record.exclusion(include_exploratory=include_exploratory)
        if exclusion is not None:
            excluded.append((_below(found.score.path, root), exclusion))
        else:
            included.append(found)
    ends = {f.score.path: f.score.turn_ends for f in included}
    graded = {f.score.path: f.correct_sopbench for f in included}
    exploratory = include_exploratory and any(
        f.record.exploratory or f.record.seed == DEVELOPMENT_SEED for f in included)
    return corpus_of(root, [f.score for f in included], excluded=excluded, warnings=warnings, ends=ends,
                     graded=graded, allow_simulated=allow_simulated, exploratory=exploratory)


def corpus_of(root: Path, included: list[SessionScore], *, excluded: list[tuple[str, Exclusion]],
              warnings: list[str], ends: dict[str, int], graded: dict[str, int] | None = None,
              allow_simulated: bool, exploratory: bool) -> Corpus:
    """The corpus of the analysed sessions ``included`` (found below ``root``): refuses mixed
    simulated and real sessions (unless ``allow_simulated``) and duplicates, and tabulates a
    smaller batch of a model as a model of its own."""
    simulated = [s for s in included if s.simulated]
    if simulated and len(simulated) < len(included) and not allow_simulated:
        real = len(included) - len(simulated)
        raise MixedSessions(
            f"{root}: {len(simulated)} simulated and {real} real sessions; they are never "
            f"mixed in one table (first simulated: {simulated[0].path}). Point --sessions at a "
            "folder with only one kind, or pass --allow-simulated to tabulate both under a "
            "SIMULATED title."
        )
    included = separate_batch_sizes(separate_tasks(separate_runtimes(included)))
    _refuse_duplicates(included, root)
    return Corpus(root=root, scores=included, sessions=sessions_frame(included, ends, graded),
                  excluded=sorted(excluded, key=_by_reason),
                  warnings=sorted(warnings), simulated=bool(simulated), exploratory=exploratory)


def _by_reason(entry: tuple[str, Exclusion]) -> tuple[str, str]:
    return entry[0], entry[1].reason


def batch_model(model: str, accounts: int) -> str:
    """The model name under which a smaller batch of ``model`` is tabulated."""
    return f"{model}, first {accounts} accounts"


def task_model(model: str, task: str) -> str:
    """The model name under which ``model``'s sessions of another task than the project's are tabulated."""
    return f"{model} on {task}"


def runtime_model(model: str, runtime: str) -> str:
    """The model name under which ``model``'s sessions on another runtime than Claude Code are
    tabulated: ``sim:oracle on Codex CLI``, ``gpt-5.4-mini on Codex CLI``
    (``study.protocol.runtimes.model_on_runtime``, as status and the viewer name them too)."""
    from study.protocol.runtimes import model_on_runtime

    return model_on_runtime(model, runtime)


def separate_runtimes(scores: list[SessionScore]) -> list[SessionScore]:
    """Sessions on another runtime than Claude Code (the paper's, and the only one of logs written
    before there were two), renamed :func:`runtime_model`, so that each model on each runtime is a
    row of its own; a Claude Code session keeps its model's name, as the plan names it."""
    from study.protocol.runtimes import DEFAULT_RUNTIME

    return [s if s.runtime == DEFAULT_RUNTIME else replace(s, model=runtime_model(s.model, s.runtime)) for s in scores]


def separate_tasks(scores: list[SessionScore]) -> list[SessionScore]:
    """Sessions of another task than the project's, renamed :func:`task_model`, so that every
    table, figure and count groups them apart (the project's task keeps the model's name)."""
    from sopbench_tools.tasks import project_task_name

    own = project_task_name()
    return [s if s.task == own else replace(s, model=task_model(s.model, s.task)) for s in scores]


def separate_batch_sizes(scores: list[SessionScore]) -> list[SessionScore]:
    """Sessions of a model over fewer accounts than its largest batch, renamed
    :func:`batch_model` (a model with one batch size keeps its name)."""
    largest: dict[str, int] = {}
    for s in scores:
        largest[s.model] = max(largest.get(s.model, 0), len(s.order))
    return [s if len(s.order) == largest[s.model] else replace(s, model=batch_model(s.model, len(s.order)))
            for s in scores]


def _refuse_duplicates(scores: list[SessionScore], root: Path) -> None:
    seen: dict[tuple[str, str, int], str] = {}
    for s in scores:
        key = (s.model, s.condition, s.seed)
        if key in seen:
            raise CorpusError(
                f"two analysable sessions for model {s.model}, condition {s.condition}, seed "
                f"{s.seed}: {seen[key]} and {s.path}. A rerun replaces a voided session only; "
                "mark the superseded one voided in its meta.json (or move it out of the folder)."
            )
        seen[key] = s.path


def load_events(root: Path) -> pl.DataFrame:
    """Every event of every session under ``root`` (voided ones too), for exploration. Sessions
    whose records break a rule (listed under ``load_corpus(...).excluded``) are left out.

    Columns: the session's path, model, condition and seed, and each event's seq, t, kind,
    server, tool, account, allowed, ok and state (null where the kind has no such field).
    """
    import polars as pl

    root = Path(root).resolve()
    rows: list[dict[str, Any]] = []
    for d in find_session_dirs(root):
        log = read_log(d / EVENTS_NAME, strict=False)
        if not log.valid:
            continue
        start = log.start
        ident = {"path": Path(d).relative_to(root).as_posix(), "model": start["model"],
                 "condition": start["condition"], "seed": start["seed"]}
        for e in log.events:
            rows.append({**ident, **{k: e.get(k) for k in (
                "seq", "t", "kind", "server", "tool", "account", "allowed", "ok", "state")}})
    schema = {"path": pl.Utf8, "model": pl.Utf8, "condition": pl.Utf8, "seed": pl.Int64,
              "seq": pl.Int64, "t": pl.Utf8, "kind": pl.Utf8, "server": pl.Utf8, "tool": pl.Utf8,
              "account": pl.Utf8, "allowed": pl.Boolean, "ok": pl.Boolean, "state": pl.Utf8}
    return pl.DataFrame(rows, schema=schema)
