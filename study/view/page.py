"""The viewer's one page: ``static/index.html`` with the mode it loads its documents in.

``server``: app.js fetches ``api/...``; ``bundle``: app.js adds a ``<script>`` per document file
(``data/...js``), because browsers refuse ``fetch()`` of ``file://`` URLs but run scripts from
them. Both modes draw the same documents with the same code.

Each task family's own part of the pages is its folder's ``view.js`` (``family_scripts``, found
through ``study.families.registry``), served and bundled as ``static/families/<family>.js`` and
loaded after ``family.js``.
"""

from __future__ import annotations

import json
from pathlib import Path

from study.families.registry import assets

STATIC = Path(__file__).resolve().parent / "static"
#: Where the families' scripts are under the page's assets.
FAMILY_SCRIPTS = "families"


def family_scripts() -> dict[str, Path]:
    """Each family's script (``view.js`` of its folder) by the name it is served under
    (``<family>.js``), in the registry's order."""
    return {f"{family}.js": Path(path) for family, path in assets("view.js")}


def index_html(mode: str, *, prefix: str = "static/") -> str:
    """The page for ``mode`` ("server" or "bundle"), its assets under ``prefix``."""
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    tags = "\n".join(f'<script src="{{{{STATIC}}}}{FAMILY_SCRIPTS}/{name}" defer></script>' for name in family_scripts())
    return (html.replace("{{FAMILY_SCRIPTS}}", tags).replace("{{MODE}}", json.dumps(mode)).replace("{{STATIC}}", prefix))
