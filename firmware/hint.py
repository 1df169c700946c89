# A hint (BACK held, MENU pressed): the move the board would play for the person, lit as a
# selection. Loaded for that moment only (compat.run_part).
from compat import run_part


def best_move(a):
    """The move a hint shows: the proved book's (Bawo, South, from the opening, while
    every South move so far was the book's), else the level-5 AI's best."""
    s = a.s
    g = a.g
    if g.name == 'bawo' and s.turn == 0 and not a.header.get('position'):
        try:
            import book
            m = book.line_move(g, s.moves, book.path())
        except ImportError:
            m = None
        if m is not None:
            return m
    ai = a.opponent
    ai = getattr(ai, 'ai', ai)
    if ai is None or not hasattr(ai, 'last_info'):
        ai = run_part('opponent', 'make_opponent', g, 5, a.header.get('seed', 1), a._think_poll)
    return ai.choose(s)


def show(a):
    if a._board_to_move() or a._host_to_move() or a.s.outcome() is not None:
        return
    a.abort_key = -1   # MENU or BACK pressed during the hint's search stops it
    m = best_move(a)
    key = a.abort_key
    a.abort_key = -1
    if m is None:
        if key >= 0:
            a.on_press(key)
        return
    a.hints += 1
    # Journaled (in the header, rewritten whole): a game resumed after a power cut still
    # says it had help. Behind (flash full), the catch-up rewrite carries it.
    a.header['hints'] = a.hints
    if not a.behind:
        try:
            a.journal.rewrite_current(a.header, a.s.iter_moves())
        except OSError as e:
            a._unsaved(e)
    a.say('hint %d: %s' % (a.hints, a.g.move_str(m)))
    a.scene.sel = a.g.move_cell(m, a.s.turn)
    a.scene.hint_move = m
    a.changed()
