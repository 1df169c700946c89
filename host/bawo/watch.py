"""`bawo watch`: follow the board's game from its EVENT frames and log every move at once.

The log row (status 'live', then 'watched' when the game ends) is rewritten after each move, so
a game watched to its end survives even if the board's flash fails before the next sync; sync
replaces it with the board's own record (db.Log.add).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from shared_rules import game as make_game, State, GAMES, winner_name
from shared_rules.errors import RecordError, RulesError
from shared_rules.record import Record
from shared_rules.record_end import end_error
from shared_rules.record_text import check_tag

from .sim.draw import draw, result_line
from .sim.layout import SIDE_NAMES
from .boardlink import BoardLinkError
from .text import Stream, safe

if TYPE_CHECKING:
    from .boardlink import BoardLink
    from .rulestypes import Game

RETRY_S = 1.0  # between tries to reach a board that went away

KINDS = {"baghchal": "bagh-chal", "bagh_chal": "bagh-chal"}


class GameLog(Protocol):
    """What a Watcher writes to: db.Log, or a log that writes later (bawo serve's)."""

    def add(self, rec: Record, source: str, status: str = ...) -> object: ...


def _kind(d: dict[str, Any]) -> str:
    k = d.get("kind") or d.get("game") or "bawo"
    return KINDS.get(k, k)


class Watcher:
    def __init__(
        self,
        log: GameLog,
        device: str,
        out: Stream | None = None,
        draw_board: bool = True,
        style: str = "numbers",
    ) -> None:
        self.log = log
        self.style = style
        try:
            check_tag("Device", device)
        except RecordError:
            device = "board"  # an id no record may hold: named as the board names its own
        self.device = device
        self.unlogged: str | None = None  # the id of a game the log refused (said once)
        self.out = out or sys.stdout
        self.draw_board = draw_board
        self.state: State | None = None
        self.gid: str | None = None
        self.moves_seen = 0
        # The State of the game that ended last (a page keeps showing it), and its id: its
        # late events are known, not a gap.
        self.final: State | None = None
        self.ended: str | None = None
        # (result, reason) of a game ended by the players' word while its moves go on (a
        # remote game's resign, draw agreed or flag: the board's END), else None.
        self.agreed: tuple[str, str] | None = None

    def say(self, text: str) -> None:
        """A line on the terminal. Ids, moves and results in it came from a board: shown with
        every control character escaped (text.safe), never as the terminal's commands."""
        self.out.write(safe(text) + "\n")
        self.out.flush()

    def start(self, d: dict[str, Any]) -> None:
        self.final = self.ended = None
        self.agreed = None
        kind = _kind(d)
        if kind not in GAMES:
            self.say("board started an unknown game %r: not logged" % kind)
            self.state = None
            return
        self.gid = str(d.get("id") or "%s-live-%d" % (self.device, int(time.time())))
        pos = d.get("start") or d.get("root")
        try:
            self.state = State(
                make_game(kind), pos if isinstance(pos, str) and pos != "start" else None
            )
        except RulesError:
            self.state = State(make_game(kind))
        try:
            for m in d.get("moves") or []:
                self.state.push(m)
        except RulesError as e:
            self.say(
                "the board's moves of game %s do not replay at ply %d (%s): not logged; "
                "`bawo sync` fetches the board's record" % (self.gid, self.state.ply + 1, e)
            )
            self.state = None
            return
        if not d.get("moves") and isinstance(d.get("position"), str) and self.state.ply == 0:
            # Joined mid-game without the move list: log from the position the board shows.
            try:
                g = self.state.game
                if g.format(g.parse(d["position"])) != g.format(self.state.position):
                    self.state = State(g, d["position"])
            except RulesError:
                pass
        self.say(
            "game %s (%s) %s"
            % (
                self.gid,
                kind,
                "started" if self.state.ply == 0 else "in progress, ply %d" % self.state.ply,
            )
        )
        self._show()
        self._store()

    def join(self, link: BoardLink) -> None:
        """Take up the board's game from its first ply (POSITION with its move list): on
        start, after a gap in the events, and when the board comes back."""
        try:
            cur = link.position(moves=True)
        except BoardLinkError as e:
            if e.code is None:
                raise  # no answer: the board is gone
            return  # it refused (an old board without POSITION): wait for the next game
        gid = cur.get("id")
        if self.state is not None and str(gid) != self.gid:
            self.say(
                "game %s left at ply %d on this screen; `bawo sync` fetches the board's record"
                % (self.gid, self.state.ply)
            )
            self.state = None
        over = cur.get("mode") == "over"
        if not gid or (over and str(gid) != self.gid) or str(gid) == self.ended:
            return  # no game, one that ended before we saw it (sync fetches it), or logged
        if not isinstance(cur.get("moves"), list) and self.state is not None:
            if over:
                self.end({})  # the moves we have are all the board can tell: logged as such
            return  # a board that cannot send its moves: keep following the events
        self.start(cur)
        if self.state is not None and (over or self.state.outcome() is not None):
            self.end(cur.get("result") if isinstance(cur.get("result"), dict) else {})

    def tick(self, link: BoardLink) -> None:
        """Between the board's events, at least every 50 ms (`bawo club stream` tells the
        board its seat here)."""

    def move(self, d: dict[str, Any]) -> str | None:
        if self.state is None and d.get("id") is not None and str(d["id"]) == self.ended:
            return "move"  # a resent move of the game logged whole at its end
        if self.state is None or (d.get("id") and str(d["id"]) != self.gid):
            self.say("move %s of a game not followed from its start: catching up" % d.get("move"))
            return "gap"
        ply = d.get("ply")
        if isinstance(ply, int) and not isinstance(ply, bool):
            if ply <= self.state.ply:
                return "move"  # already known: it came with the move list when we joined
            if ply > self.state.ply + 1:
                self.say("missed plies %d to %d: catching up" % (self.state.ply + 1, ply - 1))
                return "gap"
        text = d.get("move")
        try:
            mover = self.state.game.sides[self.state.turn]
            self.state.push(text)
        except RulesError as e:
            self.say(
                "board played %s, which does not replay here (%s): the log keeps the moves up to "
                "ply %d; `bawo sync` will fetch the board's record" % (text, e, self.state.ply)
            )
            self.state = None
            return None
        self.say("ply %d: %s plays %s" % (self.state.ply, mover, text))
        board_pos = d.get("position")
        mine = self.state.game.format(self.state.position)
        if (
            isinstance(board_pos, str)
            and board_pos != mine
            and "/" in board_pos
            and " " in board_pos
        ):
            self.say("warning: the board shows %s, the rules give %s" % (board_pos, mine))
        self._show()
        self._store()
        return None

    def agreed_end(self, d: dict[str, Any] | None) -> tuple[str, str] | None:
        """(result, reason) if d (an end EVENT, or POSITION's result) ends the game followed
        by the players' word (shared_rules.record_end: resign, agreement, time) while its
        moves go on, with a result that fits the reason; else None."""
        s = self.state
        if s is None or s.outcome() is not None or not isinstance(d, dict):
            return None
        res, why = d.get("result"), d.get("reason")
        if not isinstance(res, str) or not isinstance(why, str) or end_error(s.game, res, why):
            return None
        return res, why

    def end(self, d: dict[str, Any] | None) -> None:
        if self.state is not None:
            self.agreed = self.agreed_end(d)
            self.say("game %s over: %s" % (self.gid, self.result_text(d)))
            self._store(final=True)
            self.final, self.ended = self.state, self.gid
        self.state = None

    def result_text(self, d: dict[str, Any] | None = None) -> str:
        """'South wins (front row empty)' from the rules' outcome of the game followed (or of
        the one that ended last); else the board's own words, else 'ended'."""
        s = self.state or self.final
        o = s.outcome() if s is not None else None
        if s is not None and o is not None:
            g = s.game
            return result_line(g.name, winner_name(g, o), o.reason, g.format(s.position))
        if s is not None and self.agreed is not None:
            return agreed_line(s.game, *self.agreed)
        d = d or {}
        return str(d.get("result") or "ended")[:80]

    def _show(self) -> None:
        # The drawing is ours (its colours are escape sequences), from the rules' position.
        if self.draw_board and self.state is not None:
            g = self.state.game
            self.out.write(draw(g.name, g.format(self.state.position), style=self.style) + "\n")
            self.out.flush()

    def _store(self, final: bool = False) -> None:
        assert self.state is not None  # called while a game is followed
        done = final or self.state.outcome() is not None
        agreed: dict[str, str] = {}
        if final and self.agreed is not None:
            agreed = {"Result": self.agreed[0], "Reason": self.agreed[1]}
        try:
            rec = Record.from_state(self.state, Id=self.gid, Device=self.device, **agreed)
            self.log.add(rec, "watch", status="watched" if done else "live")
        except RecordError as e:
            # An id from the board no record may hold (a control character): followed on the
            # screen, not logged; `bawo sync` refuses the board's record of it the same way.
            if self.unlogged != self.gid:
                self.unlogged = self.gid
                self.say("game %s not logged: %s" % (self.gid, e))

    def handle(self, ev: dict[str, Any]) -> str | None:
        kind = ev.get("ev")
        if kind == "start":
            self.start(ev)
        elif kind == "move":
            return self.move(ev) or kind
        elif kind == "end":
            if (
                self.state is not None
                and self.state.outcome() is None
                and str(ev.get("id")) == self.gid
                and self.agreed_end(ev) is None
            ):
                # The board's game is over and ours is not: a move event is still to come
                # (a resent frame arrives after the end) or was lost. join() takes the board's
                # move list, so the log holds every ply and the result. (An end by the
                # players' word, END from a remote game's bridge, ends it where it stands:
                # the board sent every move's event before it.)
                return "gap"
            self.end(ev)
        return kind


def agreed_line(g: Game, result: str, reason: str) -> str:
    """An end by the players' word in words: 'South wins (North resigned)', 'draw (agreed)',
    'North wins (South ran out of time)'. result: a side letter of g or "draw"; reason: one
    of shared_rules.record_end.AGREED (end_error(g, result, reason) is None)."""
    if result == "draw":
        return result_line(g.name, None, "agreed")
    loser = SIDE_NAMES.get(g.sides[1 - g.sides.index(result)], "the other side")
    return result_line(
        g.name, result, "%s %s" % (loser, "resigned" if reason == "resign" else "ran out of time")
    )


def watch(
    link: BoardLink,
    log: GameLog,
    info: dict[str, Any],
    draw_board: bool = True,
    exit_after_game: bool = False,
    timeout: float | None = None,
    out: Stream | None = None,
    style: str = "numbers",
    reconnect: Callable[[], tuple[Any, BoardLink, dict[str, Any]]] | None = None,
    watcher: type[Watcher] | None = None,
) -> int:
    """Follow the board. reconnect: () -> (serial, link, info), called when the board goes
    away (unplugged, reset) until it is back; None: a lost board ends watch with the error.
    timeout: seconds without news (or without the board) before stopping; None: never.
    watcher: the Watcher class to follow with (`bawo club stream` passes its own)."""
    device = str(info.get("board") or info.get("device") or info.get("id") or "board")
    w = (watcher or Watcher)(log, device, out, draw_board, style)
    w.say("watching %s (Ctrl-C to stop)" % device)
    opened: list[Any] = []
    try:
        while True:
            try:
                w.join(link)
                for ev in link.events(timeout=timeout, tick=lambda: w.tick(link)):
                    kind = w.handle(ev)
                    if kind == "gap":
                        w.join(link)
                        if w.state is None and w.ended is not None:
                            kind = "end"  # the board's move list ended the game
                    if kind == "end" and exit_after_game:
                        return 0
                return 0
            except (BoardLinkError, OSError) as e:  # serial.SerialException is an OSError
                if reconnect is None:
                    raise
                w.say("lost the board (%s): waiting for it to come back" % _why_lost(e))
                try:
                    link.port.close()
                except (AttributeError, OSError):
                    pass
                link = _wait_for(reconnect, opened, timeout)
                w.say("board back")
    except KeyboardInterrupt:
        w.say(
            "stopped watching%s"
            % (
                (" (game %s logged up to ply %d)" % (w.gid, w.state.ply))
                if w.state is not None
                else ""
            )
        )
    finally:
        for ser in opened:
            ser.close()
    return 0


def _why_lost(e: Exception) -> str:
    """Why the link ended, in words: a BoardLinkError says it in ours; the serial port's own text
    (pyserial's "device reports readiness to read but returned no data ...", an errno) is
    what a cable pulled or a board reset looks like from here."""
    if isinstance(e, BoardLinkError):
        return " ".join(str(e).split())
    return "its serial port closed: unplugged, reset, or taken by another program"


def _wait_for(
    reconnect: Callable[[], tuple[Any, BoardLink, dict[str, Any]]],
    opened: list[Any],
    timeout: float | None,
) -> BoardLink:
    from .errors import BawoError

    t0 = time.monotonic()
    while True:
        try:
            ser, link, info = reconnect()
        except (BawoError, OSError):
            if timeout is not None and time.monotonic() - t0 > timeout:
                raise
            time.sleep(RETRY_S)
            continue
        opened.append(ser)
        return link
