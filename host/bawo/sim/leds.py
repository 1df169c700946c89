"""The simulated board's LED frame drawn on a terminal (colour, mono, or counts as digits)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .layout import (
    GRID_KEYS,
    SIDE_NAMES,
    cell_texts,
    key_of_cell,
    labels as cell_labels,
    not_yours,
    result_line,
)


def _parse_frame(line: str) -> tuple[int, int, bytes]:
    size, hexdata = line.split(" ", 1)
    w, h = (int(x) for x in size.split("x"))
    return w, h, bytes.fromhex(hexdata.strip())


# A screen is not an LED: the board's tints (a pick, 0x303030, is wire value 1 at the default
# brightness) would be black on it. The terminal undoes the firmware's gamma and brightness
# and shows a lit LED at least this bright, keeping its hue (display only: the LED values stay).
SHOWN_MIN = 150


def _full(status: Any, prof: dict[str, Any]) -> int:
    """The wire value of a full channel at the board's brightness (app.apply_brightness)."""
    cap = (prof.get("power") or {}).get("brightness_cap") or 255
    level = (status.get("settings") or {}).get("brightness")
    if not isinstance(level, int) or not 1 <= level <= 8:  # unknown: a new board's, as drawn
        from ..firmware import module

        level = module("settings").DEFAULTS["brightness"]
    return max(1, cap * level // 8)


def shown(rgb: tuple[int, int, int], full: int) -> tuple[int, ...]:
    """An LED's (r, g, b) as a screen shows what it means: the logical colour (the firmware's
    gamma undone, full: a full channel's wire value), a lit one at least SHOWN_MIN bright."""
    from ..firmware import module

    if not any(rgb):
        return 0, 0, 0
    inv = 1 / module("pixels").GAMMA
    c = [255 * min(1.0, v / full) ** inv for v in rgb]
    top = max(c)
    k = SHOWN_MIN / top if top < SHOWN_MIN else 1
    return tuple(min(255, int(x * k + 0.5)) for x in c)


def render(
    frame_line: str | None, profile_file: str, status: Any, color: bool = True, keys: bool = True
) -> str:
    """The LED canvas as text: each pocket block with its key letter and label, the LEDs at a
    brightness a screen shows (shown())."""
    prof = json.loads(Path(profile_file).read_text())
    full = _full(status, prof)
    rows, cols = prof["grid"]["rows"], prof["grid"]["cols"]
    blk = prof["leds"]["block"]
    bw, bh, px, py = blk["w"], blk["h"], blk["pitch_x"], blk["pitch_y"]
    lines = []
    game = status.get("game")
    labels = cell_labels(game, rows, cols)
    if frame_line:
        w, h, rgb = _parse_frame(frame_line)
    else:
        w = h = 0
        rgb = b""

    def led(x: int, y: int) -> tuple[int, ...]:
        if 0 <= x < w and 0 <= y < h:
            o = 3 * (y * w + x)
            return shown((rgb[o], rgb[o + 1], rgb[o + 2]), full)
        return 0, 0, 0

    gk = GRID_KEYS.get(rows, ())
    for r in range(rows):
        for half in range(0, bh, 2):
            out = "  "
            for c in range(cols):
                x0, y0 = blk["x0"] + c * px, blk["y0"] + r * py
                for dx in range(bw):
                    top = led(x0 + dx, y0 + half)
                    bot = led(x0 + dx, y0 + half + 1) if half + 1 < bh else (0, 0, 0)
                    if color:
                        out += "\x1b[38;2;%d;%d;%dm\x1b[48;2;%d;%d;%dm\u2580" % (top + bot)
                    else:
                        out += _mono(top, bot)
                out += "\x1b[0m  " if color else "  "
            lines.append(out)
        lab = "  "
        for c in range(cols):
            t = labels.get((r, c), "")
            if keys and r < len(gk):
                t = (t + " " + gk[r][c]).strip()
            lab += t[: bw + 1].ljust(bw + 2)
        lines.append(lab)
        if split(game) and r == rows // 2 - 1:
            lines.append("  " + "-" * ((bw + 2) * cols - 2))
    lines.append(_caption(status))
    return "\n".join(lines)


def split(game: str | None) -> bool:
    """Whether the game's two sides' halves are drawn apart (its declaration's `split`)."""
    from shared_rules import GAMES, game_class

    return game in GAMES and game_class(game).split


def _mono(top: tuple[int, ...], bot: tuple[int, ...]) -> str:
    a, b = sum(top) > 60, sum(bot) > 60
    return ":" if a and b else "'" if a else "." if b else " "


def _caption(st: Any) -> str:
    side = SIDE_NAMES
    other = {"S": "N", "N": "S", "G": "T", "T": "G"}
    seat = st.get("seat")
    if st.get("mode") == "menu" and st.get("card") and isinstance(seat, list) and len(seat) == 4:
        text = (
            "seat card: round %s, table %s (tournament %s), %s; MENU starts the round's game,"
            " any other key shows the menu" % tuple(seat)
        )
    elif st.get("mode") == "menu":
        text = (
            "menu: row 1 game (%s), row 2 opponent (+ the board's level 1-5), row 3 brightness, row 4 speed;"
            " MENU starts, BACK returns" % ", ".join(st.get("games", []))
        )
        if st.get("settings"):  # the choices in words: the LEDs show them only in colour
            text += "; now " + ", ".join("%s %s" % kv for kv in sorted(st["settings"].items()))
    elif st.get("result"):
        r = st["result"]
        text = "%s: %s after %d plies" % (
            st.get("game"),
            result_line(
                st.get("game"), None if r == "draw" else r, st.get("reason"), st.get("pos")
            ),
            st.get("ply", 0),
        )
    elif st.get("anim") and st.get("moves"):
        # Whose turn it is shows once the move has been sown on the LEDs, not before.
        text = "%s %s: %s plays %s, ply %d" % (
            st.get("game"),
            st.get("id", ""),
            side.get(other.get(st.get("turn"), ""), "?"),
            st["moves"][-1],
            st.get("ply", 0),
        )
    else:
        text = "%s %s: %s to move%s, ply %d" % (
            st.get("game"),
            st.get("id", ""),
            side.get(st.get("turn"), "?"),
            " (takata)" if st.get("takata") else "",
            st.get("ply", 0),
        )
    if st.get("low"):
        text += "  [flash low: sync games]"
    return "  " + text


def leds_width(profile_file: str) -> int:
    """Terminal columns the LED drawing of this profile takes."""
    rows, cols, bw, _, _ = geometry(profile_file)
    return 2 + cols * (bw + 2)


def fits_leds(geo: tuple[int, int, int, int, dict[str, Any]], width: int) -> bool:
    """True if the LED drawing of geometry `geo` (geometry()) fits `width` columns."""
    rows, cols, bw, _, _ = geo
    return 2 + cols * (bw + 2) <= width


def screen(
    frame_line: str | None,
    profile_file: str,
    status: Any,
    width: int,
    view: str = "leds",
    color: bool = True,
    msg: str = "",
    port: str = "",
) -> str:
    """What the interactive simulator shows, no line wider than `width`: the LEDs (in colour,
    or plain characters) when they fit and view is 'leds', else the counts as digits; then
    the status, the board's last message and the keys."""
    import textwrap

    fits = fits_leds(geometry(profile_file), width)
    if view == "leds" and fits:
        board = render(frame_line, profile_file, status, color=color)
    else:
        board = digits(frame_line, profile_file, status)
    lines = board.split("\n")
    body, caption = lines[:-1], lines[-1].strip()
    if fits:
        tab = "Tab=%s, " % ("LEDs" if view == "digits" else "digits")
    else:
        tab = "(the LEDs need %d columns) " % leds_width(profile_file)
    # A game whose other side is a host's (a remote game): its offers, as held keys.
    offers = (
        "!=resign, ==draw, " if str((status or {}).get("opponent", "")).startswith("host") else ""
    )
    keys = "keys: pocket letters, m=MENU, Backspace=BACK, ?=hint, %s%sQ=quit; port %s" % (
        offers,
        tab,
        port,
    )
    out = list(body)
    for text in (caption, msg, keys):
        out += ["  " + x for x in textwrap.wrap(text, max(10, width - 3))]
    return "\n".join(out)


def digits(frame_line: str | None, profile_file: str, status: Any) -> str:
    """The board as text without colour: each pocket's count (Bagh-Chal: G, T or .) over its
    key letter; in the menu, which pockets are lit (#) and dark (.)."""
    prof = json.loads(Path(profile_file).read_text())
    rows, cols = prof["grid"]["rows"], prof["grid"]["cols"]
    cells = prof.get("pockets") or prof.get("points")
    game = status.get("game")
    value = {}  # key -> text
    picked = False
    if status.get("mode") in ("play", "over") and status.get("pos"):
        try:
            value = _values(game, status["pos"], key_of_cell(profile_file, game))
        except Exception:  # a drawing must never hide the game: the LED summary instead
            value = {}
        sel = status.get("sel", -1)
        if isinstance(sel, int) and sel >= 0 and value:  # the pick and its targets, as the LEDs
            try:
                marks = [(sel, "*")] + [(c, ">") for c in targets(game, status["pos"], sel)]
            except Exception:
                marks = [(sel, "*")]
            cells_keys = key_of_cell(profile_file, game)
            for cell, mark in marks:
                k = cells_keys.get(cell)
                if k is not None and k in value:
                    value[k] = mark + value[k]
            picked = True
    if not value:
        value = _brightness(frame_line, prof)
    at = {tuple(rc): k for k, rc in enumerate(cells)}
    gk = GRID_KEYS.get(rows, ())
    labels = cell_labels(game, rows, cols) if status.get("mode") != "menu" else {}
    used = [r for r in range(rows) if any(at.get((r, c)) in value for c in range(cols))]
    lines = []
    for r in used:
        if r == used[0] and labels:  # pocket names above the top row and below the bottom one
            lines.append("  " + "".join("%4s" % labels.get((r, c), "") for c in range(cols)))
        lines.append("  " + "".join("%4s" % value.get(at.get((r, c), -1), "") for c in range(cols)))
        lines.append("  " + "".join("%4s" % (gk[r][c] if r < len(gk) else "") for c in range(cols)))
        if split(game) and r == rows // 2 - 1 and status.get("mode") != "menu":
            lines.append("  " + "-" * (4 * cols))
        if r == used[-1] and labels:
            lines.append("  " + "".join("%4s" % labels.get((r, c), "") for c in range(cols)))
    if picked:
        lines.append("  * picked  > a press there plays")  # narrow: 40 columns
    lines.append(_caption(status))
    return "\n".join(lines)


def targets(game: str, pos_text: str, sel: int) -> list[int]:
    """The cells where a press plays a move from the picked cell `sel` (the LEDs' green)."""
    from shared_rules import game as make_game

    g = make_game(game)
    pos = g.parse(pos_text)
    out: list[int] = []
    for m in g.legal_moves(pos):
        if g.move_cell(m, pos.turn) == sel:
            c = g.move_cell(m, pos.turn, True)
            if c >= 0 and c not in out:
                out.append(c)
    return out


def _values(game: str, pos_text: str, cells: dict[int, int]) -> dict[int, str]:
    texts = cell_texts(game, pos_text)
    return {k: texts[cell] for cell, k in cells.items()}


def _brightness(frame_line: str | None, prof: Any) -> dict[int, str]:
    if not frame_line:
        return {}
    w, h, rgb = _parse_frame(frame_line)
    blk = prof["leds"]["block"]
    out = {}
    for k, (r, c) in enumerate(prof.get("pockets") or prof.get("points")):
        top = 0
        for dy in range(blk["h"]):
            for dx in range(blk["w"]):
                x, y = blk["x0"] + c * blk["pitch_x"] + dx, blk["y0"] + r * blk["pitch_y"] + dy
                if 0 <= x < w and 0 <= y < h:
                    o = 3 * (y * w + x)
                    top = max(top, rgb[o] + rgb[o + 1] + rgb[o + 2])
        out[k] = "#" if top > 30 else "."
    return out


def geometry(profile_file: str) -> tuple[int, int, int, int, dict[str, Any]]:
    """(rows, cols, block width, text rows a block takes, profile) of the LED drawing."""
    prof = json.loads(Path(profile_file).read_text())
    blk = prof["leds"]["block"]
    return prof["grid"]["rows"], prof["grid"]["cols"], blk["w"], (blk["h"] + 1) // 2, prof


def clicked_key(seq: str, geo: tuple[int, int, int, int, dict[str, Any]]) -> int | None:
    """The key a mouse press on the LED drawing hits (geometry() `geo`), or None.
    SGR mouse: ESC [ < b ; x ; y M  (1-based cell coordinates); presses only."""
    try:
        body = seq[3:]
        if not body.endswith("M"):
            return None
        b, x, y = (int(v) for v in body[:-1].split(";"))
    except ValueError:
        return None
    if b & 3:
        return None
    rows, cols, bw, text_rows, prof = geo
    gap = 1 if split(prof.get("games", [""])[0]) else 0
    row_h = text_rows + 1
    ry = y - 1
    r = 0
    while r < rows:
        extra = gap if r > rows // 2 - 1 else 0
        top = r * row_h + extra
        if top <= ry < top + text_rows:
            break
        r += 1
    else:
        return None
    cx = x - 1 - 2
    c, rem = divmod(cx, bw + 2)
    if not (0 <= c < cols and rem < bw):
        return None
    return r * cols + c


_BOARD_PLAYS = {
    "board-first": (0,),
    "board-second": (1,),
    "board-both": (0, 1),
    "host-first": (0,),
    "host-second": (1,),
}


def refused(profile_file: str, status: Any, key: int) -> str | None:
    """Why the board flashed pocket `key` red, in a player's words, from the status it had
    when the key was pressed (the firmware's App.on_press refuses it there); None if not known."""
    from shared_rules import GAMES, game as make_game

    game = status.get("game")
    if status.get("mode") not in ("play", "over") or game not in GAMES or not status.get("pos"):
        return None
    if status.get("result") or status.get("mode") == "over":
        return "the game is over: MENU starts a new one"
    g = make_game(game)
    try:
        pos = g.parse(status["pos"])
    except Exception:
        return None
    mover = SIDE_NAMES.get(g.sides[pos.turn], g.sides[pos.turn])
    if pos.turn in _BOARD_PLAYS.get(status.get("opponent"), ()):
        who = "this PC" if str(status.get("opponent")).startswith("host") else "the board"
        return "%s plays %s: wait for its move" % (who, mover)
    cell = {k: c for c, k in key_of_cell(profile_file, game).items()}.get(key)
    if cell is None:
        return "that key is no %s pocket" % game
    label = g.label(cell)
    owner = g.owner(cell, pos.board[cell]) if cell < len(pos.board) else -1
    other = not_yours(g, cell, owner, pos.turn)
    if other:
        return other
    sel = status.get("sel", -1)
    if isinstance(sel, int) and sel >= 0:
        to = [g.label(c) for c in targets(game, status["pos"], sel)]
        return "%s is not a move from %s: press %s, or BACK to drop the pick" % (
            label,
            g.label(sel),
            " or ".join(to) if to else g.label(sel),
        )
    legal = g.legal_moves(pos)
    tried = []
    for text in (label, label + "+", label + "-"):  # the moves a press here could start
        try:
            tried.append(g.parse_move(text, pos))
        except Exception:
            continue
    if any(m in legal for m in tried):
        return None  # a start: the press was refused for something the status does not show
    if tried:  # the rules' reason, without their 'illegal move A2+:'
        return "%s: %s" % (label, g.why_illegal(pos, tried[0]).split(": ", 1)[-1])
    return "no move of %s starts at %s" % (mover, label)
