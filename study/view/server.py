"""``study view``'s local server: a starlette app serving the page, its assets and the documents.

Routes (all GET; every session is named by ``?session=<path relative to the sessions folder>``):

- ``/`` the page (``static/index.html``), ``/static/...`` its vendored assets;
- ``/api/matrix``; ``/api/session``; ``/api/account?account=ID``; ``/api/events?page=N``;
  ``/api/transcript?page=N`` (the transcript is read only when a page of it is asked for).

A name outside the sessions folder, or not a session folder, is refused with 404 and nothing is
read (``paths.session_dir``). The server is bound to 127.0.0.1 only (``serve``).
"""

from __future__ import annotations

import socket
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from . import documents
from .load import Store
from .page import STATIC, index_html
from .paths import Refused

HOST = "127.0.0.1"


class _Json(JSONResponse):
    media_type = "application/json"

    def render(self, content: object) -> bytes:
        import orjson

        return orjson.dumps(content)


def _page_number(request: Request) -> int:
    try:
        return max(0, int(request.query_params.get("page", "0")))
    except ValueError:
        return 0


def make_app(root: Path) -> Starlette:
    """The viewer app over the sessions folder ``root``."""
    store = Store(Path(root))

    def refuse(message: str) -> Response:
        return _Json({"error": message}, status_code=404)

    async def index(_request: Request) -> Response:
        return HTMLResponse(index_html("server"))

    def with_session(build):
        def endpoint(request: Request) -> Response:   # sync: starlette runs it in a thread
            name = request.query_params.get("session", "")
            try:
                session = store.session(name)
            except Refused as exc:
                return refuse(str(exc))
            doc = build(request, session)
            return refuse(f"no such page of {name}") if doc is None else _Json(doc)
        return endpoint

    def matrix(_request: Request) -> Response:
        return _Json(documents.matrix_doc(store))

    routes = [
        Route("/", index),
        Route("/api/matrix", matrix),
        Route("/api/session", with_session(lambda _r, s: documents.session_doc(s))),
        Route("/api/account", with_session(lambda r, s: documents.account_doc(s, r.query_params.get("account", "")))),
        Route("/api/events", with_session(lambda r, s: documents.events_doc(s, _page_number(r)))),
        Route("/api/transcript", with_session(
            lambda r, s: documents.transcript_doc(s, store.transcript_lines(s), _page_number(r)))),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes)


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:``port`` (0: a free port); ``OSError`` if it is taken."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
        sock.listen(64)
    except OSError:
        sock.close()
        raise
    return sock


def serve(root: Path, sock: socket.socket) -> None:
    """Serve the viewer on the bound socket ``sock`` until interrupted (Ctrl-C)."""
    config = uvicorn.Config(make_app(root), log_level="warning", lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])
