"""The statistics page (/stats): the log's charts, for all games or one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shared_rules import GAMES
from starlette.routing import Route

from . import library as L, stats as S
from .web import site_of

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response


def stats_page(request: Request) -> Response:
    site = site_of(request)
    g = request.query_params.get("game", "")
    g = g if g in GAMES else ""
    # The charts read up to S.OPENING_SAMPLE records (0.6 s on a big log): drawn once
    # for each state of the log, not for each GET.
    key = (g, L.state(site.cfg.db_path))
    charts = site.charts_of.get(key)
    if charts is None:
        with site.db() as con:
            charts = S.charts(con, g or None)
        if len(site.charts_of) >= 2 * len(GAMES) + 2:
            site.charts_of.clear()
        site.charts_of[key] = charts
    return site.page("stats", request, games=sorted(GAMES), game=g, charts=charts)


def routes() -> list[Route]:
    return [Route("/stats", stats_page)]
