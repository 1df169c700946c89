# A club tournament's seat (SEAT, docs/protocol.md): the round and table the club gave this
# board. While the board is idle in its menu it shows them on the seat card; MENU there
# starts the round's game, and the game's record carries them to the club. Loaded by the
# first SEAT: a board outside a tournament never holds this code.
import view as V
from appconst import MENU
from compat import const, ticks_diff
from shared_rules import color as game_color

CARD_MS = const(20000)      # a menu left this long without a press shows the card again
BG_ROUND = V.BG_SELECT      # the round's pocket: a white tint under its count
BG_TABLE = V.BG_BOARD       # the table's pocket: a cyan tint under its count


def take(a, rnd, table, tour, kind):
    """SEAT, checked: round 0 takes the seat away. The round's game, two people, becomes the
    menu's choice (in RAM: a menu press saves the settings as always)."""
    a.seat = (rnd, table, tour, kind) if rnd else None
    choose(a)
    show(a, idle(a))


def choose(a):
    # The round's game between two people, as the menu's choice.
    if a.seat is not None and a.seat[3] is not None:
        a.settings['game'] = a.seat[3]
        a.settings['opponent'] = 'people'


def leave(a, start):
    """A press on the card: the menu shows. True when the press was MENU, which starts the
    round's game (chosen again: a press in the menu may have changed it meanwhile)."""
    show(a, False)
    if start:
        choose(a)
    return start


def idle(a):
    """True while the menu is open with no game in progress to go back to."""
    se = a.session
    return (a.seat is not None and a.mode == MENU and not a.unresumed
            and (se is None or se.over()))


def show(a, card):
    if card != a.card:
        a.card = card
        a.view.reset()
    a.changed()


def tick(a, now):
    """The card again once the menu has been left alone for CARD_MS."""
    if not a.card and idle(a) and ticks_diff(now, a.menu_at) >= CARD_MS:
        show(a, True)


def header(a, name, opponent):
    """The seat for a new game's header: a game of the round's kind between two people."""
    st = a.seat
    if st is None or opponent != 'people' or (st[3] is not None and st[3] != name):
        return None
    return [st[0], st[1], st[2]]


def draw(v, st):
    """The card: the round as a count on the top-left pocket (white tint), the table below
    it (cyan tint), the game's colour on the top-right pocket; the rest dark."""
    p = v.profile
    last = p.grid_cols - 1
    for key in range(p.n_keys):
        r, c = p.positions[key]
        if c == 0 and r < 2:
            v.cell(key, st[r], BG_TABLE if r else BG_ROUND)
        elif r == 0 and c == last and st[3] is not None:
            v.choice(key, game_color(st[3]), True)
        else:
            v.cell(key, 0)
