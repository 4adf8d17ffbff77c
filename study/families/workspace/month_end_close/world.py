"""The synthetic trading company of the month-end close, generated from a seed.

:func:`generate` makes a :class:`Company`: three currencies (USD, the functional one, and EUR and
GBP), two warehouses, 40 SKUs, twelve customers and three suppliers, its opening balances, and six
monthly periods of transactions (purchases, transfers between the warehouses, sales, customer
returns, cash receipts and payments, expenses), each with its FX rates and the policy events
announced in it: an inventory write-down policy, a supplier price change to accrue, a change of
the FX revaluation rule and the closure of a warehouse, one period each, drawn from the seed.

It is deterministic per seed (``random.Random(seed)``, the standard library's: the same numbers
on every platform). It tracks quantities and open documents only, to keep every transaction
feasible (nothing sells that is not in stock, nothing is paid twice); the values of the close are
:mod:`books`'s, computed from these transactions.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

FUNCTIONAL = "USD"
CURRENCIES = ("USD", "EUR", "GBP")
WAREHOUSES = ("WH-A", "WH-B")
PERIODS = ("2025-01", "2025-02", "2025-03", "2025-04", "2025-05", "2025-06")
PERIOD_BEFORE = "2024-12"
CATEGORIES = ("A", "B", "C", "D")
SUPPLIERS = {"S-USD": "USD", "S-EUR": "EUR", "S-GBP": "GBP"}
#: the policy events' parameters
WRITEDOWN_RATE = 0.30
PRICE_CHANGE = 0.08
CLOSURE_FEE = 0.75  # USD per unit moved


@dataclass(frozen=True)
class Sku:
    sku: str
    category: str
    supplier: str
    currency: str
    base_cost: float  # USD
    list_price: float  # USD


@dataclass(frozen=True)
class Purchase:
    date: str
    document: str
    supplier: str
    currency: str
    sku: str
    warehouse: str
    qty: int
    unit_cost: float

    @property
    def amount(self) -> float:
        return round(self.qty * self.unit_cost, 2)


@dataclass(frozen=True)
class Sale:
    date: str
    invoice: str
    customer: str
    currency: str
    sku: str
    warehouse: str
    qty: int
    unit_price: float


@dataclass(frozen=True)
class Return:
    date: str
    credit_note: str
    invoice: str
    sku: str
    warehouse: str
    qty: int


@dataclass(frozen=True)
class Transfer:
    date: str
    sku: str
    from_warehouse: str
    to_warehouse: str
    qty: int


@dataclass(frozen=True)
class Cash:
    date: str
    kind: str  # receipt | payment
    document: str
    currency: str
    amount: float


@dataclass(frozen=True)
class Expense:
    date: str
    category: str
    amount: float  # USD


@dataclass(frozen=True)
class Event:
    id: str
    kind: str  # writedown | price_change | fx_rule | closure
    text: str
    category: str | None = None  # price_change: the category whose prices rose


@dataclass(frozen=True)
class OpenItem:
    kind: str  # AR | AP
    document: str
    party: str
    currency: str
    amount: float
    carrying_rate: float


@dataclass(frozen=True)
class Opening:
    period: str
    cash: float
    equity: float
    qty: dict  # sku -> {warehouse: qty}
    value: dict  # sku -> value (USD)
    open_items: tuple


@dataclass(frozen=True)
class Period:
    name: str
    rates: dict  # currency -> (average, closing)
    purchases: tuple
    transfers: tuple
    sales: tuple
    returns: tuple
    cash: tuple
    expenses: tuple
    events: tuple


@dataclass(frozen=True)
class Company:
    seed: int
    skus: tuple
    customers: dict  # customer -> currency
    opening: Opening
    periods: tuple
    #: the rates of the opening items (the period before the first)
    opening_rates: dict = field(default_factory=dict)


def invoice_amount(sale: Sale, returned_qty: int) -> float:
    """What an invoice leaves open, in its currency: its amount less the credit for the returned units."""
    return round(round(sale.qty * sale.unit_price, 2) - round(returned_qty * sale.unit_price, 2), 2)


def _date(rng: random.Random, period: str, first: int = 1, last: int = 28) -> str:
    return f"{period}-{rng.randint(first, last):02d}"


def _event_texts(period: str, category: str) -> dict:
    return {
        "writedown": (f"Inventory write-down policy, from {period} on: at every close, each SKU with stock on hand at the "
                      f"close and no sales line in the period is written down by {WRITEDOWN_RATE:.0%} of its value before "
                      "the write-down (an expense, 'Inventory write-down'). The policy stays in force in later periods."),
        "price_change": (f"Supplier price change in {period}: purchases of category {category} SKUs cost "
                         f"{PRICE_CHANGE:.0%} more from this period on. This period's purchase invoices for category "
                         f"{category} were billed at the old prices: for each such purchase line accrue the difference "
                         f"as a payable to the same supplier, in the line's currency, document '<document>-ADJ', amount "
                         f"{PRICE_CHANGE:.0%} of the line's amount rounded to cents, and add it to that SKU's purchase cost."),
        "fx_rule": (f"FX revaluation rule, from {period} on: open payables in a foreign currency are revalued at the "
                    "period's closing rate at every close, as receivables are (until now payables stayed at the rate "
                    "they were booked at)."),
        "closure": (f"Warehouse WH-B closes at the end of {period}: after all of the period's movements, move its whole "
                    f"stock to WH-A (no transfer line records the move). The move costs {CLOSURE_FEE:.2f} USD per unit "
                    "moved, an operating expense paid in cash this period. No movements use WH-B afterwards."),
    }


def generate(seed: int) -> Company:
    """The company of ``seed`` (see the module docstring)."""
    rng = random.Random(seed)
    skus = []
    for number in range(1, 41):
        currency = rng.choice(CURRENCIES)
        base = round(rng.uniform(4, 60), 2)
        skus.append(Sku(f"SKU-{number:03d}", CATEGORIES[(number - 1) % 4], f"S-{currency}", currency, base,
                        round(base * rng.uniform(1.35, 1.8), 2)))
    customers = {f"C{n:02d}": ("USD", "USD", "EUR", "GBP")[n % 4] for n in range(1, 13)}
    rates_before = {"USD": 1.0, "EUR": round(rng.uniform(1.04, 1.12), 4), "GBP": round(rng.uniform(1.22, 1.32), 4)}

    # opening balances
    qty = {s.sku: {w: rng.randint(0, 30) for w in WAREHOUSES} for s in skus}
    value = {s.sku: round(sum(qty[s.sku].values()) * s.base_cost * rng.uniform(0.97, 1.03), 2) for s in skus}
    items = []
    for n in range(1, 7):
        customer = rng.choice(sorted(customers))
        items.append(OpenItem("AR", f"INV-{PERIOD_BEFORE}-{n:04d}", customer, customers[customer], round(rng.uniform(500, 3000), 2),
                              rates_before[customers[customer]]))
    for n in range(1, 6):
        supplier = rng.choice(sorted(SUPPLIERS))
        items.append(OpenItem("AP", f"PO-{PERIOD_BEFORE}-{n:03d}", supplier, SUPPLIERS[supplier], round(rng.uniform(800, 4000), 2),
                              rates_before[SUPPLIERS[supplier]]))
    cash = 50000.0
    net = sum(value.values()) + sum((1 if i.kind == "AR" else -1) * i.amount * i.carrying_rate for i in items)
    opening = Opening(PERIOD_BEFORE, cash, round(cash + net, 2), qty, value, tuple(items))

    # when the policy events happen
    when = {"writedown": rng.choice((2, 3)), "price_change": rng.choice((3, 4)), "fx_rule": rng.choice((2, 3, 4, 5)),
            "closure": rng.choice((4, 5))}
    price_category = rng.choice(CATEGORIES)

    stock = {s.sku: dict(qty[s.sku]) for s in skus}
    open_docs = {i.document: (i.kind, i.currency, i.amount) for i in items}
    last_close = dict(rates_before)
    periods = []
    open_warehouses = list(WAREHOUSES)
    for index, name in enumerate(PERIODS, 1):
        rates = {"USD": (1.0, 1.0)}
        for currency in ("EUR", "GBP"):
            average = round(last_close[currency] * (1 + rng.uniform(-0.02, 0.02)), 4)
            rates[currency] = (average, round(average * (1 + rng.uniform(-0.025, 0.025)), 4))
            last_close[currency] = rates[currency][1]
        events = []
        texts = _event_texts(name, price_category)
        for number, kind in enumerate(k for k in ("writedown", "price_change", "fx_rule", "closure") if when[k] == index):
            events.append(Event(f"EV-{name}-{number + 1}", kind, texts[kind], price_category if kind == "price_change" else None))
        price_up = index > when["price_change"]

        purchases = []
        for n in range(1, 26):
            sku = rng.choice(skus)
            warehouse = rng.choice(open_warehouses)
            cost = sku.base_cost / rates[sku.currency][0] * rng.uniform(0.95, 1.05)
            if price_up and sku.category == price_category:
                cost *= 1 + PRICE_CHANGE
            line = Purchase(_date(rng, name), f"PO-{name}-{n:03d}", sku.supplier, sku.currency, sku.sku, warehouse,
                            rng.randint(5, 40), round(cost, 2))
            purchases.append(line)
            stock[sku.sku][warehouse] += line.qty
            open_docs[line.document] = ("AP", line.currency, line.amount)
        price_event = [e for e in events if e.kind == "price_change"]
        if price_event:
            for line in purchases:
                if next(s for s in skus if s.sku == line.sku).category == price_category:
                    open_docs[line.document + "-ADJ"] = ("AP", line.currency, round(line.amount * PRICE_CHANGE, 2))

        transfers = []
        if len(open_warehouses) == 2:
            for _ in range(5):
                source, target = rng.sample(WAREHOUSES, 2)
                candidates = sorted(s for s in stock if stock[s][source] >= 2)
                if not candidates:
                    continue
                sku = rng.choice(candidates)
                moved = rng.randint(1, stock[sku][source] // 2)
                transfers.append(Transfer(_date(rng, name), sku, source, target, moved))
                stock[sku][source] -= moved
                stock[sku][target] += moved

        sellable = rng.sample(sorted(stock), 26)  # the other SKUs sell nothing this period
        sales = []
        for n in range(1, 46):
            options = sorted((s, w) for s in sellable for w in open_warehouses if stock[s][w] > 0)
            if not options:
                break
            sku_id, warehouse = rng.choice(options)
            sku = next(s for s in skus if s.sku == sku_id)
            customer = rng.choice(sorted(customers))
            currency = customers[customer]
            sale = Sale(_date(rng, name), f"INV-{name}-{n:04d}", customer, currency, sku_id, warehouse,
                        rng.randint(1, min(stock[sku_id][warehouse], 12)),
                        round(sku.list_price / rates[currency][0] * rng.uniform(0.97, 1.03), 2))
            sales.append(sale)
            stock[sku_id][warehouse] -= sale.qty
        returns = []
        for n, sale in enumerate(rng.sample(sales, 3), 1):
            back = rng.randint(1, sale.qty)
            returns.append(Return(_date(rng, name, int(sale.date[-2:]), 28), f"CN-{name}-{n:03d}", sale.invoice, sale.sku, sale.warehouse, back))
            stock[sale.sku][sale.warehouse] += back
        returned = {r.invoice: r.qty for r in returns}
        for sale in sales:
            open_docs[sale.invoice] = ("AR", sale.currency, invoice_amount(sale, returned.get(sale.invoice, 0)))

        cash_lines = []
        for document in sorted(open_docs):
            kind, currency, amount = open_docs[document]
            this_period = f"-{name}-" in document
            chance = (0.3 if kind == "AR" else 0.2) if this_period else 0.6
            if rng.random() < chance:
                cash_lines.append(Cash(_date(rng, name, 20 if this_period else 1), "receipt" if kind == "AR" else "payment",
                                       document, currency, round(amount, 2)))
                del open_docs[document]
        expenses = [Expense(f"{name}-01", "rent", 1800.0), Expense(f"{name}-28", "salaries", round(rng.uniform(3200, 3800), 2)),
                    Expense(_date(rng, name), "utilities", round(rng.uniform(250, 450), 2))]
        if index == when["closure"]:
            for sku in stock:
                stock[sku]["WH-A"] += stock[sku]["WH-B"]
                stock[sku]["WH-B"] = 0
            open_warehouses = ["WH-A"]
        periods.append(Period(name, rates, tuple(purchases), tuple(transfers), tuple(sales), tuple(returns),
                              tuple(sorted(cash_lines, key=lambda c: (c.date, c.document))), tuple(expenses), tuple(events)))
    return Company(seed, tuple(skus), customers, opening, tuple(periods), rates_before)
