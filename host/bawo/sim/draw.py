"""Terminal drawing of a position, from South's side of the table (RULES.md diagrams)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TextIO

from .. import firmware
from .layout import PROFILES, SIDE_NAMES as _SIDE, cell_texts, grid_rows, result_line
from .leds import leds_width, render

__all__ = ["result_line", "numbers", "frame", "leds", "style_for", "draw", "Bar"]


def _cells(row: Iterable[object], width: int = 3) -> str:
    return "".join(("%*s" % (width, c)) for c in row)


def _seeds(game_name: str, pos: str) -> tuple[list[str], str]:
    # Bawo and Oware: the rows of the game's layout (bawo.sim.layout.grid_rows, from the
    # engine's cell_at), labels from the engine; a store sits at its row's end.
    from shared_rules import game as make_game

    g = make_game(game_name)
    text = cell_texts(game_name, pos)
    rows = grid_rows(game_name)
    stores = g.stores > 0
    pad = " " * (8 if stores else 7)

    def pits(row: list[int]) -> list[int]:
        return [c for c in row if 0 <= c < g.cells]

    def side(cell: int) -> str:
        return _SIDE[g.sides[g.owner(cell)]]

    top, bottom = pits(rows[0]), pits(rows[-1])
    lines = [pad + _cells(g.label(c)[-1] for c in top) + "   " + side(top[0])]
    for i, row in enumerate(rows):
        p = pits(row)
        store = [c for c in row if c >= g.cells]
        line = _cells(text[c] for c in p)
        if not stores:
            lines.append("   %s %s " % (g.sides[g.owner(p[0])], g.label(p[0])[0]) + line)
        elif store and row.index(store[0]) < row.index(p[0]):
            lines.append("   %s%3s " % (g.label(store[0]), text[store[0]]) + line)
        elif store:
            lines.append(pad + line + " %3s %s" % (text[store[0]], g.label(store[0])))
        else:
            lines.append(pad + line)
        if i + 1 < len(rows) and g.owner(p[0]) != g.owner(pits(rows[i + 1])[0]):
            lines.append(pad + "-" * (3 * len(p)))  # between the two sides' halves
    lines.append(pad + _cells(g.label(c)[-1] for c in bottom) + "   " + side(bottom[0]))
    return lines, pos.rsplit(" ", 1)[1]


def _pieces(game_name: str, pos: str) -> tuple[list[str], str]:
    # Bagh-Chal: the points as their pieces' letters, ranks and files labelled.
    from shared_rules import game as make_game

    g = make_game(game_name)
    text = cell_texts(game_name, pos)
    _, hand, captured, turn = pos.split(" ")
    rows = grid_rows(game_name)
    lines = ["   %s " % g.label(row[0])[1:] + " ".join(text[c] for c in row) for row in rows]
    lines.append("     " + " ".join(g.label(c)[0] for c in rows[-1]))
    lines.append("   goats in hand %s, captured %s" % (hand[2:], captured[2:]))
    return lines, turn


def _drawer(game_name: str) -> Any:
    """The drawing for a game's kind of board (its declaration: pieces or counts)."""
    from shared_rules import game_class

    return _pieces if game_class(game_name).pieces else _seeds


def numbers(game_name: str, position: str, caption: str | None = None) -> str:
    """The position as a grid of numbers; a position this module cannot read is shown raw."""
    try:
        lines, turn = _drawer(game_name)(game_name, position)
        lines.append("   %s to move" % _SIDE.get(turn, turn))
    except Exception:  # a drawing must never hide the position itself
        lines = ["   " + position]
    if caption:
        lines.insert(0, caption)
    return "\n".join(lines)


# -- the board's LEDs, drawn by the firmware's own code ------------------------------------
# The firmware's renderer (firmware/render.py draw, firmware/view.py View) runs here on
# CPython with hw_sim's fake board, KMK style (firmware_sim/pictures.py): its frame goes
# through bawo.sim.leds, as in `bawo sim`. There is no second implementation of the LED
# look on the host.
_pictures: dict[str, Any] = {}


def picture_for(game_name: str) -> Any:
    from ..firmware import profile_path

    a = _pictures.get(game_name)
    if a is None:
        prof_file = profile_path(PROFILES[game_name])
        a = firmware.module("pictures").Picture(prof_file, game_name)
        a.profile_file = prof_file
        _pictures[game_name] = a
    return a


def frame(game_name: str, position_text: str) -> tuple[str, str]:
    """(frame line as `bawo sim` streams it, profile file): the board's LEDs showing the
    position, drawn by the firmware's renderer (game over: the winner's tint shown)."""
    a = picture_for(game_name)
    firmware.module("pictures").show(a, game_name, position_text)
    return _frame_line(a), a.profile_file


def _frame_line(a: Any) -> str:
    px = a.board.pixels
    px.show()
    p = a.profile
    return "%dx%d %s" % (p.width, p.height, px.canvas_rgb().hex())


def leds(game_name: str, position_text: str, color: bool = True) -> str:
    """The position as the simulator draws the board's LEDs (half blocks, pocket labels),
    without the simulator's status line; color=False: plain characters."""
    line, prof_file = frame(game_name, position_text)
    text = render(line, prof_file, {"game": game_name}, color=color, keys=False)
    return text.rsplit("\n", 1)[0]


def style_for(stream: TextIO | None = None, numbers: bool = False, force_leds: bool = False) -> str:
    """'numbers', 'color' or 'mono': LEDs in colour on a terminal, the numeric grid when
    the output is not a terminal, NO_COLOR is set or the terminal is narrower than the
    LEDs; force_leds: LEDs anyway (mono without colour)."""
    import os
    import sys

    if numbers:
        return "numbers"
    stream = stream or sys.stdout
    tty = hasattr(stream, "isatty") and stream.isatty()
    colour = tty and not os.environ.get("NO_COLOR")
    if force_leds:
        return "color" if colour else "mono"
    return "color" if colour and not narrow(stream) else "numbers"


def narrow(stream: TextIO) -> bool:
    """True if the terminal is narrower than the LED drawing (it would wrap into a mess)."""
    import os
    from ..firmware import profile_path

    try:
        cols = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return False
    need = max(leds_width(profile_path(name)) for name in set(PROFILES.values()))
    return 0 < cols < need


def draw(game_name: str, position: str, caption: str | None = None, style: str = "numbers") -> str:
    """The position as text: style 'numbers' (the grid of counts) or 'color'/'mono' (the
    board's LEDs, then the position string and whose turn it is)."""
    if style == "numbers":
        return numbers(game_name, position, caption)
    try:
        pic = leds(game_name, position, color=(style == "color"))
    except Exception:  # a drawing must never hide the position itself
        return numbers(game_name, position, caption)
    lines = [pic, "   " + position]
    try:
        turn = position.rsplit(" ", 1)[1]
        lines.append("   %s to move" % _SIDE.get(turn, turn))
    except IndexError:
        pass
    if caption:
        lines.insert(0, caption)
    return "\n".join(lines)


class Bar:
    """A one-line progress bar on stderr, redrawn in place; silent when stderr is not a tty
    unless forced, so logs and pipes get only the final line."""

    def __init__(self, stream: TextIO | None = None, width: int = 30, force: bool = False) -> None:
        import sys

        self.stream = stream or sys.stderr
        self.width = width
        self.live = force or (hasattr(self.stream, "isatty") and self.stream.isatty())
        self.total: float = 0
        self.unit = ""
        self.value: float = 0
        self._last = 0.0

    def start(self, total: float, unit: str = "") -> None:
        self.total, self.unit, self.value = total, unit, 0
        self.update(0)

    def update(self, value: float, extra: str = "") -> None:
        import time

        self.value = value
        now = time.monotonic()
        if not self.live or (now - self._last < 0.05 and value < self.total):
            return
        self._last = now
        frac = min(1.0, value / self.total) if self.total else 1.0
        fill = int(frac * self.width)
        self.stream.write(
            "\r[%s%s] %d/%d %s %s\033[K"
            % ("#" * fill, "-" * (self.width - fill), int(value), self.total, self.unit, extra)
        )
        self.stream.flush()

    def finish(self) -> None:
        if self.live:
            self._last = 0.0
            self.update(self.total)
            self.stream.write("\n")
            self.stream.flush()
