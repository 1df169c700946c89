"""Helpers of the club's tests: a club app on a store, a board's token, records to upload."""

import contextlib
import threading

from bawo.club import auth
from bawo.club.asgi import Config, create_app
from bawo.club.store import open_store


@contextlib.contextmanager
def club_client(url, **limits):
    """(TestClient, store) of a club on the database at url."""
    from starlette.testclient import TestClient

    store = open_store(url)
    try:
        with TestClient(create_app(Config(store, **limits)), base_url="http://club.test") as c:
            yield c, store
    finally:
        store.close()


def token_for(store, board):
    tok = auth.new_token()
    store.add_token(board, auth.token_hash(tok))
    return tok


def bearer(tok):
    return {"Authorization": "Bearer " + tok}


@contextlib.contextmanager
def live_server(db, port=0, **limits):
    """A real club server (uvicorn on loopback, in a thread): (url, store)."""
    import uvicorn
    from bawo.club.server import make

    app, sock, store, url = make(db, "127.0.0.1", port, **limits)
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1)
    )
    t = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    t.start()
    try:
        while not server.started:
            t.join(0.01)
        yield url, store
    finally:
        server.should_exit = True
        t.join(10)
        app.state.club.live.close()
        sock.close()
        store.close()


def login(client, store, name="root", password="correct horse battery"):
    """Log an admin in; returns the session's CSRF token."""
    store.add_admin(name, *auth.hash_password(password))
    r = client.post("/login", data={"name": name, "password": password}, follow_redirects=False)
    assert r.status_code == 303, r.text
    from bawo.club.asgi import COOKIE

    return store.session(auth.token_hash(client.cookies[COOKIE]))["csrf"]
