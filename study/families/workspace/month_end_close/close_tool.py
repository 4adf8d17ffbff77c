#!/usr/bin/env python3
"""The month-end oracle's own close script: it closes the latest period by CLOSE_PROCEDURE.md.

    python3 tools/close.py STEP      (STEP 1-6, or all)

The oracle writes this file into the workspace (``tools/close.py``) and runs it one step at a time
(FSM) or all at once (plain). It reads only the workspace's files, as an agent would: the master
data, the period's inputs, every earlier period's events, the opening balances (the first
period's inputs or the previous period's ``closing_balances.json``), and writes the step's files
into ``periods/<period>/close/``. It is an implementation of the written procedure of its own,
apart from the generator's (``study.families.workspace.month_end_close.books``), so the oracle's
tests compare two: standard library only, as it runs in the workspace.
"""

import csv
import json
import re
import sys
from pathlib import Path

WAREHOUSES = ("WH-A", "WH-B")


def rows(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def write_csv(path, header, lines):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(lines)


def money(x):
    return f"{x:.2f}"


def policies(periods_dir, current):
    """The events in force for ``current``: standing policies from earlier periods, and this period's."""
    found = {"writedown": None, "fx_rule": False, "price_change": None, "closure": None, "this_period": []}
    for folder in sorted(p for p in periods_dir.iterdir() if p.name <= current):
        for event in json.loads((folder / "inputs" / "events.json").read_text()):
            text = event["text"]
            if folder.name == current:
                found["this_period"].append(event)
            if event["kind"] == "writedown":
                found["writedown"] = (event["id"], float(re.search(r"by (\d+)%", text).group(1)) / 100)
            elif event["kind"] == "fx_rule":
                found["fx_rule"] = event["id"]
            elif event["kind"] == "price_change" and folder.name == current:
                found["price_change"] = (event["id"], re.search(r"category (\w+) SKUs", text).group(1),
                                         float(re.search(r"cost (\d+)% more", text).group(1)) / 100)
            elif event["kind"] == "closure" and folder.name == current:
                found["closure"] = (event["id"], float(re.search(r"costs ([0-9.]+) USD per unit", text).group(1)))
    return found


def close(root):
    periods_dir = root / "periods"
    names = sorted(p.name for p in periods_dir.iterdir() if (p / "inputs").is_dir())
    period = names[-1]
    inputs = periods_dir / period / "inputs"
    out = periods_dir / period / "close"
    out.mkdir(exist_ok=True)
    opening_file = inputs / "opening_balances.json"
    if not opening_file.exists():
        opening_file = periods_dir / names[-2] / "close" / "closing_balances.json"
    opening = json.loads(opening_file.read_text())
    skus = rows(root / "master" / "skus.csv")
    category = {s["sku"]: s["category"] for s in skus}
    rates = {r["currency"]: (float(r["average"]), float(r["closing"])) for r in rows(inputs / "fx_rates.csv")}
    rules = policies(periods_dir, period)

    qty0 = {i["sku"]: {w: int(i["qty"].get(w, 0)) for w in WAREHOUSES} for i in opening["inventory"]}
    value0 = {i["sku"]: float(i["value"]) for i in opening["inventory"]}
    moves = {(s["sku"], w): dict(purchased=0, sold=0, returned=0, transfer_in=0, transfer_out=0) for s in skus for w in WAREHOUSES}
    items = {i["document"]: dict(i) for i in opening["open_items"]}
    cost = {s["sku"]: 0.0 for s in skus}
    accruals = 0.0
    for p in rows(inputs / "purchases.csv"):
        amount = round(int(p["qty"]) * float(p["unit_cost"]), 2)
        average = rates[p["currency"]][0]
        moves[(p["sku"], p["warehouse"])]["purchased"] += int(p["qty"])
        items[p["document"]] = dict(kind="AP", document=p["document"], party=p["supplier"], currency=p["currency"], amount=amount, carrying_rate=average)
        if rules["price_change"] and category[p["sku"]] == rules["price_change"][1]:
            extra = round(amount * rules["price_change"][2], 2)
            items[p["document"] + "-ADJ"] = dict(kind="AP", document=p["document"] + "-ADJ", party=p["supplier"], currency=p["currency"],
                                                  amount=extra, carrying_rate=average)
            amount += extra
            accruals += extra * average
        cost[p["sku"]] += amount * average
    for t in rows(inputs / "transfers.csv"):
        moves[(t["sku"], t["from_warehouse"])]["transfer_out"] += int(t["qty"])
        moves[(t["sku"], t["to_warehouse"])]["transfer_in"] += int(t["qty"])
    sales = {s["invoice"]: s for s in rows(inputs / "sales.csv")}
    returns = rows(inputs / "returns.csv")
    credit = {}
    revenue = 0.0
    for s in sales.values():
        moves[(s["sku"], s["warehouse"])]["sold"] += int(s["qty"])
        revenue += round(int(s["qty"]) * float(s["unit_price"]), 2) * rates[s["currency"]][0]
    for r in returns:
        s = sales[r["invoice"]]
        moves[(r["sku"], r["warehouse"])]["returned"] += int(r["qty"])
        back = round(int(r["qty"]) * float(s["unit_price"]), 2)
        credit[r["invoice"]] = credit.get(r["invoice"], 0.0) + back
        revenue -= back * rates[s["currency"]][0]
    for s in sales.values():
        amount = round(round(int(s["qty"]) * float(s["unit_price"]), 2) - credit.get(s["invoice"], 0.0), 2)
        items[s["invoice"]] = dict(kind="AR", document=s["invoice"], party=s["customer"], currency=s["currency"], amount=amount,
                                   carrying_rate=rates[s["currency"]][0])

    # step 1
    movement_rows, closing_qty = [], {}
    for s in skus:
        for w in WAREHOUSES:
            m = moves[(s["sku"], w)]
            q = qty0[s["sku"]][w] + m["purchased"] - m["sold"] + m["returned"] + m["transfer_in"] - m["transfer_out"]
            closing_qty[(s["sku"], w)] = q
            movement_rows.append([s["sku"], w, qty0[s["sku"]][w], m["purchased"], m["sold"], m["returned"], m["transfer_in"], m["transfer_out"], q])

    # step 2
    sold_skus = {s["sku"] for s in sales.values()}
    inventory_rows, value, total = [], {}, dict(cogs=0.0, write_down=0.0)
    for s in skus:
        sku = s["sku"]
        oq = sum(qty0[sku].values())
        pq = sum(moves[(sku, w)]["purchased"] for w in WAREHOUSES)
        sq = sum(moves[(sku, w)]["sold"] for w in WAREHOUSES)
        rq = sum(moves[(sku, w)]["returned"] for w in WAREHOUSES)
        cq = sum(closing_qty[(sku, w)] for w in WAREHOUSES)
        avg = (value0[sku] + cost[sku]) / (oq + pq) if oq + pq else 0.0
        cogs = (sq - rq) * avg
        before = value0[sku] + cost[sku] - cogs
        down = rules["writedown"][1] * before if rules["writedown"] and cq > 0 and sku not in sold_skus else 0.0
        value[sku] = before - down
        total["cogs"] += cogs
        total["write_down"] += down
        inventory_rows.append([sku, oq, money(value0[sku]), pq, money(cost[sku]), f"{avg:.6f}", sq, rq, money(cogs), cq, money(before), money(down), money(value[sku])])

    # step 3
    fx_rows, fx, cash = [], 0.0, float(opening["cash"])
    receipts_payments = rows(inputs / "cash.csv")
    for c in receipts_payments:
        item = items.pop(c["document"])
        sign = 1 if item["kind"] == "AR" else -1
        average = rates[item["currency"]][0]
        diff = sign * item["amount"] * (average - item["carrying_rate"])
        cash += sign * item["amount"] * average
        if item["currency"] != "USD":
            fx += diff
            fx_rows.append([item["document"], item["kind"], item["currency"], money(item["amount"]), item["carrying_rate"], average, "settled", money(diff)])
    fx_ap = 0.0
    for document in sorted(items):
        item = items[document]
        if item["currency"] == "USD":
            continue
        closing_rate = rates[item["currency"]][1]
        if item["kind"] == "AP" and not rules["fx_rule"]:
            fx_rows.append([document, "AP", item["currency"], money(item["amount"]), item["carrying_rate"], item["carrying_rate"], "held", money(0)])
            continue
        sign = 1 if item["kind"] == "AR" else -1
        diff = sign * item["amount"] * (closing_rate - item["carrying_rate"])
        fx += diff
        if item["kind"] == "AP":
            fx_ap += diff
        fx_rows.append([document, item["kind"], item["currency"], money(item["amount"]), item["carrying_rate"], closing_rate, "revalued", money(diff)])
        item["carrying_rate"] = closing_rate

    # step 4 (and the closure's move)
    opex = sum(float(e["amount"]) for e in rows(inputs / "expenses.csv"))
    adjustments = []
    if rules["closure"]:
        moved = sum(closing_qty[(s["sku"], "WH-B")] for s in skus)
        fee = round(moved * rules["closure"][1], 2)
        opex += fee
        for s in skus:
            closing_qty[(s["sku"], "WH-A")] += closing_qty[(s["sku"], "WH-B")]
            closing_qty[(s["sku"], "WH-B")] = 0
        adjustments.append([rules["closure"][0], "Operating expenses", money(fee), f"WH-B closed: {moved} units moved to WH-A"])
    if rules["writedown"]:
        adjustments.append([rules["writedown"][0], "Inventory write-down", money(total["write_down"]), "SKUs with stock and no sales"])
    if rules["price_change"]:
        adjustments.append([rules["price_change"][0], "Accounts payable", money(accruals), "supplier price change accrued"])
    if rules["fx_rule"]:
        adjustments.append([rules["fx_rule"], "FX gain/loss", money(fx_ap), "payables revalued"])
    named = {a[0] for a in adjustments}
    for event in rules["this_period"]:
        if event["id"] not in named:
            adjustments.append([event["id"], "none", money(0), "no effect this period"])
    cash -= opex

    # step 5
    receivable = sum(i["amount"] * i["carrying_rate"] for i in items.values() if i["kind"] == "AR")
    payable = sum(i["amount"] * i["carrying_rate"] for i in items.values() if i["kind"] == "AP")
    inventory_value = sum(value.values())
    balances = [("Cash", cash, "debit"), ("Inventory", inventory_value, "debit"), ("Accounts receivable", receivable, "debit"),
                ("Accounts payable", payable, "credit"), ("Equity (opening)", float(opening["equity"]), "credit"),
                ("Revenue", revenue, "credit"), ("COGS", total["cogs"], "debit"), ("Inventory write-down", total["write_down"], "debit"),
                ("FX gain/loss", fx, "credit"), ("Operating expenses", opex, "debit")]
    tb = []
    for account, amount, side in balances:
        natural = amount >= 0
        debit = abs(amount) if (side == "debit") == natural else 0.0
        credit_amount = abs(amount) if (side == "credit") == natural else 0.0
        tb.append([account, money(debit), money(credit_amount)])

    # step 6
    net_income = revenue - total["cogs"] - total["write_down"] + fx - opex
    report = {"revenue": revenue, "cogs": total["cogs"], "gross_margin": revenue - total["cogs"], "write_down": total["write_down"],
              "inventory_value": inventory_value,
              "units_wh_a": sum(closing_qty[(s["sku"], "WH-A")] for s in skus), "units_wh_b": sum(closing_qty[(s["sku"], "WH-B")] for s in skus),
              "accounts_receivable": receivable, "accounts_payable": payable, "fx_gain_loss": fx, "net_income": net_income}
    report = {k: (v if k.startswith("units") else round(v, 2)) for k, v in report.items()}
    closing = {"period": period, "cash": round(cash, 2), "equity": round(float(opening["equity"]) + net_income, 2),
               "inventory": [{"sku": s["sku"], "qty": {w: closing_qty[(s["sku"], w)] for w in WAREHOUSES}, "value": round(value[s["sku"]], 2)} for s in skus],
               "open_items": [dict(i, amount=round(i["amount"], 2)) for _, i in sorted(items.items())]}
    return out, dict(movements=movement_rows, inventory=inventory_rows, fx=fx_rows, adjustments=adjustments, tb=tb, report=report, closing=closing)


def write(out, books, step):
    if step == "1":
        write_csv(out / "01_movements.csv", ["sku", "warehouse", "opening_qty", "purchased", "sold", "returned", "transfer_in", "transfer_out", "closing_qty"], books["movements"])
    elif step == "2":
        write_csv(out / "02_inventory.csv", ["sku", "opening_qty", "opening_value", "purchased_qty", "purchase_cost", "avg_cost", "sold_qty",
                                             "returned_qty", "cogs", "closing_qty", "value_before_writedown", "write_down", "closing_value"], books["inventory"])
    elif step == "3":
        write_csv(out / "03_fx.csv", ["document", "kind", "currency", "amount", "carrying_rate", "rate", "status", "fx_amount"], books["fx"])
    elif step == "4":
        write_csv(out / "04_adjustments.csv", ["event", "account", "amount", "note"], books["adjustments"])
    elif step == "5":
        write_csv(out / "05_trial_balance.csv", ["account", "debit", "credit"], books["tb"])
    elif step == "6":
        (out / "report.json").write_text(json.dumps(books["report"], indent=2) + "\n")
        (out / "closing_balances.json").write_text(json.dumps(books["closing"], indent=2) + "\n")


def main(argv):
    step = argv[0] if argv else "all"
    out, books = close(Path.cwd())
    for s in ("1", "2", "3", "4", "5", "6") if step == "all" else (step,):
        write(out, books, s)
    print(f"{out.parent.name}: wrote step {step}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
