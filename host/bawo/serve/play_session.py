"""`bawo play` on the page: a game against the PC's AI (shared_rules.ai, the PC's budgets as
`bawo play` uses), entered by clicking the pockets the way they are pressed on the board
(bawo.sim.presses_for), logged as `bawo play` logs it when it ends."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from shared_rules import GAMES, game as make_game, State, winner_name
from shared_rules.record import Record

from .. import firmware, sim
from ..sim.draw import result_line
from ..sim.layout import not_yours
from ..errors import BawoError
from . import boardview as B


class Session:
    """The one game of the page (a local server has one user)."""

    def __init__(self, log_path: str) -> None:
        self.log_path = log_path
        self.lock = threading.Lock()
        self.s: State | None = None  # the game, once new() started one

    def new(self, name: str, side: int, level: int) -> dict[str, Any]:
        if name not in GAMES:
            raise BawoError("no game %s" % name)
        if side not in (0, 1) or level not in range(1, 6):
            raise BawoError("side is 0 or 1, level 1 to 5")
        from ..solve import host_player

        with self.lock:
            g = make_game(name)
            self.g, self.human, self.level = g, side, level
            self.s = State(g)
            self.seed = int(time.time())
            self.ai = host_player(g, level, self.seed)
            self.hints = 0
            self.gid = "web-%s" % time.strftime("%Y%m%d-%H%M%S")
            self.start = time.strftime("%Y-%m-%dT%H:%M:%S")
            self.logged = False
            steps = self._ai_turn()
            return self.view(steps)

    def move(self, text: str) -> dict[str, Any]:
        with self.lock:
            if self.s is None:
                raise BawoError("start a game first")
            s, g = self.s, self.g
            if s.outcome() is not None or s.turn != self.human:
                raise BawoError("it is not your move")
            before = g.format(s.position)
            s.push(text)  # RulesError (a ValueError) for an illegal move
            steps = [
                {"by": "you", "move": s.moves[-1], "frames": B.sowing(g.name, before, s.moves[-1])}
            ]
            steps += self._ai_turn()
            return self.view(steps)

    def hint(self) -> dict[str, Any]:
        """The board's hint for the person's move (bawo.advice, as `bawo play`'s `hint`), counted
        for the record; the view with `hint`: its move and the presses that play it."""
        from ..advice import best_move

        with self.lock:
            if self.s is None:
                raise BawoError("start a game first")
            s = self.s
            if s.outcome() is not None or s.turn != self.human:
                raise BawoError("it is not your move")
            text = best_move(s, self.seed)
            self.hints += 1
            v = self.view()
            v["hint"] = {"move": text, "presses": v["presses"][text], "n": self.hints}
            return v

    def current(self) -> dict[str, Any]:
        """The game of the page as it stands (a page opened again shows it), or {}."""
        with self.lock:
            return self.view() if self.s is not None else {}

    def _ai_turn(self) -> list[dict[str, Any]]:
        s, g = self.s, self.g
        assert s is not None  # new() started a game
        out = []
        while s.outcome() is None and s.turn != self.human:
            before = g.format(s.position)
            m = self.ai.choose(s)
            text = g.move_str(m, s.position)
            s.push(m)
            out.append({"by": "computer", "move": text, "frames": B.sowing(g.name, before, text)})
        if s.outcome() is not None and not self.logged:
            self._log()
        return out

    def _log(self) -> None:
        from ..db import Log
        from ..advice import named

        ai_name = "computer (level %d)" % self.level
        you = named("you", self.hints)  # as `bawo play` and the board record the hints
        players = {
            "First": you if self.human == 0 else ai_name,
            "Second": you if self.human == 1 else ai_name,
        }
        rec = Record.from_state(self.s, Start=self.start, Device="web", Id=self.gid, **players)
        with Log(self.log_path) as log:
            log.add(rec, "play")
        self.logged = True

    def view(self, steps: Iterable[dict[str, Any]] = ()) -> dict[str, Any]:
        s, g = self.s, self.g
        assert s is not None  # new() started a game
        pos = g.format(s.position)
        o = s.outcome()
        result = None
        if o is not None:
            result = result_line(g.name, winner_name(g, o), o.reason, pos)
        presses: dict[str, list[int]] = {}
        why: dict[int, str] = {}
        if o is None and s.turn == self.human:
            prof = firmware.profile_path(sim.PROFILES[g.name])
            cells = sim.key_of_cell(prof, g.name)
            for text in s.legal_move_strs():
                presses[text] = sim.presses_for(g.name, pos, text, cells)
            why = self._why(cells, {p[0] for p in presses.values()})
        out = {
            "game": g.name,
            "id": self.gid,
            "ply": s.ply,
            "moves": s.moves,
            "picture": B.picture(g.name, pos),
            "steps": list(steps),
            "presses": presses,
            "why": why,
            "result": result,
            "logged": self.logged,
            "you": g.sides[self.human],
            "level": self.level,
            "hints": self.hints,
        }
        if self.logged:
            out["replay"] = "/game/" + quote(self.gid, safe="")
        return out

    def _why(self, cells: dict[int, int], starts: set[int]) -> dict[int, str]:
        """{key: why a press there starts no move}, in the player's words: whose pocket (or
        piece) it is, or that it has no move now."""
        s, g = self.s, self.g
        assert s is not None  # new() started a game
        out = {}
        for cell, key in cells.items():
            if key in starts or cell >= len(s.position.board):  # a store is never pressed
                continue
            owner = g.owner(cell, s.position.board[cell])
            out[key] = not_yours(
                g, cell, owner, self.human, you=True
            ) or "no move starts at %s now" % g.label(cell)
        return out


def default_game(log_path: str) -> str:
    """The game the Play page offers first: the last one in the log, else Bawo."""
    from ..db import Log

    try:
        with Log(log_path, readonly=True) as log:
            row = log.db.execute(
                "SELECT game FROM games ORDER BY COALESCE(NULLIF(start, ''), added) DESC LIMIT 1"
            ).fetchone()
    except Exception:  # no log yet, or one that cannot be read: the page still opens
        row = None
    return row[0] if row and row[0] in GAMES else "bawo"
