"""`bawo serve`: the board's companion web page (see site.py for the routes and security)."""

from __future__ import annotations

import ipaddress
import socket
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import BawoError

if TYPE_CHECKING:
    from .site import Config, Guard

LOCAL = ("127.0.0.1", "localhost", "::1")


def is_local(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def listen(host: str, port: int) -> socket.socket:
    """A bound, listening socket (port 0: a free one)."""
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP spelled out: asyncio turns Nagle off (TCP_NODELAY) only on sockets whose
    # proto says TCP; with proto 0 every response waited ~40 ms for a delayed ACK.
    sock = socket.socket(fam, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise BawoError(
            "cannot listen on %s:%d (%s): choose another --http-port" % (host, port, e.strerror)
        )
    sock.listen(64)
    return sock


def make(
    db_path: str,
    host: str = "127.0.0.1",
    port: int = 0,
    remote: bool = False,
    board_port: str | None = None,
    sim: str | None = None,
    follow_board: bool = True,
    token: str | None = None,
    say: Callable[[str], object] | None = None,
) -> tuple[Guard, socket.socket, Config, str]:
    """(app, socket, config, url): everything `bawo serve` runs, also used by the tests."""
    from .site import Config, create_app

    if not is_local(host) and not remote:
        raise BawoError(
            "--bind %s would open the page to other computers: add --allow-remote "
            "(each request then needs the printed token)" % host
        )
    from ..db import Log

    Log(db_path).close()  # create the log if it is new: the pages read it read-only
    from .library import prepare

    prepare(db_path, say)
    sock = listen(host, port)
    cfg = Config(
        db_path, host, sock.getsockname()[1], remote=remote and not is_local(host), token=token
    )
    app = create_app(cfg, port=board_port, sim=sim, follow_board=follow_board)
    shown = host if ":" not in host else "[%s]" % host
    if shown in ("0.0.0.0", "[::]") or not is_local(host):
        shown = shown if shown not in ("0.0.0.0", "[::]") else socket.gethostname()
    else:
        shown = "127.0.0.1" if host != "::1" else "[::1]"
    url = "http://%s:%d/" % (shown, cfg.port)
    if cfg.remote:
        url += "?token=" + cfg.token
    return app, sock, cfg, url


def run(
    db_path: str,
    bind: str = "127.0.0.1",
    http_port: int = 0,
    allow_remote: bool = False,
    port: str | None = None,
    sim: str | None = None,
    board: bool = True,
    open_browser: bool = False,
) -> int:
    """`bawo serve`: the page on the log at db_path until Ctrl-C. port or sim: the board
    (a serial port, or a simulator's data dir); board=False: look for none."""
    import uvicorn

    app, sock, cfg, url = make(
        db_path,
        bind,
        http_port,
        allow_remote,
        port,
        sim,
        board,
        say=lambda m: print("bawo serve: " + m, file=sys.stderr, flush=True),
    )
    print("bawo serve: %s  (game log %s; Ctrl-C stops)" % (url, cfg.db_path), flush=True)
    if open_browser:
        import webbrowser

        webbrowser.open(url)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    print("bawo serve: stopped", file=sys.stderr)
    return 0
