"""The admin's side: log in and out, the admin page, and its forms (issue and revoke board
tokens, seat players at a board, name a game's players). Every form carries the session's CSRF
token."""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.responses import RedirectResponse
from starlette.routing import Route

from . import ClubError, auth
from .clubsite import COOKIE, club_of, read_form
from .records import check_board, check_player

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response


def _addr(request: Request) -> str:
    return request.client.host if request.client else "?"


async def login_page(request: Request) -> Response:
    return club_of(request).page("login", request)


async def login(request: Request) -> Response:
    cfg = club_of(request)
    f = await read_form(request)
    if f is None:
        return cfg.page("login", request, 400, error="bad form")
    name = f.get("name", "")[:100]
    if not cfg.logins.allow(_addr(request)) or not cfg.logins.allow("name:" + name):
        return cfg.page("login", request, 429, error="too many tries: wait a minute")

    def check():
        a = cfg.store.admin(name)
        salt, h = (a["salt"], a["hash"]) if a else auth.UNKNOWN_ADMIN
        ok = auth.check_password(f.get("password", ""), salt, h) and a is not None
        if not ok:
            return None
        cookie, hsh, csrf = auth.new_session()
        cfg.store.add_session(hsh, name, csrf)
        return cookie

    cookie = await run_in_threadpool(check)
    if cookie is None:
        return cfg.page("login", request, 403, error="wrong name or password")
    resp = RedirectResponse("/admin", status_code=303)
    resp.set_cookie(
        COOKIE,
        cookie,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        max_age=12 * 3600,
    )
    return resp


async def admin_post(request: Request) -> tuple[Any, Any]:
    """(session, form) of a POST an admin made from our own page, or (None, response)."""
    cfg = club_of(request)
    s = await run_in_threadpool(cfg.session, request)
    if s is None:
        return None, cfg.page("login", request, 403, error="log in first")
    f = await read_form(request)
    if f is None or not hmac.compare_digest(f.get("csrf", "").encode(), s["csrf"].encode()):
        return None, cfg.page("login", request, 403, error="the form is stale: reload the page")
    return s, f


async def logout(request: Request) -> Response:
    s, f = await admin_post(request)
    if s is None:
        return f
    store = club_of(request).store
    await run_in_threadpool(store.end_session, auth.token_hash(request.cookies.get(COOKIE)))
    resp = RedirectResponse("/", status_code=303)
    resp.delete_cookie(COOKIE)
    return resp


async def admin_page(
    request: Request,
    shown_token: tuple[str, str] | None = None,
    error: str | None = None,
    status: int = 200,
) -> Response:
    cfg = club_of(request)
    s = await run_in_threadpool(cfg.session, request)
    if s is None:
        return RedirectResponse("/login", status_code=303)
    toks = await run_in_threadpool(cfg.store.tokens)
    return cfg.page(
        "admin",
        request,
        status,
        admin=s["admin"],
        csrf=s["csrf"],
        tokens=toks,
        seats=await run_in_threadpool(cfg.store.seats),
        shown_token=shown_token,
        error=error,
    )


async def admin_action(request: Request) -> Response:
    s, f = await admin_post(request)
    if s is None:
        return f
    cfg = club_of(request)
    store = cfg.store
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
            await run_in_threadpool(
                store.seat,
                board,
                check_player(f.get("south", "")),
                check_player(f.get("north", "")),
            )
        elif what == "names":
            seq = int(f.get("seq", "0"))
            await run_in_threadpool(
                store.set_names,
                seq,
                check_player(f.get("south", "")),
                check_player(f.get("north", "")),
            )
            cfg.cache.clear()
            return RedirectResponse("/game?seq=%d" % seq, status_code=303)
        else:
            return cfg.page("missing", request, 404, what="page")
    except (ClubError, ValueError) as e:
        return await admin_page(request, error=str(e)[:300], status=400)
    return RedirectResponse("/admin", status_code=303)


def routes() -> list[Route]:
    return [
        Route("/login", login_page, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/admin", admin_page, methods=["GET"]),
        Route("/admin/{what}", admin_action, methods=["POST"]),
    ]
