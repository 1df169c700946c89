"""What every page of the club server shares: the Config (the store, the rate limits, the
live broadcast, the templates, the ratings' cache), the page renderer, the request helpers.
The page modules (pages.py, pc_api.py, admin.py) import this; asgi.py puts them together.
Handlers find the Config as request.app.state.club."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, quote

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.responses import HTMLResponse, JSONResponse

from ..text import safe
from . import auth, ratings as R
from . import broadcast as LV

if TYPE_CHECKING:
    from starlette.requests import Request

    from .store import PgStore, SqliteStore

HERE = Path(__file__).resolve().parent
MAX_FORM = 4096
RATINGS_TTL = 5.0
COOKIE = "bawo_club"


def templates() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(HERE / "templates")),
        autoescape=select_autoescape(["html"], default=True),
    )
    env.filters["shown"] = lambda v: safe("" if v is None else v)
    env.filters["q"] = lambda v: quote(str(v), safe="")
    return env


class Config:
    """One club app's state: its store, its limits, its live broadcast and templates."""

    def __init__(
        self,
        store: SqliteStore | PgStore,
        upload_rate: float = 50.0,
        upload_burst: int = 500,
        login_rate: float = 0.2,
        login_burst: int = 5,
        live_rate: float = 20.0,
        live_burst: int = 200,
        spectators: int = 2000,
        clock: Any = None,
    ) -> None:
        self.store = store
        self.clock = clock  # ms now, for remote games' clocks (None: the wall clock)
        self.live = LV.Live(store)
        self.moves = auth.RateLimit(live_rate, live_burst)
        self.spectators = spectators
        self.uploads = auth.RateLimit(upload_rate, upload_burst)
        self.logins = auth.RateLimit(login_rate, login_burst)
        self.env = templates()
        self.cache = {}

    def page(self, template: str, request: Request, status: int = 200, **kw: Any) -> HTMLResponse:
        kw.setdefault("admin", None)
        kw.setdefault("csrf", "")
        resp = HTMLResponse(
            self.env.get_template(template + ".html").render(nav=template, **kw), status_code=status
        )
        resp.headers["Content-Security-Policy"] = (
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
            "script-src 'self'; frame-ancestors 'none'; form-action 'self'"
        )
        resp.headers["X-Content-Type-Options"] = "nosniff"
        resp.headers["Referrer-Policy"] = "same-origin"
        return resp

    def session(self, request: Request) -> dict[str, Any] | None:
        c = request.cookies.get(COOKIE)
        if not c or len(c) > auth.MAX_SECRET:
            return None
        return self.store.session(auth.token_hash(c))

    def board_of(self, request: Request) -> str | None:
        tok = bearer(request)
        return self.store.board_of_token(auth.token_hash(tok)) if tok else None

    def tables(self) -> Any:
        """The ratings tables. Recomputed from the log (0.25 s for 20,000 games), at most every
        RATINGS_TTL seconds a process: a page of a busy club does not replay the whole history."""
        now = time.monotonic()
        if self.cache.get("t", -1e9) + RATINGS_TTL < now:
            self.cache.update(t=now, tables=R.recompute(self.store.rated_games()))
        return self.cache["tables"]


def club_of(request: Request) -> Config:
    return request.app.state.club


def err(msg: str, status: int) -> JSONResponse:
    return JSONResponse({"error": msg}, status_code=status)


def bearer(request: Request) -> str | None:
    h = request.headers.get("authorization", "")
    if not h.startswith("Bearer ") or len(h) > 7 + auth.MAX_SECRET:
        return None
    return h[7:].strip()


async def read_body(request: Request, limit: int) -> bytes | None:
    """The body, or None if it is longer than limit (read no further than limit + 1)."""
    n = request.headers.get("content-length")
    if n is not None and (not n.isdigit() or int(n) > limit):
        return None
    got = bytearray()
    async for chunk in request.stream():
        got += chunk
        if len(got) > limit:
            return None
    return bytes(got)


async def read_form(request: Request) -> dict[str, str] | None:
    data = await read_body(request, MAX_FORM)
    if data is None:
        return None
    try:
        q = parse_qs(data.decode("utf-8"), max_num_fields=20)
    except (UnicodeDecodeError, ValueError):
        return None
    return {k: v[0] for k, v in q.items()}
