"""The figures, as PNG and PDF, from the same ``Analysis`` as the tables.

- ``figure1``: one seed, a row per condition, a sliver per account in batch order, coloured
  faithful and correct / compliant but wrong / not compliant / undecided (the paper's Figure 1).
  The legend lists only the outcomes that occur; the x axis has ticks however short the batch.
- ``fc_windows``: FC per 50 accounts in batch order (windows headed by the accounts they cover),
  mean over seeds with the range (min-max) over seeds as a band, one panel per model. The y axis
  has headroom above the window size and below zero; each condition has its own colour, marker
  and a small horizontal offset, so identical series stay visible side by side.
- ``routes_heatmap``: mean occurrences per session of each escape route, per condition, with
  "sessions with the route / sessions" written in each cell, one panel per model; the attempts
  to end the turn (blocked ones included) and the real turn ends are separate columns.

Colours are the Okabe-Ito palette without its yellow (too faint on white), distinguishable with
colour-vision deficiencies and in greyscale print with the markers. PDFs carry no creation date,
so the same logs give the same files.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from study.procedure.escape_routes import TURN_ENDS_HEADER, counted_routes  # noqa: E402
from study.paths import figures_dir  # noqa: E402

from .exclusions import seed_list  # noqa: E402
from .scoring import WINDOW  # noqa: E402
from .tables import SIMULATED_TITLE, Analysis, window_label  # noqa: E402

OUTCOMES = (  # code, legend label, colour
    ("fc", "faithful and correct", "#009E73"),
    ("wrong", "compliant but wrong", "#56B4E9"),
    ("noncompliant", "not compliant", "#D55E00"),
    ("undecided", "undecided", "#DDDDDD"),
)
#: Okabe-Ito without the yellow, then two of Paul Tol's colour-blind-safe colours (wine, indigo) so
#: that nine conditions and an exploratory one each have their own; markers tell them apart in grey.
LINE_COLOURS = ("#0072B2", "#E69F00", "#56B4E9", "#CC79A7", "#009E73", "#D55E00", "#000000",
                "#999999", "#882255", "#332288")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "p", "h", "<", ">")


class NoFigure(ValueError):
    """The figure asked for has nothing to draw (no session, or none of that model or seed)."""

plt.rcParams.update({"font.size": 9, "axes.titlesize": 10, "svg.hashsalt": "analysis",
                     "pdf.fonttype": 42})


def _title(a: Analysis, text: str) -> str:
    """The analysis' title for ``text``, the SIMULATED warning on a line of its own."""
    return a.title(text).replace(SIMULATED_TITLE, SIMULATED_TITLE.rstrip(" -") + "\n")


def _save(fig, out: Path, name: str) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{name}.png", out / f"{name}.pdf"]
    fig.savefig(paths[0], dpi=200, bbox_inches="tight", metadata={"Software": None})
    fig.savefig(paths[1], bbox_inches="tight", metadata={"CreationDate": None, "Producer": None,
                                                          "Creator": None})
    plt.close(fig)
    return paths


def default_seed(a: Analysis, model: str) -> int:
    """The seed whose FSM - Remind-loop FC difference is closest to the mean (ties: lowest)."""
    c = next((c for c in a.comparisons if c.model == model and c.spec.id == "fc_fsm_remind_loop"
              and c.paired is not None), None)
    if c is None:
        return int(a.rows_for(model)["seed"].min())
    p = c.paired
    return min(zip(p.seeds, p.differences), key=lambda sd: (abs(sd[1] - p.mean), sd[0]))[0]


def figure1(a: Analysis, out: Path, model: str | None = None, seed: int | None = None) -> list[Path]:
    models = _models(a)
    model = model or models[0]
    if model not in models:
        raise NoFigure(f"model {model!r} has no analysable sessions; choose one of {', '.join(models)} "
                       "with --model")
    seed = default_seed(a, model) if seed is None else seed
    scores = sorted((s for s in a.corpus.scores if s.model == model and s.seed == seed),
                    key=lambda s: a.condition_key(s.condition))
    if not scores:
        seeds = sorted({s.seed for s in a.corpus.scores if s.model == model})
        raise NoFigure(f"no analysable session of {model} on seed {seed}; it has seeds "
                       f"{', '.join(map(str, seeds))} (choose one with --seed)")
    codes = {o[0]: i for i, o in enumerate(OUTCOMES)}
    grid = np.full((len(scores), max(len(s.order) for s in scores)), codes["undecided"])
    for row, s in enumerate(scores):
        for d in s.decisions:
            grid[row, d.position] = codes[("fc" if d.correct else "wrong") if d.compliant else "noncompliant"]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(scores) + 1.3))
    ax.imshow(grid, aspect="auto", interpolation="nearest", vmin=0, vmax=len(OUTCOMES) - 1,
              cmap=ListedColormap([o[2] for o in OUTCOMES]))
    ax.set_yticks(range(len(scores)), [f"{s.condition} (FC {s.fc})" for s in scores])
    ax.set_xlabel("accounts, in batch order")
    n = grid.shape[1]
    ticks = _account_ticks(n)
    ax.set_xticks([t - 0.5 for t in ticks], [str(t) for t in ticks])
    for t in range(WINDOW, n, WINDOW):
        ax.axvline(t - 0.5, color="white", linewidth=1.5)
    for row in range(1, len(scores)):
        ax.axhline(row - 0.5, color="white", linewidth=3)
    ax.set_title(_title(a, f"{a.plan.label(model)}, seed {seed}: each account's decision"), pad=24)
    present = set(np.unique(grid).tolist())
    handles = [Patch(color=c, label=l) for i, (_, l, c) in enumerate(OUTCOMES) if i in present]
    ax.legend(handles=handles, ncol=len(handles), loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
    return _save(fig, out, "figure1")


def _account_ticks(n: int) -> list[int]:
    """Ticks at the boundaries between accounts (0 … n): every 50 for a long batch, a finer
    round step for a short one, always including both ends."""
    step = next(s for s in (1, 2, 5, 10, 25, 50) if n / s <= 10) if n <= 500 else 100
    ticks = list(range(0, n + 1, step))
    return ticks if ticks[-1] == n else ticks + [n]


def _models(a: Analysis) -> list[str]:
    models = a.models()
    if not models:
        raise NoFigure(f"{a.nothing_here()}: nothing to draw")
    return models


def _line_style(a: Analysis, condition: str) -> dict:
    """The same colour and marker for a condition in every panel; the plan's ablations dashed."""
    i = a.condition_key(condition)[0]
    return {"color": LINE_COLOURS[i % len(LINE_COLOURS)], "marker": MARKERS[i % len(MARKERS)],
            "linestyle": "--" if condition in a.plan.ablation_conditions else "-"}


def fc_windows(a: Analysis, out: Path) -> list[Path]:
    models = _models(a)
    windows = [c for c in a.corpus.sessions.columns if c.startswith("fc_w")]
    batch = a.batch_size()
    top = min(WINDOW, batch)
    fig, axes = plt.subplots(1, len(models), figsize=(max(4.2 * len(models) + 1.8, 8.5), 4.0), squeeze=False,
                             sharey=True, layout="constrained")
    handles = {}
    x = np.arange(1, len(windows) + 1)
    for ax, model in zip(axes[0], models):
        frame = a.rows_for(model)
        rows = a.by_condition(frame)
        # dodge: each condition a little to the side, so equal series do not hide one another
        offsets = np.linspace(-0.18, 0.18, len(rows)) if len(rows) > 1 else [0.0]
        for (condition, g), dx in zip(rows, offsets):
            values = np.array([[np.nan if v is None else v for v in g[w]] for w in windows], dtype=float)
            style = _line_style(a, condition)
            low, high = np.nanmin(values, axis=1), np.nanmax(values, axis=1)
            mean = np.nanmean(values, axis=1)
            (line,) = ax.plot(x + dx, mean, label=condition, markersize=6, markeredgecolor="white",
                              markeredgewidth=0.6, **style)
            ax.vlines(x + dx, low, high, color=style["color"], alpha=0.5, linewidth=2)
            handles.setdefault(condition, line)
        ax.set_xticks(x, [window_label(i, batch) for i in range(len(windows))])
        ax.set_xlim(0.5, len(windows) + 0.5)
        ax.set_xlabel("accounts, in batch order")
        ax.set_title(f"{a.plan.label(model)}, seeds {seed_list(frame['seed'].to_list())}")
        ax.set_ylim(-0.06 * top, 1.1 * top)
        ax.axhline(top, color="grey", linewidth=0.8, linestyle=":")
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel(f"FC per {top} accounts\n(mean; bar: min-max over seeds)")
    ordered = sorted(handles, key=a.condition_key)
    # Below the panels: beside them, a long (SIMULATED) title would run into the legend.
    fig.legend([handles[c] for c in ordered], ordered, loc="outside lower center", ncol=min(len(ordered), 5),
               frameon=False)
    fig.suptitle(_title(a, f"Faithful and correct decisions per {top} accounts"))
    return _save(fig, out, "fc_windows")


def routes_heatmap(a: Analysis, out: Path) -> list[Path]:
    """One column per counted escape route of study/procedure/escape_routes.py (its label), in its order,
    and after the attempts to end the turn, the real turn ends."""
    models = _models(a)
    routes = counted_routes()
    keys, labels = [], []
    for r in routes:
        keys.append(r.key)
        labels.append(r.label)
        if r.key == "ends_turn":
            keys.append("turn_ends")
            labels.append(TURN_ENDS_HEADER.replace(", ", ",\n"))
    panels = [(m, a.by_condition(a.rows_for(m))) for m in models]
    height = sum(len(rows) for _, rows in panels)
    fig, axes = plt.subplots(len(panels), 1, figsize=(8.5, 0.42 * height + 1.6 * len(panels)),
                             squeeze=False, gridspec_kw={"height_ratios": [len(r) for _, r in panels]},
                             layout="constrained")
    panels = [(m, [(c, {**g, "turn_ends": [v or 0 for v in g["turn_ends"]]}) for c, g in rows])
              for m, rows in panels]
    vmax = max((float(np.mean(g[r])) for _, rows in panels for _, g in rows for r in keys),
               default=1.0) or 1.0
    for ax, (model, rows) in zip(axes[:, 0], panels):
        means = np.array([[np.mean(g[r]) for r in keys] for _, g in rows])
        image = ax.imshow(means, aspect="auto", cmap="Blues", vmin=0, vmax=vmax)
        for i, (_, g) in enumerate(rows):
            for j, r in enumerate(keys):
                hit = sum(v > 0 for v in g[r])
                ax.text(j, i, f"{hit}/{len(g[r])}\n({means[i, j]:.1f})", ha="center", va="center",
                        fontsize=7.5, color="white" if means[i, j] > 0.6 * vmax else "black")
        ax.set_yticks(range(len(rows)), [c for c, _ in rows])
        ax.set_xticks(range(len(keys)), labels)
        ax.xaxis.tick_top()
        ax.set_ylabel(a.plan.label(model))
        fig.colorbar(image, ax=ax, label="mean per session", fraction=0.04, pad=0.02)
    fig.suptitle(_title(a, "Escape routes: sessions with the route / sessions (mean per session)"))
    return _save(fig, out, "routes_heatmap")


def default_out(a: Analysis) -> Path:
    """Where figures go unless told: the project's ``figures/`` for real sessions; for simulated
    ones (the demo's, a generated corpus) ``figures/`` inside their sessions folder (the demo's:
    ``demo/figures/``, where ``study demo`` writes its own), so SIMULATED figures never land in
    the project's tracked ``figures/``."""
    return Path(a.corpus.root) / "figures" if a.corpus.simulated else figures_dir()


def write_figures(a: Analysis, out: Path, *, model: str | None = None,
                  seed: int | None = None) -> list[Path]:
    """All three figures into ``out``; returns the files written."""
    out = Path(out)
    return figure1(a, out, model, seed) + fc_windows(a, out) + routes_heatmap(a, out)
