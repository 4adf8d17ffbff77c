"""The matrix page's order and summary: rows in the plan's order (model, condition, seed), and per
model × condition the mean FC and compliance with the paper's 95% CI. Sessions of several tasks
are grouped by task first (the preregistered task first, then by name: ``status.task_order``),
each group of means within one task.

The order is the analysis' own: ``Plan.model_order`` (the models of ``predictions.yaml`` in its
order, then the others sorted) and ``analysis.tables.condition_order`` (``conditions.yaml``'s
order, then the others sorted); a project without a readable plan falls back to sorted names.
The CI is the tables' percentile bootstrap of the mean (``analysis.statistics.bootstrap_cis``:
10,000 resamples, the preregistered seed) over the group's scored, unvoided sessions.
"""

from __future__ import annotations

from typing import Any


def _orders(rows: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    models = sorted({str(r["model"]) for r in rows})
    conditions = sorted({str(r["condition"]) for r in rows})
    try:
        from study.protocol.plan import load_plan

        models = load_plan().model_order(models)
    except Exception:         # no plan in this project (a folder of sessions browsed elsewhere)
        pass
    try:
        from analysis.tables import condition_order

        known = [c for c in condition_order() if c in set(conditions)]
        conditions = known + [c for c in conditions if c not in known]
    except Exception:
        pass
    return models, conditions


def _seed(value: Any) -> tuple[int, Any]:
    return (0, value) if isinstance(value, int) and not isinstance(value, bool) else (1, str(value))


def tasks_of(rows: list[dict[str, Any]]) -> list[str]:
    """The rows' tasks, each once: the preregistered task first, then by name."""
    from study.runner.status import task_order

    return task_order(str(r["task"]) for r in rows)


def ordered(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` by task, then in the plan's order of model, then condition, then seed, then name;
    each row gets its place as ``order`` (the page's default sort)."""
    models, conditions = _orders(rows)
    t = {x: i for i, x in enumerate(tasks_of(rows))}
    m, c = {x: i for i, x in enumerate(models)}, {x: i for i, x in enumerate(conditions)}
    out = sorted(rows, key=lambda r: (t[str(r["task"])], m.get(str(r["model"]), len(m)),
                                      c.get(str(r["condition"]), len(c)), _seed(r["seed"]), r["name"]))
    for i, r in enumerate(out):
        r["order"] = i
    return out


def groups(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per task × model × condition (in the rows' order): sessions, and the mean and 95% CI of FC
    and of compliance over the scored, unvoided ones; for a group of another task family's
    sessions (its task is its study), their verdicts in words instead (``family_docs``)."""
    # imported only where a command needs it: the matrix's statistics are computed when the page
    # asks for them, not when `study view` starts
    import numpy as np

    from analysis.statistics import bootstrap_cis

    keyed: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for r in rows:
        keyed.setdefault((str(r["task"]), str(r["model"]), str(r["condition"])), []).append(r)
    out, samples = [], []
    for (task, model, condition), members in keyed.items():
        scored = [r for r in members if r["fc"] is not None and not r["voided"] and not r["error"]]
        fc = np.array([r["fc"] for r in scored], dtype=float)
        compliance = np.array([r["compliance"] for r in scored if r["compliance"] is not None], dtype=float)
        samples += [fc, compliance]
        group = {"task": task, "model": model, "condition": condition, "sessions": len(members), "scored": len(scored),
                 "simulated": any(r["simulated"] for r in members),
                 "fc_mean": float(fc.mean()) if fc.size else None,
                 "compliance_mean": float(compliance.mean()) if compliance.size else None}
        if members[0].get("family", "sopbench") != "sopbench":   # another family's sessions: its verdicts
            from .family_docs import group_verdicts

            group.update(family=members[0]["family"], verdicts=group_verdicts(members),
                         scored=sum(r.get("verdict_class") != "none" for r in members if not r["voided"] and not r["error"]))
        out.append(group)
    cis = bootstrap_cis(samples) if samples else []
    for i, g in enumerate(out):
        for j, key in enumerate(("fc_ci", "compliance_ci")):
            lo, hi = cis[2 * i + j]
            g[key] = None if np.isnan(lo) else [lo, hi]
    return out
