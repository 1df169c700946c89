"""Two real `bawo club serve` processes on one PostgreSQL: a move posted to one reaches the
other's spectators (LISTEN/NOTIFY); one process killed mid-upload, and again mid-stream,
loses and doubles nothing once the PC sends again; PostgreSQL restarted under a live stream: the club answers 503 while
it is away, then takes the move, and the spectator who stayed connected sees it."""

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from _club_pg import server as pg_server
from _club_helpers import token_for
from _host_helpers import ROOT, random_record
from test_club_live import Spectator, _moves, _post

from bawo.club.client import Outbox, push
from bawo.club.stream import Sender
from bawo.club.store import open_store

pytestmark = pytest.mark.xdist_group("club_pg")


class Club:
    def __init__(self, db, port):
        self.url = "http://127.0.0.1:%d/" % port
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "host")]))
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bawo.cli",
                "club",
                "serve",
                "--db",
                db,
                "--http-port",
                str(port),
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        t0 = time.monotonic()
        while True:
            try:
                urllib.request.urlopen(self.url + "players", timeout=2).read()
                return
            except OSError:
                assert self.proc.poll() is None, self.proc.stderr.read().decode()
                assert time.monotonic() - t0 < 20, "club did not start"
                time.sleep(0.05)

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc.stderr.close()


def _live(store, rid):
    rows = [r for r in store.live_boards("2000") if r["rid"] == rid]
    return rows[0]["moves"].split() if rows else None


def _wait(fn, timeout=15.0):
    t0 = time.monotonic()
    while not fn():
        assert time.monotonic() - t0 < timeout, "timed out"
        time.sleep(0.02)


def _port():
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def test_two_processes_kill_mid_upload_and_restart_postgresql(tmp_path):
    pg = pg_server()
    db = pg.fresh()
    store = open_store(db)
    board = "pico-ab07"
    tok = token_for(store, board)
    port_a = _port()
    a, b = Club(db, port_a), Club(db, _port())
    spec = None
    try:
        # Live: posted to A, seen by B's spectator.
        spec = Spectator(b.url)
        moves = _moves(3)
        t0 = time.monotonic()
        assert (
            _post(a.url, tok, {"id": board + "-9", "game": "oware", "from": 0, "moves": moves[:1]})[
                0
            ]
            == 200
        )
        t, msg = spec.until(1)
        assert t - t0 < 1.0

        # Uploads: A is killed while the PC pushes; the PC pushes again to a new A.
        recs = [random_record(40 + i, "%s-%04d" % (board, i + 1)) for i in range(30)]
        conn = sqlite3.connect(str(tmp_path / "pc.sqlite"), check_same_thread=False)
        box = Outbox(conn)
        for r in recs:
            box.put(board, r.to_text())
        cfg = {"url": a.url, "boards": {board: tok}}
        reports = []
        th = threading.Thread(target=lambda: reports.append(push(conn, cfg)))
        th.start()
        while len(store.records()) < 5:
            time.sleep(0.005)
        a.kill()
        th.join(30)
        first = reports[0]
        assert first.stopped and "cannot be reached" in first.stopped and first.left > 0
        a = Club(db, port_a)
        second = push(conn, cfg)
        assert second.ok() and len(first.delivered) + len(second.delivered) == 30
        rows = store.records()
        assert sorted(r["rid"] for r in rows) == sorted(r.header["Id"] for r in recs)
        assert all(r["status"] == "ok" for r in rows)
        assert Outbox(conn).waiting() == []

        # A PC streams a game to A; A is killed mid-stream; the PC goes on, and once A is
        # back it resumes from the club's ply: every move once, in order.
        game = _moves(8)
        sender = Sender(a.url, token_for(store, "pico-ab08"))
        try:
            for k in range(1, 4):
                sender.update("pico-ab08-7", "oware", None, game[:k], False)
            _wait(lambda: _live(store, "pico-ab08-7") == game[:3])
            a.kill()
            for k in range(4, 9):
                sender.update("pico-ab08-7", "oware", None, game[:k], False)
                time.sleep(0.02)
            a = Club(db, port_a)
            _wait(lambda: _live(store, "pico-ab08-7") == game)
        finally:
            sender.close(0)

        # PostgreSQL restarts under the stream: 503 while it is away, then the move goes in,
        # and B's spectator (still connected) sees it.
        pg.restart()
        t_end = time.monotonic() + 15
        codes = []
        while time.monotonic() < t_end:
            st, ans = _post(
                b.url, tok, {"id": board + "-9", "game": "oware", "from": 1, "moves": moves[1:2]}
            )
            codes.append(st)
            if st == 200:
                break
            assert st == 503, (st, ans)
            time.sleep(0.1)
        assert codes[-1] == 200, codes
        got = []
        while not any(m["ply"] == 2 for m in got):
            got.append(spec.next(timeout=10)[1])
    finally:
        if spec:
            spec.close()
        a.stop()
        b.stop()
        store.close()
