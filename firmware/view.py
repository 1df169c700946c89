# What each pocket's LED block shows (docs/visual-language.md is the reference).
# A cell is drawn from three numbers: its value (seed count, or a Bagh-Chal piece), a
# background tint for the unlit LEDs (turn, selection, flashes) and a mark colour for the
# last dot (the seed just dropped). Only cells whose numbers changed are redrawn, so an
# animation step costs one 16-LED block plus the transmit.
from array import array
from compat import const

# Seed layers: dots 1-16 in the first colour, 17-32 repaint them in the second, and so on.
LAYERS = (0xFFA030, 0x30E030, 0x3070FF, 0xF030F0)
OVERFLOW = 0xFF2020        # more than 16 * len(LAYERS) seeds: a red last dot

# Background tints of unlit LEDs (logical colours, before gamma and brightness).
BG_OFF = const(0)
BG_TURN = const(0x000A28)      # the mover's pockets, capturing turn: dim blue
BG_TAKATA = const(0x1C0E00)    # the mover's pockets, takata turn: dim amber
BG_SELECT = const(0x303030)    # the pocket/piece picked: white
BG_TARGET = const(0x004000)    # where a press plays a move: green
BG_BAD = const(0x600000)       # a press that cannot play: red flash
BG_HAND = const(0x383838)      # animation: the pocket being emptied
BG_CAPTURE = const(0x700000)   # animation: an opponent pocket being captured
BG_BOARD = const(0x005050)     # blinking: where a move the board (or host) plays starts
BG_WIN = const(0x004010)       # game over: the winner's pockets
BG_LOSE = const(0x280000)      # game over: the loser's pockets
BG_DRAW = const(0x202000)      # game over, draw: everyone's pockets
BG_STORE = const(0x100018)     # Oware stores: dim violet
BG_LOW = const(0xFF00FF)       # flash low warning dot
BG_FULL = const(0xFF0000)      # flash full warning dot: a game is not (all) on flash

MARK_DROP = const(0xFFFFFF)    # the seed that just fell

BG_CLOCK_LOW = const(0x401400)  # a remote game's clock is low: the mover's tint (or its
                                # clock bar, remote.py) blinks orange

# Bagh-Chal pieces (cell values).
EMPTY = const(0)
GOAT = const(1)
TIGER = const(2)
C_GOAT = const(0xE0E0E0)
C_TIGER = const(0xFF6000)
C_POINT = const(0x081008)
C_LINE = const(0x040804)

UNSET = const(0x3FFFFFFF)   # no cell's value, tint or mark; a small int on a Pico too


class View:
    """Cells are matrix key indices (profile.positions[key] is their grid row/col)."""

    def __init__(self, pixels, profile):
        self.px = pixels
        self.profile = profile
        n = self.n = profile.n_keys
        self.blocks = profile.blocks
        # What each block shows now, as machine ints: half a list's room on a 64-bit port.
        self._val = array('i', [UNSET] * n)
        self._bg = array('i', [UNSET] * n)
        self._mark = array('i', [UNSET] * n)
        self.pieces = False
        self.dirty = True
        self.lines = len(profile.line_leds) > 0
        # Spare canvas pixels outside all blocks (Bagh-Chal shows goats in hand there).
        self.spare_col = profile.x0 + profile.grid_cols * profile.pitch_x
        self.spare_row = profile.y0 + profile.grid_rows * profile.pitch_y

    def reset(self, pieces=False):
        """Forget what is drawn (new screen); pieces: cells show Bagh-Chal pieces."""
        self.pieces = pieces
        for k in range(self.n):
            self._val[k] = UNSET
        self.px.clear()
        if pieces and self.lines:
            self.px.fill_lines(C_LINE)
        self.dirty = True

    def cell(self, key, value, bg=BG_OFF, mark=0):
        if self._val[key] == value and self._bg[key] == bg and self._mark[key] == mark:
            return
        self._val[key] = value
        self._bg[key] = bg
        self._mark[key] = mark
        if self.pieces:
            self._piece(key, value, bg)
        else:
            self._seeds(key, value, bg, mark)
        self.dirty = True

    def choice(self, key, color, on, dots=0):
        """A block as a menu choice, not a seed count: all `color` when on, else its first
        `dots` (one if none) dim and the rest off."""
        # Painted already (the view keeps each block's last look): a press changes one row,
        # and repainting all 32 blocks cost ~5 ms on a Pico.
        look = (dots << 1 | (1 if on else 0)) + 1
        if self._val[key] == -1 - key and self._bg[key] == color and self._mark[key] == look:
            return
        self._bg[key] = color
        self._mark[key] = look
        leds = self.blocks[key]
        n = len(leds)
        px = self.px
        if on:
            px.paint(leds, 0, n, color)
        else:
            d = min(dots if dots else 1, n)
            px.paint(leds, 0, d, _dim(color))
            px.paint(leds, d, n, 0)
        self._val[key] = -1 - key  # never a real value: redrawn as a cell later
        self.dirty = True

    def _seeds(self, key, n, bg, mark):
        leds = self.blocks[key]
        size = len(leds)
        px = self.px

        if n <= 0:
            layer = -1
            top = 0
        else:
            layer = (n - 1) // size
            top = n - layer * size  # dots lit in the top layer, 1..size
        nl = len(LAYERS)
        if layer >= nl:
            layer = nl - 1
            top = size
        if layer < 0:
            px.paint(leds, 0, size, bg)
        else:
            px.paint(leds, 0, top, LAYERS[layer])
            px.paint(leds, top, size, LAYERS[layer - 1] if layer > 0 else bg)
        if n > 0 and mark:
            px.set_led(leds[top - 1], mark)
        if n > nl * size:
            px.set_led(leds[size - 1], OVERFLOW)

    def _piece(self, key, v, bg):
        leds = self.blocks[key]
        size = len(leds)
        mid = size // 2
        px = self.px

        for j in range(size):
            if v == TIGER:
                c = C_TIGER
            elif v == GOAT:
                # A plus sign: centre row and column of the block, corners show the tint.
                w = self.profile.block_w
                c = C_GOAT if (j // w == w // 2 or j % w == w // 2) else bg
            else:
                c = C_POINT if j == mid else bg
            px.set_led(leds[j], c)
        if v and bg:
            px.set_led(leds[0], bg)  # a piece keeps its look; the tint shows in a corner

    def spare_bar(self, vertical, count, color, color2=0):
        """Bar of `count` dots on the spare column (vertical) or row; past its length the
        dots repaint in color2 (goats in hand can exceed the 16 pixels)."""
        p = self.profile
        length = p.height if vertical else p.width
        for i in range(length):
            if i < count - length:
                c = color2
            elif i < count:
                c = color
            else:
                c = 0
            if vertical:
                self.px.set_pixel(self.spare_col, length - 1 - i, c)
            else:
                self.px.set_pixel(i, self.spare_row, c)
        self.dirty = True

    def corner_dot(self, key, color, last=False):
        """Top-right LED of a block (last: the bottom-right one): status dots (flash low
        warning; a remote game's, remote.py)."""
        leds = self.blocks[key]
        self.px.set_led(leds[len(leds) - 1 if last else self.profile.block_w - 1], color)
        self._val[key] = UNSET  # redraw the block properly next time
        self.dirty = True

    def show(self):
        if self.dirty:
            self.px.show()
            self.dirty = False
            return True
        return False


def _dim(c):
    # A quarter of each channel.
    return ((c >> 18) & 0x3F) << 16 | ((c >> 10) & 0x3F) << 8 | ((c >> 2) & 0x3F)
