#!/usr/bin/env python3
"""The month-end close's step check: are the step's files there and consistent?

    python3 ../checks/check_step.py STEP [--workspace DIR] [--inputs DIR]

The FSM's guard runs it in the workspace when a close step is done (STEP 1-6). The period is the
latest one released. It reads the workspace (the procedure's files the agent wrote for the step,
``periods/<period>/close/``, the master data and the opening balances) and the period's inputs
where the run keeps them, outside the workspace (``--inputs``, by default ``../inputs`` beside
this script's folder: ``inputs/<period>/``); the workspace's ``periods/<period>/inputs`` must still
be the link to them, or the check refuses. It never sees an answer. It checks that the step's files exist with the
procedure's columns and rows, that the agent's own ledgers add up (each row's arithmetic, the
trial balance's debits and credits, the report against the trial balance) and that the
quantities and documents reconcile with the inputs. Exit status 0: the step is complete; 1: it
prints each problem on a line (at most 20), the summary last; 2: it was called wrongly.
Standalone: the standard library only.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

WAREHOUSES = ("WH-A", "WH-B")
TOL = 0.05  # a row's arithmetic (its numbers are written to cents)
SUM_TOL = 0.5  # a sum of rows rounded to cents
HEADERS = {
    "01_movements.csv": ["sku", "warehouse", "opening_qty", "purchased", "sold", "returned", "transfer_in", "transfer_out", "closing_qty"],
    "02_inventory.csv": ["sku", "opening_qty", "opening_value", "purchased_qty", "purchase_cost", "avg_cost", "sold_qty", "returned_qty",
                         "cogs", "closing_qty", "value_before_writedown", "write_down", "closing_value"],
    "03_fx.csv": ["document", "kind", "currency", "amount", "carrying_rate", "rate", "status", "fx_amount"],
    "04_adjustments.csv": ["event", "account", "amount", "note"],
    "05_trial_balance.csv": ["account", "debit", "credit"],
}
ACCOUNTS = ["Cash", "Inventory", "Accounts receivable", "Accounts payable", "Equity (opening)", "Revenue", "COGS",
            "Inventory write-down", "FX gain/loss", "Operating expenses"]
REPORT_FIELDS = ["revenue", "cogs", "gross_margin", "write_down", "inventory_value", "units_wh_a", "units_wh_b",
                 "accounts_receivable", "accounts_payable", "fx_gain_loss", "net_income"]


class Problems(Exception):
    """A file the step needs is missing or unreadable: stop checking this step."""


def read_csv(path: Path, header: list[str] | None = None) -> list[dict]:
    if not path.is_file():
        raise Problems(f"{path.as_posix()} is missing")  # relative: the check runs in the workspace
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if header is not None and reader.fieldnames != header:
            raise Problems(f"{path.name} must have the header {','.join(header)} (it has {','.join(reader.fieldnames or [])})")
        return list(reader)


def num(row: dict, key: str, where: str, out: list) -> float:
    try:
        return float(row[key])
    except (TypeError, ValueError, KeyError):
        out.append(f"{where}: {key} {row.get(key)!r} is not a number")
        return 0.0


def near(a: float, b: float, tol: float = TOL) -> bool:
    return abs(a - b) <= tol


class Close:
    """The period being closed and what the check may read of it. ``inputs``: the folder holding
    each released period's inputs (``<period>/``); None: the workspace's own ``periods/<period>/
    inputs/`` (a workspace laid out without the run's inputs folder)."""

    def __init__(self, workspace: Path, inputs: Path | None = None):
        self.workspace = workspace
        if inputs is None:
            names = sorted(p.name for p in (workspace / "periods").glob("*") if (p / "inputs").is_dir())
        else:
            names = sorted(p.name for p in inputs.iterdir() if p.is_dir()) if inputs.is_dir() else []
        if not names:
            raise Problems("no period has been released: periods/<period>/inputs/ is missing")
        self.period = names[-1]
        self.previous = names[-2] if len(names) > 1 else None
        self.inputs = workspace / "periods" / self.period / "inputs"
        if inputs is not None:
            real, link = (inputs / self.period).resolve(), self.inputs
            if not link.is_symlink() or link.resolve() != real:
                raise Problems(f"periods/{self.period}/inputs is no longer the link to the period's inputs "
                               f"(../../../inputs/{self.period}): the inputs never change; restore the link")
            self.inputs = real
        self.close = workspace / "periods" / self.period / "close"
        self.skus = [r["sku"] for r in read_csv(workspace / "master" / "skus.csv")]
        self.rates = {r["currency"]: (float(r["average"]), float(r["closing"])) for r in read_csv(self.inputs / "fx_rates.csv")}

    def opening(self) -> dict:
        path = self.inputs / "opening_balances.json"
        if not path.is_file():
            path = self.workspace / "periods" / str(self.previous) / "close" / "closing_balances.json"
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise Problems(f"the opening balances {path.relative_to(self.workspace).as_posix()} cannot be read ({exc}): "
                           "the previous period's close must write its closing_balances.json") from None

    def step_file(self, name: str) -> list[dict]:
        return read_csv(self.close / name, HEADERS[name])


def check_movements(c: Close, out: list) -> None:
    opening_balances = c.opening()  # first: without them the period cannot be closed at all
    lines = c.step_file("01_movements.csv")
    seen = {(r["sku"], r["warehouse"]): r for r in lines}
    expected = {(s, w) for s in c.skus for w in WAREHOUSES}
    if set(seen) != expected or len(lines) != len(expected):
        out.append(f"01_movements.csv must hold one row per SKU and warehouse ({len(expected)} rows; it has {len(lines)})")
    opening = {(i["sku"], w): int(i["qty"].get(w, 0)) for i in opening_balances["inventory"] for w in WAREHOUSES}
    inputs = {key: dict(purchased=0, sold=0, returned=0, transfer_in=0, transfer_out=0) for key in expected}
    for r in read_csv(c.inputs / "purchases.csv"):
        inputs[(r["sku"], r["warehouse"])]["purchased"] += int(r["qty"])
    for r in read_csv(c.inputs / "sales.csv"):
        inputs[(r["sku"], r["warehouse"])]["sold"] += int(r["qty"])
    for r in read_csv(c.inputs / "returns.csv"):
        inputs[(r["sku"], r["warehouse"])]["returned"] += int(r["qty"])
    for r in read_csv(c.inputs / "transfers.csv"):
        inputs[(r["sku"], r["from_warehouse"])]["transfer_out"] += int(r["qty"])
        inputs[(r["sku"], r["to_warehouse"])]["transfer_in"] += int(r["qty"])
    for key in sorted(expected & set(seen)):
        row, where = seen[key], f"01_movements.csv {key[0]} {key[1]}"
        v = {k: num(row, k, where, out) for k in HEADERS["01_movements.csv"][2:]}
        if v["closing_qty"] != v["opening_qty"] + v["purchased"] - v["sold"] + v["returned"] + v["transfer_in"] - v["transfer_out"]:
            out.append(f"{where}: closing_qty is not opening + purchased - sold + returned + transfer_in - transfer_out")
        if v["closing_qty"] < 0:
            out.append(f"{where}: closing_qty is negative")
        if v["opening_qty"] != opening.get(key, 0):
            out.append(f"{where}: opening_qty {v['opening_qty']:g} is not the opening balances' {opening.get(key, 0)}")
        for k, want in inputs[key].items():
            if v[k] != want:
                out.append(f"{where}: {k} {v[k]:g} does not reconcile with the inputs ({want})")


def check_inventory(c: Close, out: list) -> None:
    lines = c.step_file("02_inventory.csv")
    if sorted(r["sku"] for r in lines) != sorted(c.skus):
        out.append(f"02_inventory.csv must hold one row per SKU ({len(c.skus)} rows; it has {len(lines)})")
    moves = {}
    for r in c.step_file("01_movements.csv"):
        m = moves.setdefault(r["sku"], dict(opening_qty=0, purchased_qty=0, sold_qty=0, returned_qty=0, closing_qty=0))
        for mine, theirs in (("opening_qty", "opening_qty"), ("purchased_qty", "purchased"), ("sold_qty", "sold"), ("returned_qty", "returned"), ("closing_qty", "closing_qty")):
            m[mine] += int(float(r[theirs] or 0))
    values = {i["sku"]: float(i["value"]) for i in c.opening()["inventory"]}
    for row in lines:
        where = f"02_inventory.csv {row['sku']}"
        v = {k: num(row, k, where, out) for k in HEADERS["02_inventory.csv"][1:]}
        units = v["opening_qty"] + v["purchased_qty"]
        if units and not near(v["avg_cost"] * units, v["opening_value"] + v["purchase_cost"], TOL + units * 1e-6):
            out.append(f"{where}: avg_cost x (opening_qty + purchased_qty) is not opening_value + purchase_cost")
        if not near(v["cogs"], (v["sold_qty"] - v["returned_qty"]) * v["avg_cost"], TOL + abs(v["sold_qty"]) * 1e-6):
            out.append(f"{where}: cogs is not (sold_qty - returned_qty) x avg_cost")
        if v["closing_qty"] != v["opening_qty"] + v["purchased_qty"] - v["sold_qty"] + v["returned_qty"]:
            out.append(f"{where}: closing_qty is not opening_qty + purchased_qty - sold_qty + returned_qty")
        if not near(v["value_before_writedown"], v["opening_value"] + v["purchase_cost"] - v["cogs"]):
            out.append(f"{where}: value_before_writedown is not opening_value + purchase_cost - cogs")
        if not near(v["closing_value"], v["value_before_writedown"] - v["write_down"]) or v["write_down"] < 0:
            out.append(f"{where}: closing_value is not value_before_writedown - write_down (a write-down is never negative)")
        if not near(v["opening_value"], values.get(row["sku"], 0.0)):
            out.append(f"{where}: opening_value is not the opening balances' {values.get(row['sku'], 0.0):.2f}")
        for k, want in moves.get(row["sku"], {}).items():
            if v[k] != want:
                out.append(f"{where}: {k} {v[k]:g} is not 01_movements.csv's {want}")


def check_fx(c: Close, out: list) -> None:
    lines = c.step_file("03_fx.csv")
    for n, row in enumerate(lines, 2):
        where = f"03_fx.csv line {n} ({row['document']})"
        amount, carrying, rate, diff = (num(row, k, where, out) for k in ("amount", "carrying_rate", "rate", "fx_amount"))
        if row["kind"] not in ("AR", "AP") or row["status"] not in ("settled", "revalued", "held") or row["currency"] not in ("EUR", "GBP"):
            out.append(f"{where}: kind must be AR or AP, status settled, revalued or held, currency EUR or GBP")
            continue
        average, closing = c.rates[row["currency"]]
        want = {"settled": average, "revalued": closing, "held": carrying}[row["status"]]
        if not near(rate, want, 1e-4):
            out.append(f"{where}: rate {rate} is not the {row['status']} rate {want}")
        sign = 1 if row["kind"] == "AR" else -1
        if not near(diff, sign * amount * (rate - carrying)):
            out.append(f"{where}: fx_amount is not {'+' if sign > 0 else '-'}amount x (rate - carrying_rate)")
    settled = {r["document"] for r in lines if r.get("status") == "settled"}
    for r in read_csv(c.inputs / "cash.csv"):
        if r["currency"] != "USD" and r["document"] not in settled:
            out.append(f"03_fx.csv: {r['document']}, settled in cash.csv in {r['currency']}, has no settled row")


def check_adjustments(c: Close, out: list) -> None:
    lines = c.step_file("04_adjustments.csv")
    for n, row in enumerate(lines, 2):
        num(row, "amount", f"04_adjustments.csv line {n}", out)
    named = {r["event"] for r in lines}
    for event in json.loads((c.inputs / "events.json").read_text(encoding="utf-8")):
        if event["id"] not in named:
            out.append(f"04_adjustments.csv has no row for event {event['id']} ({event['kind']}), announced this period")


def trial_balance(c: Close, out: list) -> dict[str, float]:
    lines = c.step_file("05_trial_balance.csv")
    accounts = [r["account"] for r in lines]
    if sorted(accounts) != sorted(ACCOUNTS):
        out.append(f"05_trial_balance.csv must hold exactly the accounts {', '.join(ACCOUNTS)}")
    net = {}
    for r in lines:
        debit, credit = num(r, "debit", f"05_trial_balance.csv {r['account']}", out), num(r, "credit", f"05_trial_balance.csv {r['account']}", out)
        if debit < 0 or credit < 0:
            out.append(f"05_trial_balance.csv {r['account']}: debit and credit are never negative")
        net[r["account"]] = debit - credit
    return net


def check_trial_balance(c: Close, out: list) -> None:
    net = trial_balance(c, out)
    if not near(sum(net.values()), 0.0, SUM_TOL):  # balances carried at cents drift by cents over the periods
        out.append(f"05_trial_balance.csv: debits and credits differ by {sum(net.values()):.2f}")
    inventory = c.step_file("02_inventory.csv")
    for account, column, sign in (("Inventory", "closing_value", 1), ("COGS", "cogs", 1), ("Inventory write-down", "write_down", 1)):
        total = sum(float(r[column] or 0) for r in inventory)
        if account in net and not near(sign * net[account], total, SUM_TOL):
            out.append(f"05_trial_balance.csv {account} is not 02_inventory.csv's total {column} ({total:.2f})")
    fx = sum(float(r["fx_amount"] or 0) for r in c.step_file("03_fx.csv"))
    if "FX gain/loss" in net and not near(-net["FX gain/loss"], fx, SUM_TOL):
        out.append(f"05_trial_balance.csv FX gain/loss is not 03_fx.csv's total fx_amount ({fx:.2f})")


def check_report(c: Close, out: list) -> None:
    for name in ("report.json", "closing_balances.json"):
        if not (c.close / name).is_file():
            raise Problems(f"{(c.close / name).relative_to(c.workspace).as_posix()} is missing")
    try:
        report = json.loads((c.close / "report.json").read_text(encoding="utf-8"))
        closing = json.loads((c.close / "closing_balances.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise Problems(f"report.json and closing_balances.json must both be JSON files in close/ ({exc})") from None
    if not isinstance(report, dict) or sorted(report) != sorted(REPORT_FIELDS) or not all(isinstance(report[k], (int, float)) for k in report):
        raise Problems(f"report.json must hold exactly these numbers: {', '.join(REPORT_FIELDS)}")
    net = trial_balance(c, out)
    get = lambda account: net.get(account, 0.0)  # noqa: E731
    pairs = [("revenue", -get("Revenue")), ("cogs", get("COGS")), ("write_down", get("Inventory write-down")),
             ("inventory_value", get("Inventory")), ("accounts_receivable", get("Accounts receivable")),
             ("accounts_payable", -get("Accounts payable")), ("fx_gain_loss", -get("FX gain/loss")),
             ("gross_margin", report["revenue"] - report["cogs"]),
             ("net_income", report["revenue"] - report["cogs"] - report["write_down"] + report["fx_gain_loss"] - get("Operating expenses"))]
    for field, want in pairs:
        if not near(report[field], want, SUM_TOL):
            out.append(f"report.json {field} {report[field]} does not follow from the trial balance ({want:.2f})")
    if closing.get("period") != c.period or not isinstance(closing.get("inventory"), list) or not isinstance(closing.get("open_items"), list):
        raise Problems(f"closing_balances.json must name period {c.period} and hold inventory and open_items lists, as opening_balances.json does")
    try:
        units = {w: sum(int(i["qty"].get(w, 0)) for i in closing["inventory"]) for w in WAREHOUSES}
        value = sum(float(i["value"]) for i in closing["inventory"])
        ar = sum(float(i["amount"]) * float(i["carrying_rate"]) for i in closing["open_items"] if i["kind"] == "AR")
        ap = sum(float(i["amount"]) * float(i["carrying_rate"]) for i in closing["open_items"] if i["kind"] == "AP")
        float(closing["cash"]), float(closing["equity"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise Problems(f"closing_balances.json does not have opening_balances.json's format ({exc!r})") from None
    for field, want in (("units_wh_a", units["WH-A"]), ("units_wh_b", units["WH-B"]), ("inventory_value", value),
                        ("accounts_receivable", ar), ("accounts_payable", ap)):
        if not near(report[field], want, SUM_TOL):
            out.append(f"report.json {field} {report[field]} is not closing_balances.json's {want:.2f}")
    if not near(float(closing["cash"]), get("Cash"), SUM_TOL):
        out.append("closing_balances.json cash is not the trial balance's Cash")


STEPS = {"1": check_movements, "2": check_inventory, "3": check_fx, "4": check_adjustments, "5": check_trial_balance, "6": check_report}


def default_inputs() -> Path | None:
    """The run's inputs folder beside this script's folder (``ROOT/inputs`` for ``ROOT/checks/``),
    if there is one."""
    folder = Path(__file__).resolve().parent.parent / "inputs"
    return folder if folder.is_dir() else None


def check(step: str, workspace: Path, inputs: Path | None = None) -> tuple[str, list[str]]:
    """(the period, every problem of ``step``'s files); [] = the step is complete. ``inputs``: the
    run's inputs folder (see :class:`Close`)."""
    problems: list[str] = []
    period = "?"
    try:
        close = Close(workspace, inputs)
        period = close.period
        STEPS[step](close, problems)
    except Problems as exc:
        problems.append(str(exc))
    return period, problems


def main(argv: list[str]) -> int:
    args = list(argv)
    folders: dict[str, Path] = {}
    for option in ("--workspace", "--inputs"):
        if option in args:
            at = args.index(option)
            if at + 1 >= len(args):
                print(f"{option} needs a folder", file=sys.stderr)
                return 2
            folders[option] = Path(args[at + 1])
            del args[at:at + 2]
    if len(args) != 1 or args[0] not in STEPS:
        print("usage: check_step.py STEP [--workspace DIR] [--inputs DIR]; STEP is 1, 2, 3, 4, 5 or 6 (CLOSE_PROCEDURE.md's "
              "steps)", file=sys.stderr)
        return 2
    period, problems = check(args[0], folders.get("--workspace", Path(".")), folders.get("--inputs", default_inputs()))
    if not problems:
        print(f"close step {args[0]} of {period}: passed")
        return 0
    for problem in problems[:20]:
        print(f"- {problem}")
    more = " (the first 20 shown)" if len(problems) > 20 else ""
    print(f"close step {args[0]} of {period}: {len(problems)} problem{'s' * (len(problems) != 1)}{more}. Fix them, then check again.")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
