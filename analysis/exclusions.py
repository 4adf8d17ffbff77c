"""What the tables leave out, and why: one list, printed once and noted under every table.

Two kinds of sessions are left out:

- sessions the corpus does not analyse at all (``Corpus.excluded``: voided, incomplete,
  exploratory, on the development seed, with invalid records, without a log);
- analysable sessions on a seed outside the seeds the plan analyses for their model (and
  condition): they are not in Tables 1, 2 and 8 (a cross-model comparison naming the seed still
  uses them, e.g. the catch-up seeds of the ablation model).

Each table's notes say how many of each kind (:func:`summary_note`, which
``analysis.table_notes.common_notes`` puts under every table); the list itself, one line per
session with its reason, is printed once by the commands and written as ``exclusions.md`` and
``exclusions.csv`` beside the tables. Everything here reads an ``Analysis``
(``analysis.analysis_data``); how many sessions ``--include-exploratory`` would add is its
``admitted_by_exploratory`` (re-exported here).
"""

from __future__ import annotations

import csv
import io
from collections import Counter

from .analysis_data import Analysis
from .analysis_data import admitted_by_exploratory  # noqa: F401  (re-exported: its name here)

NOT_TABULATED = "on a seed the plan does not analyse for its model"


def seed_list(seeds) -> str:
    """Seeds as ranges: ``2-9``, ``2, 4, 13-15``."""
    seeds = sorted(set(seeds))
    parts: list[str] = []
    i = 0
    while i < len(seeds):
        j = i
        while j + 1 < len(seeds) and seeds[j + 1] == seeds[j] + 1:
            j += 1
        parts.append(str(seeds[i]) if i == j else f"{seeds[i]}-{seeds[j]}")
        i = j + 1
    return ", ".join(parts)


def not_tabulated(a: "Analysis") -> list[tuple[str, str]]:
    """Analysable sessions on a seed outside their model's analysed seeds, with the reason."""
    cross = {(a.plan.models[side.model].name, condition, seed)
             for c in a.plan.comparisons if c.cross_model
             for side in (c.a, c.b) for condition in side.conditions for seed in c.seeds}
    out = []
    for r in a.corpus.sessions.iter_rows(named=True):
        if a.plan.tabulates(r["model"], r["condition"], r["seed"]):
            continue
        seeds = a.plan.seeds_for(r["model"], r["condition"])
        rel = a.relative(r["path"])
        reason = (f"not in Tables 1, 2 and 8: seed {r['seed']} is not among the seeds analysed for "
                  f"{a.plan.label(r['model'])} {r['condition']} ({seed_list(seeds)})")
        if (r["model"], r["condition"], r["seed"]) in cross:
            reason += "; a cross-model (catch-up) comparison uses it (Tables 6 and 7)"
        out.append((rel, reason))
    return sorted(out)


def exclusion_list(a: "Analysis") -> list[tuple[str, str]]:
    """Every session left out of some table: (path below the sessions folder, reason)."""
    return sorted([(path, why.reason) for path, why in a.corpus.excluded] + not_tabulated(a))


def summary_note(a: "Analysis") -> str | None:
    """The one-line note under every table: how many sessions were left out, by kind."""
    counts = Counter(why.kind.counted_as for _p, why in a.corpus.excluded)
    outside = len(not_tabulated(a))
    counts.update({NOT_TABULATED: outside} if outside else {})
    if not counts:
        return None
    kinds = "; ".join(f"{n} {kind}" for kind, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    total = sum(counts.values())
    return (f"Excluded: {total} session{'s' if total != 1 else ''} ({kinds}); the exclusion list "
            "(exclusions.md) gives each with its reason.")


def to_markdown(a: "Analysis") -> str:
    rows = exclusion_list(a)
    lines = ["**Excluded sessions**", ""]
    if not rows:
        return "\n".join(lines + ["No session was excluded."]) + "\n"
    lines += ["| Session | Reason |", "| --- | --- |"]
    lines += [f"| {p} | {r.replace('|', chr(92) + '|')} |" for p, r in rows]
    return "\n".join(lines) + "\n"


def to_csv(a: "Analysis") -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["Session", "Reason"])
    writer.writerows(exclusion_list(a))
    return buf.getvalue()


def plain_lines(a: "Analysis") -> list[str]:
    """The list as lines for a terminal (printed once, on stderr, by the commands)."""
    rows = exclusion_list(a)
    if not rows:
        return []
    return [f"Excluded {len(rows)} session{'s' if len(rows) != 1 else ''}:"] + [f"  {p}: {r}" for p, r in rows]
