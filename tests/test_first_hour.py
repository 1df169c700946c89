"""A new player's first hour (issue 27): moves typed in either case, refusals in the player's
words, the hint from every place a game is played, and a simulator whose picks show."""
import io
import queue
import threading

import pytest

from shared_rules import game as make_game, State
from shared_rules.errors import RulesError
from shared_rules.record import Record, RecordError

from bawo import sim
from bawo.play import play


# -- moves in either case (shared_rules' parsers) -----------------------------------------------

@pytest.mark.parametrize("name,typed,written", [
    ("bawo", "b8-", "B8-"), ("bawo", "a3+", "A3+"), ("bagh-chal", "C3", "c3")])
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
    assert "North to move" in text   # South's b8- was played


@pytest.fixture
def sim_link(tmp_path):
    from bawo.link import BoardLink
    from bawo.ports import open_port
    relay = sim.PtyRelay()
    board = sim.BoardProcess("bawo-4x8", str(tmp_path / "flash"), fake=False, link=relay.board_ends())
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
    with pytest.raises(RulesError) as rules:   # the rules' own words for A1- at the start
        State(g).push("A1-")
    sim_link.new_game("bawo")
    bad = _bridge_call(sim_link, "move", "a1-")
    assert bad == {"error": str(rules.value)}   # not "board refused MOVE: error 5 (...)"
    box = _bridge_call(sim_link, "move", "b8-")   # the board's rules take either case
    assert "error" not in box, box
    assert box["result"]["ply"] == 1 and box["result"]["position"] == g.format(
        g.play(g.start(), g.parse_move("B8-")))
