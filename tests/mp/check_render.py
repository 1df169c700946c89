# The board's look as parts of their own (docs/architecture.md): render.draw is a pure
# function of a Scene, the App lends the scene its game for a frame only, and the Animator
# shows a move's events a step at a time. Under python3 and micropython.
import sys

try:
    import mpcheck
except ImportError:
    sys.path.insert(0, __file__.rsplit('/', 1)[0])
    import mpcheck
import hw_sim
import view as V
import render
from animator import Animator, SPEED_MS
from appconst import PLAY, OVER
from render import place
from shared_rules import game as make_game
from shared_rules.state import State

PROF = mpcheck.prof()


def _picture(name, position=None):
    board = hw_sim.Board(PROF, clock=hw_sim.SimClock(), bounce_ms=0)
    v = V.View(board.pixels, PROF)
    an = Animator()
    sc = render.Scene(PROF.n_keys, an)
    g = make_game(name)
    s = State(g, position)
    place(sc, g, PROF)
    render.set_position(sc, g, s)
    sc.mode, sc.g, sc.s = PLAY, g, s
    return board, v, sc


def _fields(sc):
    an = sc.anim
    return (
        sc.mode,
        sc.g,
        sc.s,
        sc.menu,
        bytes(sc.shown),
        bytes(sc.cell_of_key),
        sc.sel,
        sorted(sc.starts.items()),
        sc.hint_move,
        sc.takata,
        sc.flash_key,
        sc.blink,
        sc.warn,
        an.on,
        an.hand,
        an.mark,
        an.capt,
        an.intro,
        an.intro_on,
        an.mover,
    )


def _pixels(board):
    px = board.pixels
    px.show()
    return bytes(px.canvas_rgb())


def test_a_frame_is_drawn_from_the_scene_alone():
    board, v, sc = _picture('bawo')
    sc.sel = sorted(sc.starts)[0]  # a pocket picked: its targets lit
    sc.blink = 1
    sc.warn = 1
    before = _fields(sc)
    render.draw(v, sc)
    first = _pixels(board)
    assert _fields(sc) == before, 'draw changed its scene'
    # The same scene on a second board, drawn from nothing: the same LEDs.
    board2 = hw_sim.Board(PROF, clock=hw_sim.SimClock(), bounce_ms=0)
    render.draw(V.View(board2.pixels, PROF), sc)
    assert _pixels(board2) == first
    # And the scene decides: another selection, other LEDs.
    sc.sel = -1
    render.draw(v, sc)
    assert _pixels(board) != first


def test_the_game_over_tint_blinks_with_the_scene():
    from shared_rules.rng import Rng

    board, v, sc = _picture('oware')
    s = sc.s
    rng = Rng(7)
    while s.outcome() is None and s.ply < 3000:
        moves = s.legal_moves
        s.push(moves[rng.below(len(moves))])
    assert s.outcome() is not None
    render.set_position(sc, sc.g, s)
    sc.mode = OVER
    ends = (V.BG_WIN, V.BG_LOSE, V.BG_DRAW)
    sc.blink = 1
    render.draw(v, sc)
    lit = [k for k in range(PROF.n_keys) if v._bg[k] in ends]
    assert lit, 'no pocket shows the result'
    sc.blink = 0
    render.draw(v, sc)
    assert not [k for k in range(PROF.n_keys) if v._bg[k] in ends]


def test_the_app_lends_its_game_to_the_scene_for_a_frame_only():
    # Kept between frames, the scene held a game's engine that a NEW had let go of.
    import app
    import os
    from journal import Journal

    tmp = mpcheck.tmpdir('render')
    board = hw_sim.Board(PROF, clock=hw_sim.SimClock(), bounce_ms=0)
    a = app.App(
        board,
        Journal(tmp, 'test', min_free=0, log=lambda m: None),
        'test',
        settings={'game': 'bawo', 'opponent': 'people', 'speed': 8},
    )
    a.boot()
    a.draw()  # the menu's frame
    assert a.scene.menu is None and a.scene.g is None
    a.new_game('oware')
    a.draw()
    sc = a.scene
    assert (sc.g, sc.s, sc.menu) == (None, None, None)
    assert a.session.g.name == 'oware' and a.mode == PLAY
    for n in os.listdir(tmp):
        os.remove(tmp + '/' + n)


def test_the_animator_shows_a_sowing_a_step_at_a_time():
    g = make_game('oware')
    s = State(g)
    an = Animator()
    sc = render.Scene(PROF.n_keys, an)
    render.show_position(sc, g, s.position)
    shown = sc.shown
    b = list(shown[:12])  # the position before the move (the State's board changes in place)
    mover = s.turn
    an.clear()
    s.push(s.legal_moves[0], an)
    assert len(an) > 1 and not an.full
    ms = SPEED_MS[5]
    an.begin(0, mover, start=5)  # a board's move: its start blinks first
    now = 0
    blinks = 0
    while now < 1150:
        was = an.intro_on
        now += 50
        an.advance(now, shown, g.cells, ms)
        blinks += an.intro_on != was
        assert an.intro == 5 and list(shown[:12]) == b, 'a step was shown during the blink'
    assert blinks >= 4, blinks
    steps = 0
    while an.on:
        now += 1
        if an.advance(now, shown, g.cells, ms):
            steps += 1
    after = s.position
    assert list(shown[:12]) == list(after.board)
    assert steps >= 1 and not an.on


def test_the_animator_drops_what_is_past_its_capacity():
    an = Animator(2)
    for ev in ((1, 0, 0), (2, 1, 1), (2, 2, 1)):
        an.append(ev)
    assert len(an) == 2 and an.full
    an.clear()
    assert len(an) == 0 and not an.full


if __name__ == '__main__':
    mpcheck.run(globals())
