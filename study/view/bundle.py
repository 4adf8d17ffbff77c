"""``study view --bundle OUT``: the viewer as a static folder that opens from disk (``file://``).

The folder holds ``index.html``, ``static/`` (the same page and assets the server serves) and
``data/``: one script per document, split per session (``data/<session>/session.js``,
``account-<id>.js``, ``events-<page>.js``, ``transcript-<page>.js``, ``conversation-<page>.js``,
``work-<page>.js``). Each script calls
``VIEW.put(<its path>, <document>)``: browsers refuse ``fetch()`` of ``file://`` URLs but run
scripts from them. The documents are those the server answers with (``documents``), so both show
the same content. Only sessions inside the sessions folder are read (``paths``), each once, and
only regular files inside each session (``study.session_io.safe_files``).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from . import documents, family_docs
from study.transcripts.claude_code import TURNS_PAGE, conversation_doc
from study.session_io.jsonout import dumps
from .load import Session, Store
from .page import FAMILY_SCRIPTS, STATIC, family_scripts, index_html
from .paths import Refused, file_key, session_names


def _script(out: Path, relative: str, doc: Any) -> int:
    """Write ``doc`` as the script ``relative`` under ``out``; its size in bytes."""
    path = out / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    # "</" must not appear inside a <script> body served inline by some hosts; escaping it keeps
    # the JSON valid JavaScript either way.
    body = dumps(doc).replace(b"</", b"<\\/")
    data = b"VIEW.put(" + orjson.dumps(relative) + b"," + body + b");\n"
    path.write_bytes(data)
    return len(data)


def write_bundle(root: Path, out: Path, *, transcripts: bool = True,
                 progress: Callable[[str], None] = lambda _m: None) -> dict[str, int]:
    """Write the bundle of every session under ``root`` into ``out``; counts of what was written.
    ``transcripts=False`` leaves the agents' transcripts out (most of a bundle's size)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(STATIC, out / "static", dirs_exist_ok=True, ignore=shutil.ignore_patterns("index.html"))
    for name, path in family_scripts().items():      # each family's part of the pages (page.py)
        (out / "static" / FAMILY_SCRIPTS).mkdir(exist_ok=True)
        shutil.copyfile(path, out / "static" / FAMILY_SCRIPTS / name)
    (out / "index.html").write_text(index_html("bundle"), encoding="utf-8")
    store = Store(Path(root), size=1)
    counts = {"sessions": 0, "files": 0, "bytes": 0}

    def put(relative: str, doc: Any) -> None:
        counts["files"] += 1
        counts["bytes"] += _script(out, relative, doc)

    rows, earlier = [], set()
    queue = session_names(store.root)
    while queue:
        name = queue.pop(0)
        try:
            session = store.session(name)      # read and scored once for every document of it
        except Refused as exc:
            progress(f"{name}: skipped ({exc})")
            continue
        queue[:0] = session.attempts           # earlier attempts: pages of their own, not rows
        earlier.update(session.attempts)
        if name not in earlier:
            rows.append(documents.matrix_row(session))
        _write_session(put, store, session, transcripts)
        counts["sessions"] += name not in earlier
        progress(name)
    put("data/matrix.js", documents.matrix_doc_of(store.root, rows))
    return counts


def _write_session(put: Callable[[str, Any], None], store: Store, session: Session, transcripts: bool) -> None:
    """Every document of one session: its page, its accounts, its events, its transcript."""
    name = session.name
    folder = f"data/{file_key(name)}/"
    put(folder + "session.js", documents.session_doc(session))
    for account in session.order:
        if (doc := documents.account_doc(session, account)) is not None:
            put(folder + f"account-{file_key(account)}.js", doc)
    for page in range(documents.pages(len(session.events), documents.EVENTS_PAGE)):
        put(folder + f"events-{page}.js", documents.events_doc(session, page))
    page = 0
    while (work := family_docs.work_doc(session, page)) is not None:    # a family session's conversation or contexts
        put(folder + f"work-{page}.js", work)
        page += 1
    # the session's transcript, then each ended context's of a run of fresh contexts
    for context in [None, *family_docs.kept_contexts(session)]:
        tail = "" if context is None else f"c{context}-"
        if not transcripts:
            omitted = documents.transcript_doc(session, [], 0)
            put(folder + f"transcript-{tail}0.js", {**omitted, "omitted": True})
            put(folder + f"conversation-{tail}0.js", {**conversation_doc(session.name, session.simulated, ([], 0), 0),
                                                        "omitted": True})
            continue
        lines, refused = store.transcript_lines(session, context)
        for page in range(documents.pages(len(lines), documents.TRANSCRIPT_PAGE)):
            put(folder + f"transcript-{tail}{page}.js", documents.transcript_doc(session, lines, page, refused))
        conversation, refused = store.conversation(session, context)
        for page in range(documents.pages(len(conversation[0]), TURNS_PAGE)):
            put(folder + f"conversation-{tail}{page}.js",
                conversation_doc(session.name, session.simulated, conversation, page, refused))
