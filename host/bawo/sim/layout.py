"""Where a game's cells sit on the board's keys, for the host's scripted presses and labels."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .. import firmware
from ..rulestypes import Game


class _Profiles:
    """{game: the board profile the simulator shows it on}, read from each registered game's
    declaration (its class's `profile`), so a game registered later is in it too."""

    def _games(self) -> dict[str, Any]:
        from shared_rules import GAMES

        return GAMES

    def __getitem__(self, game: str) -> str:
        from shared_rules import game_class

        if game not in self._games():
            raise KeyError(game)
        return game_class(game).profile

    def __contains__(self, game: object) -> bool:
        return game in self._games()

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._games()))

    def get(self, game: str, default: str | None = None) -> str | None:
        return self[game] if game in self else default

    def keys(self) -> list[str]:
        return list(self)

    def values(self) -> list[str]:
        return [self[g] for g in self]

    def items(self) -> list[tuple[str, str]]:
        return [(g, self[g]) for g in self]


PROFILES = _Profiles()


# Keyboard keys for the pocket grid, top row first (MENU = m or Enter, BACK = Backspace or -).
GRID_KEYS = {
    4: ("12345678", "qwertyui", "asdfghjk", "zxcvbn,."),
    5: ("12345", "qwert", "asdfg", "zxcvb", "67890"),
}


def key_map(rows: int, menu_key: int, back_key: int) -> dict[str, int]:
    """{typed character: the board's key number}: the pocket grid, then MENU and BACK."""
    keymap: dict[str, int] = {}
    for r, chars in enumerate(GRID_KEYS.get(rows, ())):
        for c, ch in enumerate(chars):
            keymap[ch] = r * len(chars) + c
    keymap.update(
        {
            "m": menu_key,
            "\r": menu_key,
            "\n": menu_key,
            "\x7f": back_key,
            "\b": back_key,
            "-": back_key,
        }
    )
    return keymap


def _grid(profile_file: str) -> tuple[list[list[int]], int, int]:
    prof = json.loads(Path(profile_file).read_text())
    return prof.get("pockets") or prof.get("points"), prof["grid"]["rows"], prof["grid"]["cols"]


def key_of_cell(profile_file: str, game: str) -> dict[int, int]:
    """{cell: key}: Bawo pockets 0..31, Oware pits 0..11 and stores 12, 13, Bagh-Chal points,
    as the game's engine lays them out (shared_rules: cell_at), which the firmware reads too."""
    from shared_rules import game as make_game

    g = make_game(game)
    cells, rows, cols = _grid(profile_file)
    out: dict[int, int] = {}
    for k, (r, c) in enumerate(cells):
        cell = g.cell_at(rows, cols, r, c)
        if cell >= 0:
            out[cell] = k
    return out


def presses_for(game: str, position: str, move: str, cells: dict[int, int]) -> list[int]:
    """Keys a player presses to enter `move` (text) in `position` (text)."""
    from shared_rules import game as make_game

    g = make_game(game)
    pos = g.parse(position)
    m = g.parse_move(move, pos)
    start, target = g.move_cell(m, pos.turn), g.move_cell(m, pos.turn, True)
    return [cells[start]] if target < 0 else [cells[start], cells[target]]


def level_cell(rows: int, cols: int, level: int) -> tuple[int, int] | None:
    """(row, col) of a level's pocket in the menu (the firmware's menu.level_at), or None."""
    at = firmware.module("menu").level_at(rows, cols)
    return None if at is None else (at[0], at[1] + level - 1)


def labels(game: str, rows: int, cols: int) -> dict[tuple[int, int], str]:
    """{(row, col): label} of the game's cells on a rows x cols grid (the engine's labels)."""
    from shared_rules import GAMES, game as make_game

    if game not in GAMES:
        return {}
    g = make_game(game)
    lab = {}
    for r in range(rows):
        for c in range(cols):
            cell = g.cell_at(rows, cols, r, c)
            if cell >= 0:
                lab[(r, c)] = g.label(cell)
    return lab


_rows: dict[str, list[list[int]]] = {}


def grid_rows(game: str) -> list[list[int]]:
    """The game's cells on its profile's grid (PROFILES), row by row from the far side, -1
    where a key has no cell; rows without a cell are left out."""
    rows = _rows.get(game)
    if rows is None:
        from shared_rules import game as make_game
        from ..firmware import profile_path

        g = make_game(game)
        _, n_rows, n_cols = _grid(profile_path(PROFILES[game]))
        rows = [[g.cell_at(n_rows, n_cols, r, c) for c in range(n_cols)] for r in range(n_rows)]
        rows = _rows[game] = [row for row in rows if max(row) >= 0]
    return rows


def cell_texts(game: str, position_text: str) -> dict[int, str]:
    """{cell: text} of a position: seeds (and Oware's stores) as numbers, Bagh-Chal's pieces
    as their side's letter (G, T) or '.' on an empty point."""
    from shared_rules import game as make_game

    g = make_game(game)
    pos = g.parse(position_text)
    out: dict[int, str] = {}
    for cell in range(g.cells + g.stores):
        if cell >= g.cells:
            out[cell] = str(pos.stores[cell - g.cells])
        elif g.pieces:
            side = g.owner(cell, pos.board[cell])
            out[cell] = "." if side < 0 else g.sides[side]
        else:
            out[cell] = str(pos.board[cell])
    return out


# The sides' names in words, for captions, titles and result lines.
SIDE_NAMES = {"S": "South", "N": "North", "G": "Goats", "T": "Tigers"}


def not_yours(g: Game, cell: int, owner: int, mover: int, you: bool = False) -> str | None:
    """Why a press on `cell`, which holds seeds or a piece of side `owner`, starts no move for
    side `mover` (0 or 1), in a player's words; None if the cell is not the other side's.
    you: the person pressing plays `mover` (the Play page) rather than two people at a board."""
    if owner not in (0, 1) or owner == mover:
        return None
    one, many = g.words
    name = [SIDE_NAMES.get(s, s) for s in g.sides]
    whose = [n + ("'" if n.endswith("s") else "'s") for n in name]  # Goats', South's
    if you:
        tail = "you play %s %s" % (whose[mover], many)
    else:
        tail = "%s %s to move, on %s %s" % (
            name[mover],
            "are" if name[mover].endswith("s") else "is",
            whose[mover],
            many,
        )
    return "%s is %s %s; %s" % (g.label(cell), whose[owner], one, tail)


def _store_win(game_name: str) -> int:
    from shared_rules import GAMES, game_class

    return game_class(game_name).store_win if game_name in GAMES else 0


def result_line(
    game_name: str, winner: str | None, reason: str, position: str | None = None
) -> str:
    """'North wins (...)', 'Tigers win (...)' or 'draw (...)'; winner: a side letter or None.
    A store goal ("25 seeds" in Oware, the game's store_win) is the threshold, not the count: the winner's store is named too."""
    if winner is None:
        return "draw (%s)" % reason
    side = SIDE_NAMES.get(winner, winner)
    goal = _store_win(game_name)
    if position and goal and reason == "%d seeds" % goal:
        try:
            stores = dict(p.split(":") for p in position.split(" ")[1:3])
            reason = "%s seeds in store, %d win" % (int(stores[winner]), goal)
        except (ValueError, KeyError):
            pass
    return "%s %s (%s)" % (side, "win" if side.endswith("s") else "wins", reason)
