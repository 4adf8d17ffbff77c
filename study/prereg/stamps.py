"""RFC 3161 timestamps of the preregistration: ``study prereg stamp`` and their offline check.

A stamp is a Time-Stamping Authority's signed statement that the preregistration in effect
existed by a given time. What it covers is the **anchor**: the effective manifest hash, the
``manifest_sha256`` that ``study prereg show --anchor`` prints and every session records, i.e. the
``sha256`` of the last record of the chain (``freeze.json`` when there is no amendment, else the last
line of ``amendments.jsonl``). The bytes hashed are that record's canonical form
(``records.canonical_bytes``: the JSON object without its ``sha256`` field, sorted keys, no spaces,
UTF-8), so the token's SHA-256 message imprint *is* the anchor; through the record's
``prev_sha256`` (an amendment) or ``manifest_sha256`` (the freeze) it covers the whole chain up to
that record and the manifest it starts from.

``stamp()`` asks a TSA (``tsa.py``) and keeps three files under ``preregistration/stamps/``,
numbered 1, 2, ... and never overwritten:

- ``<n>.tsr``: the TSA's response as received (DER: status and token), what ``openssl ts -verify
  -in`` reads;
- ``<n>.pem``: the certificates the token carries (its signer first), as ``-untrusted`` wants them;
- ``<n>.json``: the record (``anchor``, the chain record stamped, the TSA's URL and subject, the time
  the token states, its serial and nonce), written last.

They are records of the freeze, like ``freeze.json``, not frozen files (``files.stamp_file``).
``check_stamps()`` verifies every stored token offline and names the record of the chain it
covers: the one in effect, an earlier one (said so), or none (refused).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from study.paths import project_root

from .chain import Link
from .errors import PreregError
from .files import AMENDMENTS, FREEZE_RECORD, STAMPS_DIR, sha256_bytes, stamp_file
from .gitinfo import committed_bytes
from .records import canonical_bytes
from .tsa import Token, TokenRefused, Trust, TsaError, ask, check, imprint_of, read, request_over, time_text
from .verify import Report, verify

#: The suffixes of one stamp's files, in the order ``stamp()`` writes them.
SUFFIXES = ("tsr", "pem", "json")


@dataclass
class StampResult:
    """The check of one stored stamp: ``problems`` refuse it, ``notes`` only inform."""

    n: int
    token: Token | None = None
    #: The record of the chain the token covers (None if it covers none).
    link: Link | None = None
    #: The commit that record names (``git_commit``: the freeze's, or HEAD when it was amended).
    commit: str | None = None
    #: The record in effect (the chain's last), to say whether ``link`` is it.
    in_effect: Link | None = None
    trust: str = ""
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and self.token is not None

    def summary(self) -> str:
        """``stamped <time> by <TSA>; covers the preregistration as frozen at <commit>/<anchor>: ...``"""
        token, link = self.token, self.link
        if token is None or link is None:
            return "refused"
        what = "as frozen" if link.label == "the freeze" else f"as amended by {link.label}"
        commit = (self.commit or "no commit")[:12]
        if self.in_effect is not None and link.sha256 == self.in_effect.sha256:
            state = "the state in effect"
        else:
            now = f"{self.in_effect.label}, {self.in_effect.sha256}" if self.in_effect else "unknown"
            state = f"an EARLIER state of the chain ({link.label}), not the one in effect ({now})"
        return (f"stamped {time_text(token.time)} by {token.tsa}; covers the preregistration "
                f"{what} at {commit}/{link.sha256}: {state}")


@dataclass
class StampCheck:
    """Every stored stamp checked (``results``, in number order) and what is worth noting."""

    results: list[StampResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        return [problem for result in self.results for problem in result.problems]

    @property
    def ok(self) -> bool:
        return not self.problems


def stamp(tsa_url: str, ca_file: Path | None = None, root: Path | None = None) -> tuple[int, dict[str, Any], Token]:
    """Timestamp the anchor of the preregistration in effect at the TSA ``tsa_url``; returns the
    stamp's number, its record and the token.

    The token is checked before anything is written (against ``ca_file``, or else the certificates
    it carries): a TSA that cannot be reached, answers no token or a token that does not verify
    raises ``TsaError`` and writes nothing. A broken chain or a rewritten history raises
    ``PreregError``: there is no anchor to stamp.
    """
    root = Path(root) if root is not None else project_root()
    where = urlparse(tsa_url)
    if where.scheme not in ("http", "https") or not where.netloc:
        raise PreregError(f"--tsa {tsa_url!r} is not an http:// or https:// URL; give the Time-Stamping "
                          "Authority's URL, e.g. --tsa https://freetsa.org/tsr")
    trust = Trust.from_ca_file(ca_file)
    report = verify(root)
    if not report.chain_intact or not report.links:
        raise PreregError("The chain of records is broken, so there is no anchor to stamp; run `study prereg verify`.")
    if report.history.problems:
        raise PreregError("The records' git history shows a rewrite, so their anchor is not one to stamp; "
                          "run `study prereg verify`.")
    index = len(report.links) - 1
    record = report.freeze if index == 0 else report.amendments[index - 1]
    data = canonical_bytes(record)
    anchor = sha256_bytes(data)
    if anchor != report.effective_sha256:     # the chain was just read: they agree, or it is a bug
        raise PreregError(f"the last record hashes to {anchor}, not the effective {report.effective_sha256}")
    query = request_over(data)
    reply = ask(tsa_url, query.as_bytes())
    try:
        token = check(reply, trust, anchor, nonce=query.nonce)
    except TokenRefused as exc:
        raise TsaError(f"the TSA at {tsa_url} did not answer with a valid token: {exc}; nothing was stored") from exc
    link = report.links[index]
    entry = {
        "anchor": anchor,
        "record": link.label,
        "hashed": (f"the canonical form of {FREEZE_RECORD}" if index == 0
                   else f"the canonical form of {AMENDMENTS} line {index}"),
        "amendments": len(report.amendments),
        "git_commit": record.get("git_commit"),
        "tsa_url": tsa_url,
        "tsa": token.tsa,
        "time": time_text(token.time),
        "serial": f"0x{token.serial:X}",
        "nonce": f"0x{token.nonce:X}" if token.nonce is not None else None,
        "policy": token.policy,
        "requested_at": time_text(datetime.now(timezone.utc).replace(microsecond=0)),
    }
    return (*_write(root, token, entry), token)


def check_stamps(report: Report, ca_file: Path | None = None) -> StampCheck:
    """Verify every stored token offline against ``ca_file`` (or else the certificates it carries)
    and find the record of ``report``'s chain it covers."""
    trust = Trust.from_ca_file(ca_file)
    found = stored(report.root)
    result = StampCheck([_check_one(report, n, suffixes, trust) for n, suffixes in sorted(found.items())])
    in_effect = report.links[-1] if report.chain_intact and report.links else None
    if not found:
        result.notes.append("no RFC 3161 timestamp: only the anchor you registered elsewhere dates the "
                            "preregistration; add one with `study prereg stamp --tsa URL`")
    elif in_effect is not None and not any(r.ok and r.link == in_effect for r in result.results):
        result.notes.append(f"no stamp covers the state in effect ({in_effect.label}, {in_effect.sha256}); "
                            "stamp it with `study prereg stamp --tsa URL`")
    return result


def stored(root: Path) -> dict[int, set[str]]:
    """The stamps kept under ``root``: number -> the suffixes of its files on disk."""
    folder = root / STAMPS_DIR
    found: dict[int, set[str]] = {}
    if not folder.is_dir():
        return found
    for path in folder.iterdir():
        named = stamp_file(f"{STAMPS_DIR}/{path.name}")
        if named is not None and path.is_file():
            found.setdefault(named[0], set()).add(named[1])
    return found


def _write(root: Path, token: Token, entry: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Write the stamp's three files under the next free number, each created exclusively (a stamp
    is never overwritten); on a failure, remove what was written."""
    folder = root / STAMPS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    n = max(stored(root), default=0) + 1
    while (folder / f"{n}.tsr").exists():
        n += 1
    base = f"{STAMPS_DIR}/{n}"
    entry = {"n": n, **entry, "token": f"{base}.tsr", "certificates": f"{base}.pem"}
    contents = {
        "tsr": token.response,
        "pem": token.certificates_pem(),
        "json": (json.dumps(entry, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8"),
    }
    written: list[Path] = []
    try:
        for suffix in SUFFIXES:
            path = folder / f"{n}.{suffix}"
            with open(path, "xb") as fh:
                written.append(path)
                fh.write(contents[suffix])
                fh.flush()
                os.fsync(fh.fileno())
    except OSError:
        for path in written:
            path.unlink(missing_ok=True)
        raise
    return n, entry


def _check_one(report: Report, n: int, suffixes: set[str], trust: Trust) -> StampResult:
    result = StampResult(n, trust=trust.describe())
    base = f"{STAMPS_DIR}/{n}"
    record = _read_record(report.root, base, suffixes, result)
    if "tsr" not in suffixes:
        result.problems.append(f"{base}.tsr is missing, though {base}.json records a stamp: restore it from git "
                               f"(`git checkout HEAD -- {base}.tsr`) or remove the stamp's files")
        return result
    data = (report.root / f"{base}.tsr").read_bytes()
    try:
        imprint = imprint_of(read(data))
        anchor = record.get("anchor") if record else None
        if record is not None and anchor != imprint:
            raise TokenRefused(f"{base}.json says it stamped {anchor}, but the token covers {imprint}")
        token = check(data, trust, imprint, nonce=_number(record, "nonce", result) if record else None)
    except TokenRefused as exc:
        result.problems.append(f"stamp {n} ({base}.tsr) is refused: {exc}")
        return result
    result.token = token
    if record is not None:
        _compare_record(base, record, token, result)
    result.in_effect = report.links[-1] if report.chain_intact and report.links else None
    index = next((i for i, link in enumerate(report.links) if link.sha256 == token.imprint), None)
    if index is None:
        result.problems.append(f"stamp {n} ({base}.tsr) is refused: it covers {token.imprint}, which is no record "
                               f"of this preregistration's chain (neither the freeze nor any amendment)"
                               + _elsewhere(report, token.imprint))
        return result
    result.link = report.links[index]
    source = report.freeze if index == 0 else report.amendments[index - 1]
    result.commit = (source or {}).get("git_commit")
    made = _parse_time(result.link.time)
    if made is not None and token.time < made:
        result.notes.append(f"stamp {n}: the TSA's time {time_text(token.time)} is before the date {result.link.time} "
                            f"{result.link.label} gives itself: that record's clock was ahead")
    return result


def _read_record(root: Path, base: str, suffixes: set[str], result: StampResult) -> dict[str, Any] | None:
    if "json" not in suffixes:
        result.notes.append(f"{base}.json is missing: the token is checked on its own (restore the record from git)")
        return None
    try:
        record = json.loads((root / f"{base}.json").read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        result.problems.append(f"{base}.json is not valid JSON ({exc}): restore it from git")
        return None
    if not isinstance(record, dict):
        result.problems.append(f"{base}.json is not a JSON object: restore it from git")
        return None
    return record


def _number(record: dict[str, Any], key: str, result: StampResult) -> int | None:
    value = record.get(key)
    try:
        return int(value, 16) if isinstance(value, str) else None
    except ValueError:
        result.problems.append(f"{key} {value!r} in the stamp's record is not a hex number")
        return None


def _compare_record(base: str, record: dict[str, Any], token: Token, result: StampResult) -> None:
    """The record is a copy of what the token states; a difference means it was edited."""
    states = {"time": time_text(token.time), "serial": token.serial, "tsa": token.tsa}
    recorded = {"time": record.get("time"), "serial": _number(record, "serial", result), "tsa": record.get("tsa")}
    for key, value in states.items():
        if recorded[key] != value:
            shown = (lambda v: f"0x{v:X}" if isinstance(v, int) else v)
            result.problems.append(f"{base}.json says {key} {shown(recorded[key])}, but the token states "
                                   f"{shown(value)}: the record was edited (restore it from git)")


def _elsewhere(report: Report, imprint: str) -> str:
    """Where else the anchor comes from, if git knows: a freeze this one replaced."""
    for commit in report.history.earlier_freezes:
        try:
            earlier = json.loads(committed_bytes(report.root, FREEZE_RECORD, commit) or b"null")
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        if isinstance(earlier, dict) and earlier.get("sha256") == imprint:
            return (f"; it is the freeze committed at {commit[:12]}, which this freeze replaced: keep its files "
                    f"outside {STAMPS_DIR}/")
    return "; it stamps another preregistration, or a record since rewritten"


def _parse_time(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
