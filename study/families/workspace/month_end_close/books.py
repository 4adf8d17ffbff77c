"""The true close of every period: the answers the month-end scorer compares with.

:func:`close_books` closes the generated company's six periods in order, by the written close
procedure (CLOSE_PROCEDURE.md), from the transactions alone, and gives each period's eleven report
fields (:data:`REPORT_FIELDS`) and the balances it carries into the next. It never reads a
workspace: these answers are kept outside it (the scorer recomputes them from the seed), and the
check script never sees them.

The rules, in the order the close applies them: purchases, sales and returns are translated at
the period's average rate; inventory is valued at the period's weighted average cost per SKU,
company-wide ((opening value + purchase cost) / (opening units + purchased units)); the
write-down policy, once announced, writes down each SKU with stock and no sales line in the
period; cash settlements realise the FX difference between the average rate and the document's
carrying rate; open foreign-currency receivables (and payables, once the FX rule says so) are
revalued at the closing rate; the closure moves a warehouse's stock and expenses its fee.
"""

from __future__ import annotations

from dataclasses import dataclass

from .world import CLOSURE_FEE, PRICE_CHANGE, WAREHOUSES, WRITEDOWN_RATE, Company, OpenItem, invoice_amount

#: the report's fields, in order: money in USD, then units
REPORT_FIELDS = ("revenue", "cogs", "gross_margin", "write_down", "inventory_value", "units_wh_a", "units_wh_b",
                 "accounts_receivable", "accounts_payable", "fx_gain_loss", "net_income")
UNIT_FIELDS = ("units_wh_a", "units_wh_b")


@dataclass(frozen=True)
class PeriodClose:
    period: str
    report: dict  # field -> value (money rounded to cents)
    cash: float
    equity: float
    qty: dict  # sku -> {warehouse: units}
    value: dict  # sku -> value
    open_items: tuple  # OpenItem, carrying rates after the revaluation
    operating_expenses: float


def close_books(company: Company) -> list[PeriodClose]:
    """Every period's close, in order (see the module docstring)."""
    qty = {sku: dict(units) for sku, units in company.opening.qty.items()}
    value = dict(company.opening.value)
    items = {item.document: item for item in company.opening.open_items}
    cash, equity = company.opening.cash, company.opening.equity
    category = {s.sku: s.category for s in company.skus}
    writedown_on = fx_rule_on = False
    closes = []
    for period in company.periods:
        average = {c: rates[0] for c, rates in period.rates.items()}
        closing = {c: rates[1] for c, rates in period.rates.items()}
        kinds = {e.kind for e in period.events}
        writedown_on |= "writedown" in kinds
        fx_rule_on |= "fx_rule" in kinds
        price_change = next((e for e in period.events if e.kind == "price_change"), None)

        # purchases (and the price-change accruals), at the average rate
        bought_qty = {sku: 0 for sku in qty}
        bought_cost = {sku: 0.0 for sku in qty}
        for line in period.purchases:
            amount = line.amount
            bought_qty[line.sku] += line.qty
            qty[line.sku][line.warehouse] += line.qty
            items[line.document] = OpenItem("AP", line.document, line.supplier, line.currency, amount, average[line.currency])
            if price_change is not None and category[line.sku] == price_change.category:
                extra = round(amount * PRICE_CHANGE, 2)
                items[line.document + "-ADJ"] = OpenItem("AP", line.document + "-ADJ", line.supplier, line.currency, extra, average[line.currency])
                amount += extra
            bought_cost[line.sku] += amount * average[line.currency]
        for move in period.transfers:
            qty[move.sku][move.from_warehouse] -= move.qty
            qty[move.sku][move.to_warehouse] += move.qty

        # sales and returns, at the average rate
        returned = {r.invoice: r.qty for r in period.returns}
        sold = {sku: 0 for sku in qty}
        back = {sku: 0 for sku in qty}
        revenue = 0.0
        for sale in period.sales:
            sold[sale.sku] += sale.qty
            qty[sale.sku][sale.warehouse] -= sale.qty
            revenue += round(sale.qty * sale.unit_price, 2) * average[sale.currency]
            items[sale.invoice] = OpenItem("AR", sale.invoice, sale.customer, sale.currency,
                                           invoice_amount(sale, returned.get(sale.invoice, 0)), average[sale.currency])
        invoices = {s.invoice: s for s in period.sales}
        for r in period.returns:
            sale = invoices[r.invoice]
            back[r.sku] += r.qty
            qty[r.sku][r.warehouse] += r.qty
            revenue -= round(r.qty * sale.unit_price, 2) * average[sale.currency]

        # inventory: weighted average cost, then the write-down policy
        sold_skus = {s.sku for s in period.sales}
        cogs = write_down = 0.0
        for sku in qty:
            units_before = sum(qty[sku].values()) - bought_qty[sku] + sold[sku] - back[sku]
            pool_units = units_before + bought_qty[sku]
            pool_value = value[sku] + bought_cost[sku]
            average_cost = pool_value / pool_units if pool_units else 0.0
            cost = (sold[sku] - back[sku]) * average_cost
            before = pool_value - cost
            down = WRITEDOWN_RATE * before if writedown_on and sum(qty[sku].values()) > 0 and sku not in sold_skus else 0.0
            cogs += cost
            write_down += down
            value[sku] = before - down

        # cash: settlements (realised FX), expenses
        fx = 0.0
        for line in period.cash:
            item = items.pop(line.document)
            sign = 1 if item.kind == "AR" else -1
            fx += sign * item.amount * (average[item.currency] - item.carrying_rate)
            cash += sign * item.amount * average[item.currency]
        opex = sum(e.amount for e in period.expenses)
        if "closure" in kinds:
            moved = sum(units["WH-B"] for units in qty.values())
            for units in qty.values():
                units["WH-A"] += units["WH-B"]
                units["WH-B"] = 0
            opex += round(moved * CLOSURE_FEE, 2)
        cash -= opex

        # revaluation of open foreign-currency documents at the closing rate
        for document, item in sorted(items.items()):
            if item.currency == "USD" or (item.kind == "AP" and not fx_rule_on):
                continue
            sign = 1 if item.kind == "AR" else -1
            fx += sign * item.amount * (closing[item.currency] - item.carrying_rate)
            items[document] = OpenItem(item.kind, item.document, item.party, item.currency, item.amount, closing[item.currency])

        receivable = sum(i.amount * i.carrying_rate for i in items.values() if i.kind == "AR")
        payable = sum(i.amount * i.carrying_rate for i in items.values() if i.kind == "AP")
        net_income = revenue - cogs - write_down + fx - opex
        equity += net_income
        report = {
            "revenue": revenue, "cogs": cogs, "gross_margin": revenue - cogs, "write_down": write_down,
            "inventory_value": sum(value.values()),
            "units_wh_a": sum(units["WH-A"] for units in qty.values()), "units_wh_b": sum(units["WH-B"] for units in qty.values()),
            "accounts_receivable": receivable, "accounts_payable": payable, "fx_gain_loss": fx, "net_income": net_income,
        }
        report = {k: (v if k in UNIT_FIELDS else round(v, 2)) for k, v in report.items()}
        closes.append(PeriodClose(period.name, report, cash, equity, {s: dict(u) for s, u in qty.items()}, dict(value),
                                  tuple(sorted(items.values(), key=lambda i: i.document)), opex))
        assert set(WAREHOUSES) == {"WH-A", "WH-B"}
    return closes
