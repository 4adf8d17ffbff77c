"""The viewer's one page: ``static/index.html`` with the mode it loads its documents in.

``server``: app.js fetches ``api/...``; ``bundle``: app.js adds a ``<script>`` per document file
(``data/...js``), because browsers refuse ``fetch()`` of ``file://`` URLs but run scripts from
them. Both modes draw the same documents with the same code.
"""

from __future__ import annotations

import json
from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"


def index_html(mode: str, *, prefix: str = "static/") -> str:
    """The page for ``mode`` ("server" or "bundle"), its assets under ``prefix``."""
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    return (html.replace("{{MODE}}", json.dumps(mode)).replace("{{STATIC}}", prefix))
