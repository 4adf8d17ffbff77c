"""Vendor SOP-Bench's task folders byte for byte and print each one's sha256 table.

    PYTHONPATH=. python scripts/vendor_sopbench.py GIT_DIR [--write]

GIT_DIR is a clone (or bare mirror) of amazon-science/SOP-Bench. With --write, every task folder
of ``src/amazon_sop_bench/benchmarks/data/`` at commit 2fdce4c5 except referral_abuse_detection_v2
(vendored earlier at sopbench_tools/data/referral_abuse_detection_v2) is extracted with
``git archive`` into sopbench_tools/data/sopbench/<task>/. The script then prints, per task, the
``files:`` block its manifest carries (sopbench_tools/tasks/manifests/<task>.yaml); a folder is
hashed as one entry ``name/`` (see ``tasks.manifest.tree_sha256``).
"""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
from pathlib import Path

from sopbench_tools.tasks.manifest import sha256_file, tree_sha256

COMMIT = "2fdce4c57e6b02b725d5437ec079c142cffd8e07"
UPSTREAM_DIR = "src/amazon_sop_bench/benchmarks/data"
OUT = Path(__file__).resolve().parent.parent / "sopbench_tools" / "data" / "sopbench"
KEPT_ELSEWHERE = {"referral_abuse_detection_v2"}


def task_names(git_dir: str) -> list[str]:
    listing = subprocess.run(["git", "-C", git_dir, "ls-tree", "--name-only", f"{COMMIT}:{UPSTREAM_DIR}"],
                             check=True, capture_output=True, text=True).stdout.split()
    return sorted(name for name in listing if name not in KEPT_ELSEWHERE)


def extract(git_dir: str, name: str) -> None:
    archive = subprocess.run(["git", "-C", git_dir, "archive", COMMIT, f"{UPSTREAM_DIR}/{name}"],
                             check=True, capture_output=True).stdout
    prefix = f"{UPSTREAM_DIR}/"
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            if member.isfile():
                target = OUT / member.name[len(prefix):]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(tar.extractfile(member).read())


def files_block(folder: Path) -> str:
    lines = ["files:"]
    for path in sorted(folder.iterdir()):
        digest = tree_sha256(path) if path.is_dir() else sha256_file(path)
        lines.append(f"  {path.name}{'/' if path.is_dir() else ''}: {digest}")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    git_dir = argv[0]
    for name in task_names(git_dir):
        if "--write" in argv:
            extract(git_dir, name)
        print(f"# {name}\n{files_block(OUT / name)}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
