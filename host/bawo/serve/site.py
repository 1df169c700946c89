"""The ASGI app of `bawo serve`: pages, JSON, the live stream (SSE), static files.

Security (each has a test that tries the attack, tests/test_serve.py):
* Host must be one of the server's own names with its port (DNS rebinding).
* An Origin header, when sent, must be the server's own origin (cross-site requests); a
  browser's request from another site (Sec-Fetch-Site) is refused unless it opens a page, so
  no web page can make the server compute through an image or a script tag.
* Every request that changes anything (POST) carries X-Bawo-Token, a random token written
  into the pages only; a non-local bind needs the token on every request (cookie).
* Static files come from StaticFiles (no path outside its folder); templates autoescape,
  and show controls and bidi marks as escapes (bawo.text.safe, as the CLI).
* Every JSON body is read by request.json_body (bounded, checked); the rules' work runs on
  request.Gate's own threads, so a flood of it never stalls the pages.
"""
import hmac
import json
import os
import secrets
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import parse_qs, urlencode

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from shared_rules import GAMES, game as make_game, State
from shared_rules.errors import RulesError, RecordError
from shared_rules.record import Record

from ..errors import BawoError
from .. import export
from ..text import safe
from . import boardview as B, library as L, stats as S
from .live import Hub, Bridge
from .play_session import Session as PlaySession, default_game
from .analysis import Analyses
from .request import BadRequest, Busy, Gate, Gone, int_field, json_body, text_field

HERE = Path(__file__).resolve().parent
MAX_POSITION = 400     # characters of a position in a request (the longest real one is ~80)
MAX_MOVE = 16
SIDE_NAMES = {"S": "South", "N": "North", "G": "Goats", "T": "Tigers"}


def _one_line(e):
    return " ".join(str(e).split())[:300]


class Guard:
    """ASGI middleware: Host/Origin checks and the token, before any route runs."""

    def __init__(self, app, cfg):
        self.app = app
        self.cfg = cfg

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {}
        for k, v in scope["headers"]:
            headers.setdefault(k.decode("latin-1").lower(), v.decode("latin-1"))
        why = self.cfg.refuse(scope, headers)
        if why:
            resp = PlainTextResponse(why + "\n", status_code=403)
            return await resp(scope, receive, send)
        return await self.app(scope, receive, send)


class Config:
    def __init__(self, db_path, host="127.0.0.1", port=0, remote=False, token=None):
        self.db_path = db_path
        self.host = host
        self.port = port
        self.remote = remote
        self.token = token or secrets.token_urlsafe(24)

    def hosts(self):
        names = {"127.0.0.1", "localhost", "[::1]"}
        if self.remote:
            names.add(self.host if ":" not in self.host else "[%s]" % self.host)
        return {"%s:%d" % (n, self.port) for n in names}

    def token_ok(self, given):
        return bool(given) and hmac.compare_digest(given.encode(), self.token.encode())

    def refuse(self, scope, headers):
        """None, or why the request is refused."""
        host = headers.get("host", "")
        # Remote mode: other computers name this one as they like; the token on every request
        # (below) is what stops a rebinding page, which cannot know it.
        if host not in self.hosts() and not self.remote:
            return "refused: this server answers only as http://127.0.0.1:%d/" % self.port
        origin = headers.get("origin")
        if origin is not None and origin != "http://" + host:
            return "refused: a request from another site (%s)" % origin[:100]
        # Browsers name a request's site even where they send no Origin (an <img>, a
        # <script>): another site's may open a page (a link), nothing else.
        site = headers.get("sec-fetch-site")
        if site not in (None, "same-origin", "none") and not (
                scope["method"] in ("GET", "HEAD") and headers.get("sec-fetch-mode") == "navigate"):
            return "refused: a request from another site"
        if scope["method"] not in ("GET", "HEAD"):
            if not self.token_ok(headers.get("x-bawo-token", "")):
                return "refused: a change needs the page's token; reload the page"
        if self.remote:
            cookie = SimpleCookie()
            try:
                cookie.load(headers.get("cookie", ""))
            except Exception:
                pass
            qs = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            given = (cookie["bawo_token"].value if "bawo_token" in cookie else
                     (qs.get("token") or [""])[0])
            if not self.token_ok(given):
                return "refused: open the address with ?token=... that `bawo serve` printed"
        return None


def _env():
    env = Environment(loader=FileSystemLoader(str(HERE / "templates")),
                      autoescape=select_autoescape(["html"], default=True))
    env.filters["side"] = lambda s: SIDE_NAMES.get(s, s)
    # Text from the log or a board (ids, devices, reasons): controls and bidi marks as
    # escapes, as the CLI prints them (one rule: bawo.text.safe).
    env.filters["shown"] = lambda v, keep="": safe(v, keep)
    env.filters["urlencode_without"] = lambda keep, drop: "".join(
        "%s&" % urlencode({k: v}) for k, v in keep.items() if k not in drop)
    return env


def create_app(cfg, port=None, sim=None, follow_board=True):
    env = _env()
    hub = Hub()
    bridge = Bridge(hub, cfg.db_path, port=port, sim=sim, enabled=follow_board)

    def page(name, request, status=200, **kw):
        kw.update(token=cfg.token, nav=name)
        resp = HTMLResponse(env.get_template(name + ".html").render(**kw), status_code=status)
        resp.headers["Content-Security-Policy"] = (
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
            "frame-ancestors 'none'")
        resp.headers["X-Content-Type-Options"] = "nosniff"
        if cfg.remote:
            resp.set_cookie("bawo_token", cfg.token, httponly=True, samesite="strict")
        return resp

    def db():
        return L.using(cfg.db_path)

    # -- pages --------------------------------------------------------------------------
    async def live_page(request):
        return page("live", request, games=sorted(GAMES))

    def _filters(qp):
        f = {}
        g = qp.get("game", "")
        f["game"] = g if g in GAMES else ""
        r = qp.get("result", "")
        f["result"] = r if r in L.RESULTS else ""
        o = qp.get("opponent", "")
        f["opponent"] = o if o in L.OPPONENTS else ""
        v = qp.get("level", "")
        f["level"] = v if v in L.LEVELS else ""
        for k in ("since", "until"):
            v = qp.get(k, "")[:25]
            f[k] = v if all(ch in "0123456789-T:" for ch in v) else ""
        f["q"] = qp.get("q", "")[:64]
        return f

    def _int(v, default, lo, hi):
        try:
            return max(lo, min(hi, int(v)))
        except (TypeError, ValueError):
            return default

    def library_page(request):
        qp = request.query_params
        f = _filters(qp)
        sort = qp.get("sort", "date")
        sort = sort if sort in L.SORTS else "date"
        desc = qp.get("dir", "desc") != "asc"
        pno = _int(qp.get("page"), 1, 1, 10 ** 7)
        with db() as con:
            rows, total = L.page(con, f, sort, desc, pno)
        pages = max(1, (total + L.PAGE - 1) // L.PAGE)
        keep = {k: v for k, v in f.items() if v}
        keep.update(sort=sort, dir="desc" if desc else "asc")
        return page("library", request, rows=rows, total=total, page_no=pno, pages=pages,
                    f=f, sort=sort, desc=desc, keep=keep, games=sorted(GAMES),
                    results=L.RESULTS, opponents=L.OPPONENTS, levels=L.LEVELS)

    def _row(gid):
        if len(gid) > 128:
            return None
        with db() as con:
            return con.execute("SELECT * FROM games WHERE id=?", (gid,)).fetchone()

    def game_page(request):
        row = _row(request.path_params["gid"])
        if row is None:
            return page("missing", request, status=404,
                        what="game %s" % request.path_params["gid"][:128])
        return page("game", request, row=row, record=row["record"])

    charts_of = {}     # (game, the log's state): the charts, until the log changes

    def stats_page(request):
        g = request.query_params.get("game", "")
        g = g if g in GAMES else ""
        # The charts read up to S.OPENING_SAMPLE records (0.6 s on a big log): drawn once
        # for each state of the log, not for each GET.
        key = (g, L.state(cfg.db_path))
        charts = charts_of.get(key)
        if charts is None:
            with db() as con:
                charts = S.charts(con, g or None)
            if len(charts_of) >= 2 * len(GAMES) + 2:
                charts_of.clear()
            charts_of[key] = charts
        return page("stats", request, games=sorted(GAMES), game=g, charts=charts)

    async def board_page(request):
        return page("board", request, board=bridge.info)

    # -- JSON ------------------------------------------------------------------------------
    gate = Gate()

    def api(route):
        """A JSON route: a bad body or field is a 400 with its one line, a full gate a 503."""
        async def run(request):
            try:
                return await route(request)
            except BadRequest as e:
                return JSONResponse({"error": _one_line(e)}, status_code=400)
            except Busy:
                return JSONResponse({"error": "busy: too many requests at once, try again"},
                                    status_code=503, headers={"Retry-After": "1"})
            except Gone:
                return Response(status_code=400)   # nobody is left to read it
        return run

    @api
    async def api_game(request):
        row = await run_in_threadpool(_row, request.path_params["gid"])
        if row is None:
            return JSONResponse({"error": "no such game"}, status_code=404)
        return await gate.run(_replay, row)

    def _replay(row):
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
        return JSONResponse({"id": row["id"], "game": g.name, "header": dict(rec.header),
                             "moves": list(rec.moves), "positions": positions, "turns": turns,
                             "counts": counts, "layout": B.layout(g.name)})

    analyses = Analyses()

    def api_analysis(request):
        """GET: the game's analysis so far; POST: start it (once per game id)."""
        gid = request.path_params["gid"]
        if request.method == "GET":
            return JSONResponse(analyses.get(gid[:128]))
        row = _row(gid)
        if row is None:
            return JSONResponse({"error": "no such game"}, status_code=404)
        return JSONResponse(analyses.start(row["id"], row["record"]))

    def _game_pos(qp):
        name = qp.get("game", "")
        pos = qp.get("position", "")
        if name not in GAMES or not pos or len(pos) > MAX_POSITION:
            raise ValueError("give game and position")
        g = make_game(name)
        return name, g, g.format(g.parse(pos))   # RulesError (a ValueError) if not a position

    @api
    async def api_picture(request):
        return await gate.run(_picture, request.query_params)

    def _picture(qp):
        try:
            name, g, pos = _game_pos(qp)
        except ValueError as e:
            return JSONResponse({"error": str(e)[:200]}, status_code=400)
        return JSONResponse(B.picture(name, pos))

    @api
    async def api_sow(request):
        return await gate.run(_sow, request.query_params)

    def _sow(qp):
        try:
            name, g, pos = _game_pos(qp)
            mv = qp.get("move", "")
            if not mv or len(mv) > MAX_MOVE:
                raise ValueError("give a move")
            st = State(g, pos)
            st.push(mv)                       # refuses an illegal move before drawing
            after = g.format(st.position)
        except ValueError as e:
            return JSONResponse({"error": str(e)[:200]}, status_code=400)
        return JSONResponse({"frames": B.sowing(name, pos, mv), "after": B.picture(name, after)})

    async def api_layout(request):
        name = request.path_params["game"]
        if name not in GAMES:
            return JSONResponse({"error": "no such game"}, status_code=404)
        return JSONResponse(B.layout(name))

    def export_one(request):
        row = _row(request.path_params["gid"])
        fmt = request.query_params.get("format", "jsonl")
        if row is None or fmt not in export.FORMATS:
            return PlainTextResponse("no such game or format\n", status_code=404)
        ext = {"jsonl": "jsonl", "text": "txt", "csv": "csv"}[fmt]
        safe = "".join(ch for ch in row["id"] if ch.isalnum() or ch in "-_")[:64] or "game"
        return Response(export.dumps([row], fmt), media_type="text/plain; charset=utf-8",
                        headers={"Content-Disposition": 'attachment; filename="%s.%s"' % (safe, ext)})

    async def api_sync(request):
        try:
            rep = await run_in_threadpool(bridge.call, "sync")
        except BawoError as e:
            return JSONResponse({"error": str(e)}, status_code=409)
        return JSONResponse(rep)

    async def api_flash(request):
        prof = (bridge.info or {}).get("profile") or "bawo-4x8"
        try:
            r = await run_in_threadpool(bridge.call, "flash", prof, 600)
        except BawoError as e:
            return JSONResponse({"error": str(e)}, status_code=409)
        return JSONResponse(r)

    @api
    async def api_move(request):
        mv = text_field(await json_body(request), "move", MAX_MOVE)
        try:
            r = await run_in_threadpool(bridge.call, "move", mv)
        except BawoError as e:
            return JSONResponse({"error": str(e)}, status_code=409)
        return JSONResponse(r)

    session = PlaySession(cfg.db_path)

    def play_page(request):
        return page("play", request, games=sorted(GAMES), chosen=default_game(cfg.db_path))

    @api
    async def api_play_new(request):
        b = await json_body(request)
        name = text_field(b, "game", 16, choices=GAMES)
        side, level = int_field(b, "side", 0, 1, 0), int_field(b, "level", 1, 5, 3)
        try:
            return JSONResponse(await gate.run(session.new, name, side, level))
        except (ValueError, BawoError) as e:
            return JSONResponse({"error": _one_line(e)}, status_code=400)

    @api
    async def api_play(request):
        return JSONResponse(await gate.run(session.current))

    @api
    async def api_play_move(request):
        mv = text_field(await json_body(request), "move", MAX_MOVE)
        try:
            return JSONResponse(await gate.run(session.move, mv))
        except (ValueError, BawoError) as e:     # an illegal move (RulesError), not your turn
            return JSONResponse({"error": _one_line(e)}, status_code=400)

    async def api_play_hint(request):
        try:
            return JSONResponse(await run_in_threadpool(session.hint))
        except BawoError as e:     # no game, not your turn
            return JSONResponse({"error": _one_line(e)}, status_code=400)

    async def live_stream(request):
        from sse_starlette.sse import EventSourceResponse
        q = hub.subscribe()

        async def gen():
            try:
                while True:
                    msg = await q.get()
                    yield {"data": json.dumps(msg)}
            finally:
                hub.unsubscribe(q)
        return EventSourceResponse(gen(), ping=10)

    async def on_start():
        import asyncio
        hub.loop = asyncio.get_running_loop()
        bridge.start()

    async def on_stop():
        await run_in_threadpool(bridge.close)

    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(app):
        await on_start()
        yield
        await on_stop()

    routes = [
        Route("/", live_page),
        Route("/library", library_page),
        Route("/game/{gid:path}", game_page),
        Route("/stats", stats_page),
        Route("/board", board_page),
        Route("/play", play_page),
        Route("/api/play", api_play),
        Route("/api/play/new", api_play_new, methods=["POST"]),
        Route("/api/play/move", api_play_move, methods=["POST"]),
        Route("/api/play/hint", api_play_hint, methods=["POST"]),
        Route("/api/analysis/{gid:path}", api_analysis, methods=["GET", "POST"]),
        Route("/api/game/{gid:path}", api_game),
        Route("/api/picture", api_picture),
        Route("/api/sow", api_sow),
        Route("/api/layout/{game}", api_layout),
        Route("/export/{gid:path}", export_one),
        Route("/api/sync", api_sync, methods=["POST"]),
        Route("/api/move", api_move, methods=["POST"]),
        Route("/api/flash", api_flash, methods=["POST"]),
        Route("/live", live_stream),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.hub, app.state.bridge, app.state.cfg = hub, bridge, cfg
    app.state.analyses = analyses
    return Guard(app, cfg)
