"""The tournaments' pages: the list (and the admin's form for a new one), a tournament (its
players, rounds, boards, results and standings, and the admin's forms: register, start the
next round, enter a result), its crosstable, the wall (the current round's boards live), and
its standings as CSV and whole as JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from shared_rules import GAMES

from . import ClubError
from . import tournaments as T
from .admin import admin_post
from .clubsite import club_of

if TYPE_CHECKING:
    from starlette.requests import Request

    from .clubsite import Config


def _tid(request: Request) -> int | None:
    try:
        return int(request.query_params.get("id", ""))
    except ValueError:
        return None


async def _tournament(request: Request) -> tuple[Config, dict[str, Any] | None]:
    """(config, tournament row) or (config, None) for a missing one."""
    cfg = club_of(request)
    tid = _tid(request)
    tour = None if tid is None else await run_in_threadpool(T.get, cfg.store, tid)
    return cfg, tour


async def list_page(request: Request) -> Response:
    cfg = club_of(request)
    s = await run_in_threadpool(cfg.session, request)
    rows = await run_in_threadpool(T.listing, cfg.store)
    return cfg.page(
        "tournaments",
        request,
        tournaments=rows,
        games=sorted(GAMES),
        systems=T.SYSTEMS,
        admin=s and s["admin"],
        csrf=s and s["csrf"],
        error=request.query_params.get("error"),
    )


async def tournament_page(request: Request) -> Response:
    cfg, tour = await _tournament(request)
    if tour is None:
        return cfg.page("missing", request, 404, what="tournament")
    store = cfg.store

    def load():
        T.fill_results(store)
        rows = T.pairings(store, tour["id"])
        rounds = {}
        for r in rows:
            rounds.setdefault(r["round"], []).append(r)
        return dict(
            players=T.entrants(store, tour["id"]),
            rounds=sorted(rounds.items(), reverse=True),
            standings=T.standings(store, tour["id"]),
        )

    s = await run_in_threadpool(cfg.session, request)
    return cfg.page(
        "tournament",
        request,
        t=tour,
        systems=T.SYSTEMS,
        admin=s and s["admin"],
        csrf=s and s["csrf"],
        error=request.query_params.get("error"),
        **await run_in_threadpool(load),
    )


async def crosstable_page(request: Request) -> Response:
    cfg, tour = await _tournament(request)
    if tour is None:
        return cfg.page("missing", request, 404, what="tournament")
    rows, n = await run_in_threadpool(T.crosstable, cfg.store, tour["id"])
    return cfg.page("crosstable", request, t=tour, rows=rows, rounds=n)


async def wall_page(request: Request) -> Response:
    """The current round's boards live, for the wall: a card a board, named by its table."""
    cfg, tour = await _tournament(request)
    if tour is None:
        return cfg.page("missing", request, 404, what="tournament")
    rows = await run_in_threadpool(T.pairings, cfg.store, tour["id"])
    current = max([r["round"] for r in rows] or [0])
    games = [r for r in rows if r["round"] == current]
    return cfg.page(
        "wall",
        request,
        t=tour,
        round=current,
        games=games,
        tables={g["board"]: g["tbl"] for g in games if g["board"]},
    )


async def standings_csv(request: Request) -> Response:
    cfg, tour = await _tournament(request)
    if tour is None:
        return Response("no such tournament\n", status_code=404, media_type="text/plain")
    text = await run_in_threadpool(T.standings_csv, cfg.store, tour["id"])
    return Response(
        text,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="standings-%d.csv"' % tour["id"]},
    )


async def export_json(request: Request) -> Response:
    cfg, tour = await _tournament(request)
    if tour is None:
        return JSONResponse({"error": "no such tournament"}, status_code=404)
    return JSONResponse(await run_in_threadpool(T.export, cfg.store, tour["id"]))


async def admin_action(request: Request) -> Response:
    """The admin's forms: new, register, round, result. Back to the page, with the error."""
    s, f = await admin_post(request)
    if s is None:
        return f
    cfg = club_of(request)
    store = cfg.store
    what = request.path_params["what"]
    tid = None
    try:
        if what == "new":
            tid = await run_in_threadpool(
                T.create,
                store,
                f.get("name", ""),
                f.get("game"),
                f.get("system"),
                f.get("rounds") or 0,
            )
        else:
            tid = int(f.get("id", "0"))
            if what == "register":
                await run_in_threadpool(T.register, store, tid, f.get("player", ""))
            elif what == "round":
                tour = await run_in_threadpool(T.get, store, tid)
                ratings = {}
                if tour is not None:
                    table = (await run_in_threadpool(cfg.tables)).get(tour["game"], {})
                    ratings = {p: e["rating"].r for p, e in table.items()}
                await run_in_threadpool(T.next_round, store, tid, ratings)
            elif what == "result":
                tid = await run_in_threadpool(
                    T.set_result, store, int(f.get("pairing", "0")), f.get("result")
                )
            else:
                return cfg.page("missing", request, 404, what="page")
    except (ClubError, ValueError) as e:
        where = "/tournaments" if tid is None else "/tournament?id=%d" % tid
        return RedirectResponse(
            "%s%serror=%s" % (where, "&" if tid is not None else "?", quote(str(e)[:300])),
            status_code=303,
        )
    return RedirectResponse("/tournament?id=%d" % tid, status_code=303)


def routes() -> list[Route]:
    return [
        Route("/tournaments", list_page),
        Route("/tournament", tournament_page),
        Route("/tournament/crosstable", crosstable_page),
        Route("/tournament/wall", wall_page),
        Route("/tournament/standings.csv", standings_csv),
        Route("/tournament/export.json", export_json),
        Route("/tournaments/{what}", admin_action, methods=["POST"]),
    ]
