# The board's look without a game being played: a position, or a move's sowing, drawn by the
# firmware's own App on a simulated board, for the PC's pictures (`bawo show --leds`, the
# web page). The simulator's file, not the device's: none of it goes to a board.
import hw_sim
import pinmap
import app as A


class NoFlash:
    """The journal the App asks for while drawing: no settings file, flash not low."""
    low = False

    def path(self, name):
        return '/dev/null/' + name   # never opens: default settings


def open_app(profile_file, game):
    """An App on a simulated board of the profile, with nothing on flash."""
    board = hw_sim.Board(pinmap.load(profile_file))
    return A.App(board, NoFlash(), 'host', settings={'game': game})


def show(a, game, position):
    """Draw `position` (text) of `game` as the board shows it: whose turn, or once the game
    is over the winner's tint. The App then holds that position (a.s)."""
    a.anim = None
    a.flash_key = -1
    a._setup({'game': game, 'position': position, 'opponent': 'people'})
    a._position_changed()
    over = a.s.outcome() is not None
    a.mode = A.OVER if over else A.PLAY
    a.blink = 1 if over else 0
    a.draw()


def sowing(a, move):
    """Play `move` (a move of a.s, or its text) from the position shown, as the board
    animates it: yields (step, steps, wait) for each step applied (numbered from 1; wait in
    ms at the board's speed; a.draw() draws it). The position is the move's result at the end."""
    a._sync_shown()
    mover = a.s.turn
    ev = a.evbuf
    ev.clear()
    a.s.push(move, ev)
    a.anim, a.anim_i, a.mode, a.blink, a.anim_mover = ev, 0, A.PLAY, 0, mover
    n = len(ev)
    try:
        while a.anim_i < n:
            a._anim_step()
            yield a.anim_i, n, A.ticks_diff(a.anim_at, a.now)
    finally:
        a.anim = None
