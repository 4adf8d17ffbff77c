"""Seeded account (item) orders, per task.

The order of seed ``s`` is the task's item ids (the referral study's 200 account ids) sorted by
``sha256(f"{s}:{item_id}")``: the same on every platform and library version, and checkable by
hand. Every condition of a seed processes the items in this order. The project's frozen orders
are orders of the project's task (``sopbench_tools.tasks.project_task_source``: the referral study's, or the task of
a project made by ``study new``); another task's sessions (exploratory) use the computed order.

The orders of the planned seeds are frozen in ``preregistration/orders/seed-<s>.txt``: those files,
not a fresh computation, are the registered orders, so a session of a planned seed follows its file
(``order_for_seed``; ``computed_order`` is the formula itself, which ``study orders --write`` uses and a
test checks the files against). A seed without a frozen order is unplanned: it may run only
exploratory sessions (``study.runner.preflight``); a replacement seed gets its order frozen by an
amendment (plan, section 7).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from study.errors import StudyError
from study.protocol.preregistered import DEVELOPMENT_SEED

from .dataset import load_task

#: The study's seeds: 1 is for development only (``DEVELOPMENT_SEED``); 2–9 are the main seeds;
#: 13–15 the seeds of the comparison with a larger model (paper, appendix A). Extend here and re-run
#: ``study orders --write`` (then amend the preregistration).
STUDY_SEEDS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 14, 15)


def order_key(seed: int, account_id: str) -> str:
    return hashlib.sha256(f"{seed}:{account_id}".encode("utf-8")).hexdigest()


class OrderError(StudyError, ValueError):
    """A frozen order file that is not an order of the batch's accounts."""


def project_item_ids() -> list[str]:
    """The item ids of the project's task (the referral study's 200 account ids by default)."""
    from .tasks import PREREGISTERED_TASK, project_task_source, resolve_task

    if project_task_source() == PREREGISTERED_TASK:
        return load_task().account_ids
    return resolve_task(None).item_ids


def _plural() -> str:
    """What the project's task calls its items ("accounts" for the referral study)."""
    from .tasks import PREREGISTERED_TASK, project_task_source, resolve_task

    return "accounts" if project_task_source() == PREREGISTERED_TASK else resolve_task(None).item.plural


def computed_order(seed: int, account_ids: list[str] | None = None) -> list[str]:
    """The item ids (default: the project's task's) sorted by ``sha256(f"{seed}:{item_id}")``
    (the formula of the contract)."""
    ids = list(account_ids) if account_ids is not None else project_item_ids()
    return sorted(ids, key=lambda a: order_key(seed, a))


def order_for_task(seed: int, task) -> list[str]:
    """The order of ``seed`` for ``task``: the frozen or computed order when it is the project's
    task (``order_for_seed``), the computed order of its items otherwise."""
    from .tasks import project_task_name

    if task is None or task.name == project_task_name():
        return order_for_seed(seed)
    return computed_order(seed, task.item_ids)


def order_for_seed(seed: int, account_ids: list[str] | None = None) -> list[str]:
    """The account ids in the order of ``seed``: its frozen order when the seed has one (and no other
    ids are given), else the computed one."""
    if account_ids is None:
        frozen = frozen_order(seed)
        if frozen is not None:
            return frozen
    return computed_order(seed, account_ids)


def order_file_name(seed: int) -> str:
    return f"seed-{seed}.txt"


def orders_dir() -> Path:
    """``preregistration/orders/`` of the project in use (``STUDY_ROOT`` respected)."""
    from study.paths import prereg_dir

    return prereg_dir() / "orders"


def frozen_seeds(directory: Path | None = None) -> tuple[int, ...]:
    """The seeds with a frozen order (``seed-<s>.txt`` in ``directory``, default ``orders_dir()``), sorted."""
    directory = Path(directory) if directory is not None else orders_dir()
    seeds = []
    for path in directory.glob("seed-*.txt"):
        number = path.stem.removeprefix("seed-")
        if number.isdigit() and path.name == order_file_name(int(number)):
            seeds.append(int(number))
    return tuple(sorted(seeds))


def frozen_order(seed: int, directory: Path | None = None) -> list[str] | None:
    """The frozen order of ``seed``, or None when the seed has no order file. Raises OrderError when
    the file is not an order of the task's accounts (each id exactly once)."""
    directory = Path(directory) if directory is not None else orders_dir()
    path = directory / order_file_name(seed)
    if not path.is_file():
        return None
    order = read_order_file(path)
    ids = project_item_ids()
    if sorted(order) != sorted(ids):
        raise OrderError(f"{path} is not an order of the {len(ids)} {_plural()} (each id once); "
                         "restore it from the repository (git checkout -- <file>)")
    return order


def describe_seeds(seeds: tuple[int, ...]) -> str:
    """``(1, 2, 3, 5, 13, 14)`` -> ``1-3, 5, 13-14``."""
    runs: list[list[int]] = []
    for seed in seeds:
        if runs and seed == runs[-1][-1] + 1:
            runs[-1].append(seed)
        else:
            runs.append([seed])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs) or "none"


def write_orders(out_dir: Path, seeds: tuple[int, ...] = STUDY_SEEDS) -> list[Path]:
    """Write one file per seed (one id a line) into ``out_dir``; return the paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for seed in seeds:
        path = out_dir / order_file_name(seed)
        path.write_text("\n".join(computed_order(seed)) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def read_order_file(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
