"""`bawo club play`: this PC's board in a game with another club board, through the club.

One loop owns the board's link. It posts the board's moves to the club, plays the club's
moves on the board (MOVE, as a host's move), tells the board whether the opponent is there
(PEER), and ends the board's game when the club says it ended by agreement or on time (END).
A thread long-polls the club, so the loop never waits on the network. When anything drops
(the board's power, its USB, this PC's network) the loop reads both sides again and resumes
at the last ply both have: the board's extra moves are posted, the club's are played.
"""

from __future__ import annotations

import fcntl
import json
import os
import queue
import threading
import time
from typing import Any, Callable, TextIO

from shared_rules import game as make_game

from ..boardlink import BoardLink, BoardLinkError, P
from ..errors import BawoError
from ..text import safe
from . import ClubError
from .remote_client import ClubUnreachable as Unreachable, PlyConflict

SIDES = ("south", "north")  # the club's names of the first and the second side
PEER_EVERY_S = 2.5  # the board calls the opponent away after 10 s without PEER
POLL_WAIT_S = 20  # a long poll's wait at the club
RETRY_S = 1.0  # between tries to reach the board or the club again
AGREED = ("resign", "agreement", "time")  # ends the club decides; the board hears END
NEW_SENT = "?"  # kept before NEW: the board's answer (its game's id) may be lost


class BridgeError(BawoError):
    """The game cannot go on from this PC (a board that left it, moves that disagree)."""


class ClubGame:
    """One remote game at the club, seen by one board's token (the API of docs/club.md)."""

    def __init__(self, api: Any, url: str, token: str, game: int) -> None:
        self.api, self.url, self.token, self.game = api, url, token, game

    def _call(self, fn: Callable[..., dict], *args: Any, **kw: Any) -> dict:
        return fn(self.url, self.token, *args, **kw)

    def state(self, after: int = -1, wait: float = 0, v: int | None = None) -> dict:
        return self._call(self.api.state, self.game, after=after, wait=wait, v=v)

    def post_move(self, ply: int, move: str) -> dict:
        return self._call(self.api.post_move, self.game, ply, move)

    def offer(self, what: str) -> dict:
        return self._call(self.api.offer, self.game, what)

    def bind(self, record_id: str) -> dict:
        return self._call(self.api.bind, self.game, record_id)


class Bridge:
    """Plays club game `club` on the board that open_board() connects (a BoardLink).

    out: where the person reads what happens. games_file: where this PC keeps which of the
    board's games is the club's game (so a run after a crash resumes it)."""

    def __init__(
        self,
        club: ClubGame,
        open_board: Callable[[], BoardLink],
        games_file: str,
        out: TextIO,
        peer_every: float = PEER_EVERY_S,
        retry_s: float = RETRY_S,
        poll_wait: float = POLL_WAIT_S,
    ) -> None:
        self.club = club
        self.open_board = open_board
        self.games_file = games_file
        self.out = out
        self.peer_every = peer_every
        self.retry_s = retry_s
        self.poll_wait = poll_wait
        self.link: BoardLink | None = None
        self.st: dict = {}  # the club's newest state
        self.g = None
        self.side = None  # 0: this board plays South (first), 1: North
        self.gid = None  # the board's id of this game
        self.board_moves = None  # the board's moves, as last read
        self.board_over = False
        self.unbound = False  # the board's record id not yet told to the club
        self.refusal = None  # the board's last refusal, said once
        self.peer_at = None
        self.told_away = None
        self.states = queue.Queue()
        self.stop = threading.Event()
        self.poller = None
        self.faults = {"board": 0, "club": 0}

    # -- what the person reads -------------------------------------------------------------
    def say(self, text: str) -> None:
        self.out.write(safe(text) + "\n")
        self.out.flush()

    # -- the club's side -------------------------------------------------------------------
    def _poll(self):
        after, v = -1, None
        while not self.stop.is_set():
            try:
                st = self.club.state(after=after, wait=self.poll_wait, v=v)
            except Unreachable as e:
                self.states.put(e)
                self.stop.wait(self.retry_s)
                continue
            except ClubError as e:
                self.states.put(e)
                return
            after, v = st.get("ply", after), st.get("v")
            self.states.put(st)
            if st.get("state") == "over":
                return

    def _take_states(self, wait):
        """The newest club state, waiting up to wait s for one; raises what the club refused."""
        try:
            item = self.states.get(timeout=wait)
        except queue.Empty:
            return
        while True:
            if isinstance(item, Unreachable):
                if self.told_away is not False:
                    self.say("the club cannot be reached (%s): trying again" % item)
                    self.told_away = False
                    self.faults["club"] += 1
            elif isinstance(item, ClubError):
                raise item
            else:
                self._check_state(item)
                if self.told_away is False:
                    self.say("the club answers again")
                    self.told_away = None
                self.st = item
            try:
                item = self.states.get_nowait()
            except queue.Empty:
                return

    def _check_state(self, st):
        if (
            not isinstance(st, dict)
            or st.get("side") not in SIDES
            or not isinstance(st.get("moves"), list)
            or not all(isinstance(m, str) for m in st["moves"])
        ):
            raise BridgeError("the club sent a state this PC does not understand: update bawo")

    # -- the board's side ------------------------------------------------------------------
    def _attach(self):
        """Open the board and bring it to this game; False while the board is away."""
        try:
            self.link = self.open_board()
        except (BawoError, OSError):
            return False
        try:
            self.link.poll_events(0)
            self._enter_game()
        except (BoardLinkError, OSError) as e:
            self._lost(e)
            return False
        self.say(
            "board %s: game %s, ply %d"
            % (self.link.info.get("board", "?"), self.gid, len(self.board_moves))
        )
        self.peer_at = None
        return True

    def _lost(self, e):
        self.say("lost the board (%s): waiting for it to come back" % " ".join(str(e).split()))
        self.faults["board"] += 1
        try:
            self.link.port.close()
        except (AttributeError, OSError):
            pass
        self.link = None

    def _refused(self, e):
        """The board answered but would not (its menu is open, it is busy): say so once,
        and try again in a moment; the link is fine."""
        text = " ".join(str(e).split())
        if text != self.refusal:
            self.say("%s: trying again (is the board's menu open? BACK returns to the game)" % text)
            self.refusal = text
        self.stop.wait(self.retry_s)

    def _known_games(self):
        try:
            with open(self.games_file, encoding="utf-8") as f:
                known = json.load(f)
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            return {}
        return known if isinstance(known, dict) else {}

    def _key(self):
        # One PC may drive two boards in one game (two simulated boards): the board is in it.
        return "%s#%s@%s" % (self.club.url, self.club.game, self.link.info.get("board", "?"))

    def _remember(self, gid):
        os.makedirs(os.path.dirname(self.games_file) or ".", exist_ok=True)
        # Two bridges of one PC write the file: one at a time, each adding its own line.
        with open(self.games_file + ".lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            known = self._known_games()
            known[self._key()] = gid
            tmp = "%s.%d.tmp" % (self.games_file, os.getpid())
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(known, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.games_file)

    def _enter_game(self):
        """This game on the board: the one it holds (after a power cut, a replug, a rerun) or a
        new one with the host on the opponent's side."""
        cur = self.link.position(moves=True)
        gid = self._known_games().get(self._key())
        host = "host-second" if self.side == 0 else "host-first"
        if gid == NEW_SENT and self._could_be_ours(cur, host):
            # The answer to our NEW was lost (the cable, the power): the game it began is
            # this one, at ply 0 or with moves the club has too.
            gid = cur["id"]
            self._remember(gid)
            self.unbound = True
        if gid is not None and cur.get("id") == gid:
            self.gid = gid
            self._read_board(cur)
            return
        if gid == NEW_SENT:
            gid = None
        if gid is not None:
            raise BridgeError(
                "the board left club game %s (its game %s is kept on the board as an unfinished "
                "record): the board now holds %s"
                % (self.club.game, gid, cur.get("id") or "no game")
            )
        if self.st["ply"] > 0:
            raise BridgeError(
                "club game %s is at ply %d but this board never played it: run "
                "`bawo club play` on the board that did" % (self.club.game, self.st["ply"])
            )
        self._check_board_speaks_remote()
        self._remember(NEW_SENT)
        r = self.link.new_game(self.g.name, opponent=host)
        self.gid = r["id"]
        self._remember(self.gid)
        self.unbound = True
        self._read_board(r)

    def _bind(self):
        """Tell the club which of the board's records is this game (once; again if the
        club was away): its sync then attaches that record to the game."""
        try:
            self.club.bind(self.gid)
        except Unreachable:
            return
        self.unbound = False

    def _could_be_ours(self, cur, host):
        moves = cur.get("moves") or []
        return (
            cur.get("id") is not None
            and cur.get("opponent") == host
            and cur.get("game") == self.g.name
            and not cur.get("result")
            and cur.get("root") is None
            and moves == self.st["moves"][: len(moves)]
        )

    def _check_board_speaks_remote(self):
        try:
            self.link.request(P.PEER, {"here": 0})
        except BoardLinkError as e:
            if e.code == P.E_UNKNOWN_TYPE:
                raise BridgeError(
                    "the board's firmware does not play remote games: update it with `bawo flash`"
                ) from e
            raise

    def _read_board(self, cur):
        if cur.get("id") != self.gid or cur.get("game") != self.g.name:
            raise BridgeError(
                "the board's game %s is not club game %s" % (cur.get("id"), self.club.game)
            )
        moves = cur.get("moves")
        if moves is None:
            moves = self.link.position(moves=True).get("moves") or []
        self.board_moves = list(moves)
        self.board_over = bool(cur.get("result"))

    # -- the two sides brought together ----------------------------------------------------
    def _reconcile(self):
        """Post what the board has and the club lacks; play what the club has and the board
        lacks. Only one side can be ahead: each board makes only its own side's moves, and
        the club takes a move only in turn."""
        b, c = self.board_moves, self.st["moves"]
        n = min(len(b), len(c))
        if b[:n] != c[:n]:
            k = next(i for i in range(n) if b[i] != c[i])
            raise BridgeError(
                "the board and the club disagree at ply %d (%s on the board, %s at "
                "the club): the game cannot go on" % (k + 1, b[k], c[k])
            )
        for ply in range(len(c) + 1, len(b) + 1):
            self._post(ply, b[ply - 1])
        for ply in range(len(b) + 1, len(c) + 1):
            text = c[ply - 1]
            r = self.link.move(text)
            self.board_moves.append(text)
            self.board_over = bool(r.get("result"))
            self.say("%s played %s (ply %d)" % (self._name(1 - self.side), text, ply))

    def _post(self, ply, move):
        try:
            self.club.post_move(ply, move)
        except Unreachable:
            return  # posted again at the next pass
        except PlyConflict:
            return  # the club knows another ply count: its next state settles it
        except ClubError as e:
            raise BridgeError("the club refused ply %d (%s): %s" % (ply, move, e)) from e
        if len(self.st["moves"]) == ply - 1:
            self.st["moves"].append(move)
            self.st["ply"] = ply
        self.say("you played %s (ply %d)" % (move, ply))

    def _name(self, side):
        st = self.st
        return "%s (%s)" % (SIDES[side].capitalize(), st.get(SIDES[side]) or "?")

    def _pump_board(self, wait):
        for ev in self.link.poll_events(wait):
            kind = ev.get("ev")
            if ev.get("id") != self.gid:
                if kind == P.EV_START and self.link.position().get("id") != self.gid:
                    raise BridgeError(
                        "a new game was started on the board: club game %s is left "
                        "(kept on the board unfinished)" % self.club.game
                    )
                continue
            if kind == P.EV_MOVE and ev.get("ply") == len(self.board_moves) + 1:
                self.board_moves.append(ev.get("move"))
            elif kind == P.EV_MOVE and ev.get("ply", 0) > len(self.board_moves):
                self._read_board(self.link.position(moves=True))  # a gap: read it all
            elif kind == P.EV_END:
                self.board_over = True
            elif kind == "offer" and ev.get("what") in ("resign", "draw"):
                self._offer(ev["what"])

    def _offer(self, what):
        try:
            self.st = self.club.offer(what)
        except Unreachable:
            self.say("the club cannot be reached: your %s offer was not sent; make it again" % what)
            return
        self.say("you %s" % ("resign" if what == "resign" else "offer a draw"))

    def _peer(self, force=False):
        now = time.monotonic()
        if not force and self.peer_at is not None and now - self.peer_at < self.peer_every:
            return
        st = self.st
        here = 1 if self.told_away is None and st.get("peer") else 0
        p = {"here": here, "offer": 1 if st.get("offer") == SIDES[1 - self.side] else 0}
        clock = st.get("clock")
        if isinstance(clock, dict) and st.get("state") == "playing":
            bar = clock.get("bar")
            if isinstance(bar, int) and 0 <= bar <= 8:
                p["bar"] = bar
            p["low"] = 1 if clock.get("low") else 0
        self.link.request(P.PEER, p)
        self.peer_at = now
        # A board that restarted sends no events until a host speaks: a move pressed before
        # that is on its flash but was never told. Its ply says so.
        cur = self.link.position()
        if cur.get("id") == self.gid and cur.get("ply", 0) != len(self.board_moves):
            self._read_board(self.link.position(moves=True))

    def _end_on_board(self):
        """The club's end (resign, agreement, time) on the board, unless the board has it."""
        st = self.st
        if st.get("reason") not in AGREED or self.board_over:
            return
        try:
            self.link.request(P.END, {"result": st["result"], "reason": st["reason"]})
        except BoardLinkError as e:
            if e.code != P.E_NO_GAME:
                raise
            # A retry after a lost answer: the board has the end if its snapshot says so.
            cur = self.link.position()
            if cur.get("id") != self.gid or not cur.get("result"):
                raise
        self.board_over = True

    # -- the loop --------------------------------------------------------------------------
    def run(self, first_state: dict, timeout: float | None = None) -> dict:
        """Play to the end. first_state: the club's state when the game began (seek, accept,
        or a state read to resume). Returns the final state."""
        self._check_state(first_state)
        self.st = first_state
        self.g = make_game(first_state["kind"])
        self.side = SIDES.index(first_state["side"])
        self.poller = threading.Thread(target=self._poll, daemon=True)
        self.poller.start()
        quiet_since = time.monotonic()
        try:
            while True:
                self._take_states(0 if self.link is not None else self.retry_s)
                if self.link is None and not self._attach():
                    if timeout is not None and time.monotonic() - quiet_since > timeout:
                        raise BridgeError("the board did not come back within %s s" % timeout)
                    continue
                quiet_since = time.monotonic()
                try:
                    if self.unbound:
                        self._bind()
                    self._reconcile()
                    if self.st.get("state") == "over" and len(self.board_moves) >= len(
                        self.st["moves"]
                    ):
                        self._end_on_board()
                        return self.st
                    self._peer()
                    self._pump_board(0.2)
                except BoardLinkError as e:
                    if e.code is None:
                        self._lost(e)
                    else:
                        self._refused(e)
                except OSError as e:
                    self._lost(e)
        finally:
            self.stop.set()
            if self.link is not None:
                try:
                    self.link.port.close()
                except OSError:
                    pass
