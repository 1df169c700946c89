"""Monte Carlo tree search over shared_rules: the arena's yardstick for the board's AI (issue 10).

Plain UCT (Kocsis and Szepesvari): each playout descends the tree by UCB1, adds one child,
finishes the game with uniform random legal moves, and backs up 1 / 0.5 / 0 for the side
that moved into each node. The move played is the root child visited most. Nothing about the
games is known beyond `legal_moves`, `play` and `outcome`, so its strength is the same kind
of yardstick in all three games. Seeded: the same seed, position and playouts give the same
move.

>>> from shared_rules import game
>>> g = game("oware")
>>> MctsPlayer(g, playouts=50, seed=1).choose(g.start()) in g.legal_moves(g.start())
True
"""

from __future__ import annotations

import math
import random
from typing import Any

from .rulestypes import Game, Move

# A random game still going after this many plies is scored as a draw (Oware and Bagh-Chal
# random games end well before; this only bounds a rare endless one).
ROLLOUT_CAP = 300


class _Node:
    __slots__ = ("pos", "untried", "children", "visits", "wins", "move", "done")

    def __init__(self, game: Game, pos: Any, move: Move | None) -> None:
        self.pos = pos
        self.move = move
        self.children: list[_Node] = []
        self.visits = 0
        self.wins = 0.0  # for the side that played `move` (the side not to move at pos)
        out = game.outcome(pos)
        self.done = out
        self.untried = [] if out is not None else list(game.legal_moves(pos))


class MctsPlayer:
    """UCT with uniform random rollouts, `playouts` a move, exploration constant `c`."""

    def __init__(self, game: Game, playouts: int = 1000, seed: int = 0, c: float = 1.4) -> None:
        if playouts < 1:
            raise ValueError("playouts must be at least 1")
        self.game = game
        self.playouts = playouts
        self.c = c
        self.rng = random.Random(seed)
        self.last_info: dict[str, Any] = {}

    def choose(self, pos_or_state: Any) -> Move:
        g = self.game
        pos = getattr(pos_or_state, "position", pos_or_state)
        root = _Node(g, pos, None)
        if root.done is not None:
            raise ValueError("no legal move: the game is over")
        if len(root.untried) == 1:
            self.last_info = {"playouts": 0, "move": root.untried[0]}
            return root.untried[0]
        rng = self.rng
        rng.shuffle(root.untried)  # the seeded tie-break among equally visited moves
        c = self.c
        for _ in range(self.playouts):
            node = root
            path = [root]
            # Selection: every move of the node tried, the child with the best UCB1.
            while not node.untried and node.children:
                log_n = math.log(node.visits)
                best = node.children[0]
                bv = -1.0
                for ch in node.children:
                    v = ch.wins / ch.visits + c * math.sqrt(log_n / ch.visits)
                    if v > bv:
                        bv = v
                        best = ch
                node = best
                path.append(node)
            # Expansion: one untried move.
            if node.untried:
                m = node.untried.pop()
                child = _Node(g, g.play(node.pos, m), m)
                node.children.append(child)
                node = child
                path.append(node)
            winner = self._rollout(node)
            # Backup: a node's wins count for the side that moved into it.
            for n in path:
                n.visits += 1
                if winner is None:
                    n.wins += 0.5
                elif winner != n.pos.turn:
                    n.wins += 1.0
        best = max(root.children, key=lambda ch: ch.visits)
        self.last_info = {
            "playouts": self.playouts,
            "move": best.move,
            "visits": best.visits,
            "value": best.wins / best.visits,
        }
        assert best.move is not None  # only the root has none
        return best.move

    def _rollout(self, node: _Node) -> int | None:
        """The winner's side of a uniformly random game from node (None: draw)."""
        out = node.done
        if out is not None:
            return out.winner
        g = self.game
        pos = node.pos
        rnd = self.rng.random
        for _ in range(ROLLOUT_CAP):
            moves = g.legal_moves(pos)
            pos = g.play(pos, moves[int(rnd() * len(moves))])
            out = g.outcome(pos)
            if out is not None:
                return out.winner
        return None
