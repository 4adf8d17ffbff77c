"""A family's preregistered study as its builder makes it: the files of
``preregistration/studies/<name>/`` (relative path -> text), written, compared with the folder, and
the family's ``build [--check]`` command around both (``study <family's command> build``: its
registry entry names the command). The build's text is the file's text byte for byte (``\\n`` line
ends on every platform), so a frozen study stays the builder's own.

Every input of a build is checked before anything is written or read (issue 50), by one rule for
every family (``study_folder``, ``check_seeds``); bad input is one line and exit 2
(``BuildInputError``, ``cli_errors``), and nothing is written:

- the study's name is a name (``--study``'s rule, ``study.protocol.studies.is_study_name``), never
  a path and never ``main``;
- its folder lies in ``preregistration/studies/`` (no link on the way) and holds either no study
  yet or this very builder's (the same family, and the same kind: a domain's, a protocol's); an
  existing study of another family or kind is never overwritten (the error says which exists);
- seeds are whole numbers from 1, each once, at least one;
- ``--check`` reads only the study's own folder, and of it only regular files (a link or special
  file there is reported, never followed or read).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import click

from study.errors import StudyError

#: The largest seed a study may preregister (``study run``'s rule: ``preflight.MAX_SEED``).
MAX_SEED = 1_000_000
#: The most bytes ``--check`` reads of one file of a study (the largest, a task order, is a few KB).
CHECK_CAP = 16 * 2**20


class BuildInputError(StudyError, ValueError):
    """An input of a study build that is refused before anything is written (one line)."""


def study_folder(name: object, family: str, kind: tuple[str, object] | None = None) -> Path:
    """The folder of the study ``name`` of ``family`` in ``preregistration/studies/``, after every
    check of the module docstring; ``kind``: (the ``params`` key, its value) that tells this
    builder's studies apart within the family (a benchmark's domain, a protocol)."""
    from study.paths import prereg_dir
    from study.protocol.studies import STUDIES_DIR, STUDY_FILE, StudyDefinitionError, is_study_name, load_study

    if not is_study_name(name):
        text = str(name)
        shown = ascii(text[:41]) + (f"… ({len(text)} characters)" if len(text) > 41 else "")
        raise BuildInputError(f"--name {shown} is not a study name: give lower-case letters, digits and dashes "
                              "(1-41 characters, not beginning with a dash, not 'main'), e.g. my-study-2")
    assert isinstance(name, str)
    studies = prereg_dir() / STUDIES_DIR
    for place in (prereg_dir(), studies, studies / name):
        if place.is_symlink():
            raise BuildInputError(f"{place} is a link: a study is written only into preregistration/studies/ itself; "
                                  "replace the link with a folder")
    root = studies / name
    base = Path(os.path.realpath(studies))
    if Path(os.path.realpath(root)).parent != base:
        raise BuildInputError(f"{root} does not lie in {studies}: nothing is written outside it")
    if root.exists() and not root.is_dir():
        raise BuildInputError(f"{root} exists and is not a folder: choose another --name")
    if root.is_dir():
        if not (root / STUDY_FILE).is_file() or (root / STUDY_FILE).is_symlink():
            if any(root.iterdir()):
                raise BuildInputError(f"{root} exists and holds no {STUDY_FILE}: it is no study's folder; choose "
                                      "another --name")
            return root
        try:
            existing = load_study(name)
        except StudyDefinitionError as exc:
            raise BuildInputError(f"{str(exc).splitlines()[0]} (a study of that name exists: choose another --name, "
                                  "or restore it)") from None
        if existing.family != family:
            raise BuildInputError(f"study {name} exists and is of the {existing.family} family, not {family}: choose "
                                  "another --name (an existing study is never overwritten by another family's build)")
        if kind is not None and existing.params.get(kind[0]) != kind[1]:
            raise BuildInputError(f"study {name} exists and is a study of {kind[0]} {existing.params.get(kind[0])!r}, not "
                                  f"{kind[1]!r}: choose another --name (an existing study is never overwritten by another "
                                  "kind's build)")
    return root


def check_seeds(text: str | None) -> list[int] | None:
    """``--seeds`` of a build (``1,2``; None: the builder's default): whole numbers from 1 to
    ``MAX_SEED`` in ASCII digits, each once, at least one."""
    if text is None:
        return None
    if not text.strip(" "):
        raise BuildInputError("--seeds names no seed: give whole numbers from 1, e.g. --seeds 1,2")
    parts = [p.strip(" ") for p in text.split(",")]
    seeds = []
    for part in parts:
        if not part.isascii() or not part.isdigit():
            raise BuildInputError(f"--seeds {ascii(text)}: {ascii(part)} is not a seed (give whole numbers from 1, "
                                  "e.g. --seeds 1,2)")
        seeds.append(int(part))
    if not seeds:
        raise BuildInputError("--seeds names no seed: give whole numbers from 1, e.g. --seeds 1,2")
    low = [s for s in seeds if not 1 <= s <= MAX_SEED]
    if low:
        raise BuildInputError(f"--seeds {text}: seed {low[0]} is not a seed (whole numbers from 1 to {MAX_SEED:,})")
    twice = sorted({s for s in seeds if seeds.count(s) > 1})
    if twice:
        raise BuildInputError(f"--seeds {text} names seed(s) {', '.join(map(str, twice))} more than once: give each "
                              "seed once")
    return seeds


def write_study(root: Path, files: dict[str, str]) -> list[Path]:
    """Write ``files`` under ``root`` (the study's folder); return the paths written."""
    written = []
    for rel, text in files.items():
        path = Path(root) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
        written.append(path)
    return written


def _regular_files(root: Path) -> tuple[set[str], list[str]]:
    """The regular files below ``root`` (relative), and the entries that are not (links, special
    files), never followed."""
    files, odd = set(), []
    for where, dirs, names in os.walk(root):
        for name in list(dirs):
            if os.path.islink(os.path.join(where, name)):
                dirs.remove(name)
                odd.append(os.path.relpath(os.path.join(where, name), root))
        for name in names:
            path = os.path.join(where, name)
            rel = Path(os.path.relpath(path, root)).as_posix()
            (files.add(rel) if stat.S_ISREG(os.lstat(path).st_mode) else odd.append(rel))
    return files, odd


def differences(root: Path, files: dict[str, str]) -> list[str]:
    """The files of the study's folder that are not the builder's bytes (missing, changed, added;
    a link or special file is reported as such, never followed or read)."""
    from study.session_io.safe_files import read_capped

    root = Path(root)
    found, odd = _regular_files(root) if root.is_dir() and not root.is_symlink() else (set(), [])
    out = [f"missing {rel}" for rel in sorted(set(files) - found)]
    for rel in sorted(set(files) & found):
        try:
            same = read_capped(root / rel, within=root, max_bytes=CHECK_CAP).decode("utf-8") == files[rel]
        except (OSError, UnicodeDecodeError):
            same = False
        if not same:
            out.append(f"changed {rel}")
    out += [f"added {rel}" for rel in sorted(found - set(files))]
    out += [f"not a regular file: {rel} (a link or special file; never read)" for rel in sorted(odd)]
    return out


def build_or_check(root: Path, files: dict[str, str], *, check: bool, doc: str) -> None:
    """A family's ``build`` command: write the study (and say how to freeze it), or with ``check``
    write nothing and exit 1 naming each file that is not the builder's. ``root`` comes from
    ``study_folder`` (every input checked)."""
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


def checked_build(inputs: Callable[[], tuple[Path, Callable[[], dict[str, str]]]], *, check: bool, doc: str) -> None:
    """Run a family's build command: ``inputs()`` checks every input and gives the study's folder
    and the maker of its files; a ``BuildInputError`` (or the builder's ``ValueError`` for an input
    it refuses) is one line and exit 2, before anything is written."""
    from study.cli.vocabulary import UsageError

    try:
        root, make = inputs()
        files = make()
    except (BuildInputError, ValueError) as exc:
        raise UsageError(" ".join(str(exc).split())) from None
    build_or_check(root, files, check=check, doc=doc)


__all__ = ["BuildInputError", "build_or_check", "check_seeds", "checked_build", "differences",
           "study_folder", "write_study"]
