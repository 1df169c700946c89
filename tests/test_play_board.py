"""`bawo play --board` end to end: the simulated board on its pty, the person's side pressed on
the board (random legal moves), the host's AI answering over the link."""
import io
import json
import random
import threading
import time

import pytest

from shared_rules import game as make_game, State

from bawo.ports import connect
from bawo.play import play_on_board

sim = pytest.importorskip("bawo.sim")


def test_play_board_person_presses_host_answers(tmp_path):
    relay = sim.PtyRelay()
    board = sim.BoardProcess("bawo-4x8", str(tmp_path / "flash"), fake=False, speed=8,
                             link=relay.board_ends())
    relay.start()
    ser = None
    try:
        ser, link, info = connect(relay.path, None, timeout=3.0)
        out = io.StringIO()
        res = {}

        def host():
            try:
                res["rc"] = play_on_board(link, "bawo", level=3, side="S", seed=4, out=out,
                                          timeout=20)
            except Exception as e:  # reported by the assertion below
                res["error"] = e
        t = threading.Thread(target=host, daemon=True)
        t.start()
        g = make_game("bawo")
        cells = sim.key_of_cell(board.profile_file, "bawo")
        rng = random.Random(5)
        pressed_at = -1
        st = {}
        t0 = time.monotonic()
        while t.is_alive() and time.monotonic() - t0 < 60:
            line = board.readline(timeout=30)
            if not line.startswith("S "):
                continue
            st = json.loads(line[2:])
            if st.get("result") or st.get("mode") != "play" or st.get("anim"):
                continue
            if st.get("opponent") != "host-second" or st["turn"] != "S" or st["ply"] == pressed_at:
                continue
            pos = g.parse(st["pos"])
            mv = g.move_str(rng.choice(sorted(g.legal_moves(pos))), pos)
            for k in sim.presses_for("bawo", st["pos"], mv, cells):
                board.tap(k)
                time.sleep(0.12)
            pressed_at = st["ply"]
        t.join(30)
        assert "error" not in res, (res, out.getvalue()[-2000:])
        assert res.get("rc") == 0 and "wins" in out.getvalue()
        while not st.get("result"):   # status lines still queued: read to the last
            st = json.loads(board.expect("S ", timeout=10)[2:])
        assert st.get("result") and st["opponent"] == "host-second"
        # The board and the host agree on the whole game, by replay.
        s = State(g)
        for m in st["moves"]:
            s.push(m)
        assert g.format(s.position) == st["pos"]
        assert "computer (N) plays" in out.getvalue() and "you (S) played" in out.getvalue()
    finally:
        if ser is not None:
            ser.close()
        relay.stop = True
        board.kill()
