# What the LEDs show (docs/visual-language.md), drawn from a Scene alone: draw() reads the
# scene and writes the view's pixels, and changes nothing else. The App keeps its scene up
# to date as presses, moves and the animation go, and lends it the game and the menu for
# the frame only; the PC's pictures fill one from a position with no App at all
# (firmware_sim/pictures.py).
import view as V
from appconst import MENU, OVER, NONE


class Scene:
    """Everything a frame is drawn from. The cells' values as shown lag the position while
    a move is animated (anim: animator.Animator); g, s and menu are lent for a frame."""

    def __init__(self, n_keys, anim):
        self.mode = MENU
        self.menu = None            # the open menu (it draws itself)
        self.card = None            # the seat the menu shows instead, lent (seat.py)
        self.g = None               # the game's rules: its cells, who owns one, its stores
        self.s = None               # its state: the position, whose turn, the outcome
        self.shown = bytearray(32)  # each cell's value as shown
        self.cell_of_key = bytearray(n_keys)   # the game's cell under each key, or NONE
        self.sel = -1               # the cell picked: its moves' targets blink
        self.starts = {}            # start cell -> [(target cell, move)] (moves of two presses)
        self.hint_move = -1         # the move a hint lights (its start is sel), else -1
        self.takata = False         # a turn without a capture (Bawo, g.takata): the mover's tint differs
        self.flash_key = -1         # a key whose press could not play: flashed red
        self.blink = 0              # the blink phase (targets, the game's end, warnings)
        self.warn = 0               # a corner dot: 1 the flash is low, 2 a game is not on it
        self.anim = anim
        self.end = None             # an agreed end (END), lent for a frame as g and s are
        # A remote game (remote.show): the host's side, and what PEER and the person's own
        # offers say; the keys of the free rows a clock bar may use, one per side, or ().
        self.host = -1
        self.away = False
        self.offer = 0              # the opponent offers a draw
        self.bar = -1               # the mover's clock in eighths, -1: none
        self.low = 0
        self.mine = 0               # the person's own offer: 1 a draw, 2 to resign
        self.bar_keys = None        # (side 0's row of keys, side 1's) or (); None: not found yet


def set_position(sc, g, s):
    """The scene at state `s`'s position, nothing picked: the cells' values, Bawo's takata
    tint and sc.starts. Returns the moves of one press (cell -> move)."""
    pos = s.position
    sc.sel = -1
    sc.takata = g.takata(pos)
    starts = {}
    direct = {}
    t = pos.turn
    for m in s.legal_moves:
        target = g.move_cell(m, t, True)
        if target < 0:
            direct[g.move_cell(m, t)] = m
        else:
            starts.setdefault(g.move_cell(m, t), []).append((target, m))
    sc.starts = starts
    show_position(sc, g, pos)
    return direct


def place(sc, g, profile):
    """The game's cells on the profile's keys, as the engine lays them out (g.cell_at)."""
    cell_of_key = sc.cell_of_key
    for k in range(profile.n_keys):
        r, c = profile.positions[k]
        cell = g.cell_at(profile.grid_rows, profile.grid_cols, r, c)
        cell_of_key[k] = NONE if cell < 0 else cell
    sc.bar_keys = None   # the clock bars' keys, found when a clock first shows (remote.py)


def remote_blinks(sc):
    """True while a remote game's look changes with the blink phase."""
    return sc.host >= 0 and (sc.offer or sc.low or sc.away)


def show_position(sc, g, pos):
    """The cells show `pos` as it is, no step of a move marked."""
    shown = sc.shown
    b = pos.board
    for i in range(len(b)):
        shown[i] = b[i]
    for i in range(g.stores):   # Oware's, after its pits
        shown[g.cells + i] = pos.stores[i]
    an = sc.anim
    an.hand = an.mark = an.capt = -1


def draw(v, sc):
    if sc.mode == MENU:
        if sc.card is not None:
            import seat
            seat.draw(v, sc.card)
        else:
            sc.menu.draw(v)
        if sc.flash_key >= 0:
            v.cell(sc.flash_key, 0, V.BG_BAD)
        _warning(v, sc)
        return
    g = sc.g
    pos = sc.s.position
    out = None
    if sc.mode == OVER:
        out = sc.end if sc.end is not None else sc.s.outcome()
    tint = g.turn_tint_anim
    # Locals and once-a-frame values: this loop runs 32 times a frame, and on a Pico each
    # attribute or property lookup in it costs microseconds.
    turn = pos.turn
    cell_of_key = sc.cell_of_key
    shown = sc.shown
    cell_at = v.cell
    fk = sc.flash_key
    mark = sc.anim.mark
    drop = V.MARK_DROP
    # A remote game: the mover's clock bar on a free row (bk), or without one its low time
    # as the mover's tint blinking.
    hs = sc.host if out is None else -1
    bk = ()
    if hs >= 0 and sc.bar >= 0 and sc.bar_keys:
        bk = sc.bar_keys[turn]
    low_tint = hs >= 0 and sc.low and sc.blink and not bk
    for key in range(len(cell_of_key)):
        cell = cell_of_key[key]
        if key == fk:
            cell_at(key, 0 if cell == NONE else shown[cell], V.BG_BAD,
                    drop if cell == mark else 0)
        elif cell == NONE:
            if key not in bk:
                cell_at(key, 0, V.BG_OFF)
        else:
            bg = _bg(sc, cell, tint, turn, out)
            if low_tint and (bg == V.BG_TURN or bg == V.BG_TAKATA):
                bg = V.BG_CLOCK_LOW
            cell_at(key, shown[cell], bg, drop if cell == mark else 0)
    if hs >= 0:
        import remote
        remote.draw(v, sc, bk)
    if g.pieces:   # Bagh-Chal: the goats in hand and the captured ones
        v.spare_bar(True, pos.hand, V.C_GOAT, 0xFFA030)
        v.spare_bar(False, pos.captured, 0xFF2020)
        an = sc.anim
        mover = an.mover if an.on else turn
        v.px.set_pixel(v.spare_col, v.spare_row, V.C_GOAT if mover == 0 else V.C_TIGER)
    _warning(v, sc)


def _bg(sc, cell, tint, turn, out):
    g = sc.g
    an = sc.anim
    if an.on:
        if cell == an.intro:
            return V.BG_BOARD if an.intro_on else 0
        if cell == an.capt:
            return V.BG_CAPTURE
        if cell == an.hand:
            return V.BG_HAND
        if tint and g.owner(cell, sc.shown[cell]) == an.mover:
            return V.BG_TURN
        return V.BG_STORE if cell >= g.cells else 0
    if cell >= g.cells:
        return V.BG_STORE
    if out is not None:
        if not sc.blink:
            return 0
        side = g.owner(cell, sc.shown[cell])
        if out.winner is None:
            return V.BG_DRAW if side >= 0 else 0
        if side < 0:
            return 0
        return V.BG_WIN if side == out.winner else V.BG_LOSE
    sel = sc.sel
    if cell == sel:
        return V.BG_SELECT
    if sel >= 0:
        for tgt, m in sc.starts.get(sel, ()):
            if tgt == cell and (sc.hint_move < 0 or m == sc.hint_move):
                return V.BG_TARGET if sc.blink else V.BG_SELECT >> 2 & 0x3F3F3F
    pieces = g.pieces
    if not pieces and g.owner(cell, sc.shown[cell]) == turn:
        return V.BG_TAKATA if sc.takata else V.BG_TURN
    if pieces and cell in sc.starts and sel < 0:
        return V.BG_TURN
    return 0


def _warning(v, sc):
    if sc.warn and sc.blink:
        p = v.profile
        cols = p.grid_cols
        n = p.n_keys
        for k in (0, cols - 1, n - cols, n - 1):
            v.corner_dot(k, V.BG_FULL if sc.warn == 2 else V.BG_LOW)
