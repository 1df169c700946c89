"""The club's HTTP API for remote games (docs/club.md, "Remote games"): a board token a call,
JSON in and out. remote.py decides; this module reads, bounds and validates the request
before anything is read from the store, runs the store's work in the thread pool, and after
a change wakes the long polls of every club process (broadcast.Live.signal: NOTIFY on
PostgreSQL) and feeds the live stream.

A long poll (GET /api/remote/<id>?after=&wait=) waits on an asyncio.Event a game, set by the
change feed; it looks at the store again at least every POLL_S seconds all the same (the
heartbeat that keeps its board "here", a second process on one SQLite file, a flag falling).
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import threading
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..serve.request import json_depth
from . import auth, broadcast as LV, remote_games as R
from .clubsite import club_of, err, read_body
from .records import Refused

if TYPE_CHECKING:
    from starlette.requests import Request

    from .clubsite import Config

MAX_BODY = 4096  # bytes of a request's body
MAX_DEPTH = 2  # nesting of its JSON (a seek's clock is the deepest)
MAX_WAIT = 25.0  # seconds a long poll may wait
# A waiting poll looks at the store at least this often (BAWO_CLUB_POLL_S: a test sets it
# long, to show that a poll is woken by the change feed and not by this look).
POLL_S = float(os.environ.get("BAWO_CLUB_POLL_S", "2.0"))
MAX_POLLS = 2000  # long polls waiting at once in a process; past it they answer at once
NO_TOKEN = "no valid board token: ask the club's admin for one"

_made = threading.Lock()


class Waiters:
    """This process's long polls, an asyncio.Event each, by game; woken from any thread."""

    def __init__(self):
        self.lock = threading.Lock()
        self.by = {}
        self.count = 0

    def add(self, gid: int) -> tuple[asyncio.Event, asyncio.AbstractEventLoop]:
        ev = (asyncio.Event(), asyncio.get_running_loop())
        with self.lock:
            self.by.setdefault(gid, set()).add(ev)
            self.count += 1
        return ev

    def remove(self, gid: int, ev: tuple[asyncio.Event, asyncio.AbstractEventLoop]) -> None:
        with self.lock:
            s = self.by.get(gid)
            if s is not None and ev in s:
                self.count -= 1
                s.discard(ev)
                if not s:
                    del self.by[gid]

    def wake(self, msg: dict[str, Any] | None) -> None:
        """msg: {"type": "remote", "game": id}, or None: every game (the feed was lost)."""
        with self.lock:
            if msg is None:
                evs = [e for s in self.by.values() for e in s]
            else:
                evs = list(self.by.get(msg.get("game"), ()))
        for ev, loop in evs:
            try:
                loop.call_soon_threadsafe(ev.set)
            except RuntimeError:  # its loop closed: that poll is gone
                pass


class Side:
    """The remote games' per-process state of one club app: its waiters and rate limit."""

    def __init__(self, cfg):
        self.waiters = Waiters()
        self.rate = auth.RateLimit(20.0, 200)
        cfg.live.hooks.append(self.waiters.wake)


def side(cfg: Config) -> Side:
    s = getattr(cfg, "remote", None)
    if s is None:
        with _made:
            s = getattr(cfg, "remote", None)
            if s is None:
                s = cfg.remote = Side(cfg)
    return s


def now_ms(cfg: Config) -> int:
    return (cfg.clock or R.wall_ms)()


def _json(data):
    try:
        raw = data.decode("utf-8")
        if json_depth(raw) > MAX_DEPTH:
            raise R.BadRequest("the JSON is nested too deep")
        return json.loads(raw)
    except UnicodeDecodeError:
        raise R.BadRequest("the body is not UTF-8")
    except ValueError as e:  # json.JSONDecodeError, and an int of thousands of digits
        raise R.BadRequest("the body is not JSON: %s" % str(e)[:100])


def _live_event(row):
    return LV.event(R.live_row(row))


async def _changed(cfg, row):
    """After the commit: every process's polls of this game wake; spectators see it."""

    def work():
        cfg.live.signal({"type": "remote", "game": row["id"]})
        cfg.live.send(*_live_event(row))

    await run_in_threadpool(work)


async def _begin(request):
    """(cfg, board, Side) of an authorised call, or the error response."""
    cfg = club_of(request)
    board = await run_in_threadpool(cfg.board_of, request)
    if board is None:
        return None, err(NO_TOKEN, 401)
    s = side(cfg)
    if not s.rate.allow(board):
        return None, err("too many calls: wait a moment", 429)
    await run_in_threadpool(cfg.live.start, asyncio.get_running_loop())
    return (cfg, board, s), None


def _answer(done):
    return JSONResponse(done.answer, status_code=done.status)


async def _run(request, parse, op):
    """One POST or GET: authorised, the game id and body read and checked, then op in the
    thread pool: op(store, board, gid, args, now) -> remote.Done."""
    got, bad = await _begin(request)
    if bad is not None:
        return bad
    cfg, board, _ = got
    try:
        gid = R.parse_game_id(request.path_params["gid"]) if "gid" in request.path_params else None
        args = None
        if parse is not None:
            data = await read_body(request, MAX_BODY)
            if data is None:
                return err("a request's body is at most %d bytes" % MAX_BODY, 413)
            args = parse(_json(data))
        done = await run_in_threadpool(op, cfg.store, board, gid, args, now_ms(cfg))
    except R.BadRequest as e:
        return err(str(e), 400)
    except R.NotFound as e:
        return err(str(e), 404)
    except R.PlyConflict as e:
        return JSONResponse({"error": str(e), "ply": e.ply}, status_code=409)
    except (R.NotAllowed, Refused) as e:
        return err(str(e), 422)
    if done.changed:
        await _changed(cfg, done.row)
    return _answer(done)


async def seek(request: Request) -> JSONResponse:
    return await _run(request, R.parse_seek, lambda st, b, _, a, now: R.seek(st, b, *a, now=now))


async def open_seeks(request: Request) -> JSONResponse:
    return await _run(request, None, lambda st, b, _, a, now: R.open_seeks(st, b))


async def accept(request: Request) -> JSONResponse:
    return await _run(request, None, lambda st, b, gid, a, now: R.accept(st, gid, b, now))


async def move(request: Request) -> JSONResponse:
    return await _run(
        request, R.parse_move, lambda st, b, gid, a, now: R.move(st, gid, b, a[0], a[1], now)
    )


async def offer(request: Request) -> JSONResponse:
    return await _run(
        request, R.parse_offer, lambda st, b, gid, a, now: R.offer(st, gid, b, a, now)
    )


async def bind(request: Request) -> JSONResponse:
    return await _run(request, R.parse_bind, lambda st, b, gid, a, now: R.bind(st, gid, b, a))


def _query_int(q, name, lo, hi, default):
    v = q.get(name)
    if v is None:
        return default
    if len(v) > 20 or not v.lstrip("-").isdigit() or not lo <= int(v) <= hi:
        raise R.BadRequest("'%s' is a whole number from %d to %d" % (name, lo, hi))
    return int(v)


def _query_wait(q):
    v = q.get("wait")
    if v is None:
        return 0.0
    try:
        w = float(v) if len(v) <= 20 else math.nan
    except ValueError:
        w = math.nan
    if not 0 <= w <= MAX_WAIT:  # nan and inf fail this too
        raise R.BadRequest("'wait' is seconds from 0 to %g" % MAX_WAIT)
    return w


async def state(request: Request) -> JSONResponse:
    """The game's state; a long poll: at once if the caller has not seen it, else when the
    game changes (a move, an offer, its end, the other PC coming or going) or `wait` ends."""
    got, bad = await _begin(request)
    if bad is not None:
        return bad
    cfg, board, s = got
    q = request.query_params
    try:
        gid = R.parse_game_id(request.path_params["gid"])
        after = _query_int(q, "after", -1, R.MAX_PLIES, -1)
        v = _query_int(q, "v", 0, R.MAX_GAME_ID, None)
        look = _query_int(q, "look", 0, 1, 0) == 1
        wait = _query_wait(q)
    except R.BadRequest as e:
        return err(str(e), 400)
    except R.NotFound as e:
        return err(str(e), 404)
    loop = asyncio.get_running_loop()
    if s.waiters.count >= MAX_POLLS:
        wait = 0.0  # a flood of polls: each is answered at once, none is kept
    deadline = loop.time() + wait
    ev = s.waiters.add(gid)
    try:
        while True:
            ev[0].clear()  # before the look: a change committed after it sets ev again
            try:
                done = await run_in_threadpool(
                    R.poll, cfg.store, gid, board, now_ms(cfg), after, v, look
                )
            except R.NotFound as e:
                return err(str(e), 404)
            if done.changed:
                await _changed(cfg, done.row)
            left = deadline - loop.time()
            if done.ready or left <= 0:
                return _answer(done)
            timeout = min(left, POLL_S)
            if done.next_ms is not None:
                timeout = min(timeout, done.next_ms / 1000.0)
            try:
                await asyncio.wait_for(ev[0].wait(), timeout)
            except asyncio.TimeoutError:
                pass
    finally:
        s.waiters.remove(gid, ev)


def routes() -> list[Route]:
    return [
        Route("/api/remote/seek", seek, methods=["POST"]),
        Route("/api/remote/open", open_seeks),
        Route("/api/remote/{gid}", state),
        Route("/api/remote/{gid}/accept", accept, methods=["POST"]),
        Route("/api/remote/{gid}/move", move, methods=["POST"]),
        Route("/api/remote/{gid}/offer", offer, methods=["POST"]),
        Route("/api/remote/{gid}/bind", bind, methods=["POST"]),
    ]
