"""`bawo sim` scripted modes and the simulator's serial port (pty)."""

import json
import os
import re
import subprocess
import sys
import time

import pytest

from _host_helpers import headless_sim as headless, stop_sim as stop
from conftest import SIM_HEAP, TIGHT_HEAP


def sim(*args, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "bawo.sim", *args], capture_output=True, text=True, timeout=timeout
    )


def test_demo_plays_a_whole_game(tmp_path):
    out = sim("--demo", "--seed", "3", "--data", str(tmp_path), "--quiet", "--headless")
    assert out.returncode == 0, out.stderr
    assert re.search(r"^result: (South|North) wins \(.+\) after \d+ plies", out.stdout, re.M), (
        out.stdout
    )
    recs = [p for p in os.listdir(tmp_path) if p.endswith(".rec")]
    assert len(recs) == 1


def test_moves_golden_and_headless(tmp_path):
    out = sim("--moves", "A1+", "--data", str(tmp_path), "--headless", "--speed", "4")
    assert out.returncode == 0, out.stderr
    assert "2,2,2,2,2,2,2,2/2,0,0,2,2,2,0,0/3,1,0,4,4,4,1,5/3,3,0,3,3,0,3,3 N" in out.stdout


def test_script_file_and_other_games(tmp_path):
    script = tmp_path / "moves.txt"
    script.write_text("# a Bagh-Chal opening\n1. c3 a1-a2 2. b2\n")
    out = sim("--game", "bagh-chal", "--script", str(script), "--data", str(tmp_path / "b"))
    assert out.returncode == 0, out.stderr
    assert "Goats to move" in out.stdout or "ply 3" in out.stdout
    out = sim(
        "--game", "oware", "--random", "30", "--seed", "2", "--data", str(tmp_path / "o"), "--quiet"
    )
    assert out.returncode == 0, out.stderr


def test_illegal_scripted_move_is_an_error(tmp_path):
    out = sim("--moves", "A1+ A1+", "--data", str(tmp_path), "--headless")
    assert out.returncode == 1 and "did not take move A1+" in out.stderr


def test_interactive_exposes_a_pty_link(tmp_path):
    from bawo import boardlink as proto

    p = subprocess.Popen(
        [sys.executable, "-m", "bawo.sim", "--data", str(tmp_path), "--headless"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not (tmp_path / "port").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        path = (tmp_path / "port").read_text().strip()
        assert os.path.realpath(path).startswith("/dev/pts/") and path != os.path.realpath(path)
        import serial

        ser = serial.serial_for_url(path, timeout=0.05)
        link = proto.BoardLink(ser, timeout=2.0)
        info = link.hello()
        assert info["profile"] == "bawo-4x8" and "bawo" in info["games"]
        r = link.new_game("bawo")
        assert r["ply"] == 0
        r = link.move("A1+")
        assert r["position"] == "2,2,2,2,2,2,2,2/2,0,0,2,2,2,0,0/3,1,0,4,4,4,1,5/3,3,0,3,3,0,3,3 N"
        assert link.list_games() == [] or isinstance(link.list_games(), list)
        ser.close()
    finally:
        p.terminate()
        p.wait(timeout=10)


def test_interactive_menu_opens_on_the_game_opponent_and_level_given(tmp_path):
    # `bawo sim --game oware` opened the board's menu on Bawo: --game, --opponent and --level
    # applied to the scripted modes only. Given, they are the menu's choices at power-on, and
    # MENU starts that game; not given, the menu keeps its own (its settings file).
    from bawo.sim import BoardProcess
    from bawo.sim.run import Options
    from bawo.sim.console import menu_choices

    assert menu_choices(Options()) == {}
    b = BoardProcess(
        "bawo-4x8",
        str(tmp_path),
        extra_env=menu_choices(Options(game="oware", opponent="board-second", level=4)),
    )
    try:
        st = b.status
        assert st["mode"] == "menu" and st["settings"]["game"] == "oware", st
        assert st["settings"]["opponent"] == "board-second" and st["settings"]["level"] == 4, st
        b.menu()
        st = b.idle()
        assert st["mode"] == "play" and st["game"] == "oware", st
        assert st["opponent"] == "board-second", st
    finally:
        b.kill()


def test_ai_vs_ai_level5_whole_bawo_game_as_deployed(tmp_path):
    # As deployed (.mpy), both sides the board's own AI at level 5, animated, in a bounded
    # heap: the game reaches its end and the peak is printed (pytest -s shows it).
    out = sim(
        "--ai-vs-ai",
        "--level",
        "5",
        "--game",
        "bawo",
        "--heap",
        SIM_HEAP,
        "--mpy",
        "--data",
        str(tmp_path),
        "--quiet",
        "--headless",
        timeout=180,
    )
    assert out.returncode == 0, out.stderr + out.stdout[-2000:]
    assert "result: " in out.stdout and "plies" in out.stdout, out.stdout
    heap = [x for x in out.stdout.splitlines() if x.startswith("heap: ")]
    ai = [x for x in out.stdout.splitlines() if x.startswith("board's AI: ")]
    assert heap and ai, out.stdout
    print(ai[0])
    print(heap[0])


def test_opponent_board_with_random_person(tmp_path):
    out = sim(
        "--opponent",
        "board-second",
        "--level",
        "2",
        "--random",
        "40",
        "--seed",
        "3",
        "--data",
        str(tmp_path),
        "--quiet",
        "--headless",
        "--speed",
        "8",
    )
    assert out.returncode == 0, out.stderr
    assert "board's AI: " in out.stdout


def test_a_board_that_stops_is_one_line_from_bawo(tmp_path):
    # A heap far below the Pico's: the simulated board runs out of memory at boot.
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "bawo.cli",
            "sim",
            "--random",
            "4",
            "--headless",
            "--heap",
            "20k",
            "--data",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 1
    # Where it stops depends on what the harness imports first; the one line says why.
    assert out.stderr.startswith("bawo: error: the simulated board stopped: ")
    assert "MemoryError" in out.stderr and out.stderr.count("\n") == 1
    assert "Traceback" not in out.stderr


def test_relay_never_blocks_the_board_under_20000_back_to_back_requests(tmp_path):
    # A tool writing requests faster than the board answers them: the relay used to block
    # writing into the board's full input pipe while the board blocked writing its answers
    # into the relay's full output pipe, for good (it stalled after about 60 answers).
    from bawo.sim import BoardProcess, PtyRelay
    from _link_helpers import P
    import serial
    import threading

    relay = PtyRelay()
    board = BoardProcess("bawo-4x8", str(tmp_path), fake=False, link=relay.board_ends())
    relay.start()
    board.drain()
    ser = serial.Serial(relay.path, timeout=0.1)
    try:
        n = 20000
        frames = b"".join(P.encode(1 + i, "HELLO") for i in range(n))
        threading.Thread(target=ser.write, args=(frames,), daemon=True).start()
        parser, got, last = P.Parser(), 0, time.monotonic()
        while got < n and time.monotonic() - last < 20:  # 20 s without an answer: stuck
            k = len([r for r in parser.feed(ser.read(65536)) if isinstance(r, P.Frame)])
            if k:
                got, last = got + k, time.monotonic()
        assert got == n and board.proc.poll() is None
    finally:
        ser.close()
        relay.stop = True
        board.kill()


def test_a_closed_relay_has_left_its_pty_before_the_pty_closes():
    """PtyRelay.close: the relay's thread is gone when its descriptors close (the tests slept
    0.4 s for it; a descriptor closed under its select may be the next board's pty by then)."""
    from bawo.sim import PtyRelay

    relay = PtyRelay()
    relay.start()
    thread = relay._thread
    path = relay.path
    assert os.path.realpath(path).startswith("/dev/pts/")
    relay.close()
    assert not thread.is_alive()
    assert not os.path.lexists(path)  # the name went first: no tool opens the next pty by it
    for fd in (relay.master, relay.slave):
        with pytest.raises(OSError):
            os.fstat(fd)


class Terminal:
    """`bawo sim` on a pty of the given size, as a person sees and types it."""

    def __init__(self, data, cols=40, rows=40, env=None, args=()):
        import fcntl
        import pty
        import struct
        import termios

        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bawo.sim", "--data", str(data), *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=dict(os.environ, **(env or {})),
            start_new_session=True,
        )
        os.close(slave)
        self.raw = b""
        self.mark = 0

    def read(self, timeout=0.2):
        import select

        while True:
            r, _, _ = select.select([self.master], [], [], timeout)
            if not r:
                return
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.raw += chunk

    def text(self, since=0):
        """What was drawn since offset `since`, escape sequences out, whitespace as one space."""
        import re

        plain = re.sub(r"\x1b\[[0-9;?<]*[A-Za-z]", "", self.raw[since:].decode(errors="replace"))
        return " ".join(plain.split())

    def wait_for(self, words, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.read()
            if words in self.text(self.mark):
                self.mark = len(self.raw)
                return
            if self.proc.poll() is not None:
                break
        self.read()
        raise AssertionError("%r not shown; the screen ends: %s" % (words, self.text()[-600:]))

    def press(self, keys):
        self.mark = len(self.raw)
        for k in keys:
            os.write(self.master, k.encode())
            time.sleep(0.15)

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        os.close(self.master)


def test_terminal_keys_quit_asks_no_colour_narrow(tmp_path):
    # 40 columns, NO_COLOR: the board as digits, no colour, no line wider than the terminal;
    # q is a pocket (here the menu's "people"), Q and Ctrl-C quit, asking during a game.
    t = Terminal(tmp_path, cols=40, env={"NO_COLOR": "1"})
    try:
        t.wait_for("menu:")
        t.press("w")
        t.wait_for("opponent board-second")
        t.press("q")
        t.wait_for("opponent people")
        t.press("m")
        t.wait_for("South to move, ply 0")
        t.press("Q")
        t.wait_for("quit?")
        t.press("n")
        t.mark = len(t.raw)
        os.write(t.master, b"as")  # A1 then A2 (A1+), typed fast: one read, two presses
        t.wait_for("South plays A1+, ply 1")  # while it is sown on the LEDs
        t.wait_for("North to move, ply 1")
        assert t.proc.poll() is None
        t.press("\x03")
        t.wait_for("quit?")
        t.press("y")
        assert t.proc.wait(15) == 0
        t.read()
        out = t.raw.decode(errors="replace")
        assert "\x1b[38;2" not in out and "\x1b[48;2" not in out  # no colour
        import re

        ui = out[out.index("\x1b[2J") :]  # the screens, after the start-up lines
        drawn = re.sub(r"\x1b\[[0-9;?<]*[A-Za-z]", "", ui).replace("\r", "")
        assert max(len(x) for x in drawn.split("\n")) <= 40, drawn
        assert "3 1 0 4 4 4 1 5" in t.text()  # South's front row after A1+, as digits
    finally:
        t.close()


def test_q_is_a_pocket_in_every_game_never_a_quit(tmp_path):
    # The quit key was q, also a pocket: North's A8 in Bawo, a point in Bagh-Chal (and a menu
    # choice, above). Q and Ctrl-C quit now; q presses its pocket in each game.
    t = Terminal(tmp_path / "g", cols=100, env={"NO_COLOR": "1"}, args=("--game", "bagh-chal"))
    try:
        t.wait_for("menu:")
        t.press("m")
        t.wait_for("Goats to move, ply 0")
        t.press("q")  # the point a4: a goat placed there
        t.wait_for("Goats plays a4, ply 1")
        assert t.proc.poll() is None and "quit?" not in t.text()
    finally:
        t.close()
    t = Terminal(
        tmp_path / "b",
        cols=100,
        env={"NO_COLOR": "1"},
        args=("--game", "bawo", "--opponent", "people"),
    )
    try:
        t.wait_for("menu:")
        t.press("m")
        t.wait_for("South to move, ply 0")
        t.press("as")
        t.wait_for("North to move, ply 1")
        t.press("q")  # North's A8, picked
        time.sleep(1)
        t.read()
        assert t.proc.poll() is None and "quit?" not in t.text()
    finally:
        t.close()


def test_interactive_board_in_a_tight_heap_starts_a_game_from_its_menu(tmp_path):
    # MENU in the menu started nothing under a tight `bawo sim --heap`: the simulated LEDs
    # sent every frame to the terminal as one 3 KB line, whose block the heap did not have,
    # so each pass ended in MemoryError and the press was lost (SimPixels.write_frame).
    # A short data path, as a user's is: the board's heap holds its path.
    import tempfile

    short = tempfile.TemporaryDirectory(dir="/tmp")
    t = Terminal(os.path.join(short.name, "d"), cols=100, args=("--heap", TIGHT_HEAP))
    try:
        t.wait_for("menu:")
        t.press("m")
        t.wait_for("South to move, ply 0")
        t.press("as")  # A1+
        t.wait_for("North to move, ply 1")
    finally:
        t.close()
        short.cleanup()


def test_second_simulator_on_one_data_dir_is_refused(tmp_path):
    a, lines = headless(tmp_path)
    try:
        assert "running headless" in lines[-1], lines
        port = (tmp_path / "port").read_text()
        b = subprocess.run(
            [sys.executable, "-m", "bawo.cli", "sim", "--headless", "--data", str(tmp_path)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert b.returncode == 1
        assert (
            b.stderr.count("\n") == 1
            and "in use by another bawo sim (process %d)" % a.pid in b.stderr
        )
        b = subprocess.run(
            [sys.executable, "-m", "bawo.cli", "sim", "--moves", "A1+", "--data", str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert b.returncode == 1 and "in use" in b.stderr
        assert (tmp_path / "port").read_text() == port and a.poll() is None  # A's port stays
    finally:
        stop(a)
    assert not (tmp_path / "port").exists()
    out = sim("--moves", "A1+", "--data", str(tmp_path), "--headless")  # free again
    assert out.returncode == 0, out.stderr


def repl_answers(port_path):
    """The MicroPython REPL on the simulated board's port evaluates an expression."""
    import serial

    ser = serial.Serial(port_path, timeout=0.2)
    try:
        got = b""
        deadline = time.monotonic() + 20
        while b"42" not in got.replace(b"6*7", b"") and time.monotonic() < deadline:
            ser.write(b"\r\nprint(6*7)\r\n")
            got += ser.read(4096)
        return b"42" in got.replace(b"6*7", b"")
    finally:
        ser.close()


def test_heap_applies_in_interactive_mode_and_the_repl_stays(tmp_path):
    # A heap far below the Pico's: the firmware stops at boot (before, --heap was ignored
    # here and it booted); as on a Pico, its REPL then has the serial port.
    p, lines = headless(tmp_path, "--heap", "20k")
    try:
        assert "firmware stopped (" in lines[-1] and "MemoryError" in lines[-1], lines
        assert "bawo flash --sim %s" % tmp_path in lines[-1]
        assert repl_answers((tmp_path / "port").read_text().strip())
    finally:
        stop(p)


def test_firmware_that_fails_at_boot_can_be_flashed_again(tmp_path):
    from bawo import cli

    (tmp_path / "app.py").write_text("raise ImportError('a broken build')\n")  # as flashed
    p, lines = headless(tmp_path)
    try:
        assert "firmware stopped (" in lines[-1] and "a broken build" in lines[-1], lines
        assert cli.main(["flash", "--sim", str(tmp_path), "--no-compile"]) == 0
    finally:
        stop(p)
    p, lines = headless(tmp_path)
    try:
        assert "running headless" in lines[-1], lines
        from bawo.ports import connect

        ser, link, info = connect(None, str(tmp_path), timeout=2.0)
        ser.close()
        assert info["board"].startswith("sim-")
    finally:
        stop(p)


@pytest.mark.parametrize("option", ["--random", "--heap"])
def test_negative_counts_are_refused(option, capsys):
    from bawo import cli

    with pytest.raises(SystemExit) as e:
        cli.main(["sim", option + "=-3", "--headless"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "error: argument %s: " % option in err.splitlines()[-1]
    with pytest.raises(SystemExit):
        cli.main(["play", "--level", "-3"])
    assert "argument --level: invalid choice: -3" in capsys.readouterr().err
    # The other counts too: a ply, worker processes, scripted games.
    for argv, arg in (
        (["show", "x", "--ply=-3"], "--ply"),
        (["import", "f", "--jobs=0"], "--jobs"),
        (["import", "f", "--jobs=-2"], "--jobs"),
        (["demo", "--games=0"], "--games"),
    ):
        with pytest.raises(SystemExit) as e:
            cli.main(argv)
        err = capsys.readouterr().err.splitlines()[-1]
        assert e.value.code == 2 and "error: argument %s: " % arg in err, (argv, err)


def test_end_of_game_lines():
    from bawo.sim.layout import result_line
    from bawo.sim.leds import _caption

    pos = "0,0,0,1,0,0/0,0,0,2,0,0 S:10 N:26 S"
    assert result_line("oware", "N", "25 seeds", pos) == "North wins (26 seeds in store, 25 win)"
    assert result_line("bagh-chal", "T", "5 goats captured") == "Tigers win (5 goats captured)"
    assert result_line("bagh-chal", "G", "tigers cannot move") == "Goats win (tigers cannot move)"
    assert result_line("bawo", None, "threefold repetition") == "draw (threefold repetition)"
    st = {
        "mode": "over",
        "game": "oware",
        "result": "N",
        "reason": "25 seeds",
        "pos": pos,
        "ply": 80,
    }
    assert _caption(st).strip() == "oware: North wins (26 seeds in store, 25 win) after 80 plies"
    # A tournament's seat card (firmware/seat.py) says in words what its pockets show.
    st = {"mode": "menu", "seat": [3, 2, 7, "oware"], "card": True, "games": ["bawo", "oware"]}
    assert _caption(st).strip().startswith("seat card: round 3, table 2 (tournament 7), oware;")
    assert _caption(dict(st, card=False)).strip().startswith("menu: row 1 game")


def test_show_and_play_end_with_the_result_line(tmp_path):
    import io
    from _host_helpers import random_record
    from bawo.terminal_games import show_record

    rec = next(
        r
        for r in (random_record(k, "t-%d" % k, "bagh-chal") for k in range(200))
        if r.header.get("Result") and r.replay().outcome() and r.replay().outcome().winner == 1
    )
    out = io.StringIO()
    show_record(rec, out=out)
    assert out.getvalue().rstrip().endswith("Tigers win (%s)" % rec.replay().outcome().reason)


@pytest.mark.parametrize(
    "game,pos",
    [
        ("bawo", "2,2,2,2,2,2,2,2/2,0,0,2,2,2,0,0/3,1,0,4,4,4,1,5/3,3,0,3,3,0,3,3 N"),
        ("oware", "4,4,4,4,4,0/5,5,5,5,4,4 S:0 N:0 N"),
        ("bagh-chal", "T...T/...../..G../...../T...T H:19 C:0 T"),
    ],
)
def test_screen_fits_40_columns_without_colour(game, pos):
    from bawo.sim.draw import frame
    from bawo.sim.leds import screen

    line, prof = frame(game, pos)
    turn = pos.rsplit(" ", 1)[1]
    st = {"mode": "play", "game": game, "pos": pos, "turn": turn, "ply": 1, "id": "sim-1-0001"}
    for view in ("leds", "digits"):
        text = screen(line, prof, st, 40, view, color=False, msg="x" * 90, port="/dev/pts/9")
        assert "\x1b" not in text and max(map(len, text.split("\n"))) <= 40, text
    cells = " ".join(text.split())
    if game == "bagh-chal":
        assert "T . . . T" in cells and "G" in cells
    else:
        assert pos.split(" ")[0].split("/")[-1].replace(",", " ") in cells  # South's row as digits
    wide = screen(line, prof, st, 100, "leds", color=True)
    assert "\x1b[38;2" in wide  # the LEDs in colour when they fit and colour is wanted


def test_scripted_board_honours_no_color_and_a_narrow_terminal(tmp_path):
    t = Terminal(tmp_path, cols=40, env={"NO_COLOR": "1"}, args=("--moves", "A1+", "--speed", "8"))
    try:
        assert t.proc.wait(120) == 0
        t.read()
        out = t.raw.decode(errors="replace").replace("\r", "")
        assert "\x1b[" not in out
        board = out[: out.index("result") if "result" in out else len(out)]
        assert "3 1 0 4 4 4 1 5" in " ".join(board.split())  # counts as digits
        assert max(len(x) for x in board.split("\n") if "ply" not in x) <= 40, board
    finally:
        t.close()


def test_taps_sent_together_are_pressed_one_after_another(tmp_path):
    # Keys typed fast reach the board in one read; pressed a millisecond apart, the contacts'
    # bounce let the second one come first (A2 then A1: a different move, or none).
    import json
    from bawo.sim import BoardProcess

    b = BoardProcess("bawo-4x8", str(tmp_path), fake=False, speed=8)
    try:

        def wait(pred, timeout=20):
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                line = b.readline(timeout=deadline - time.monotonic())
                if line.startswith("S ") and pred(json.loads(line[2:])):
                    return
            raise AssertionError("the board did not get there")

        menu = "t %d\n" % b.menu_key
        for k in range(6):
            if k:
                b.send(menu.strip())  # the menu; the next MENU starts a new game
                wait(lambda s: s["mode"] == "menu")
            b.send(menu.strip())
            wait(lambda s: s["mode"] == "play" and s["ply"] == 0)
            b._cmd.write(b"t 16\nt 17\n")  # A1, A2: A1+, in one write
            wait(lambda s: s["ply"] == 1 and not s["anim"])
    finally:
        b.kill()


def test_board_sim_speaks_simpipe(tmp_path):
    """Both ends of the simulator's pipe against firmware_sim/simpipe.py: every command the
    host can build is one board_sim obeys, every line board_sim sends is one simpipe reads."""
    from bawo_firmware_sim import simpipe as P
    from bawo.sim import BoardProcess

    b = BoardProcess("bawo-4x8", str(tmp_path), fake=True, speed=8)
    try:
        b.command(P.PRESS, b.menu_key)
        b.command(P.WAIT, 100)
        b.command(P.RELEASE, b.menu_key)
        b.command(P.TAP, 0)
        b.command(P.STATUS)
        assert json.loads(b.reply(P.STATUS_NOW))["mode"]
        b.command(P.MARK, 7)
        assert b.reply(P.MARKED) == "7"
        b.idle()
        b.get_frame()
        kinds = {P.parse_reply(x)[0] for x in b.log}
        assert {P.BOOTED, P.STATUS_NOW, P.IDLE_STATUS, P.MARKED} <= kinds
        assert P.parse_reply(b.frame)[0] == P.FRAME_LINE
    finally:
        b.quit()
    assert b.proc.returncode == 0


def test_simpipe_refuses_what_is_not_a_message():
    from bawo_firmware_sim import simpipe as P

    assert P.parse_command("t 16") == (P.TAP, 16) and P.parse_command("q") == (P.QUIT, None)
    for bad in ("", "t", "t -1", "t 1 2", "q 1", "x 3", "w 99999999999", "crash 1e3", "p ١"):
        assert P.parse_command(bad) is None, bad
    for kind, n in ((P.TAP, -1), (P.QUIT, 1), ("x", None), (P.WAIT, 1 << 31)):
        with pytest.raises(ValueError):
            P.command(kind, n)
    assert P.parse_reply("J 3 A1+") == (P.JOURNALED, "3 A1+") and P.parse_reply("X") == (
        P.POWER_CUT,
        "",
    )
    assert P.parse_reply("Q nope") is None and P.parse_reply("") is None


def test_simpipe_runs_on_micropython():
    from conftest import run_micropython

    r = run_micropython(
        [
            "-c",
            "import simpipe as P\n"
            "assert P.parse_command(P.command(P.TAP, 7)) == (P.TAP, 7)\n"
            "assert P.parse_reply(P.reply(P.MESSAGE, 'hi')) == (P.MESSAGE, 'hi')\n"
            "print('ok')",
        ]
    )
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


def test_random_plies_are_seeded_from_the_clock_and_the_seed_is_printed(tmp_path):
    """`bawo sim --random 40` played the same game on every run (seed 1): the seed comes
    from the clock now, printed, and --seed plays that game again."""

    def plies(out):
        return [line.split()[1:3] for line in out.splitlines() if line.startswith("  ply ")]

    runs = []
    for k in range(2):
        r = sim("--random", "40", "--speed", "8", "--data", str(tmp_path / str(k)))
        assert r.returncode == 0, r.stderr
        m = re.search(r"seed (\d+) \(--seed \1 plays this game again\)", r.stdout)
        assert m, r.stdout[:300]
        runs.append((int(m.group(1)), plies(r.stdout)))
    (s1, moves1), (s2, moves2) = runs
    # A clock seed can end a Bawo game in 3 plies (South wins, front row empty), and two short
    # games of two seeds can be the same: the seeds must differ, the games need not.
    assert s1 != s2 and moves1 and moves2
    again = sim("--random", "40", "--speed", "8", "--seed", str(s1), "--data", str(tmp_path / "2"))
    assert again.returncode == 0 and "seed" not in again.stdout.split("\n")[0], again.stdout[:200]
    assert plies(again.stdout) == moves1
    # The seed chooses the plies: two fixed seeds, two games.
    fixed = [
        plies(
            sim(
                "--random",
                "40",
                "--speed",
                "8",
                "--seed",
                str(k),
                "--data",
                str(tmp_path / ("f%d" % k)),
            ).stdout
        )
        for k in (1, 2)
    ]
    assert fixed[0] and fixed[1] and fixed[0] != fixed[1]
