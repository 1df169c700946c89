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
from bawo.terminal_games import play_on_board

from bawo import sim


def test_play_board_person_presses_host_answers(tmp_path):
    relay = sim.PtyRelay()
    board = sim.BoardProcess(
        "bawo-4x8", str(tmp_path / "flash"), fake=False, speed=8, link=relay.board_ends()
    )
    relay.start()
    ser = None
    try:
        ser, link, info = connect(relay.path, None, timeout=3.0)
        out = io.StringIO()
        res = {}

        def host():
            try:
                res["rc"] = play_on_board(
                    link, "bawo", level=3, side="S", seed=4, out=out, timeout=20
                )
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
        while not st.get("result"):  # status lines still queued: read to the last
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


@pytest.fixture
def board(tmp_path):
    relay = sim.PtyRelay()
    b = sim.BoardProcess(
        "bawo-4x8", str(tmp_path / "flash"), fake=False, speed=8, link=relay.board_ends()
    )
    relay.start()

    def drain():  # the board blocks if nobody reads its status pipe
        try:
            while b.proc.poll() is None:
                b.readline(timeout=3600)
        except Exception:
            pass

    threading.Thread(target=drain, daemon=True).start()
    yield relay.path
    relay.stop = True
    b.kill()


def _left_waiting(path):
    """The board as `bawo play --board` leaves it after a Ctrl-C: the person (S) has played,
    the board waits for the PC's move (N)."""
    ser, link, info = connect(path, None, timeout=3.0)
    st = link.new_game("bawo", opponent="host-second")
    m = sim.random_moves("bawo", st["position"], 1, 1)[0]
    link.move(m)
    ser.close()
    return st["id"], m


def test_play_board_resumes_the_game_left_waiting_for_the_pc(board):
    gid, first = _left_waiting(board)
    ser, link, info = connect(board, None, timeout=3.0)
    out = io.StringIO()
    asked = []

    def ask(q):
        asked.append(q)
        raise EOFError  # no terminal: the default, resume

    try:
        with pytest.raises(Exception) as e:
            play_on_board(link, "oware", level=1, seed=1, out=out, timeout=2, ask=ask)
        assert "no move from the board within 2" in str(e.value), out.getvalue()
        cur = link.position()
    finally:
        ser.close()
    assert len(asked) == 1 and gid in asked[0] and "resume" in asked[0]
    assert "resuming game %s (bawo) at ply 1" % gid in out.getvalue()
    assert "computer (N) plays" in out.getvalue()
    # The same game went on: the PC's move is on the board, which now waits for the person.
    assert (cur["id"], cur["ply"], cur["turn"], cur["mode"]) == (gid, 2, "S", "play")


def test_play_board_asks_before_ending_a_game_on_the_board(board):
    ser, link, info = connect(board, None, timeout=3.0)
    try:
        st = link.new_game("bawo", opponent="people")
        for m in sim.random_moves("bawo", st["position"], 2, 3):
            link.move(m)
        out = io.StringIO()
        for answer in ("n", EOFError):

            def ask(q, a=answer):
                if a is EOFError:
                    raise EOFError
                return a

            with pytest.raises(Exception) as e:
                play_on_board(link, "bawo", level=1, seed=1, out=out, timeout=1, ask=ask)
            assert "left as it is on the board" in str(e.value)
            cur = link.position()
            assert (cur["id"], cur["ply"], cur["mode"]) == (st["id"], 3, "play")
        # Said yes: a new game, the old one kept as an unfinished record.
        with pytest.raises(Exception) as e:
            play_on_board(link, "bawo", level=1, seed=1, out=out, timeout=1, ask=lambda q: "y")
        assert "no move from the board" in str(e.value)
        cur = link.position()
        assert cur["id"] != st["id"] and cur["ply"] == 0
        assert any(g["id"] == st["id"] for g in link.list_games())
    finally:
        ser.close()


def test_play_board_ctrl_c_then_run_again_resumes(board):
    """The command line end to end: Ctrl-C (SIGINT) says how to go on, and running it again
    (no terminal to ask on: the default) resumes the same game."""
    import signal
    import subprocess
    from _host_helpers import bawo_cmd, env_with_path

    def start():
        return subprocess.Popen(
            bawo_cmd() + ["play", "--board", "--port", board, "--level", "1", "--numbers"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env_with_path(),
        )

    def read_until(p, text):
        lines = []
        for line in p.stdout:
            lines.append(line)
            if text in line:
                return "".join(lines)
        raise AssertionError("no %r in: %s" % (text, "".join(lines)))

    p = start()
    first = read_until(p, "on the board: you play S")
    gid = first.split("game ", 1)[1].split()[0]
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    rest = p.communicate(timeout=30)[0]
    assert p.returncode == 130, rest
    assert (
        "stopped: game %s waits on the board at ply 0; `bawo play --board` resumes it" % gid in rest
    )
    p = start()
    try:
        text = read_until(p, "resuming game")
        assert "game %s (bawo, ply 0) on the board is waiting for this PC: resume it?" % gid in text
        assert "resuming game %s (bawo) at ply 0" % gid in text
    finally:
        p.kill()
        p.wait(10)
