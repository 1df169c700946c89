"""`bawo club serve`: the club's pages and API on uvicorn, as `bawo serve` runs its page."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from .store import is_postgres, open_store

if TYPE_CHECKING:
    import socket

    from starlette.applications import Starlette

    from .store import PgStore, SqliteStore


def default_db() -> str:
    from platformdirs import user_data_dir

    return os.path.join(user_data_dir("bawo", appauthor=False), "club.sqlite")


def make(
    db: str | None, host: str = "127.0.0.1", port: int = 0, **limits: Any
) -> tuple[Starlette, socket.socket, SqliteStore | PgStore, str]:
    """(app, socket, store, url): what `bawo club serve` runs, also used by the tests."""
    from ..serve import listen
    from .asgi import Config, create_app

    store = open_store(db or default_db())
    try:
        sock = listen(host, port)
    except BaseException:
        store.close()
        raise
    app = create_app(Config(store, **limits))
    shown = host if ":" not in host else "[%s]" % host
    return app, sock, store, "http://%s:%d/" % (shown, sock.getsockname()[1])


def run(db: str | None = None, bind: str = "127.0.0.1", http_port: int = 8080) -> int:
    import uvicorn

    app, sock, store, url = make(db, bind, http_port)
    where = "PostgreSQL" if is_postgres(db) else (db or default_db())
    print("bawo club serve: %s  (club database %s; Ctrl-C stops)" % (url, where), flush=True)
    # proxy_headers: behind a reverse proxy (TLS), the client's address and scheme come from
    # X-Forwarded-*, trusted from the proxy on this machine only (uvicorn's default).
    config = uvicorn.Config(
        app, log_level="warning", lifespan="off", proxy_headers=True, timeout_graceful_shutdown=2
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        app.state.club.live.close()
        store.close()
    print("bawo club serve: stopped", file=sys.stderr)
    return 0
