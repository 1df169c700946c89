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

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from . import admin, pages, pc_api, remote_api, remote_pages, tournament_pages
from .clubsite import COOKIE, HERE, Config, err
from .store import Unavailable

__all__ = ["COOKIE", "Config", "create_app"]

# One module a part of the club; each gives its routes.
PARTS = (pages, admin, pc_api, tournament_pages, remote_api, remote_pages)


def create_app(cfg: Config) -> Starlette:
    """The club's ASGI app on cfg (a Config): every part's routes and the static files."""

    async def unavailable(request, exc):
        # The database is restarting or out of reach: nothing was kept; the PC tries again.
        if request.url.path.startswith("/api/"):
            return err(str(exc)[:300], 503)
        return cfg.page("missing", request, 503, what="database right now (try again in a moment)")

    routes = [r for part in PARTS for r in part.routes()]
    routes.append(Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"))
    app = Starlette(routes=routes, exception_handlers={Unavailable: unavailable})
    app.state.club = cfg
    return app
