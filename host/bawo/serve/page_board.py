"""The board page (/board): the board this server follows, and the pictures every page draws
with (/api/picture: a position's LEDs, /api/sow: a move's animation, /api/layout/GAME)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.responses import JSONResponse
from starlette.routing import Route

from shared_rules import GAMES, State

from . import boardview as B
from .web import MAX_MOVE, api, game_and_position, site_of

if TYPE_CHECKING:
    from starlette.datastructures import QueryParams
    from starlette.requests import Request
    from starlette.responses import Response


async def board_page(request: Request) -> Response:
    return site_of(request).page("board", request, board=site_of(request).bridge.info)


@api
async def api_picture(request: Request) -> Response:
    return await site_of(request).gate.run(picture, request.query_params)


def picture(qp: QueryParams) -> JSONResponse:
    try:
        name, g, pos = game_and_position(qp)
    except ValueError as e:
        return JSONResponse({"error": str(e)[:200]}, status_code=400)
    return JSONResponse(B.picture(name, pos))


@api
async def api_sow(request: Request) -> Response:
    return await site_of(request).gate.run(sow, request.query_params)


def sow(qp: QueryParams) -> JSONResponse:
    try:
        name, g, pos = game_and_position(qp)
        mv = qp.get("move", "")
        if not mv or len(mv) > MAX_MOVE:
            raise ValueError("give a move")
        st = State(g, pos)
        st.push(mv)  # refuses an illegal move before drawing
        after = g.format(st.position)
    except ValueError as e:
        return JSONResponse({"error": str(e)[:200]}, status_code=400)
    return JSONResponse({"frames": B.sowing(name, pos, mv), "after": B.picture(name, after)})


async def api_layout(request: Request) -> Response:
    name = request.path_params["game"]
    if name not in GAMES:
        return JSONResponse({"error": "no such game"}, status_code=404)
    return JSONResponse(B.layout(name))


def routes() -> list[Route]:
    return [
        Route("/board", board_page),
        Route("/api/picture", api_picture),
        Route("/api/sow", api_sow),
        Route("/api/layout/{game}", api_layout),
    ]
