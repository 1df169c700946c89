"""The ASGI app of `bawo serve`: the pages (page_*.py, one module a page, each with its
routes and JSON), the live stream (SSE), static files, behind the Guard.

Security (each has a test that tries the attack, tests/test_serve.py):
* Host must be one of the server's own names with its port (DNS rebinding).
* An Origin header, when sent, must be the server's own origin (cross-site requests); a
  browser's request from another site (Sec-Fetch-Site) is refused unless it opens a page, so
  no web page can make the server compute through an image or a script tag.
* Every request that changes anything (POST) carries X-Bawo-Token, a random token written
  into the pages only; a non-local bind needs the token on every request (cookie).
* Static files come from StaticFiles (no path outside its folder); templates autoescape,
  and show controls and bidi marks as escapes (bawo.text.safe, as the CLI).
* Every JSON body is read by request.json_body (bounded, checked); the rules' work runs on
  request.Gate's own threads, so a flood of it never stalls the pages.
"""

from __future__ import annotations

import hmac
import secrets
from contextlib import asynccontextmanager
from http.cookies import SimpleCookie
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.responses import PlainTextResponse
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from . import page_board, page_game, page_library, page_live, page_play, page_remote, page_stats
from .web import HERE, Site

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

# One module a page; each gives its routes (the page and the JSON it asks for).
PAGES = (page_live, page_library, page_game, page_stats, page_board, page_play, page_remote)


class Guard:
    """ASGI middleware: Host/Origin checks and the token, before any route runs."""

    def __init__(self, app: ASGIApp, cfg: Config) -> None:
        self.app = app
        self.cfg = cfg

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers: dict[str, str] = {}
        for k, v in scope["headers"]:
            headers.setdefault(k.decode("latin-1").lower(), v.decode("latin-1"))
        why = self.cfg.refuse(scope, headers)
        if why:
            resp = PlainTextResponse(why + "\n", status_code=403)
            return await resp(scope, receive, send)
        return await self.app(scope, receive, send)


class Config:
    def __init__(
        self,
        db_path: str,
        host: str = "127.0.0.1",
        port: int = 0,
        remote: bool = False,
        token: str | None = None,
    ) -> None:
        self.db_path = db_path
        self.host = host
        self.port = port
        self.remote = remote
        self.token = token or secrets.token_urlsafe(24)

    def hosts(self) -> set[str]:
        names = {"127.0.0.1", "localhost", "[::1]"}
        if self.remote:
            names.add(self.host if ":" not in self.host else "[%s]" % self.host)
        return {"%s:%d" % (n, self.port) for n in names}

    def token_ok(self, given: str) -> bool:
        return bool(given) and hmac.compare_digest(given.encode(), self.token.encode())

    def refuse(self, scope: Scope, headers: dict[str, str]) -> str | None:
        """None, or why the request is refused."""
        host = headers.get("host", "")
        # Remote mode: other computers name this one as they like; the token on every request
        # (below) is what stops a rebinding page, which cannot know it.
        if host not in self.hosts() and not self.remote:
            return "refused: this server answers only as http://127.0.0.1:%d/" % self.port
        origin = headers.get("origin")
        if origin is not None and origin != "http://" + host:
            return "refused: a request from another site (%s)" % origin[:100]
        # Browsers name a request's site even where they send no Origin (an <img>, a
        # <script>): another site's may open a page (a link), nothing else.
        site = headers.get("sec-fetch-site")
        if site not in (None, "same-origin", "none") and not (
            scope["method"] in ("GET", "HEAD") and headers.get("sec-fetch-mode") == "navigate"
        ):
            return "refused: a request from another site"
        if scope["method"] not in ("GET", "HEAD"):
            if not self.token_ok(headers.get("x-bawo-token", "")):
                return "refused: a change needs the page's token; reload the page"
        if self.remote:
            cookie = SimpleCookie()
            try:
                cookie.load(headers.get("cookie", ""))
            except Exception:
                pass
            qs = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            given = (
                cookie["bawo_token"].value
                if "bawo_token" in cookie
                else (qs.get("token") or [""])[0]
            )
            if not self.token_ok(given):
                return "refused: open the address with ?token=... that `bawo serve` printed"
        return None


def create_app(
    cfg: Config, port: str | None = None, sim: str | None = None, follow_board: bool = True
) -> Guard:
    """The ASGI app: every page's routes and the static files, behind the Guard. port or sim:
    the board the live page follows; follow_board=False: none."""
    site = Site(cfg, port=port, sim=sim, follow_board=follow_board)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        import asyncio

        site.hub.loop = asyncio.get_running_loop()
        site.bridge.start()
        yield
        await run_in_threadpool(site.bridge.close)

    routes = [r for page in PAGES for r in page.routes()]
    routes.append(Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"))
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.site = site
    app.state.hub, app.state.bridge, app.state.cfg = site.hub, site.bridge, cfg
    app.state.analyses = site.analyses
    return Guard(app, cfg)
