"""`bawo show/watch/play` draw positions with the firmware's own LED drawing (host/bawo/sim/draw.py):
the same picture the simulator shows for the same position."""

import sys
import types

import pytest

from _host_helpers import random_record
from shared_rules import game as make_game, State

from bawo import cli
from bawo.sim import draw as D
from bawo.db import Log


def run(capsys, *argv):
    rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def _no_status(text):
    return text.rsplit("\n", 1)[0]


@pytest.mark.parametrize(
    "game, moves",
    [
        ("bawo", ["A1+"]),
        ("oware", ["C", "b"]),
        ("bagh-chal", ["c3", "a1-a2", "b2"]),
    ],
)
def test_leds_equal_the_simulators_frame(game, moves, tmp_path):
    from bawo import sim
    from bawo.sim.leds import render

    board = sim.BoardProcess(sim.PROFILES[game], str(tmp_path), fake=True, speed=8)
    try:
        st = sim.choose_settings(board, game, "people", 8)
        board.menu()
        board.idle()
        st = sim.play_moves(board, game, moves)
        frame = board.get_frame()
        for color in (True, False):
            want = _no_status(render(frame, board.profile_file, st, color=color, keys=False))
            assert D.leds(game, st["pos"], color=color) == want
        # and the start position differs (the drawing follows the position)
        g = make_game(game)
        assert D.leds(game, g.format(State(g).position)) != _no_status(
            render(frame, board.profile_file, st, keys=False)
        )
        assert D.frame(game, st["pos"])[0] == frame
    finally:
        board.quit()


def test_firmware_modules_do_not_leak_into_sys_modules(monkeypatch):
    from bawo import firmware

    monkeypatch.setattr(firmware, "_loaded", {})
    monkeypatch.setattr(D, "_pictures", {})
    # Another program's module called `keys` stays where it is and the firmware gets its own.
    monkeypatch.setitem(sys.modules, "keys", types.ModuleType("keys"))
    names = tuple(firmware._names()) + (
        "profile",
        "shared_rules.oware",
        "shared_rules.bawo",
        "shared_rules.baghchal",
    )
    # The test's own positions load their engines first: what the drawing finds loaded, it
    # leaves loaded (this test alone in a process, or after others, sees the same).
    bawo, oware = make_game("bawo"), make_game("oware")
    start = {g.name: g.format(State(g).position) for g in (bawo, oware)}
    before = {n: sys.modules.get(n) for n in names}
    path = list(sys.path)
    D.leds("bawo", start["bawo"])
    D.leds("oware", start["oware"])
    assert {n: sys.modules.get(n) for n in names} == before and sys.path == path
    assert firmware.module("keys").__file__.startswith(firmware.firmware_dir())
    assert firmware.module("render").V is firmware.module("view")  # one copy of each module


def test_draw_styles():
    g = make_game("oware")
    pos = g.format(State(g).position)
    num = D.draw("oware", pos, "start")
    assert "North" in num and "\x1b[" not in num and "\u2580" not in num
    col = D.draw("oware", pos, "start", style="color")
    assert col.startswith("start\n") and "\u2580" in col and "\x1b[38;2;" in col
    assert col.endswith("   %s\n   South to move" % pos)
    mono = D.draw("oware", pos, style="mono")
    assert "\x1b[" not in mono and "fedcba"[0] in mono and mono.endswith("South to move")


def test_style_follows_the_terminal(monkeypatch):
    class Tty:
        def isatty(self):
            return True

    class Pipe:
        def isatty(self):
            return False

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert D.style_for(Tty()) == "color"
    assert D.style_for(Pipe()) == "numbers"
    assert D.style_for(Tty(), numbers=True) == "numbers"
    assert D.style_for(Pipe(), force_leds=True) == "mono"
    monkeypatch.setenv("NO_COLOR", "1")
    assert D.style_for(Tty()) == "numbers"
    assert D.style_for(Tty(), force_leds=True) == "mono"


def test_style_is_numbers_in_a_narrow_terminal(monkeypatch):
    import fcntl
    import os
    import struct
    import termios

    monkeypatch.delenv("NO_COLOR", raising=False)
    master, slave = os.openpty()
    try:
        tty = os.fdopen(slave, "w")
        for cols, want in ((40, "numbers"), (100, "color")):
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, cols, 0, 0))
            assert D.style_for(tty) == want
    finally:
        tty.close()
        os.close(master)


@pytest.mark.parametrize("game", ["bawo", "oware", "bagh-chal"])
def test_show_all_prints_the_led_drawing(game, tmp_path, capsys):
    db = str(tmp_path / "g.sqlite")
    log = Log(db)
    rec = random_record(3, "pico-0003", game)
    log.add(rec, "import")
    log.close()
    g = make_game(game)
    s = State(g, rec.header.get("Position"))
    for m in rec.moves:
        s.push(m)
    last = g.format(s.position)
    rc, out, _ = run(capsys, "show", "pico-0003", "--db", db, "--all", "--leds")
    assert rc == 0 and out.count("plays") == len(rec.moves)
    assert D.leds(game, last, color=False) in out and ("   " + last) in out
    assert out.count("to move") >= len(rec.moves)
    # --numbers, and the automatic fallback (pytest's stdout is not a terminal): the grid
    for extra in (["--numbers"], []):
        rc, out, _ = run(capsys, "show", "pico-0003", "--db", db, "--all", *extra)
        assert rc == 0 and out.count("plays") == len(rec.moves)
        assert "\u2580" not in out and D.numbers(g.name, last) in out


def test_subcommands_take_the_style_flags(capsys):
    for cmd in ("show", "watch", "play"):
        with pytest.raises(SystemExit):
            cli.main([cmd, "--help"])
        out = capsys.readouterr().out
        assert "--numbers" in out and "--leds" in out and "NO_COLOR" in out


def test_terminal_play_asks_before_quitting_a_game():
    import io
    from bawo.terminal_games import play

    answers = iter(["A1+", "q", "n", "B7-", "quit", "y"])
    asked = []

    def ask(prompt):
        asked.append(prompt)
        return next(answers)

    out = io.StringIO()
    assert play("bawo", two_players=True, ask=ask, out=out) == 0
    assert asked[2].startswith("end this game here") and asked[5].startswith("end this game here")
    assert asked[3] == "N to move (? for moves, hint for one): " and "illegal" not in out.getvalue()
