"""Names for the shared_rules objects the host passes around, for its type hints.

shared_rules runs on MicroPython too and carries no hints, so to mypy these are Any: they
name what a parameter is for the reader, as python-chess's Board and Move do."""

from typing import Any

Game = Any  # a game object: shared_rules.game(name), a Bawo, Oware or BaghChal
Position = Any  # one of its positions (game.start(), game.parse(text))
Move = int  # a move: a small integer, with text on top (game.move_str)
