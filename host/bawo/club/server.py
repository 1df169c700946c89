"""`bawo club serve`: the club's pages and API on uvicorn, as `bawo serve` runs its page."""
import os
import sys

from .store import is_postgres, open_store


def default_db():
    from platformdirs import user_data_dir
    return os.path.join(user_data_dir("bawo", appauthor=False), "club.sqlite")


def make(db, host="127.0.0.1", port=0, **limits):
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


def run(db=None, bind="127.0.0.1", http_port=8080):
    import uvicorn
    app, sock, store, url = make(db, bind, http_port)
    where = "PostgreSQL" if is_postgres(db) else (db or default_db())
    print("bawo club serve: %s  (club database %s; Ctrl-C stops)" % (url, where), flush=True)
    # proxy_headers: behind a reverse proxy (TLS), the client's address and scheme come from
    # X-Forwarded-*, trusted from the proxy on this machine only (uvicorn's default).
    config = uvicorn.Config(app, log_level="warning", lifespan="off", proxy_headers=True,
                            timeout_graceful_shutdown=2)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        app.state.club.live.close()
        store.close()
    print("bawo club serve: stopped", file=sys.stderr)
    return 0
