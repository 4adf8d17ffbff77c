"""``study prereg add-seed N``: freeze the order of a new seed in one step.

A replacement seed (plan, section 7) needs its order frozen by an amendment. Writing the file
with the shell (``study orders --seed N > preregistration/orders/seed-N.txt``) makes the shell
create the empty file before the command runs, which then reads that empty file as the seed's
frozen order. This writes the order from its formula (``computed_order``, never from the file it
is about to write), checks it, and records the amendment; on a refusal nothing stays behind.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .amend import amend, check_reason
from .errors import PreregError
from .files import PREREG_DIR


def add_seed(seed: int, reason: str, root: Path) -> dict[str, Any]:
    """Write ``preregistration/orders/seed-<seed>.txt`` and record its amendment; return the entry."""
    from sopbench_tools.orders import computed_order, order_file_name

    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 1:
        raise PreregError(f"a seed is a whole number >= 1, not {seed!r}")
    check_reason(reason)   # before anything is written
    rel = f"{PREREG_DIR}/orders/{order_file_name(seed)}"
    path = Path(root) / rel
    if os.path.lexists(path):
        raise PreregError(f"{rel} already exists: seed {seed} has an order (`study prereg verify` shows whether "
                          "it is frozen); to replace a damaged one, restore it with git checkout -- " + rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(computed_order(seed)) + "\n"
    with open(path, "x", encoding="utf-8") as fh:
        fh.write(text)
    try:
        return amend([path], reason, root)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
