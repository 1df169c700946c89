# The board's look without a game being played: a position, or a move's sowing, drawn by the
# firmware's own renderer and animator on a simulated board, for the PC's pictures (`bawo show
# --leds`, the web page). No App: a frame is a pure function of its scene (render.py). The
# simulator's file, not the device's: none of it goes to a board.
import hw_sim
import pinmap
import view as V
from animator import Animator, SPEED_MS
from render import Scene, draw, set_position, show_position, place
from appconst import PLAY, OVER
from settings import DEFAULTS
from shared_rules import game as make_game
from shared_rules.state import State


class Picture:
    """A simulated board of a profile showing one game: `s` its state, `scene` what is
    shown, `board.pixels` the LEDs once draw() has run."""

    def __init__(self, profile_file, game):
        self.profile = profile = pinmap.load(profile_file)
        self.board = hw_sim.Board(profile)
        px = self.board.pixels
        px.set_brightness(px.cap * DEFAULTS['brightness'] // 8)   # as a new board's
        self.view = V.View(px, profile)
        self.anim = Animator()
        self.scene = Scene(profile.n_keys, self.anim)
        self.game = game
        self.g = make_game(game)
        self.s = None

    def draw(self):
        sc = self.scene
        sc.g, sc.s = self.g, self.s
        draw(self.view, sc)


def show(a, game, position):
    """Draw `position` (text) of `game` as the board shows it: whose turn, or once the game
    is over the winner's tint. The picture then holds that position (a.s)."""
    if game != a.game:
        a.game, a.g = game, make_game(game)
    g = a.g
    sc = a.scene
    a.s = State(g, position)
    a.anim.end()
    sc.flash_key = sc.hint_move = -1
    place(sc, g, a.profile)
    a.view.reset(pieces=g.pieces)
    set_position(sc, g, a.s)
    over = a.s.outcome() is not None
    sc.mode = OVER if over else PLAY
    sc.blink = 1 if over else 0
    a.draw()


def sowing(a, move):
    """Play `move` (a move of a.s, or its text) from the position shown, as the board
    animates it: yields (step, steps, wait) for each step applied (numbered from 1; wait in
    ms at a new board's speed; a.draw() draws it). The position is the move's result at the
    end."""
    sc = a.scene
    show_position(sc, a.g, a.s.position)
    an = a.anim
    mover = a.s.turn
    an.clear()
    a.s.push(move, an)
    sc.mode, sc.blink = PLAY, 0
    an.begin(0, mover)
    n = len(an)
    ms = SPEED_MS[DEFAULTS['speed']]
    try:
        while an.i < n:
            an.step(0, sc.shown, a.g.cells, ms)
            yield an.i, n, an.at
    finally:
        an.end()
