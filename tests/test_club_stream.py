"""A PC streams its simulated board's moves to the club (the real firmware under the MicroPython
unix port, followed by bawo.watch's Watcher); the club goes down mid-game and comes back, and
the PC resumes from the club's ply: nothing lost, nothing doubled."""

import io
import time

import pytest

from _club_helpers import live_server, token_for
from _host_helpers import relayed_board

from bawo import sim
from bawo.club.stream import Sender, watcher_class
from bawo.db import Log
from bawo.ports import connect

pytestmark = pytest.mark.xdist_group("club_pg")


@pytest.fixture
def sim_board(tmp_path):
    with relayed_board(tmp_path) as path:
        yield path


def _wait(fn, timeout=10.0):
    t0 = time.monotonic()
    while not fn():
        assert time.monotonic() - t0 < timeout, "timed out"
        time.sleep(0.05)


def test_stream_resumes_after_the_club_went_away(sim_board, tmp_path):
    ser, link, info = connect(sim_board, None, timeout=3.0)
    board = info["board"]
    db = str(tmp_path / "club.sqlite")
    log = Log(str(tmp_path / "pc.sqlite"))
    sender = None
    try:
        with live_server(db) as (url, store):
            tok = token_for(store, board)
            port = int(url.rsplit(":", 1)[1].strip("/"))
            sender = Sender(url, tok)
            w = watcher_class(sender)(log, board, io.StringIO(), False)
            st = link.new_game("bawo")
            moves = sim.random_moves("bawo", st["position"], 7, 12)
            gid = st["id"]

            def play(ms):
                for m in ms:
                    link.move(m)
                    for ev in link.poll_events(0.0):
                        if w.handle(ev) == "gap":
                            w.join(link)
                for ev in link.poll_events(0.3):
                    w.handle(ev)

            w.join(link)
            play(moves[:4])
            _wait(lambda: [r["ply"] for r in store.live_boards("2000")] == [4])
            # One connection a PC, kept open between moves.
            assert sender.connections == 1 and sender.sent >= 2
        # The club is down: the board plays on, the PC keeps the moves.
        play(moves[4:9])
        assert w.state.ply == 9
        with live_server(db, port=port) as (url, store):
            _wait(lambda: [r["ply"] for r in store.live_boards("2000")] == [9])
            (row,) = store.live_boards("2000")
            assert row["moves"].split() == moves[:9] and row["rid"] == str(gid)
            play(moves[9:])
            _wait(lambda: store.live_boards("2000")[0]["ply"] == 12)
    finally:
        if sender:
            sender.close(0)
        ser.close()
        log.close()
