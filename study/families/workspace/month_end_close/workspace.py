"""A month-end close run's folders, and the files each period releases into the workspace.

:func:`build_run` lays out a fresh run of the company of ``seed``::

    ROOT/workspace/   the agent's folder (a git repository): CLOSE_PROCEDURE.md and master/ (one
                      commit); periods/<period>/ appear one period at a time, each with close/
                      (the agent's outputs) and inputs, a link to ../../../inputs/<period>
    ROOT/inputs/      each released period's inputs: read-only to the agent's commands, outside
                      every folder their sandbox lets them write (docs/staged.md)
    ROOT/checks/      check_step.py: what the FSM's guards run in the workspace
                      (`python3 ../checks/check_step.py STEP`); it holds no answer

:meth:`MonthEndRun.release` writes period ``k``'s inputs (1-based) before its context starts:
only that period's inputs appear, beside the earlier periods' inputs and the agent's own outputs
(``periods/<period>/close/``). The agent reads them as ``periods/<period>/inputs/`` (the link);
a write through the link lands outside the workspace, where the sandbox refuses it, and the step
check reads the inputs where they are, ``ROOT/inputs/``, and refuses a link the agent replaced.
The answers are never written anywhere: the scorer recomputes them from the seed (:mod:`books`).
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .world import SUPPLIERS, Company, generate

PACKAGE = Path(__file__).resolve().parent
CHECK_STEP = PACKAGE / "check_step.py"
PROCEDURE = PACKAGE / "template" / "CLOSE_PROCEDURE.md"
GIT_IDENTITY = {"user.name": "Close agent", "user.email": "agent@close.invalid"}
#: the folder beside the workspace that holds each period's inputs (``inputs/<period>/``)
INPUTS_DIR = "inputs"


def _csv(header: list[str], rows: list[list]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def opening_json(company: Company) -> dict:
    """The first period's opening balances, in the format every closing_balances.json has."""
    opening = company.opening
    return {
        "period": opening.period,
        "cash": round(opening.cash, 2),
        "equity": round(opening.equity, 2),
        "inventory": [{"sku": sku, "qty": dict(opening.qty[sku]), "value": round(opening.value[sku], 2)} for sku in sorted(opening.qty)],
        "open_items": [{"kind": i.kind, "document": i.document, "party": i.party, "currency": i.currency, "amount": i.amount,
                        "carrying_rate": i.carrying_rate} for i in opening.open_items],
    }


def period_files(company: Company, index: int) -> dict[str, str]:
    """Period ``index``'s (1-based) input files: name -> text."""
    period = company.periods[index - 1]
    files = {
        "fx_rates.csv": _csv(["currency", "average", "closing"], [[c, a, z] for c, (a, z) in period.rates.items()]),
        "purchases.csv": _csv(["date", "document", "supplier", "currency", "sku", "warehouse", "qty", "unit_cost"],
                              [[p.date, p.document, p.supplier, p.currency, p.sku, p.warehouse, p.qty, f"{p.unit_cost:.2f}"] for p in period.purchases]),
        "transfers.csv": _csv(["date", "sku", "from_warehouse", "to_warehouse", "qty"],
                              [[t.date, t.sku, t.from_warehouse, t.to_warehouse, t.qty] for t in period.transfers]),
        "sales.csv": _csv(["date", "invoice", "customer", "currency", "sku", "warehouse", "qty", "unit_price"],
                          [[s.date, s.invoice, s.customer, s.currency, s.sku, s.warehouse, s.qty, f"{s.unit_price:.2f}"] for s in period.sales]),
        "returns.csv": _csv(["date", "credit_note", "invoice", "sku", "warehouse", "qty"],
                            [[r.date, r.credit_note, r.invoice, r.sku, r.warehouse, r.qty] for r in period.returns]),
        "cash.csv": _csv(["date", "kind", "document", "currency", "amount"],
                         [[c.date, c.kind, c.document, c.currency, f"{c.amount:.2f}"] for c in period.cash]),
        "expenses.csv": _csv(["date", "category", "amount"], [[e.date, e.category, f"{e.amount:.2f}"] for e in period.expenses]),
        "events.json": json.dumps([{"id": e.id, "kind": e.kind, "text": e.text} for e in period.events], indent=2) + "\n",
        "events.md": f"# Policy events announced in {period.name}\n\n"
                     + ("".join(f"## {e.id} ({e.kind})\n\n{e.text}\n\n" for e in period.events) or "None this period.\n"),
    }
    if index == 1:
        files["opening_balances.json"] = json.dumps(opening_json(company), indent=2) + "\n"
    return files


def master_files(company: Company) -> dict[str, str]:
    return {
        "skus.csv": _csv(["sku", "category", "supplier", "currency"], [[s.sku, s.category, s.supplier, s.currency] for s in company.skus]),
        "customers.csv": _csv(["customer", "currency"], [[c, cur] for c, cur in company.customers.items()]),
        "suppliers.csv": _csv(["supplier", "currency"], [[s, cur] for s, cur in SUPPLIERS.items()]),
    }


def _git(workspace: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True, text=True)


@dataclass(frozen=True)
class MonthEndRun:
    root: Path
    seed: int

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def checks(self) -> Path:
        return self.root / "checks"

    @property
    def inputs(self) -> Path:
        """Where the released periods' inputs are (``inputs/<period>/``), outside the workspace."""
        return self.root / INPUTS_DIR

    @property
    def company(self) -> Company:
        return generate(self.seed)

    @property
    def periods(self) -> list[str]:
        return [p.name for p in self.company.periods]

    def released(self) -> list[str]:
        """The periods whose inputs were released, in order."""
        return [p for p in self.periods if (self.inputs / p).is_dir()]

    def release(self, index: int) -> str:
        """Write period ``index``'s (1-based) inputs beside the workspace (``inputs/<period>/``) and
        link them into it (``periods/<period>/inputs``, beside its empty ``close/``); return the
        period's name. Periods are released in order, each once."""
        company = self.company
        if index != len(self.released()) + 1 or not 1 <= index <= len(company.periods):
            raise ValueError(f"period {index} cannot be released now: released so far {self.released()}; release them in order")
        name = company.periods[index - 1].name
        inputs = self.inputs / name
        inputs.mkdir(parents=True)
        for file, text in period_files(company, index).items():
            (inputs / file).write_text(text, encoding="utf-8")
        folder = self.workspace / "periods" / name
        (folder / "close").mkdir(parents=True)
        (folder / "inputs").symlink_to(Path("..", "..", "..", INPUTS_DIR, name), target_is_directory=True)
        return name


def build_run(root: Path, seed: int) -> MonthEndRun:
    """Lay out a new run of the company of ``seed`` under ``root`` (no period released yet)."""
    run = MonthEndRun(Path(root), seed)
    if run.workspace.exists() or run.checks.exists() or run.inputs.exists():
        raise FileExistsError(f"{root} already holds a month-end run; give a new folder")
    company = run.company
    (run.workspace / "master").mkdir(parents=True)
    (run.workspace / "periods").mkdir()
    shutil.copyfile(PROCEDURE, run.workspace / "CLOSE_PROCEDURE.md")
    for file, text in master_files(company).items():
        (run.workspace / "master" / file).write_text(text, encoding="utf-8")
    _git(run.workspace, "init", "-q", "-b", "main")
    for key, value in {**GIT_IDENTITY, "commit.gpgsign": "false"}.items():
        _git(run.workspace, "config", key, value)
    _git(run.workspace, "add", "CLOSE_PROCEDURE.md", "master")
    _git(run.workspace, "commit", "-q", "-m", "Month-end close workspace: the procedure and the master data")
    run.checks.mkdir()
    shutil.copyfile(CHECK_STEP, run.checks / "check_step.py")
    run.inputs.mkdir()
    return run
