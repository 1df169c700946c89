"""The play page (/play): a game against the PC's AI, its moves and hints (/api/play/...)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse
from starlette.routing import Route

from shared_rules import GAMES

from ..errors import BawoError
from .play_session import default_game
from .request import int_field, json_body, text_field
from .web import MAX_MOVE, api, one_line, site_of

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response


def play_page(request: Request) -> Response:
    site = site_of(request)
    return site.page("play", request, games=sorted(GAMES), chosen=default_game(site.cfg.db_path))


@api
async def api_play_new(request: Request) -> Response:
    site = site_of(request)
    b = await json_body(request)
    name = text_field(b, "game", 16, choices=GAMES)
    side, level = int_field(b, "side", 0, 1, 0), int_field(b, "level", 1, 5, 3)
    try:
        return JSONResponse(await site.gate.run(site.session.new, name, side, level))
    except (ValueError, BawoError) as e:
        return JSONResponse({"error": one_line(e)}, status_code=400)


@api
async def api_play(request: Request) -> Response:
    site = site_of(request)
    return JSONResponse(await site.gate.run(site.session.current))


@api
async def api_play_move(request: Request) -> Response:
    site = site_of(request)
    mv = text_field(await json_body(request), "move", MAX_MOVE)
    try:
        return JSONResponse(await site.gate.run(site.session.move, mv))
    except (ValueError, BawoError) as e:  # an illegal move (RulesError), not your turn
        return JSONResponse({"error": one_line(e)}, status_code=400)


async def api_play_hint(request: Request) -> Response:
    try:
        return JSONResponse(await run_in_threadpool(site_of(request).session.hint))
    except BawoError as e:  # no game, not your turn
        return JSONResponse({"error": one_line(e)}, status_code=400)


def routes() -> list[Route]:
    return [
        Route("/play", play_page),
        Route("/api/play", api_play),
        Route("/api/play/new", api_play_new, methods=["POST"]),
        Route("/api/play/move", api_play_move, methods=["POST"]),
        Route("/api/play/hint", api_play_hint, methods=["POST"]),
    ]
