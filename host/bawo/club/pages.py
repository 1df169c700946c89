"""The club's public pages: the club (its boards and recent games), a game, the leaderboard,
the players and a player, and every board live (the page and its server-sent events)."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.routing import Route

from shared_rules import GAMES

from . import ClubError, broadcast as LV, ratings as R
from .clubsite import club_of, err
from .records import check_board

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from .store import Store


def live_rows(store: Store) -> list[dict[str, Any]]:
    return [LV.event(r)[0] for r in store.live_boards(LV.since_hours(LV.LIVE_HOURS))]


async def live_events(request: Request) -> Response:
    from sse_starlette.sse import EventSourceResponse

    cfg = club_of(request)
    hub = cfg.live.hub
    if len(hub.subs) >= cfg.spectators:
        return err("too many spectators: try again later", 503)
    loop = asyncio.get_running_loop()
    await run_in_threadpool(cfg.live.start, loop)
    q = hub.subscribe()
    first = await run_in_threadpool(live_rows, cfg.store)

    async def gen():
        try:
            for msg in first:
                yield {"data": json.dumps(msg)}
            while True:
                yield {"data": json.dumps(await q.get())}
        finally:
            hub.unsubscribe(q)

    return EventSourceResponse(gen(), ping=10)


async def live_page(request: Request) -> Response:
    cfg = club_of(request)
    board = request.query_params.get("board")
    if board is not None:
        try:
            check_board(board)
        except ClubError:
            return cfg.page("missing", request, 404, what="board")
    return cfg.page("live", request, board=board)


async def club_page(request: Request) -> Response:
    cfg = club_of(request)
    store = cfg.store

    def load():
        return dict(
            boards=store.boards(),
            seats={s["board"]: s for s in store.seats()},
            recent=store.recent(30),
            conflicts=store.records(status="conflict"),
        )

    s = await run_in_threadpool(cfg.session, request)
    return cfg.page("club", request, admin=s and s["admin"], **await run_in_threadpool(load))


async def game_page(request: Request) -> Response:
    cfg = club_of(request)
    try:
        seq = int(request.query_params.get("seq", ""))
    except ValueError:
        return cfg.page("missing", request, 404, what="game")
    row = await run_in_threadpool(cfg.store.record, seq)
    if row is None:
        return cfg.page("missing", request, 404, what="game")
    s = await run_in_threadpool(cfg.session, request)
    return cfg.page("game", request, g=row, admin=s and s["admin"], csrf=s and s["csrf"])


async def leaderboard_page(request: Request) -> Response:
    cfg = club_of(request)
    kind = request.query_params.get("game", "bawo")
    kind = kind if kind in GAMES else "bawo"
    tables = await run_in_threadpool(cfg.tables)
    return cfg.page(
        "leaderboard",
        request,
        kind=kind,
        games=sorted(GAMES),
        rows=R.leaderboard(tables.get(kind, {})),
    )


async def player_page(request: Request) -> Response:
    cfg = club_of(request)
    name = request.query_params.get("name", "")[:100]
    p = await run_in_threadpool(cfg.store.player, name)
    if p is None:
        return cfg.page("missing", request, 404, what="player")
    tables = await run_in_threadpool(cfg.tables)
    kinds = {k: t[name] for k, t in sorted(tables.items()) if name in t}
    games = await run_in_threadpool(lambda: cfg.store.records(player=name))
    return cfg.page(
        "player", request, name=name, kinds=kinds, games=games, provisional=R.PROVISIONAL_RD
    )


async def players_page(request: Request) -> Response:
    cfg = club_of(request)
    return cfg.page("players", request, players=await run_in_threadpool(cfg.store.players))


def routes() -> list[Route]:
    return [
        Route("/", club_page),
        Route("/game", game_page),
        Route("/leaderboard", leaderboard_page),
        Route("/players", players_page),
        Route("/player", player_page),
        Route("/live", live_page),
        Route("/live/events", live_events),
    ]
