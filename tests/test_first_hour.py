"""A new player's first hour (issue 27): moves typed in either case, refusals in the player's
words, the hint from every place a game is played, and a simulator whose picks show."""

import io
import threading

import pytest

from shared_rules import game as make_game, State
from shared_rules.errors import RulesError
from shared_rules.record import Record, RecordError

from bawo import sim
from bawo.sim.leds import digits, render
from bawo.terminal_games import play


# -- moves in either case (shared_rules' parsers) -----------------------------------------------


@pytest.mark.parametrize(
    "name,typed,written",
    [("bawo", "b8-", "B8-"), ("bawo", "a3+", "A3+"), ("bagh-chal", "C3", "c3")],
)
def test_a_move_typed_in_either_case_is_the_same_move(name, typed, written):
    s = State(make_game(name))
    s.push(typed)
    assert s.moves == [written]


def test_a_record_still_writes_moves_as_the_notation_does():
    # A person may type b8-; a record holding it is not one game's one text, so it is refused.
    s = State(make_game("bawo"))
    s.push("B8-")
    rec = Record.from_state(s)
    rec.moves = ["b8-"]
    with pytest.raises(RecordError, match="ply 1 .*the notation writes B8-"):
        rec.replay()


def test_bawo_play_takes_a_move_in_small_letters():
    answers = iter(["b8-", "quit", "y"])
    out = io.StringIO()
    play("bawo", two_players=True, ask=lambda q: next(answers), out=out, style="numbers")
    text = out.getvalue()
    assert "bad pocket" not in text
    assert "North to move" in text  # South's b8- was played


@pytest.fixture
def sim_link(tmp_path):
    from bawo.boardlink import BoardLink
    from bawo.ports import open_port

    relay = sim.PtyRelay()
    board = sim.BoardProcess(
        "bawo-4x8", str(tmp_path / "flash"), fake=False, link=relay.board_ends()
    )
    relay.start()
    board.drain()
    ser = open_port(relay.path)
    link = BoardLink(ser, timeout=3.0)
    link.hello()
    yield link
    ser.close()
    relay.stop = True
    board.kill()


def _bridge_call(link, name, arg):
    """One command through the live page's link thread (serve.live.Bridge), as /api/move runs it."""
    from bawo.serve.live import Bridge

    br = Bridge(hub=None, db_path=None)
    done, box = threading.Event(), {}
    br.commands.put((name, arg, done, box))
    br._run_commands(link, None, None)
    assert done.is_set()
    return box


def test_the_live_page_moves_in_either_case_and_refuses_in_the_rules_words(sim_link):
    g = make_game("bawo")
    with pytest.raises(RulesError) as rules:  # the rules' own words for A1- at the start
        State(g).push("A1-")
    sim_link.new_game("bawo")
    bad = _bridge_call(sim_link, "move", "a1-")
    assert bad == {"error": str(rules.value)}  # not "board refused MOVE: error 5 (...)"
    box = _bridge_call(sim_link, "move", "b8-")  # the board's rules take either case
    assert "error" not in box, box
    assert box["result"]["ply"] == 1 and box["result"]["position"] == g.format(
        g.play(g.start(), g.parse_move("B8-"))
    )


# -- the hint, everywhere a game is played (point 10) ------------------------------------------


def _board_hint(state, seed=1):
    from bawo.advice import best_move

    return best_move(state, seed)


def test_the_hint_is_the_firmwares_own_choice():
    # The book's move from the opening (firmware/hint.py via bawo.advice), as the board lights it.
    from bawo import firmware

    book = firmware.module("book")
    b = book.Book(firmware.book_path())
    g = make_game("bawo")
    want = g.move_str(b.lookup(g.start().key()))
    b.close()
    assert _board_hint(State(g)) == want


def test_bawo_play_gives_the_hint_and_logs_it_as_the_board_does(tmp_path):
    from bawo.db import Log

    g = make_game("bawo")
    hinted = _board_hint(State(g), 7)
    answers = iter(["hint", hinted, "quit", "y"])
    out = io.StringIO()
    with Log(str(tmp_path / "g.sqlite")) as log:
        play(
            "bawo", level=1, seed=7, log=log, ask=lambda q: next(answers), out=out, style="numbers"
        )
        gid = out.getvalue().split("logged as ")[1].split()[0]
        rec = Record.from_text(log.get(gid)["record"])
    assert "hint 1: %s" % hinted in out.getvalue()
    assert rec.moves[0] == hinted
    assert rec.header["First"] == "you (1 hints)" and rec.header["Second"] == "computer (level 1)"
    from bawo.players import parse

    assert parse(rec.header["First"]) == ("you", None, 1)


def test_the_play_page_gives_the_hint_and_logs_it_as_the_board_does(tmp_path):
    from bawo.db import Log
    from bawo.serve.play_session import Session

    db = str(tmp_path / "g.sqlite")
    s = Session(db)
    v = s.new("oware", 0, 1)
    n = 0
    while not v["result"]:
        st = State(make_game("oware"))
        for m in v["moves"]:
            st.push(m)
        h = s.hint()["hint"]
        n += 1
        assert h["n"] == n and h["move"] == _board_hint(st, s.seed)
        assert h["presses"] == v["presses"][h["move"]]  # where to press it on the page
        v = s.move(h["move"])
    with Log(db) as log:
        rec = Record.from_text(log.get(v["id"])["record"])
    assert rec.header["First"] == "you (%d hints)" % n


def test_the_play_page_has_a_hint_button_and_route(tmp_path):
    import httpx
    from _serve_helpers import Server

    srv = Server(str(tmp_path / "g.sqlite"), follow_board=False)
    try:
        h = {"Host": "127.0.0.1:%d" % srv.cfg.port, "X-Bawo-Token": srv.cfg.token}
        page = httpx.get(srv.url.rstrip("/") + "/play", headers=h, timeout=10).text
        assert 'id="hint"' in page
        r = httpx.post(srv.url.rstrip("/") + "/api/play/hint", headers=h, json={}, timeout=30)
        assert r.status_code == 400 and r.json() == {"error": "start a game first"}
        httpx.post(
            srv.url.rstrip("/") + "/api/play/new",
            headers=h,
            json={"game": "bawo", "side": 0, "level": 1},
            timeout=30,
        )
        r = httpx.post(srv.url.rstrip("/") + "/api/play/hint", headers=h, json={}, timeout=30)
        assert r.status_code == 200 and r.json()["hint"]["move"] == _board_hint(
            State(make_game("bawo"))
        )
    finally:
        srv.stop()


def test_the_simulators_hint_key_is_the_boards_gesture(tmp_path):
    from test_sim import Terminal

    want = _board_hint(State(make_game("bawo")))
    t = Terminal(
        tmp_path, cols=100, env={"NO_COLOR": "1"}, args=("--game", "bawo", "--opponent", "people")
    )
    try:
        t.wait_for("menu:")
        t.press("m")
        t.wait_for("South to move, ply 0")
        t.press("?")  # BACK held, MENU pressed, on the simulated pins
        t.wait_for("hint 1: %s" % want)
        assert "menu:" not in t.text(t.mark)  # the hint, not the menu
    finally:
        t.close()


# -- the simulator's pick and targets, seen on a screen (point 11) ------------------------------


@pytest.fixture(scope="module")
def picked(tmp_path_factory):
    """A real board (fake clock) with South's A4 picked: its frame and status."""
    b = sim.BoardProcess(
        "bawo-4x8",
        str(tmp_path_factory.mktemp("pick")),
        fake=True,
        frames=True,
        extra_env={"BAWO_GAME": "bawo", "BAWO_OPPONENT": "people"},
    )
    try:
        b.idle()
        b.menu()
        b.idle()
        before = b.get_frame()
        cells = sim.key_of_cell(b.profile_file, "bawo")
        b.tap(cells[3])  # South's A4 (cell 3): two directions, so a pick
        st = b.idle()
        assert st["sel"] == 3
        return b.profile_file, before, b.get_frame(), st
    finally:
        b.quit()


def _colours(text):
    import re

    return {tuple(int(x) for x in m) for m in re.findall(r"\x1b\[[34]8;2;(\d+);(\d+);(\d+)m", text)}


def test_the_pick_and_its_targets_show_on_a_screen(picked):
    prof, before, frame, st = picked
    new = _colours(render(frame, prof, st, color=True)) - _colours(
        render(before, prof, st, color=True)
    )
    from bawo.sim.leds import SHOWN_MIN

    assert any(r == g == b >= SHOWN_MIN for r, g, b in new), new  # the pick: white
    assert any(g >= SHOWN_MIN and r == b == 0 for r, g, b in new), new  # its targets: green


def test_the_digits_mark_the_pick_and_its_targets(picked):
    prof, _, frame, st = picked
    text = digits(frame, prof, st)
    south_front = [ln for ln in text.split("\n") if "*2" in ln]
    assert len(south_front) == 1
    assert south_front[0].split() == ["2", "2", ">2", "*2", ">2", "2", "2", "2"], text
    assert "* picked  > a press there plays" in text


def test_a_refused_press_says_why_on_the_status_line(tmp_path):
    from test_sim import Terminal

    t = Terminal(
        tmp_path, cols=100, env={"NO_COLOR": "1"}, args=("--game", "bawo", "--opponent", "people")
    )
    try:
        t.wait_for("menu:")
        t.press("m")
        t.wait_for("South to move, ply 0")
        t.press("1")  # North's B8, with South to move: a red flash
        t.wait_for("B8 is North's pocket; South is to move, on South's rows")
        t.press("as")  # South's A1, then A2: A1+; the line clears
        t.wait_for("North to move, ply 1")
        assert "B8 is North's" not in t.text(t.mark)
    finally:
        t.close()


@pytest.mark.parametrize(
    "name,noun", [("bawo", "pocket"), ("oware", "pit"), ("bagh-chal", "piece")]
)
def test_the_play_page_and_the_simulator_explain_the_other_sides_cell_alike(tmp_path, name, noun):
    """One rule, two places: a press on the opponent's cell is explained by the Play page (to
    "you") and by the simulator's status line (to whoever is to move) with the same words."""
    from bawo import firmware
    from bawo.serve.play_session import Session
    from bawo.sim.leds import refused

    s = Session(str(tmp_path / "g.sqlite"))
    v = s.new(name, 0, 1)
    g = make_game(name)
    st = State(g)
    for m in v["moves"]:
        st.push(m)
    prof = firmware.profile_path(sim.PROFILES[name])
    cells = sim.key_of_cell(prof, name)
    mine = g.sides[0]
    checked = 0
    for cell, key in cells.items():
        if cell >= len(st.position.board) or g.owner(cell, st.position.board[cell]) != 1:
            continue
        page = v["why"][key]
        assert page.startswith(
            "%s is %s" % (g.label(cell), "North's" if mine == "S" else "Tigers'")
        )
        assert page.endswith(
            "; you play %s"
            % (
                "South's rows"
                if name == "bawo"
                else "South's row"
                if name == "oware"
                else "Goats' pieces"
            )
        )
        assert (" %s;" % noun) in page
        status = {"mode": "play", "game": name, "pos": g.format(st.position), "opponent": "people"}
        said = refused(prof, status, key)
        assert said.split(";")[0] == page.split(";")[0], (said, page)
        checked += 1
    assert checked, "no cell of the other side on the board"
