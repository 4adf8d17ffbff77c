"""The files a workflow build generates, on disk: :func:`write_files` writes them under a folder,
:func:`file_differences` names those missing there or holding another text.

Both builds use them: ``build_referral_workflow`` (``study fsm build-referral [--check]``, the
preregistered task's files) and ``task_build`` (``study fsm build --task T``, any task's, which
re-exports them). A generated set of files is a mapping of path (relative to the folder) to text.
"""

from __future__ import annotations

from pathlib import Path


def write_files(files: dict[Path, str], root: Path) -> list[Path]:
    """Write ``files`` (relative path -> text) under ``root``; return the paths."""
    written = []
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def file_differences(files: dict[Path, str], root: Path) -> list[str]:
    """The files of ``files`` missing under ``root`` or holding another text there."""
    out = []
    for rel, text in files.items():
        path = root / rel
        if not path.exists():
            out.append(f"{path}: missing")
        elif path.read_text(encoding="utf-8") != text:
            out.append(f"{path}: differs from the generated text")
    return out
