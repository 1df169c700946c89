"""What every page of `bawo serve` shares: the Site (the app's state: config, templates, the
live hub and bridge, the rules' gate, the play session, the analyses), the page renderer and
the JSON routes' error handling. The page modules (page_*.py) import this; site.py puts them
together. Handlers find the Site as request.app.state.site, so no page needs a closure."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.responses import HTMLResponse, JSONResponse, Response

from shared_rules import GAMES, game as make_game

from ..text import safe
from . import library as L
from .analysis import Analyses
from .live import Bridge, Hub
from .play_session import Session as PlaySession
from .request import BadRequest, Busy, Gate, Gone

if TYPE_CHECKING:
    import contextlib
    import sqlite3

    from starlette.datastructures import QueryParams
    from starlette.requests import Request

    from ..rulestypes import Game

HERE = Path(__file__).resolve().parent
MAX_POSITION = 400  # characters of a position in a request (the longest real one is ~80)
MAX_MOVE = 16
SIDE_NAMES = {"S": "South", "N": "North", "G": "Goats", "T": "Tigers"}


def one_line(e: BaseException) -> str:
    return " ".join(str(e).split())[:300]


def templates() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(HERE / "templates")),
        autoescape=select_autoescape(["html"], default=True),
    )
    env.filters["side"] = lambda s: SIDE_NAMES.get(s, s)
    # Text from the log or a board (ids, devices, reasons): controls and bidi marks as
    # escapes, as the CLI prints them (one rule: bawo.text.safe).
    env.filters["shown"] = lambda v, keep="": safe(v, keep)
    env.filters["urlencode_without"] = lambda keep, drop: "".join(
        "%s&" % urlencode({k: v}) for k, v in keep.items() if k not in drop
    )
    return env


class Site:
    """The state one app's pages share, made once by create_app."""

    def __init__(
        self, cfg: Any, port: str | None = None, sim: str | None = None, follow_board: bool = True
    ) -> None:
        self.cfg = cfg  # a site.Config (site.py imports this module)
        self.env = templates()
        self.hub = Hub()
        self.bridge = Bridge(self.hub, cfg.db_path, port=port, sim=sim, enabled=follow_board)
        self.gate = Gate()
        self.analyses = Analyses()
        self.session = PlaySession(cfg.db_path)
        # (game, the log's state): the stats page's charts
        self.charts_of: dict[Any, list[dict[str, Any]]] = {}

    def page(self, name: str, request: Request, status: int = 200, **kw: Any) -> HTMLResponse:
        kw.update(token=self.cfg.token, nav=name)
        resp = HTMLResponse(self.env.get_template(name + ".html").render(**kw), status_code=status)
        resp.headers["Content-Security-Policy"] = (
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
            "frame-ancestors 'none'"
        )
        resp.headers["X-Content-Type-Options"] = "nosniff"
        if self.cfg.remote:
            resp.set_cookie("bawo_token", self.cfg.token, httponly=True, samesite="strict")
        return resp

    def db(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        return L.using(self.cfg.db_path)

    def row(self, gid: str) -> sqlite3.Row | None:
        """The log's row of a game, or None."""
        if len(gid) > 128:
            return None
        with self.db() as con:
            return con.execute("SELECT * FROM games WHERE id=?", (gid,)).fetchone()


def site_of(request: Request) -> Site:
    return request.app.state.site


def api(
    route: Callable[[Request], Awaitable[Response]],
) -> Callable[[Request], Awaitable[Response]]:
    """A JSON route: a bad body or field is a 400 with its one line, a full gate a 503."""

    async def run(request: Request) -> Response:
        try:
            return await route(request)
        except BadRequest as e:
            return JSONResponse({"error": one_line(e)}, status_code=400)
        except Busy:
            return JSONResponse(
                {"error": "busy: too many requests at once, try again"},
                status_code=503,
                headers={"Retry-After": "1"},
            )
        except Gone:
            return Response(status_code=400)  # nobody is left to read it

    return run


def game_and_position(qp: QueryParams | dict[str, str]) -> tuple[str, Game, str]:
    """(name, game, position text) from a query; ValueError if they are not one."""
    name = qp.get("game", "")
    pos = qp.get("position", "")
    if name not in GAMES or not pos or len(pos) > MAX_POSITION:
        raise ValueError("give game and position")
    g = make_game(name)
    return name, g, g.format(g.parse(pos))  # RulesError (a ValueError) if not a position
