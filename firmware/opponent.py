# The board's side of a game: its AI, the book, or random moves when the AI has no room.
from shared_rules import has_book
from shared_rules.rng import Rng


class RandomOpponent:
    """Plays a random legal move; the fallback when shared_rules.ai is missing."""

    def __init__(self, seed=1):
        self.rng = Rng(seed)

    def choose(self, state):
        moves = state.legal_moves
        return moves[self.rng.below(len(moves))]


def make_opponent(g, level=3, seed=1, poll=None, say=None):
    """An object with choose(state) -> move: the engine's AI if it is installed.
    poll() is called while it thinks; True abandons the search (choose returns None)."""
    try:
        from shared_rules.ai import Player
        return Player(g, level=level, seed=seed, poll=poll)
    except (ImportError, MemoryError, KeyError, TypeError) as e:
        if say:
            say('no AI (%r): the board plays at random' % e)
        r = RandomOpponent(seed)
        r.retry = isinstance(e, MemoryError)   # room may come back: the App asks again
        return r


def new(g, header, board_side, poll, say):
    """The board's side of a game: its AI at the header's level, the book where it plays."""
    ai = make_opponent(g, header.get('level', 3), header.get('seed', 1), poll, say)
    return with_book(ai, g.name, header, board_side)


def with_book(opponent, name, header, board_side):
    """Level 5 in Bawo from the opening plays the book (docs/ai.md): as South the proved
    strategy, which never loses; as North the hardest reply while South stays on the book's
    line. Elsewhere, and if the book is missing, the opponent as it is."""
    if (not has_book(name) or board_side not in (0, 1) or header.get('position')
            or header.get('level', 3) < 5):
        return opponent
    try:
        import book
        return book.BookOpponent(opponent, side=board_side)
    except ImportError:
        return opponent

