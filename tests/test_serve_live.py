"""`bawo serve`'s live board against the simulated board (the real firmware on the MicroPython
unix port) at the board's default animation speed: a game played to its end, by moves the page
sends or by presses on the board, is in the log with every ply and its result, and the page's
last word on it (what a page opened afterwards is sent first) is the final position, the
winner, the reason and a link to its replay."""

import json
import os
import sqlite3

import httpx
import pytest

from _serve_helpers import Server, SimBoard, press_move, wait_for
from bawo import sim
from bawo.db import Log

DEFAULT_SPEED = 5  # the firmware's own default (settings), what `bawo sim` runs


@pytest.fixture
def live(tmp_path):
    db = str(tmp_path / "games.sqlite")
    Log(db).close()
    data = str(tmp_path / "sim")
    os.makedirs(data)
    board = SimBoard(data, "bawo", speed=DEFAULT_SPEED)
    srv = Server(db, sim=data)
    yield {"db": db, "board": board, "srv": srv}
    srv.stop()
    board.kill()


def _headers(srv):
    return {"Host": "127.0.0.1:%d" % srv.cfg.port, "X-Bawo-Token": srv.cfg.token}


def first_messages(srv, n=2):
    """The first n messages of the live stream: what a page opened (or reloaded) now shows."""
    out = []
    with httpx.stream("GET", srv.url + "live", headers=_headers(srv), timeout=20) as r:
        for line in r.iter_lines():
            if line.startswith("data:"):
                out.append(json.loads(line[5:]))
                if len(out) == n:
                    return out
    return out


def _row(db, gid):
    con = sqlite3.connect(db)
    try:
        return con.execute(
            "SELECT result, reason, plies, status FROM games WHERE id=?", (gid,)
        ).fetchone()
    finally:
        con.close()


@pytest.mark.parametrize("by", ["page", "presses"])
def test_a_game_played_to_its_end_is_logged_whole_and_stays_on_the_page(live, by):
    srv, b = live["srv"], live["board"].board
    wait_for(
        lambda: first_messages(srv, 1)[0].get("connected"),
        timeout=30,
        what="the server to follow the board",
    )
    b.menu()  # a new Bawo game, people vs people
    st = b.idle()
    gid = st["id"]
    moves = sim.random_moves("bawo", st["pos"], 27, 400)  # 9 plies to its end
    assert len(moves) >= 9
    for mv in moves:
        if by == "page":  # the live page's move box: POST /api/move
            r = httpx.post(
                srv.url + "api/move", json={"move": mv}, headers=_headers(srv), timeout=60
            )
            assert r.status_code == 200, r.text
        else:
            press_move(b, st["pos"], mv)
        st = b.idle()
    assert st["mode"] == "over" and st["ply"] == len(moves) and st["result"] in ("S", "N")
    # The row is final ('watched') once the game is over; it must hold the whole game.
    row = wait_for(
        lambda: (lambda r: r if r and r[3] == "watched" else None)(_row(live["db"], gid)),
        timeout=30,
        what="the finished game in the log",
    )
    assert row == (st["result"], st["reason"], len(moves), "watched"), row
    side = {"S": "South", "N": "North"}[st["result"]]
    want = "%s wins (%s)" % (side, st["reason"])
    # A page opened now (a reload) is shown the finished game, not "no game on the board".
    pos = wait_for(
        lambda: [
            m
            for m in first_messages(srv)
            if m["type"] == "position" and m.get("game") == "bawo" and m.get("ply") == len(moves)
        ],
        timeout=20,
        what="the final position on the live stream",
    )[0]
    assert pos["id"] == gid and pos["over"] is True and pos["result"] == want, pos
    assert pos["moves"] == st["moves"] and pos["picture"]["position"] == st["pos"]
    assert pos["replay"] == "/game/" + gid
    page = httpx.get(srv.url + pos["replay"].lstrip("/"), headers=_headers(srv), timeout=20)
    assert page.status_code == 200 and gid in page.text
