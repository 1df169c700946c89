"""The game page (/game/ID): one logged game replayed, its positions (/api/game/ID) and its
analysis marks (/api/analysis/ID)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse
from starlette.routing import Route

from shared_rules import State
from shared_rules.errors import RecordError, RulesError
from shared_rules.record import Record

from . import boardview as B
from .web import api, site_of

if TYPE_CHECKING:
    import sqlite3

    from starlette.requests import Request
    from starlette.responses import Response


def game_page(request: Request) -> Response:
    site = site_of(request)
    row = site.row(request.path_params["gid"])
    if row is None:
        return site.page(
            "missing", request, status=404, what="game %s" % request.path_params["gid"][:128]
        )
    return site.page("game", request, row=row, record=row["record"])


@api
async def api_game(request: Request) -> Response:
    site = site_of(request)
    row = await run_in_threadpool(site.row, request.path_params["gid"])
    if row is None:
        return JSONResponse({"error": "no such game"}, status_code=404)
    return await site.gate.run(replay, row)


def replay(row: sqlite3.Row) -> JSONResponse:
    """Every position of a logged game, with whose turn and the pockets' counts."""
    try:
        rec = Record.from_text(row["record"])
        st = rec.replay()
    except (RecordError, RulesError) as e:
        return JSONResponse({"error": "the record does not replay: %s" % e}, status_code=422)
    g = st.game
    s = State(g, rec.header.get("Position"))
    positions = [g.format(s.position)]
    turns = [g.sides[s.position.turn]]
    counts = [B.counts(g.name, positions[0])]
    for m in rec.moves:
        s.push(m)
        positions.append(g.format(s.position))
        turns.append(g.sides[s.position.turn])
        counts.append(B.counts(g.name, positions[-1]))
    return JSONResponse(
        {
            "id": row["id"],
            "game": g.name,
            "header": dict(rec.header),
            "moves": list(rec.moves),
            "positions": positions,
            "turns": turns,
            "counts": counts,
            "layout": B.layout(g.name),
        }
    )


def api_analysis(request: Request) -> Response:
    """GET: the game's analysis so far; POST: start it (once per game id)."""
    site = site_of(request)
    gid = request.path_params["gid"]
    if request.method == "GET":
        return JSONResponse(site.analyses.get(gid[:128]))
    row = site.row(gid)
    if row is None:
        return JSONResponse({"error": "no such game"}, status_code=404)
    return JSONResponse(site.analyses.start(row["id"], row["record"]))


def routes() -> list[Route]:
    return [
        Route("/game/{gid:path}", game_page),
        Route("/api/analysis/{gid:path}", api_analysis, methods=["GET", "POST"]),
        Route("/api/game/{gid:path}", api_game),
    ]
