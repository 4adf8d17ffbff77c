"""``study view``'s local server: a starlette app serving the page, its assets and the documents.

Routes (all GET; every session is named by ``?session=<path relative to the sessions folder>``):

- ``/`` the page (``static/index.html``), ``/static/...`` its vendored assets;
- ``/api/matrix``; ``/api/session``; ``/api/account?account=ID``; ``/api/events?page=N``;
  ``/api/transcript?page=N`` (the raw records; the transcript is read only when a page of it is
  asked for); ``/api/conversation?page=N`` (the transcript as turns: ``conversation``); both
  with ``&context=N`` for an ended context's transcript of a run of fresh contexts;
  ``/api/work?page=N`` (a family session's work: its conversation or its contexts, from its log:
  ``family_docs``); ``/static/families/<family>.js``, each family's part of the page (its
  folder's ``view.js``: ``page.family_scripts``).

A name outside the sessions folder, or not a session folder, is refused with 404 and nothing is
read (``paths.session_dir``); a file of a session that is not a regular file inside its folder is
never read (``study.session_io.safe_files``). The server is bound to 127.0.0.1 only (``serve``)
and answers only requests whose ``Host`` is 127.0.0.1, localhost or [::1] with its port
(``LoopbackHostOnly``: DNS rebinding); anything else is refused with 403 and the reason.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Callable
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from . import documents, family_docs
from study.transcripts.claude_code import conversation_doc
from study.session_io.jsonout import dumps
from .load import Store
from .page import FAMILY_SCRIPTS, STATIC, family_scripts, index_html
from .paths import Refused

HOST = "127.0.0.1"


class _Json(JSONResponse):
    media_type = "application/json"

    def render(self, content: object) -> bytes:
        return dumps(content)


#: The largest page number asked for that is looked at (a longer number is no page).
_PAGE_DIGITS = 9


def _page_number(request: Request) -> int | None:
    """The ``page`` asked for (0 if none); None for one that is no page number."""
    text = request.query_params.get("page", "0")
    if not text.isascii() or not text.isdigit() or len(text) > _PAGE_DIGITS:
        return None
    return int(text)


def allowed_hosts(port: int) -> frozenset[str]:
    """The ``Host`` values a request may carry: this machine's loopback names with the port."""
    return frozenset(f"{host}:{port}" for host in ("127.0.0.1", "localhost", "[::1]"))


class LoopbackHostOnly:
    """Refuse (403) every request whose ``Host`` header is not 127.0.0.1, localhost or [::1]
    with the server's port: a web page elsewhere that rebinds its own name to 127.0.0.1 (DNS
    rebinding) sends its own name, and is refused before anything is read."""

    def __init__(self, app, port_of: Callable[[], int | None]) -> None:
        self.app, self.port_of = app, port_of

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            host = dict(scope["headers"]).get(b"host", b"").decode("latin-1").lower()
            port = self.port_of() or (scope.get("server") or (None, None))[1]
            if host not in allowed_hosts(port):
                reason = (f"refused: Host {host[:100]!r} is not this machine's viewer; open "
                          f"http://127.0.0.1:{port}/ (only 127.0.0.1, localhost and [::1] with port {port} are served)")
                await _Json({"error": reason}, status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def make_app(root: Path, port: int | None = None) -> Starlette:
    """The viewer app over the sessions folder ``root``, answering requests to ``port`` (None:
    the port each request arrived on) under a loopback ``Host`` name only."""
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
            return refuse(f"no such page of {session.name}") if doc is None else _Json(doc)
        return endpoint

    def paged(build):
        """``build(session, page)`` for the ``page`` asked for; None (404) for no page number."""
        return lambda request, session: None if (page := _page_number(request)) is None else build(session, page)

    def with_context(build):
        """``build(session, page, context)``: ``context`` an ended context of a run of fresh
        contexts (``?context=N``, N a number; none: the session's own transcript); None (404) for
        one that is no number."""
        def answer(request: Request, session):
            page, text = _page_number(request), request.query_params.get("context")
            if page is None or (text is not None and (not text.isascii() or not text.isdigit() or len(text) > _PAGE_DIGITS)):
                return None
            return build(session, page, None if text is None else int(text))
        return answer

    def transcript(session, page: int, context: int | None):
        lines, refused = store.transcript_lines(session, context)
        return documents.transcript_doc(session, lines, page, refused)

    def conversation(session, page: int, context: int | None):
        turns, refused = store.conversation(session, context)
        return conversation_doc(session.name, session.simulated, turns, page, refused)

    scripts = family_scripts()

    def family_script(request: Request) -> Response:
        """A task family's script (its folder's view.js), by the name the page loads it under;
        only those names, so nothing else of a family's folder is served."""
        path = scripts.get(request.path_params["name"])
        return FileResponse(path, media_type="text/javascript") if path is not None else Response(status_code=404)

    def matrix(_request: Request) -> Response:
        return _Json(documents.matrix_doc(store))

    routes = [
        Route("/", index),
        Route("/api/matrix", matrix),
        Route("/api/session", with_session(lambda _r, s: documents.session_doc(s))),
        Route("/api/account", with_session(lambda r, s: documents.account_doc(s, r.query_params.get("account", "")))),
        Route("/api/events", with_session(paged(documents.events_doc))),
        Route("/api/transcript", with_session(with_context(transcript))),
        Route("/api/conversation", with_session(with_context(conversation))),
        Route("/api/work", with_session(paged(family_docs.work_doc))),
        Route(f"/static/{FAMILY_SCRIPTS}/{{name}}", family_script),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, middleware=[Middleware(LoopbackHostOnly, port_of=lambda: port)])


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


class _Server(uvicorn.Server):
    """uvicorn's server, which on Ctrl-C or SIGTERM stops and says so (``signals``) instead of
    raising the signal again once it has stopped (uvicorn's way, which ends Python with 1)."""

    signals: list[int]

    @contextlib.contextmanager
    def capture_signals(self):
        with super().capture_signals():
            try:
                yield
            finally:
                self.signals = list(self._captured_signals)
                self._captured_signals.clear()


def serve(root: Path, sock: socket.socket) -> list[int]:
    """Serve the viewer on the bound socket ``sock`` until interrupted (Ctrl-C, SIGTERM); the
    signals that stopped it."""
    config = uvicorn.Config(make_app(root, sock.getsockname()[1]), log_level="warning", lifespan="off")
    server = _Server(config)
    server.signals = []
    server.run(sockets=[sock])
    return server.signals
