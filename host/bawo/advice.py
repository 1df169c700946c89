"""The hint a person asks for (on the board: BACK held, MENU pressed), for `bawo play` and the
web's Play page: the firmware's own choice (firmware/hint.py's best_move: the proved book's
move while South is on its line, else the board's level-5 search), run here, so the board,
the simulator, the terminal and the page give one hint for one position and seed. The record
says so as the board's does (firmware/session.py): the helped side's name with '(N hints)'."""

from __future__ import annotations

from . import firmware
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from shared_rules.state import State


class _Asking:
    """What firmware/hint.best_move reads of the board's Session: the game, its state and
    its header (a set-up position, the seed)."""

    def __init__(self, state: State, seed: int, position: str | None) -> None:
        self.s = state
        self.g = state.game
        self.header = {"seed": seed, "position": position}


def _go_on() -> bool:
    return False  # nothing here stops the search (the board's keys and link do there)


def best_move(state: State, seed: int = 1, position: str | None = None) -> str:
    """The hint's move, as text, for the side to move in state (a shared_rules State);
    position: the game's set-up position text (None for the usual start)."""
    m = firmware.module("hint").best_move(_Asking(state, seed, position), None, _go_on)
    return state.game.move_str(m, state.position)


def named(name: str, hints: int) -> str:
    """A side's First/Second tag with its hints, as the board writes it: 'person (2 hints)'."""
    return "%s (%d hints)" % (name, hints) if hints else name
