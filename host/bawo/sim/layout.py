"""Where a game's cells sit on the board's keys, for the host's scripted presses and labels."""
from __future__ import annotations

import json
from pathlib import Path



PROFILES = {"bawo": "bawo-4x8", "oware": "bawo-4x8", "bagh-chal": "grid-5x5"}


# Keyboard keys for the pocket grid, top row first (MENU = m or Enter, BACK = Backspace or -).
GRID_KEYS = {4: ("12345678", "qwertyui", "asdfghjk", "zxcvbn,."),
             5: ("12345", "qwert", "asdfg", "zxcvb", "67890")}


def key_of_cell(profile_file, game):
    """{cell: key}: Bawo pockets 0..31, Oware pits 0..11 and stores 12, 13, Bagh-Chal points."""
    prof = json.loads(Path(profile_file).read_text())
    cells = prof.get("pockets") or prof.get("points")
    rows, cols = prof["grid"]["rows"], prof["grid"]["cols"]
    out = {}
    for k, (r, c) in enumerate(cells):
        if game == "bawo":
            from shared_rules.bawo import DISPLAY
            out[DISPLAY[r * 8 + c]] = k
        elif game == "oware":
            mid, x = rows // 2, c - (cols - 8) // 2
            if r == mid and 1 <= x <= 6:
                out[x - 1] = k
            elif r == mid - 1 and 1 <= x <= 6:
                out[12 - x] = k
            elif r == mid and x == 7:
                out[12] = k
            elif r == mid - 1 and x == 0:
                out[13] = k
        else:
            out[(4 - r) * 5 + c] = k
    return out


def presses_for(game, position, move, cells):
    """Keys a player presses to enter `move` (text) in `position` (text)."""
    from shared_rules import game as make_game
    g = make_game(game)
    pos = g.parse(position)
    m = g.parse_move(move, pos)
    if game == "bawo":
        o = pos.turn * 16
        i = m >> 1
        tgt = o + (((i - 1) if m & 1 else (i + 1)) & 15)
        return [cells[o + i], cells[tgt]]
    if game == "oware":
        return [cells[pos.turn * 6 + m]]
    if m < 25:
        return [cells[m]]
    a, b = divmod(m - 25, 25)
    return [cells[a], cells[b]]


def level_cell(rows, cols, level):
    """(row, col) of a level's pocket in the menu (mirrors firmware/menu.py), or None."""
    if cols >= 3 + 5:
        return 1, 3 + level - 1
    if rows > 4 and cols >= 5:
        return 4, level - 1
    return None


def _labels(game, rows, cols, status):
    lab = {}
    if game == "bawo" and (rows, cols) == (4, 8):
        for c in range(8):
            lab[(0, c)] = "B%d" % (8 - c)
            lab[(1, c)] = "A%d" % (8 - c)
            lab[(2, c)] = "A%d" % (c + 1)
            lab[(3, c)] = "B%d" % (c + 1)
    elif game == "oware":
        mid = rows // 2
        off = (cols - 8) // 2
        for x in range(1, 7):
            lab[(mid, off + x)] = "ABCDEF"[x - 1]
            lab[(mid - 1, off + x)] = "fedcba"[x - 1]
        lab[(mid, off + 7)] = "S"
        lab[(mid - 1, off)] = "N"
    elif game == "bagh-chal":
        for r in range(5):
            for c in range(5):
                lab[(r, c)] = "abcde"[c] + str(5 - r)
    return lab

