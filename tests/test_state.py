"""State: undo with a bounded history replays from the root, exactly."""

import random
import sys
from pathlib import Path

import pytest

from shared_rules import State, game, GAMES, GameOverError, RulesError


@pytest.mark.parametrize("name", sorted(GAMES))
def test_bounded_history_pops_back_to_the_root(name):
    full = State(game(name))
    short = State(game(name), history=1)
    rnd = random.Random(3)
    positions = [str(full.position)]
    while full.ply < 30 and full.outcome() is None:
        m = rnd.choice(full.legal_moves)
        full.push(m)
        short.push(m, events=False)
        positions.append(str(full.position))
    assert short.moves == full.moves
    while full.ply:
        assert full.pop() == short.pop()
        assert str(short.position) == str(full.position) == positions[full.ply]
    with pytest.raises(RulesError, match="no move to undo"):
        short.pop()


def test_no_move_after_the_end():
    s = State(game("bawo"), "1,0,0,2,1,1,0,3/0,0,0,0,0,0,0,0/0,3,1,3,3,0,4,2/6,5,8,6,1,4,4,3 N")
    assert s.legal_moves == []
    with pytest.raises(GameOverError, match="front row empty"):
        s.push("A1+")


def _fast_path_games():
    sys.path.insert(0, str(Path(__file__).parent / "mp"))
    from test_rules_mp import fast_path_games

    return fast_path_games


def test_fast_path_agrees_on_many_random_games():
    # push(m, False) (replay) checks one move with try_play(): compared at every ply of
    # random games with legal_moves() and the full push, every move text tried (the
    # MicroPython run of tests/mp/test_rules_mp.py does a shorter slice).
    assert _fast_path_games()(list(range(10, 22))) > 2000


@pytest.mark.slow
def test_fast_path_agrees_on_many_more_random_games(request):
    if "slow" not in (request.config.getoption("-m") or ""):
        pytest.skip("long run: pytest -m slow")
    assert _fast_path_games()(list(range(100, 400))) > 50000
