# A hint (BACK held, MENU pressed): the move the board would play for the person.
import opponent
from shared_rules import has_book


def best_move(se, opp, poll):
    """The move a hint shows in Session `se`: the proved book's (Bawo, South, from the
    opening, while every South move so far was the book's), else the level-5 AI's best.
    opp: the board's opponent, whose AI answers if it has one. None if poll() stopped
    the search."""
    s = se.s
    g = se.g
    if has_book(g.name) and s.turn == 0 and not se.header.get('position'):
        try:
            import book
            m = book.line_move(g, s.moves, book.path())
        except ImportError:
            m = None
        if m is not None:
            return m
    ai = getattr(opp, "ai", opp)
    if ai is None or not hasattr(ai, 'last_info'):
        ai = opponent.make_opponent(g, 5, se.header.get('seed', 1), poll)
    return ai.choose(s)
