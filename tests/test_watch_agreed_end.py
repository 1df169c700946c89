"""A game ended by the players' word (a remote game's resign, draw agreed or flag: the board's
END, its `end` EVENT with result and reason while the moves go on) is shown ended by `bawo
watch` and logged with the record's Result and Reason, not taken for a gap and joined again.
The board is the real firmware on the simulated board, behind a pty (tests/_host_helpers)."""

import io

import pytest

from shared_rules.record import Record

from bawo import sim
from bawo.db import Log
from bawo.ports import connect
from bawo.watch import Watcher, watch

from _host_helpers import relayed_board


@pytest.fixture
def sim_board(tmp_path):
    with relayed_board(tmp_path) as path:
        yield path


def _events_until_end(link, w, timeout=10.0):
    """Hand the board's EVENTs to the watcher until the end one; the kinds it answered."""
    import time

    kinds = []
    deadline = time.monotonic() + timeout
    while "end" not in kinds and time.monotonic() < deadline:
        for ev in link.poll_events(0.2):
            kinds.append(w.handle(ev))
    return kinds


@pytest.mark.parametrize(
    "result,reason,words",
    [
        ("S", "resign", "South wins (North resigned)"),
        ("draw", "agreement", "draw (agreed)"),
        ("N", "time", "North wins (South ran out of time)"),
    ],
)
def test_an_end_by_the_players_word_is_shown_and_logged(sim_board, tmp_path, result, reason, words):
    ser, link, info = connect(sim_board, None, timeout=3.0)
    log = Log(str(tmp_path / "g.sqlite"))
    out = io.StringIO()
    try:
        w = Watcher(log, info.get("board", "sim"), out, draw_board=False)
        st = link.new_game("bawo", opponent="host-first")  # the host plays South
        gid = st["id"]
        w.join(link)
        mv = sim.random_moves("bawo", st["position"], 5, 1)[0]
        link.move(mv)
        r = link.end(result, reason)
        assert r["result"] == {"result": result, "reason": reason}
        kinds = _events_until_end(link, w)
        assert kinds[-1] == "end" and "gap" not in kinds, (kinds, out.getvalue())
        assert w.state is None and w.ended == gid and w.final.ply == 1
        assert "game %s over: %s" % (gid, words) in out.getvalue(), out.getvalue()
        assert "in progress" not in out.getvalue()  # never joined again
        assert w.result_text() == words  # what the serve page shows
        row = log.get(gid)
        assert row["status"] == "watched" and row["plies"] == 1, dict(row)
        assert (row["result"], row["reason"]) == (result, reason), dict(row)
        rec = Record.from_text(row["record"])
        assert (rec.header["Result"], rec.header["Reason"]) == (result, reason)
        assert rec.replay().ply == 1
    finally:
        ser.close()
        log.close()


def test_bawo_watch_prints_the_agreed_result(sim_board, tmp_path):
    """`bawo watch` (watch(), exit_after_game) on a game begun and resigned at once: the start
    and the end EVENTs both wait for it; it prints the result in words and logs it."""
    ser, link, info = connect(sim_board, None, timeout=3.0)
    log = Log(str(tmp_path / "g.sqlite"))
    try:
        st = link.new_game("oware", opponent="host-second")  # the host plays North
        gid = st["id"]
        link.end("N", "resign")
        out = io.StringIO()
        assert (
            watch(link, log, info, draw_board=False, exit_after_game=True, timeout=10, out=out) == 0
        )
        text = out.getvalue()
        assert "over: North wins (South resigned)" in text, text
        row = log.get(gid)
        assert (row["result"], row["reason"], row["plies"]) == ("N", "resign", 0), dict(row)
    finally:
        ser.close()
        log.close()


def test_the_serve_page_says_an_agreed_end_of_a_board_it_did_not_follow_the_same_way():
    from bawo.serve.live import _result_text

    assert (
        _result_text("bawo", {"result": {"result": "N", "reason": "resign"}})
        == "North wins (South resigned)"
    )
    assert (
        _result_text("bagh-chal", {"result": {"result": "G", "reason": "time"}})
        == "Goats win (Tigers ran out of time)"
    )
    assert (
        _result_text("oware", {"result": {"result": "draw", "reason": "agreement"}})
        == "draw (agreed)"
    )
    # A result that does not fit its reason is shown as the board said it, not as agreed.
    assert (
        _result_text("oware", {"result": {"result": "draw", "reason": "resign"}}) == "draw (resign)"
    )
