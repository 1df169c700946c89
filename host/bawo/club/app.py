"""The club server's ASGI app: pages, the record upload, the admin's forms.

Security (tests/test_club_security.py tries each):
* Uploads carry a board token (Authorization: Bearer); a token uploads its own board's records
  only; revoked tokens are refused; bodies are bounded before they are read; every record is
  replayed before anything is stored (records.verify); uploads and logins are rate limited.
* Admin pages need a session (cookie, HttpOnly, SameSite=Strict) and every form a CSRF token
  tied to that session; passwords are scrypt hashes (auth.py).
* Every query takes its values as arguments (store.py), never in its text; every page is a
  Jinja template that autoescapes, with a Content-Security-Policy allowing no inline script.
"""
import asyncio
import hmac
import json
import time
from pathlib import Path
from urllib.parse import parse_qs, quote

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from shared_rules import GAMES

from ..text import safe
from ..serve.request import _depth
from . import ClubError, auth, ratings as R
from . import live as LV
from .records import MAX_RECORD, Refused, check_board, check_player, verify
from .store import LiveGap, Unavailable

HERE = Path(__file__).resolve().parent
MAX_FORM = 4096
RATINGS_TTL = 5.0
MAX_LIVE = 64 * 1024     # bytes of a live update (2000 plies of moves fit)
COOKIE = "bawo_club"


class Config:
    def __init__(self, store, upload_rate=50.0, upload_burst=500, login_rate=0.2, login_burst=5,
                 live_rate=20.0, live_burst=200, spectators=2000):
        self.store = store
        self.live = LV.Live(store)
        self.moves = auth.RateLimit(live_rate, live_burst)
        self.spectators = spectators
        self.uploads = auth.RateLimit(upload_rate, upload_burst)
        self.logins = auth.RateLimit(login_rate, login_burst)


def _env():
    env = Environment(loader=FileSystemLoader(str(HERE / "templates")),
                      autoescape=select_autoescape(["html"], default=True))
    env.filters["shown"] = lambda v: safe("" if v is None else v)
    env.filters["q"] = lambda v: quote(str(v), safe="")
    return env


def _bearer(request):
    h = request.headers.get("authorization", "")
    if not h.startswith("Bearer ") or len(h) > 7 + auth.MAX_SECRET:
        return None
    return h[7:].strip()


async def _body(request, limit):
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


def create_app(cfg):
    store = cfg.store
    env = _env()

    def page(template, request, status=200, **kw):
        kw.setdefault("admin", None)
        kw.setdefault("csrf", "")
        resp = HTMLResponse(env.get_template(template + ".html").render(nav=template, **kw),
                            status_code=status)
        resp.headers["Content-Security-Policy"] = (
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
            "script-src 'self'; frame-ancestors 'none'; form-action 'self'")
        resp.headers["X-Content-Type-Options"] = "nosniff"
        resp.headers["Referrer-Policy"] = "same-origin"
        return resp

    def err(msg, status):
        return JSONResponse({"error": msg}, status_code=status)

    def session(request):
        c = request.cookies.get(COOKIE)
        if not c or len(c) > auth.MAX_SECRET:
            return None
        return store.session(auth.token_hash(c))

    def board_of(request):
        tok = _bearer(request)
        return store.board_of_token(auth.token_hash(tok)) if tok else None

    # -- the PCs' API ---------------------------------------------------------------------
    async def whoami(request):
        board = await run_in_threadpool(board_of, request)
        if board is None:
            return err("no valid board token: ask the club's admin for one", 401)
        return JSONResponse({"board": board})

    async def upload(request):
        board = await run_in_threadpool(board_of, request)
        if board is None:
            return err("no valid board token: ask the club's admin for one", 401)
        if not cfg.uploads.allow(board):
            return err("too many uploads: wait a moment", 429)
        data = await _body(request, MAX_RECORD)
        if data is None:
            return err("a record is at most %d bytes" % MAX_RECORD, 413)

        def work():
            v = verify(board, data)
            return store.upload(board, v)
        try:
            # Answered only after the store's transaction committed: an answer means kept.
            outcome, seq = await run_in_threadpool(work)
        except Refused as e:
            return err(str(e), 422)
        return JSONResponse({"outcome": outcome, "seq": seq, "board": board})

    async def live_update(request):
        board = await run_in_threadpool(board_of, request)
        if board is None:
            return err("no valid board token: ask the club's admin for one", 401)
        if not cfg.moves.allow(board):
            return err("too many live updates: wait a moment", 429)
        data = await _body(request, MAX_LIVE)
        if data is None:
            return err("a live update is at most %d bytes" % MAX_LIVE, 413)
        try:
            raw = data.decode("utf-8")
            if _depth(raw) > 3:
                raise ValueError("nested too deep")
            rid, game, start, frm, moves, done = LV.parse_update(json.loads(raw))
        except (ValueError, Refused) as e:
            return err("bad live update: %s" % str(e)[:200], 400)
        loop = asyncio.get_running_loop()
        await run_in_threadpool(cfg.live.start, loop)

        def work():
            row = store.live_update(board, rid, game, start, frm, moves, done, LV.replay)
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

    def _live_rows():
        return [LV.event(r)[0] for r in store.live_boards(LV.since_hours(LV.LIVE_HOURS))]

    async def live_events(request):
        from sse_starlette.sse import EventSourceResponse
        hub = cfg.live.hub
        if len(hub.subs) >= cfg.spectators:
            return err("too many spectators: try again later", 503)
        loop = asyncio.get_running_loop()
        await run_in_threadpool(cfg.live.start, loop)
        q = hub.subscribe()
        first = await run_in_threadpool(_live_rows)

        async def gen():
            try:
                for msg in first:
                    yield {"data": json.dumps(msg)}
                while True:
                    yield {"data": json.dumps(await q.get())}
            finally:
                hub.unsubscribe(q)
        return EventSourceResponse(gen(), ping=10)

    async def live_page(request):
        board = request.query_params.get("board")
        if board is not None:
            try:
                check_board(board)
            except ClubError:
                return page("missing", request, 404, what="board")
        return page("live", request, board=board)

    # -- pages ----------------------------------------------------------------------------
    async def club_page(request):
        def load():
            return dict(boards=store.boards(), seats={s["board"]: s for s in store.seats()},
                        recent=store.recent(30),
                        conflicts=store.records(status="conflict"))
        s = await run_in_threadpool(session, request)
        return page("club", request, admin=s and s["admin"], **await run_in_threadpool(load))

    async def game_page(request):
        try:
            seq = int(request.query_params.get("seq", ""))
        except ValueError:
            return page("missing", request, 404, what="game")
        row = await run_in_threadpool(store.record, seq)
        if row is None:
            return page("missing", request, 404, what="game")
        s = await run_in_threadpool(session, request)
        return page("game", request, g=row, admin=s and s["admin"], csrf=s and s["csrf"])

    cache = {}

    def _tables():
        # Recomputed from the log (0.25 s for 20,000 games), at most every RATINGS_TTL
        # seconds a process: a page of a busy club does not replay the whole history.
        now = time.monotonic()
        if cache.get("t", -1e9) + RATINGS_TTL < now:
            cache.update(t=now, tables=R.recompute(store.rated_games()))
        return cache["tables"]

    async def leaderboard_page(request):
        kind = request.query_params.get("game", "bawo")
        kind = kind if kind in GAMES else "bawo"
        tables = await run_in_threadpool(_tables)
        return page("leaderboard", request, kind=kind, games=sorted(GAMES),
                    rows=R.leaderboard(tables.get(kind, {})))

    async def player_page(request):
        name = request.query_params.get("name", "")[:100]
        p = await run_in_threadpool(store.player, name)
        if p is None:
            return page("missing", request, 404, what="player")
        tables = await run_in_threadpool(_tables)
        kinds = {k: t[name] for k, t in sorted(tables.items()) if name in t}
        games = await run_in_threadpool(lambda: store.records(player=name))
        return page("player", request, name=name, kinds=kinds, games=games,
                    provisional=R.PROVISIONAL_RD)

    async def players_page(request):
        return page("players", request, players=await run_in_threadpool(store.players))

    # -- admin ----------------------------------------------------------------------------
    def _addr(request):
        return request.client.host if request.client else "?"

    async def _form(request):
        data = await _body(request, MAX_FORM)
        if data is None:
            return None
        try:
            q = parse_qs(data.decode("utf-8"), max_num_fields=20)
        except (UnicodeDecodeError, ValueError):
            return None
        return {k: v[0] for k, v in q.items()}

    async def login_page(request):
        return page("login", request)

    async def login(request):
        f = await _form(request)
        if f is None:
            return page("login", request, 400, error="bad form")
        name = f.get("name", "")[:100]
        if not cfg.logins.allow(_addr(request)) or not cfg.logins.allow("name:" + name):
            return page("login", request, 429, error="too many tries: wait a minute")

        def check():
            a = store.admin(name)
            salt, h = (a["salt"], a["hash"]) if a else auth._DUMMY
            ok = auth.check_password(f.get("password", ""), salt, h) and a is not None
            if not ok:
                return None
            cookie, hsh, csrf = auth.new_session()
            store.add_session(hsh, name, csrf)
            return cookie
        cookie = await run_in_threadpool(check)
        if cookie is None:
            return page("login", request, 403, error="wrong name or password")
        resp = RedirectResponse("/admin", status_code=303)
        resp.set_cookie(COOKIE, cookie, httponly=True, samesite="strict",
                        secure=request.url.scheme == "https", max_age=12 * 3600)
        return resp

    async def _admin_post(request):
        """(session, form) of a POST an admin made from our own page, or (None, response)."""
        s = await run_in_threadpool(session, request)
        if s is None:
            return None, page("login", request, 403, error="log in first")
        f = await _form(request)
        if f is None or not hmac.compare_digest(f.get("csrf", "").encode(), s["csrf"].encode()):
            return None, page("login", request, 403, error="the form is stale: reload the page")
        return s, f

    async def logout(request):
        s, f = await _admin_post(request)
        if s is None:
            return f
        await run_in_threadpool(store.end_session, auth.token_hash(request.cookies.get(COOKIE)))
        resp = RedirectResponse("/", status_code=303)
        resp.delete_cookie(COOKIE)
        return resp

    async def admin_page(request, shown_token=None, error=None, status=200):
        s = await run_in_threadpool(session, request)
        if s is None:
            return RedirectResponse("/login", status_code=303)
        toks = await run_in_threadpool(store.tokens)
        return page("admin", request, status, admin=s["admin"], csrf=s["csrf"], tokens=toks,
                    seats=await run_in_threadpool(store.seats), shown_token=shown_token, error=error)

    async def admin_action(request):
        s, f = await _admin_post(request)
        if s is None:
            return f
        what = request.path_params["what"]
        try:
            if what == "token":
                board = check_board(f.get("board", ""))
                tok = auth.new_token()
                await run_in_threadpool(store.add_token, board, auth.token_hash(tok))
                # Shown once, on this answer only: the club keeps its hash.
                return await admin_page(request, shown_token=(board, tok))
            if what == "revoke":
                await run_in_threadpool(store.revoke_token, int(f.get("id", "0")))
            elif what == "seat":
                board = check_board(f.get("board", ""))
                await run_in_threadpool(store.seat, board, check_player(f.get("south", "")),
                                        check_player(f.get("north", "")))
            elif what == "names":
                seq = int(f.get("seq", "0"))
                await run_in_threadpool(store.set_names, seq, check_player(f.get("south", "")),
                                        check_player(f.get("north", "")))
                cache.clear()
                return RedirectResponse("/game?seq=%d" % seq, status_code=303)
            else:
                return page("missing", request, 404, what="page")
        except (ClubError, ValueError) as e:
            return await admin_page(request, error=str(e)[:300], status=400)
        return RedirectResponse("/admin", status_code=303)

    routes = [
        Route("/", club_page),
        Route("/game", game_page),
        Route("/leaderboard", leaderboard_page),
        Route("/players", players_page),
        Route("/player", player_page),
        Route("/login", login_page, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/admin", admin_page, methods=["GET"]),
        Route("/admin/{what}", admin_action, methods=["POST"]),
        Route("/api/whoami", whoami),
        Route("/api/records", upload, methods=["POST"]),
        Route("/api/live", live_update, methods=["POST"]),
        Route("/live", live_page),
        Route("/live/events", live_events),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    async def unavailable(request, exc):
        # The database is restarting or out of reach: nothing was kept; the PC tries again.
        if request.url.path.startswith("/api/"):
            return err(str(exc)[:300], 503)
        return page("missing", request, 503, what="database right now (try again in a moment)")

    app = Starlette(routes=routes, exception_handlers={Unavailable: unavailable})
    app.state.club = cfg
    return app
