"""SWE-bench Verified here: its vendored metadata, and what a real session of it needs at run time.

- :func:`metadata`: the 500 instances' ``instance_id``, ``repo``, ``difficulty``, ``version`` and
  ``base_commit`` (``data/verified.jsonl``, provenance in ``data/PROVENANCE.md``): enough to draw
  Easy-100 offline (``selection.easy_100``) and to check an export against.
- At run time a session needs the instance's full row (its problem statement; for the grading the
  gold patch, the test patch and the test names) from a local export of the dataset, named by
  ``$STUDY_SWEBENCH_DATASET`` (``.jsonl``, ``.json`` or ``.parquet``; how to make one:
  ``selection.py``, docs/swebench.md), and the harness's published image of the instance
  (``swebench/sweb.eval.x86_64.<id>:latest``, ``docker pull`` it first). :func:`unit_problem`
  says in one line what is missing, before a real run starts.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

HERE = Path(__file__).resolve().parent
METADATA = HERE / "data" / "verified.jsonl"
#: The sha256 of ``data/verified.jsonl`` (data/PROVENANCE.md).
METADATA_SHA256 = "c8589be2a3a8d835aae4e907d5e866332938f24055cf1bcac001fea47dc5def5"
DATASET_ENV = "STUDY_SWEBENCH_DATASET"
DATASET = "SWE-bench/SWE-bench_Verified"
EXPORT_COMMAND = ("python -c \"from datasets import load_dataset; load_dataset('SWE-bench/SWE-bench_Verified', "
                  "split='test').to_json('swe-bench-verified.jsonl')\"")


@functools.lru_cache(maxsize=1)
def metadata() -> tuple[dict, ...]:
    """The vendored metadata's rows, in ``instance_id`` order."""
    return tuple(json.loads(line) for line in METADATA.read_text(encoding="utf-8").splitlines() if line.strip())


def metadata_of(instance_id: str) -> dict | None:
    return next((r for r in metadata() if r["instance_id"] == instance_id), None)


def export_path() -> Path | None:
    """The local export ``$STUDY_SWEBENCH_DATASET`` names, or None."""
    value = os.environ.get(DATASET_ENV)
    return Path(value).expanduser() if value else None


@functools.lru_cache(maxsize=4)
def _rows(path: str, mtime: float) -> dict[str, dict]:
    from .selection import load_rows

    return {r["instance_id"]: r for r in load_rows(Path(path))}


def row(instance_id: str) -> dict:
    """The export's row of ``instance_id`` (ValueError, one line, when there is none)."""
    problem = export_problem()
    if problem is not None:
        raise ValueError(problem)
    path = export_path()
    assert path is not None
    found = _rows(str(path), path.stat().st_mtime).get(instance_id)
    if found is None:
        raise ValueError(f"{path} has no row of {instance_id}: export the whole test split of {DATASET} "
                         f"({EXPORT_COMMAND})")
    return found


def export_problem() -> str | None:
    path = export_path()
    if path is None:
        return (f"a session of SWE-bench Verified needs a local export of {DATASET}: make one on a machine with network "
                f"access ({EXPORT_COMMAND}) and set {DATASET_ENV} to its path (docs/swebench.md)")
    if not path.is_file():
        return f"{DATASET_ENV} names {path}, which is no file: set it to the export of {DATASET}"
    if path.suffix not in (".jsonl", ".json", ".parquet"):
        return f"{DATASET_ENV} names {path}: the export must be a .jsonl, .json or .parquet file"
    return None


def unit_problem(instance_id: str) -> str | None:
    """What a real session of ``instance_id`` lacks here (the export, its row, the image), or None."""
    from .docker_env import docker
    from .task_repo import image_name

    try:
        found = row(instance_id)
    except ValueError as exc:
        return str(exc)
    frozen = metadata_of(instance_id)
    if frozen is not None and found.get("base_commit") != frozen["base_commit"]:
        return (f"the export's row of {instance_id} has base commit {found.get('base_commit')}, the study's metadata "
                f"{frozen['base_commit']}: export {DATASET} again (its test split)")
    image = image_name(instance_id)
    if docker("image", "inspect", image, check=False, timeout=60).returncode != 0:
        return f"the harness's image of {instance_id} is not here: docker pull {image}"
    return None
