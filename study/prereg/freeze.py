"""``study prereg freeze``: write the manifest and the freeze record.

The freeze requires ``preregistration/runtime.json`` to hold the installed runtime (written by
``study prereg runtime --write``, see ``runtime.py``), then hashes every frozen file (see
``files.py``, runtime.json included) into ``MANIFEST.sha256`` and writes
``freeze.json``: when, at which git commit, whether the tree was dirty, the manifest's own hash
and the aggregate hash of the analysis code, sealed with its own hash (see ``records.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from study import __version__
from study.paths import project_root
from study.session_io.writer import utc_now

from .errors import PreregError
from .files import (
    AMENDMENTS, FREEZE_RECORD, MANIFEST, PREREG_DIR, RECORD_FILES, RUNTIME,
    analysis_code_sha256, format_manifest, frozen_paths, hash_tree, sha256_bytes,
)
from .gitinfo import dirty_paths, head_commit
from .records import amendment_lines, seal, write_freeze_record
from .runtime import current_runtime, parse_runtime

FORMAT_VERSION = 1


def nothing_to_freeze(root: Path | None = None) -> str | None:
    """What to say when a freeze would change nothing: the preregistration is frozen, its records
    intact, and every frozen file is as the manifest in effect (the freeze and its amendments)
    holds it (``study prereg verify``'s file statuses all ``ok``). None otherwise: not frozen yet,
    or something differs (then ``freeze`` refuses, saying how to record a change)."""
    root = Path(root) if root is not None else project_root()
    if not ((root / MANIFEST).exists() or (root / FREEZE_RECORD).exists()):
        return None
    from .verify import verify

    try:
        report = verify(root)
    except PreregError:
        return None
    if not report.chain_intact or any(status != "ok" for status, _path in report.statuses):
        return None
    return (f"Nothing to freeze: the preregistration is frozen ({MANIFEST}, {len(report.amendments)} amendment(s)) "
            f"and all {len(report.statuses)} frozen files are as frozen. `study prereg verify` checks everything "
            "else (the records' history, the runtime).")


def freeze(root: Path | None = None, *, allow_dirty: bool = False, refreeze: bool = False) -> dict[str, Any]:
    """Freeze the preregistration under ``root``; return the freeze record written.

    Refuses (``PreregError``) if a freeze exists (unless ``refreeze``), if amendments exist, if
    there is nothing to freeze, or if the tree is dirty or not a git checkout (unless
    ``allow_dirty``, in which case the record says so).
    """
    root = Path(root) if root is not None else project_root()
    if amendment_lines(root):
        raise PreregError(
            f"{AMENDMENTS} already holds amendments to the freeze; a new freeze would orphan them. "
            "Keep amending with `study prereg amend` (once committed, removing them shows in "
            "`study prereg verify` for good)."
        )
    if ((root / MANIFEST).exists() or (root / FREEZE_RECORD).exists()) and not refreeze:
        raise PreregError(
            f"The preregistration is already frozen ({MANIFEST}). Record changes with "
            "`study prereg amend --reason \"why\" FILE...`; freeze anew with --refreeze only "
            "before any formal run."
        )
    if not any(path.startswith(PREREG_DIR + "/") and path != RUNTIME for path in frozen_paths(root)):
        raise PreregError(f"Nothing to freeze: {root / PREREG_DIR} holds no files.")
    runtime = root / RUNTIME
    if not runtime.is_file() or parse_runtime(runtime.read_bytes()) != current_runtime():
        raise PreregError(
            f"{RUNTIME} is {'not the installed runtime' if runtime.is_file() else 'missing'}: the freeze records the "
            "runtime it was made with. Run `study prereg runtime --write`, commit it, then freeze."
        )
    commit = head_commit(root)
    dirty = dirty_paths(root, ignore=RECORD_FILES)
    if commit is None and not allow_dirty:
        raise PreregError(
            f"{root} is not a git checkout with a commit, so the freeze cannot name the commit it "
            "froze. Commit the tree, or pass --allow-dirty to freeze anyway (recorded as "
            "git_commit null)."
        )
    if dirty and not allow_dirty:
        shown = "\n  ".join(dirty[:20]) + ("\n  …" if len(dirty) > 20 else "")
        raise PreregError(
            f"The tree has uncommitted changes, so the freeze would not match commit {commit}:\n  "
            f"{shown}\nCommit them first, or pass --allow-dirty to freeze anyway "
            "(freeze.json will record git_dirty true)."
        )
    problems = study_problems(root)
    if problems:
        raise PreregError("A study of preregistration/studies/ cannot be frozen as it is:\n  " + "\n  ".join(problems))
    hashes = hash_tree(root)
    manifest_text = format_manifest(hashes)
    (root / MANIFEST).write_text(manifest_text, encoding="utf-8", newline="\n")
    record = seal({
        "format": FORMAT_VERSION,
        "frozen_at": utc_now(),
        "git_commit": commit,
        "git_dirty": bool(dirty) or commit is None,
        "dirty_paths": dirty or [],
        "manifest": MANIFEST,
        "manifest_sha256": sha256_bytes(manifest_text.encode("utf-8")),
        "files": len(hashes),
        "analysis_code_sha256": analysis_code_sha256(hashes),
        "tool": f"study prereg freeze (sop-fidelity-study {__version__})",
    })
    write_freeze_record(root, record)
    return record


def study_problems(root: Path) -> list[str]:
    """What stops the studies of ``root``'s ``preregistration/studies/`` from being frozen: a
    folder whose name is not a study's name (``--study``'s rule), or a link; a ``study.yaml`` that
    does not name its folder's study; seeds that are not whole numbers from 1, each once. The
    builds refuse all of these (``study.families.study_files``); a folder written by hand is
    checked here."""
    from study.protocol.studies import STUDIES_DIR, STUDY_FILE, is_study_name
    from study.protocol.yaml_lines import YamlError, load_yaml, read_yaml_text

    folder = root / PREREG_DIR / STUDIES_DIR
    if not folder.is_dir():
        return []
    problems = []
    for entry in sorted(folder.iterdir()):
        rel = f"{PREREG_DIR}/{STUDIES_DIR}/{entry.name}"
        if entry.is_symlink():
            problems.append(f"{ascii(rel)[1:-1]} is a link: a study's folder is a folder of the preregistration")
            continue
        if not entry.is_dir():
            continue
        if not is_study_name(entry.name):
            problems.append(f"{ascii(rel)[1:-1]}: {ascii(entry.name)} is not a study's name (lower-case letters, digits "
                            "and dashes, 1-41 characters)")
            continue
        try:
            raw = load_yaml(read_yaml_text(entry / STUDY_FILE)) if (entry / STUDY_FILE).is_file() else None
        except (YamlError, OSError, UnicodeDecodeError) as exc:
            problems.append(f"{rel}/{STUDY_FILE} cannot be read: {exc}")
            continue
        if not isinstance(raw, dict):
            continue
        if raw.get("study", entry.name) != entry.name:
            problems.append(f"{rel}/{STUDY_FILE} names study {raw.get('study')!r}, not its folder's {entry.name!r}")
        seeds = (raw.get("params") or {}).get("seeds") if isinstance(raw.get("params"), dict) else None
        if seeds is not None:
            ok = isinstance(seeds, list) and seeds and all(
                isinstance(s, int) and not isinstance(s, bool) and s >= 1 for s in seeds) and len(set(seeds)) == len(seeds)
            if not ok:
                problems.append(f"{rel}/{STUDY_FILE}: params.seeds {seeds!r} are not seeds (whole numbers from 1, each "
                                "once, at least one)")
    return problems
