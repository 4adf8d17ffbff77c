"""A family's preregistered study as its builder makes it: the files of
``preregistration/studies/<name>/`` (relative path -> text), written, compared with the folder, and
the family's ``build [--check]`` command around both (``study <family's command> build``: its
registry entry names the command).
The build's text is the file's text byte for byte (``\\n`` line ends on every platform), so a
frozen study stays the builder's own."""

from __future__ import annotations

from pathlib import Path

import click


def write_study(root: Path, files: dict[str, str]) -> list[Path]:
    """Write ``files`` under ``root`` (the study's folder); return the paths written."""
    written = []
    for rel, text in files.items():
        path = Path(root) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
        written.append(path)
    return written


def differences(root: Path, files: dict[str, str]) -> list[str]:
    """The files of the study's folder that are not the builder's bytes (missing, changed, added)."""
    root = Path(root)
    found = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} if root.is_dir() else set()
    out = [f"missing {rel}" for rel in sorted(set(files) - found)]
    out += [f"changed {rel}" for rel in sorted(set(files) & found)
            if (root / rel).read_text(encoding="utf-8") != files[rel]]
    out += [f"added {rel}" for rel in sorted(found - set(files))]
    return out


def build_or_check(root: Path, files: dict[str, str], *, check: bool, doc: str) -> None:
    """A family's ``build`` command: write the study (and say how to freeze it), or with ``check``
    write nothing and exit 1 naming each file that is not the builder's."""
    if check:
        found = differences(root, files)
        if found:
            for line in found:
                click.echo(line)
            raise SystemExit(1)
        click.echo(f"{root}: up to date")
        return
    written = write_study(root, files)
    click.echo(f"wrote {len(written)} files to {root}; freeze them with `study prereg freeze` ({doc})")
