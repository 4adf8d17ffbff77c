"""Run the official harness's ``run_evaluation.main`` on a task repo, its containers without network.

``grading.py`` starts this as a process of its own in the grading's folder (the harness writes
its ``logs/`` relative to the working directory, sets the open-file limit of its process and
prints progress): ``python -m study.families.swebench.harness_entry --task-repo DIR
--predictions FILE --run-id ID --instance ID [--timeout S] [--network none|default]``, or
``--dataset EXPORT`` instead of ``--task-repo`` (SWE-bench Verified from a local export, graded on
the harness's own images).

Two things are added to the harness, both to the evaluation container it creates with docker-py's
``containers.create`` (it offers no option for either), by wrapping ``ContainerCollection.create``
rather than changing the harness:

- ``network_mode="none"``: the tests run without network (the image builds need none either: an
  instance image only clones a bundle FROM the local base image);
- ``init=True``: docker's init runs as the container's process 1. The harness's container runs
  ``tail -f /dev/null``, which as process 1 ignores SIGTERM, so its ``docker stop --time=15``
  waited the full 15 s on every grading (measured: 16.9 s a run without, ~2 s with).

Everything else, building, patching, running eval.sh, grading and reporting, is the harness's own.
"""

from __future__ import annotations

import argparse
import functools
import sys


def _container_options(network: bool) -> None:
    from docker.models.containers import ContainerCollection

    create = ContainerCollection.create

    @functools.wraps(create)
    def create_with_options(self, image, command=None, **kwargs):
        if not network:
            kwargs.setdefault("network_mode", "none")
        kwargs.setdefault("init", True)
        return create(self, image, command, **kwargs)

    ContainerCollection.create = create_with_options


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="harness_entry")
    parser.add_argument("--task-repo", default=None)
    parser.add_argument("--predictions", required=True)
    parser.add_argument("--run-id", required=True)
    parser.add_argument("--instance", action="append", required=True)
    parser.add_argument("--timeout", type=int, default=900)
    parser.add_argument("--dataset", default=None,
                        help="the dataset's name in a task repo (default study/swebench-fixtures), or without "
                             "--task-repo a local export of a SWE-bench dataset (.jsonl, .json, .parquet)")
    parser.add_argument("--network", choices=("none", "default"), default="none")
    args = parser.parse_args(argv)
    _container_options(network=args.network == "default")
    from swebench.harness import run_evaluation

    if args.task_repo is None and args.dataset is None:
        parser.error("give --task-repo or --dataset")
    dataset = args.dataset or "study/swebench-fixtures"
    run_evaluation.main(dataset_name=dataset, split="test", instance_ids=args.instance,
                        predictions_path=args.predictions, max_workers=1, open_file_limit=4096,
                        run_id=args.run_id, timeout=args.timeout, rewrite_reports=False, modal=False,
                        report_dir=".", task_repo=args.task_repo)
    return 0


if __name__ == "__main__":
    sys.exit(main())
