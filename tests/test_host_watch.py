"""`bawo watch` against the simulated board (the real firmware under the MicroPython unix port):
moves played through the link arrive as EVENTs, are logged live, and sync completes the row."""
import io
import threading

import pytest

from shared_rules import game as make_game

from bawo.db import Log
from bawo.ports import connect
from bawo.sync import sync
from bawo.watch import Watcher

sim = pytest.importorskip("bawo.sim")


@pytest.fixture
def sim_board(tmp_path):
    relay = sim.PtyRelay()
    board = sim.BoardProcess("bawo-4x8", str(tmp_path / "flash"), fake=False, link=relay.board_ends())
    relay.start()

    def drain():
        try:
            while board.proc.poll() is None:
                board.readline(timeout=3600)
        except Exception:
            pass
    threading.Thread(target=drain, daemon=True).start()
    yield relay.path
    relay.stop = True
    board.kill()


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
    from bawo.link import BoardLink
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
