"""The library page (/library): the logged games a page at a time, filtered and sorted, and
one game's export (/export/ID)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shared_rules import GAMES
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from .. import export
from . import library as L
from .web import site_of

if TYPE_CHECKING:
    from starlette.datastructures import QueryParams
    from starlette.requests import Request


def filters(qp: QueryParams) -> dict[str, Any]:
    """The query's filters, each one the page offers or empty: never free text into SQL."""
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


def _int(v: Any, default: int, lo: int, hi: int) -> int:
    try:
        return max(lo, min(hi, int(v)))
    except (TypeError, ValueError):
        return default


def library_page(request: Request) -> Response:
    site = site_of(request)
    qp = request.query_params
    f = filters(qp)
    sort = qp.get("sort", "date")
    sort = sort if sort in L.SORTS else "date"
    desc = qp.get("dir", "desc") != "asc"
    pno = _int(qp.get("page"), 1, 1, 10**7)
    with site.db() as con:
        rows, total = L.page(con, f, sort, desc, pno)
    pages = max(1, (total + L.PAGE - 1) // L.PAGE)
    keep = {k: v for k, v in f.items() if v}
    keep.update(sort=sort, dir="desc" if desc else "asc")
    return site.page(
        "library",
        request,
        rows=rows,
        total=total,
        page_no=pno,
        pages=pages,
        f=f,
        sort=sort,
        desc=desc,
        keep=keep,
        games=sorted(GAMES),
        results=L.RESULTS,
        opponents=L.OPPONENTS,
        levels=L.LEVELS,
    )


def export_one(request: Request) -> Response:
    row = site_of(request).row(request.path_params["gid"])
    fmt = request.query_params.get("format", "jsonl")
    if row is None or fmt not in export.FORMATS:
        return PlainTextResponse("no such game or format\n", status_code=404)
    ext = {"jsonl": "jsonl", "text": "txt", "csv": "csv"}[fmt]
    safe = "".join(ch for ch in row["id"] if ch.isalnum() or ch in "-_")[:64] or "game"
    return Response(
        export.dumps([row], fmt),
        media_type="text/plain; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="%s.%s"' % (safe, ext)},
    )


def routes() -> list[Route]:
    return [
        Route("/library", library_page),
        Route("/export/{gid:path}", export_one),
    ]
