"""`bawo watch` against the simulated board (the real firmware under the MicroPython unix port):
moves played through the link arrive as EVENTs, are logged live, and sync completes the row."""

import io
import json
import os
import time
import threading

import pytest

from shared_rules import game as make_game

from bawo.db import Log
from bawo.ports import connect
from bawo.sync import sync
from bawo.watch import Watcher

from bawo import sim
from _host_helpers import relayed_board


@pytest.fixture
def sim_board(tmp_path):
    with relayed_board(tmp_path) as path:
        yield path


def test_watch_logs_moves_live_then_sync_completes(sim_board, tmp_path):
    ser, link, info = connect(sim_board, None, timeout=3.0)
    log = Log(str(tmp_path / "g.sqlite"))
    out = io.StringIO()
    w = Watcher(log, info.get("board", "sim"), out, draw_board=False)
    st = link.new_game("bawo")
    moves = sim.random_moves("bawo", st["position"], 3, 300)
    gid = st["id"]
    seen_end = False
    for k, m in enumerate(moves):
        link.move(m)
        for ev in link.poll_events(0.0):
            seen_end |= w.handle(ev) == "end"
        if k == 3:
            row = log.get(gid)
            assert row is not None and row["status"] == "live" and row["plies"] >= 3
    for _ in range(20):
        if seen_end:
            break
        for ev in link.poll_events(0.2):
            seen_end |= w.handle(ev) == "end"
    assert seen_end, out.getvalue()
    row = log.get(gid)
    assert row["status"] == "watched" and row["plies"] == len(moves)
    g = make_game("bawo")
    assert g.name == row["game"]
    rep = sync(link, log)
    assert gid in rep.added and rep.ok()
    row = log.get(gid)
    assert row["status"] == "done" and row["plies"] == len(moves)
    ser.close()
    log.close()


def _raw_link(path):
    """The link without ports.connect: no clock is set on the board behind our back."""
    from bawo.boardlink import BoardLink
    from bawo.ports import open_port

    ser = open_port(path)
    link = BoardLink(ser, timeout=3.0)
    link.hello()
    return ser, link


def _play_out(link, kind="bawo", seed=3):
    st = link.new_game(kind)
    for m in sim.random_moves(kind, st["position"], seed, 300):
        link.move(m)
    return st["id"]


@pytest.mark.parametrize("command", ["watch", "sync"])
def test_opening_the_link_sets_the_boards_clock(sim_board, tmp_path, command):
    """Whichever host command opens the link sets the board's clock, so a game started on the
    board afterwards has a start time in its record (the board has no clock of its own)."""
    import datetime
    from bawo import cli

    db = str(tmp_path / "g.sqlite")
    # A game started before any host spoke to the board: no start time.
    ser, link = _raw_link(sim_board)
    before = _play_out(link)
    ser.close()
    argv = {"watch": ["watch", "--no-draw", "--timeout", "0.3"], "sync": ["sync"]}[command]
    assert cli.main(argv + ["--port", sim_board, "--db", db]) in (0, 1)
    t0 = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    ser, link = _raw_link(sim_board)
    after = _play_out(link, seed=4)
    log = Log(db)
    try:
        rep = sync(link, log)
        assert after in rep.added
        assert log.get(before)["start"] in (None, "")
        start = datetime.datetime.fromisoformat(log.get(after)["start"])
        assert abs((start - t0).total_seconds()) < 120, (start, t0)
    finally:
        ser.close()
        log.close()


class _Board:
    """The simulated board on a port path that survives it: a symlink, as udev's
    /dev/serial/by-id/... names a Pico whatever tty it gets after a replug."""

    def __init__(self, tmp_path):
        self.flash = str(tmp_path / "flash")
        self.path = str(tmp_path / "ttyBAWO")
        self.relay = self.board = None

    def plug(self):
        self.relay = sim.PtyRelay()
        self.board = sim.BoardProcess(
            "bawo-4x8", self.flash, fake=False, speed=8, link=self.relay.board_ends()
        )
        self.relay.start()
        tmp = self.path + ".new"
        os.symlink(self.relay.path, tmp)
        os.replace(tmp, self.path)

    def unplug(self):
        """The USB cable pulled: the board stops and its tty goes away under the host."""
        self.board.kill()
        self.relay.close()

    def status(self):
        """The board's newest status line (older ones still queued are skipped)."""
        st = None
        while True:
            try:
                line = self.board.readline(timeout=0.3 if st is not None else 30)
            except sim.SimError:
                if st is None:
                    raise
                return st
            if line.startswith("S "):
                st = json.loads(line[2:])

    def press_to(self, ply, rng):
        """Press random legal moves on the board's pockets until the game reaches ply."""
        g = make_game("bawo")
        cells = sim.key_of_cell(self.board.profile_file, "bawo")
        pressed_at = -1
        for _ in range(200):
            st = self.status()
            if st["ply"] >= ply and not st.get("anim"):
                return st
            if st.get("mode") != "play" or st.get("anim") or st["ply"] == pressed_at:
                continue
            pos = g.parse(st["pos"])
            mv = g.move_str(rng.choice(sorted(g.legal_moves(pos))), pos)
            for k in sim.presses_for("bawo", st["pos"], mv, cells):
                self.board.tap(k)
                time.sleep(0.12)
            pressed_at = st["ply"]
        raise AssertionError("the board did not reach ply %d" % ply)


def test_watch_joins_mid_game_at_its_real_ply_and_waits_for_a_board_that_goes_away(tmp_path):
    import random
    from bawo import watch as W

    b = _Board(tmp_path)
    b.plug()
    log = Log(str(tmp_path / "g.sqlite"))
    out = io.StringIO()
    res = {}
    try:
        # Five plies played before anyone watches.
        ser, link = _raw_link(b.path)
        st = link.new_game("bawo", opponent="people")
        gid = st["id"]
        for m in sim.random_moves("bawo", st["position"], 7, 5):
            link.move(m)
        ser.close()
        ser, link, info = connect(b.path, None, timeout=2.0)

        def run():
            wlog = Log(log.path)  # SQLite connections stay in their thread
            try:
                res["rc"] = W.watch(
                    link,
                    wlog,
                    info,
                    draw_board=False,
                    out=out,
                    timeout=8,
                    reconnect=lambda: connect(b.path, None, timeout=1.0),
                )
            except Exception as e:  # reported by the assertions below
                res["error"] = e
            finally:
                wlog.close()

        t = threading.Thread(target=run, daemon=True)
        t.start()
        rng = random.Random(3)
        b.press_to(6, rng)
        _until(
            lambda: (log.get(gid) or {"plies": 0})["plies"] == 6,
            out,
            extra=lambda: (res, t.is_alive(), b.board.log[-8:]),
        )
        assert "game %s (bawo) in progress, ply 5" % gid in out.getvalue()
        assert "ply 6:" in out.getvalue() and "ply 1:" not in out.getvalue()
        # The board goes away, and comes back with its game resumed from its journal.
        b.unplug()
        _until(lambda: "lost the board" in out.getvalue(), out)
        lost = next(x for x in out.getvalue().splitlines() if "lost the board" in x)
        # In words, not pyserial's "device reports readiness to read but returned no data".
        assert "readiness" not in lost and "Errno" not in lost and "multiple access" not in lost, (
            lost
        )
        time.sleep(1.5)
        b.plug()
        _until(lambda: "board back" in out.getvalue(), out)
        st = b.press_to(7, rng)
        _until(lambda: log.get(gid)["plies"] == 7, out)
        t.join(30)
        assert "error" not in res and res.get("rc") == 0, (res, out.getvalue())
        row = log.get(gid)
        assert row["status"] == "live"
        from shared_rules.record import Record

        assert Record.from_text(row["record"]).moves == st["moves"][:7]
    finally:
        log.close()
        b.relay.stop = True
        b.board.kill()


def _until(cond, out, timeout=30, extra=lambda: ""):
    t0 = time.monotonic()
    while not cond():
        assert time.monotonic() - t0 < timeout, (out.getvalue(), extra())
        time.sleep(0.1)


def test_text_from_a_board_never_reaches_the_terminal_raw(tmp_path):
    # `bawo watch` printed the ids, moves and results of a board's EVENTs as they came: a
    # board (or anything on its port) could clear the terminal, retitle it or reverse its
    # text. They are shown escaped now; the drawing, made here from the rules' position, keeps
    # its colours. (The log refuses such an id: the game is not logged, and watch goes on.)
    out = io.StringIO()
    log = Log(str(tmp_path / "log.sqlite"))
    hostile = "\x1b]0;owned\x07\x1b[2J\x9b31m\u202e"
    try:
        w = Watcher(log, "board" + hostile, out=out, draw_board=True, style="numbers")
        w.say("watching %s" % w.device)
        w.handle({"ev": "start", "id": "g" + hostile, "game": "bawo"})
        w.handle({"ev": "start", "id": "b-0001", "game": "bawo"})
        w.handle({"ev": "move", "id": "b-0001", "ply": 1, "move": "A1+", "position": hostile})
        w.handle({"ev": "move", "id": "b-0001", "ply": 2, "move": hostile})
        w.handle({"ev": "move", "id": "b-0009", "ply": 9, "move": hostile})
        w.handle({"ev": "start", "id": "b-0002", "game": "bawo"})
        w.handle({"ev": "end", "id": "b-0002", "result": hostile})
        w.handle({"ev": "start", "id": "b-0003", "game": hostile})
    finally:
        log.close()
    text = out.getvalue()
    for c in ("\x1b]", "\x07", "\x1b[2J", "\x9b", "\u202e"):
        assert c not in text, (c, text)
    assert "\\x1b]0;owned\\x07" in text and "ply 1: S plays A1+" in text, text


@pytest.mark.parametrize("lost", ["dropped", "after the end"])
def test_an_end_before_the_last_move_takes_the_boards_move_list(sim_board, tmp_path, lost):
    """The board resends an EVENT the host did not ACK, after the ones that followed it (or
    drops it after its retries): the game's end can come before its last move, or without it.
    The watcher must not log the game short of a ply and without its result: the board's move
    list (POSITION) fills the gap, as `bawo watch` does for a missed move."""
    ser, link, info = connect(sim_board, None, timeout=3.0)
    log = Log(str(tmp_path / "g.sqlite"))
    out = io.StringIO()
    try:
        w = Watcher(log, info.get("board", "sim"), out, draw_board=False)
        st = link.new_game("bawo")
        gid = st["id"]
        w.join(link)
        moves = sim.random_moves("bawo", st["position"], 3, 300)
        for k, m in enumerate(moves):
            link.move(m)
            evs = link.poll_events(0.0)
            if k == len(moves) - 1:
                kinds = [e["ev"] for e in evs]
                assert kinds == ["move", "end"], kinds
                evs = [evs[1]] + ([] if lost == "dropped" else [evs[0]])
            for ev in evs:
                if w.handle(ev) == "gap":
                    w.join(link)
        row = log.get(gid)
        assert row["plies"] == len(moves) and row["status"] == "watched", out.getvalue()
        assert row["result"] in ("S", "N") and row["reason"], dict(row)
        assert out.getvalue().count("over:") == 1, out.getvalue()  # told once, late move or not
        assert w.final is not None and w.final.ply == len(moves) and w.state is None
    finally:
        ser.close()
        log.close()
