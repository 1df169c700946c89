"""Scripted players: the menu's settings and the moves of a game, pressed as a person would."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .process import BoardProcess, SimError
from .layout import key_of_cell, level_cell, presses_for


def choose_settings(
    board: BoardProcess,
    game: str,
    opponent: str | None = "people",
    speed: int | None = None,
    level: int | None = None,
) -> Any:
    """Press the menu pockets for game/opponent/speed/level (the menu must be showing)."""
    from shared_rules import GAMES  # noqa: F401 - the names below are shared_rules' names

    st = board.status
    prof = json.loads(Path(board.profile_file).read_text())
    cols = prof["grid"]["cols"]
    key = lambda r, c: r * cols + c  # noqa: E731 - the profiles list cells row-major
    cells = prof.get("pockets") or prof.get("points")
    at = {tuple(rc): k for k, rc in enumerate(cells)}
    games = st["games"]
    if game not in games:
        raise SimError(
            "game %s does not fit profile %s (it plays %s)" % (game, prof["name"], ", ".join(games))
        )
    board.tap(at[(0, games.index(game))])
    if opponent is not None:
        board.tap(at[(1, ("people", "board-second", "board-first").index(opponent))])
    if speed is not None:
        board.tap(at[(3, min(speed, min(8, cols)) - 1)])
    if level is not None:
        rc = level_cell(prof["grid"]["rows"], cols, level)
        if rc is None:
            raise SimError("profile %s has no room for the level in its menu" % prof["name"])
        board.tap(at[rc])
    del key
    return board.idle()


def play_moves(
    board: BoardProcess,
    game: str,
    moves: Iterable[str],
    on_move: Callable[[Any], object] | None = None,
) -> Any:
    """Enter text moves by presses; returns the final status. Stops at the game's end."""
    cells = key_of_cell(board.profile_file, game)
    st = board.status
    for mv in moves:
        if st.get("result"):
            break
        ply = st["ply"]
        for k in presses_for(game, st["pos"], mv, cells):
            board.tap(k)
        st = board.idle()
        if st["ply"] != ply + 1 or st["moves"][-1] != mv:
            raise SimError(
                "the board did not take move %s at ply %d (position %s)"
                % (mv, st["ply"] + 1, st["pos"])
            )
        if on_move:
            on_move(st)
    return st


def play_vs_board(
    board: BoardProcess,
    game: str,
    person_move: Callable[[Any], str | None],
    on_move: Callable[[Any], object] | None = None,
    limit: int = 2000,
) -> Any:
    """The person's side by presses, person_move(status) -> move text (None: stop), the
    board's side by its AI; returns the final status."""
    cells = key_of_cell(board.profile_file, game)
    st = board.status
    while not st.get("result") and st["ply"] < limit:
        mv = person_move(st)
        if mv is None:
            break
        ply = st["ply"]
        for k in presses_for(game, st["pos"], mv, cells):
            board.tap(k)
        st = board.idle()  # idle again once the board has answered and animated it
        if st["ply"] <= ply or st["moves"][ply] != mv:
            raise SimError(
                "the board did not take move %s at ply %d (position %s)" % (mv, ply + 1, st["pos"])
            )
        if on_move:
            on_move(st)
    return st


def random_person(game: str, seed: int) -> Callable[[Any], str]:
    """person_move for play_vs_board: seeded random legal moves."""
    from shared_rules import game as make_game

    g = make_game(game)
    rng = random.Random(seed)

    def choose(st: Any) -> str:
        pos = g.parse(st["pos"])
        return g.move_str(rng.choice(sorted(g.legal_moves(pos))), pos)

    return choose


def random_moves(
    game: str, position: str | None, seed: int, limit: int, start: int = 0
) -> list[str]:
    """A seeded random continuation of `position` (text), as move texts."""
    from shared_rules import game as make_game, State

    rng = random.Random(seed)
    s = State(make_game(game), position)
    out: list[str] = []
    while len(out) < limit and s.legal_moves:
        m = rng.choice(sorted(s.legal_moves))
        out.append(s.move_str(m))
        s.push(m)
    return out


def script_moves(args: Any) -> list[str] | None:
    """The moves --moves or --script give (a list of move texts), or None."""
    if args.moves:
        return args.moves.split()
    if args.script:
        words = []
        for line in Path(args.script).read_text().splitlines():
            line = line.split("#", 1)[0]
            for w in line.split():
                if not (w.endswith(".") and w[:-1].isdigit()):
                    words.append(w)
        return words
    return None
