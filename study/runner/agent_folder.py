"""The folders the agent's CLI works in: outside the session folder, named by no model, condition,
seed or task.

A CLI puts where it runs in the model's context (Claude Code: its system prompt's working
directory and the memory folder under its HOME; Codex CLI: the ``<environment_context>``'s
``cwd``), so a working folder inside the session folder (``sessions/<study>/<model>/<condition>/
<unit>/work``) would tell the model its condition and its model. Each session therefore gets an
agent folder ``<sessions>/.agents/<id>/`` (``AGENTS_FOLDER``; ``<id>`` random) holding the CLI's
HOME (``home/``), its working folder (``work/``) and what its family lays out for the agent (a
workspace run's ``workspace/`` and, beside it, ``checks/``). The session folder links to each
(``home -> ../../../../.agents/<id>/home``), so it keeps its layout and every reader (``study
status``, the viewer, the scorer) finds them there while the session runs. The same folder
serves the whole session: a resumed CLI session (the -loop conditions, ``codex exec resume``)
finds its HOME and working folder where it left them, and Codex's trust entry names it.

When the session ends, :func:`settle` moves each into the session folder in place of its link,
makes the links inside them that led out of them lead to the same files again (Claude Code's
transcript, kept in the session folder and linked back into its HOME) and removes the agent
folder: a finished session's folder is self-contained, as before. A runner killed mid-session
leaves the links and the agent folder; ``--rerun-voided`` settles such an attempt before moving
it aside (``voiding.archive_attempt``), so the attempt keeps its files.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from study.session_io.folders import AGENTS_FOLDER

#: The characters of an agent folder's id (hex): random, naming nothing of the session.
ID_BYTES = 6


@dataclass(frozen=True)
class AgentFolder:
    """One session's agent folder (``path``), with the CLI's HOME and working folder in it."""

    path: Path

    @property
    def home(self) -> Path:
        return self.path / "home"

    @property
    def work(self) -> Path:
        return self.path / "work"

    def link(self, session_dir: Path) -> None:
        """Link each folder of the agent folder from the session folder (those not linked yet)."""
        for entry in sorted(self.path.iterdir()):
            place = Path(session_dir) / entry.name
            if not place.is_symlink() and not place.exists():
                place.symlink_to(os.path.relpath(entry, session_dir))


def sessions_root(prepared: Any) -> Path:
    """The sessions folder a prepared session's folder is under (``--sessions``, else the project's)."""
    from study.paths import sessions_dir

    out_root = prepared.spec.out_root
    return Path(out_root).absolute() if out_root is not None else sessions_dir()


def open_agent_folder(prepared: Any) -> AgentFolder:
    """A new agent folder for a prepared session, with its ``home/`` and ``work/`` made."""
    root = sessions_root(prepared) / AGENTS_FOLDER
    while True:
        path = root / secrets.token_hex(ID_BYTES)
        try:
            path.mkdir(parents=True)
        except FileExistsError:
            continue
        break
    folder = AgentFolder(path)
    folder.home.mkdir()
    folder.work.mkdir()
    return folder


def _linked(session_dir: Path) -> dict[Path, Path]:
    """The session folder's links into an agent folder: link -> the folder it leads to."""
    out = {}
    try:
        entries = sorted(Path(session_dir).iterdir())
    except OSError:
        return out
    for entry in entries:
        if not entry.is_symlink():
            continue
        target = Path(os.path.normpath(os.path.join(session_dir, os.readlink(entry))))
        if target.parent.parent.name == AGENTS_FOLDER:
            out[entry] = target
    return out


def settle(session_dir: Path) -> list[str]:
    """Move each folder the session folder links to in an agent folder into the session folder, in
    place of its link (see the module docstring); remove the agent folder once empty. Returns what
    could not be moved (left linked, as it was: nothing is lost)."""
    session_dir = Path(session_dir)
    linked = _linked(session_dir)
    moved = {target: place for place, target in linked.items()}

    def new_place(path: str) -> str:
        for target, place in moved.items():
            if path == str(target) or path.startswith(str(target) + os.sep):
                return str(place) + path[len(str(target)):]
        return path

    left = []
    agents = set()
    for place, target in linked.items():
        agents.add(target.parent)
        if not target.is_dir():
            continue
        inner = _links_out(target)
        try:
            place.unlink()
            os.replace(target, place)
        except OSError as exc:
            if not place.is_symlink() and not place.exists():
                place.symlink_to(os.path.relpath(target, session_dir))
            left.append(f"{target}: {exc}")
            continue
        for link, destination in inner:      # a link that led out of the moved folder leads there again
            at = Path(new_place(str(link)))
            at.unlink()
            at.symlink_to(os.path.relpath(new_place(destination), at.parent))
    for agent in agents:              # the agent folder, then .agents/ once no other session's is in it
        for folder in (agent, agent.parent):
            try:
                folder.rmdir()
            except OSError:
                break
    return left


def _links_out(folder: Path) -> list[tuple[Path, str]]:
    """The relative links under ``folder`` that lead out of it: (the link, where it leads)."""
    out = []
    for parent, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(parent, name)
            if not os.path.islink(path):
                continue
            text = os.readlink(path)
            if os.path.isabs(text):
                continue
            destination = os.path.normpath(os.path.join(parent, text))
            if not (destination == str(folder) or destination.startswith(str(folder) + os.sep)):
                out.append((Path(path), destination))
    return out
