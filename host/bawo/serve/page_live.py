"""The live page (/): the board as it is played, its stream of events (SSE), and what the
page asks the board to do (sync, a move, a firmware update)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from shared_rules import GAMES
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..errors import BawoError
from .request import json_body, text_field
from .web import MAX_MOVE, api, site_of

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from starlette.requests import Request
    from starlette.responses import Response


async def live_page(request: Request) -> Response:
    return site_of(request).page("live", request, games=sorted(GAMES))


async def live_stream(request: Request) -> Response:
    from sse_starlette.sse import EventSourceResponse

    hub = site_of(request).hub
    q = hub.subscribe()

    async def gen() -> AsyncIterator[dict[str, Any]]:
        try:
            while True:
                msg = await q.get()
                yield {"data": json.dumps(msg)}
        finally:
            hub.unsubscribe(q)

    return EventSourceResponse(gen(), ping=10)


async def _bridge_call(request: Request, *args: Any) -> Response:
    """The board's answer as JSON; a refusal (no board, busy) is a 409 with its reason."""
    try:
        r = await run_in_threadpool(site_of(request).bridge.call, *args)
    except BawoError as e:
        return JSONResponse({"error": str(e)}, status_code=409)
    return JSONResponse(r)


async def api_sync(request: Request) -> Response:
    """Sync the board's games; then, when this PC joined a club, deliver what waits for it
    (this sync's records and any left from before), as `bawo sync` does."""
    site = site_of(request)
    try:
        r = await run_in_threadpool(site.bridge.call, "sync")
    except BawoError as e:
        return JSONResponse({"error": str(e)}, status_code=409)
    if "club" not in r:
        from ..club.client import deliver_if_joined

        club = await run_in_threadpool(deliver_if_joined, site.cfg.db_path)
        if club is not None:
            r["club"] = club
    return JSONResponse(r)


async def api_flash(request: Request) -> Response:
    prof = (site_of(request).bridge.info or {}).get("profile") or "bawo-4x8"
    return await _bridge_call(request, "flash", prof, 600)


@api
async def api_move(request: Request) -> Response:
    mv = text_field(await json_body(request), "move", MAX_MOVE)
    return await _bridge_call(request, "move", mv)


def routes() -> list[Route]:
    return [
        Route("/", live_page),
        Route("/api/sync", api_sync, methods=["POST"]),
        Route("/api/move", api_move, methods=["POST"]),
        Route("/api/flash", api_flash, methods=["POST"]),
        Route("/live", live_stream),
    ]
