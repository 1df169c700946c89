"""The PCs' API: who a token is, a record's upload, a board's live moves, its seat. Every
call carries a board token (Authorization: Bearer) and is answered in JSON."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING

from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..serve.request import json_depth
from . import broadcast as LV
from .clubsite import club_of, err, read_body
from .records import MAX_RECORD, Refused, verify
from .store import LiveGap
from .tournaments import fill_results, seat_of

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

MAX_LIVE = 64 * 1024  # bytes of a live update (2000 plies of moves fit)
NO_TOKEN = "no valid board token: ask the club's admin for one"


async def whoami(request: Request) -> Response:
    board = await run_in_threadpool(club_of(request).board_of, request)
    if board is None:
        return err(NO_TOKEN, 401)
    return JSONResponse({"board": board})


async def upload(request: Request) -> Response:
    cfg = club_of(request)
    board = await run_in_threadpool(cfg.board_of, request)
    if board is None:
        return err(NO_TOKEN, 401)
    if not cfg.uploads.allow(board):
        return err("too many uploads: wait a moment", 429)
    data = await read_body(request, MAX_RECORD)
    if data is None:
        return err("a record is at most %d bytes" % MAX_RECORD, 413)

    def work():
        v = verify(board, data)
        outcome, seq = cfg.store.upload(board, v)
        fill_results(cfg.store, board)  # a tournament game's record fills its result
        return outcome, seq

    try:
        # Answered only after the store's transaction committed: an answer means kept.
        outcome, seq = await run_in_threadpool(work)
    except Refused as e:
        return err(str(e), 422)
    return JSONResponse({"outcome": outcome, "seq": seq, "board": board})


async def live_update(request: Request) -> Response:
    cfg = club_of(request)
    board = await run_in_threadpool(cfg.board_of, request)
    if board is None:
        return err(NO_TOKEN, 401)
    if not cfg.moves.allow(board):
        return err("too many live updates: wait a moment", 429)
    data = await read_body(request, MAX_LIVE)
    if data is None:
        return err("a live update is at most %d bytes" % MAX_LIVE, 413)
    try:
        raw = data.decode("utf-8")
        if json_depth(raw) > 3:
            raise ValueError("nested too deep")
        rid, game, start, frm, moves, done = LV.parse_update(json.loads(raw))
    except (ValueError, Refused) as e:
        return err("bad live update: %s" % str(e)[:200], 400)
    loop = asyncio.get_running_loop()
    await run_in_threadpool(cfg.live.start, loop)

    def work():
        row = cfg.store.live_update(board, rid, game, start, frm, moves, done, LV.replay)
        return LV.event(row)

    try:
        msg, text = await run_in_threadpool(work)
    except LiveGap as e:
        return JSONResponse({"error": str(e), "ply": e.ply}, status_code=409)
    except Refused as e:
        return err(str(e), 422)
    # Committed: now to the spectators of every process.
    await run_in_threadpool(cfg.live.send, msg, text)
    return JSONResponse({"ply": msg["ply"]})


async def seat(request: Request) -> Response:
    """The tournament game the board is seated for ({"seat": null} for none): its PC shows
    it on the board while the board is idle (SEAT, docs/protocol.md)."""
    cfg = club_of(request)
    board = await run_in_threadpool(cfg.board_of, request)
    if board is None:
        return err(NO_TOKEN, 401)
    return JSONResponse({"seat": await run_in_threadpool(seat_of, cfg.store, board)})


def routes() -> list[Route]:
    return [
        Route("/api/whoami", whoami),
        Route("/api/seat", seat),
        Route("/api/records", upload, methods=["POST"]),
        Route("/api/live", live_update, methods=["POST"]),
    ]
