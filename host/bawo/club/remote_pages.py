"""The club's page of remote games (/remote): open seeks, and the games in play or over with
a link to each one's live view (/live?board=remote-<id>) and, once over, to its record."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.concurrency import run_in_threadpool
from starlette.routing import Route

from . import remote_games as R
from .clubsite import club_of

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response


async def remote_page(request: Request) -> Response:
    cfg = club_of(request)
    seeks, games = await run_in_threadpool(R.listing, cfg.store)
    s = await run_in_threadpool(cfg.session, request)
    return cfg.page("remote", request, admin=s and s["admin"], seeks=seeks, games=games)


def routes() -> list[Route]:
    return [Route("/remote", remote_page)]
