"""The arena's yardstick, bawo.mcts (issue 10): plain UCT with uniform random rollouts."""

import pytest

from shared_rules import game
from shared_rules.rng import Rng
from bawo.mcts import MctsPlayer

GAMES = ("bawo", "oware", "bagh-chal")


class CheckedGame:
    """The game with every play() checked against legal_moves() of its own position."""

    def __init__(self, g):
        self.g = g
        self.plays = 0

    def __getattr__(self, name):
        return getattr(self.g, name)

    def play(self, pos, move):
        assert self.g.outcome(pos) is None, "played on in a finished game"
        assert move in self.g.legal_moves(pos), "illegal move %r in %s" % (move, pos.format())
        self.plays += 1
        return self.g.play(pos, move)


def _wins_at_once(g, pos):
    return [
        m for m in g.legal_moves(pos) if (g.outcome(g.play(pos, m)) or _NONE).winner == pos.turn
    ]


def _rollout_rate(g, pos, side, rng, n):
    """The share of n uniformly random games from pos that side wins."""
    won = 0
    for _ in range(n):
        p = pos
        while g.outcome(p) is None:
            moves = g.legal_moves(p)
            p = g.play(p, moves[rng.below(len(moves))])
        won += (g.outcome(p) or _NONE).winner == side
    return won / n


class _NONE:
    winner = None


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_mcts_takes_the_oware_capture_that_reaches_25(seed):
    # F captures 2 and reaches 25; after A or B random play still wins about 3 games in 4,
    # so only the tree (the terminal child's sure win) tells the moves apart.
    g = game("oware")
    pos = g.parse("0,0,0,1,0,1/1,1,0,0,0,1 S:23 N:20 S")
    assert sorted(g.legal_moves(pos)) == [0, 1, 5] and _wins_at_once(g, pos) == [5]
    if seed == 1:
        rng = Rng(9)
        assert all(_rollout_rate(g, g.play(pos, m), 0, rng, 200) < 0.9 for m in (0, 1))
    assert MctsPlayer(g, playouts=300, seed=seed).choose(pos) == 5


@pytest.mark.parametrize("name", GAMES)
def test_mcts_playouts_use_only_legal_moves(name):
    cg = CheckedGame(game(name))
    p = MctsPlayer(cg, playouts=200, seed=5)
    pos = cg.g.start()
    for _ in range(3):  # a few plies in, so that the tree and the rollouts start elsewhere too
        m = p.choose(pos)
        assert m in cg.g.legal_moves(pos)
        pos = cg.g.play(pos, m)
    # every playout but the root's single-move shortcut plays at least one move
    assert cg.plays >= 3 * 200


def test_mcts_is_seeded():
    g = game("oware")
    pos = g.start()
    a = [MctsPlayer(g, playouts=200, seed=s).choose(pos) for s in (1, 1, 2)]
    assert a[0] == a[1]
    b = MctsPlayer(g, playouts=200, seed=1)
    b.choose(pos)
    assert b.last_info["playouts"] == 200 and b.last_info["move"] == a[0]


def test_mcts_beats_random_play():
    # A yardstick that did not search (e.g. backed up for the wrong side) would lose half.
    g = game("oware")
    wins = 0
    for k in range(4):
        side = k & 1
        players = [None, None]
        players[side] = MctsPlayer(g, playouts=60, seed=k)
        rng = Rng(k + 100)
        pos = g.start()
        for _ in range(300):  # a game still going then counts as not won
            if g.outcome(pos) is not None:
                break
            if pos.turn == side:
                m = players[side].choose(pos)
            else:
                moves = g.legal_moves(pos)
                m = moves[rng.below(len(moves))]
            pos = g.play(pos, m)
        out = g.outcome(pos)
        wins += out is not None and out.winner == side
    assert wins == 4


def test_mcts_refuses_a_finished_game_and_bad_playouts():
    g = game("oware")
    pos = g.parse("0,0,0,0,0,0/0,0,0,0,0,0 S:24 N:24 S")
    with pytest.raises(ValueError):
        MctsPlayer(g, playouts=10).choose(pos)
    with pytest.raises(ValueError):
        MctsPlayer(g, playouts=0)
