"""Every board live: what a PC streams (its board's moves), checked by replaying them, and
how a move reaches each spectator of each club process.

A PC posts the moves the club lacks (from the ply the club has: a PC that lost its connection
resumes there, store.LiveGap says where). The process that took them sends the event to every
process: PostgreSQL NOTIFY on a shared database (each process LISTENs and fans out to its own
spectators' SSE streams), its own Hub on SQLite (one process). The LED picture is drawn once,
by that process, with the firmware's own renderer (bawo.serve.boardview, as `bawo serve` draws).
"""

from __future__ import annotations

import datetime
import json
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from shared_rules import GAMES, State, game as make_game, winner_name
from shared_rules.errors import RulesError

from ..serve.live import Hub
from . import ClubError
from .records import MAX_ID, Refused

if TYPE_CHECKING:
    import asyncio

    from .store import PgStore, SqliteStore

MAX_MOVES = 2000  # plies a live game may have (a long Bawo game is ~400)
MAX_MOVE = 16  # characters of a move
MAX_PAYLOAD = 7800  # bytes of a NOTIFY payload (PostgreSQL's limit is 8000)
LIVE_HOURS = 6  # a board's live game is shown this long after its last move


def since_hours(hours: float) -> str:
    t = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=hours)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_update(d: Any) -> tuple[str, str, str | None, int, list[str], bool]:
    """(rid, game, start, from, moves, done) of a PC's JSON body, or Refused."""
    if not isinstance(d, dict):
        raise Refused("a live update is a JSON object")
    rid, game, frm, moves = d.get("id"), d.get("game"), d.get("from"), d.get("moves", [])
    start = d.get("start")
    if not isinstance(rid, str) or not 0 < len(rid) <= MAX_ID or not rid.isprintable():
        raise Refused("a live update names its game's id (1 to %d characters)" % MAX_ID)
    if game not in GAMES:
        raise Refused("unknown game %r" % str(game)[:20])
    if not isinstance(frm, int) or isinstance(frm, bool) or not 0 <= frm <= MAX_MOVES:
        raise Refused("'from' is the ply the moves start after")
    if (
        not isinstance(moves, list)
        or frm + len(moves) > MAX_MOVES
        or not all(
            isinstance(m, str)
            and 0 < len(m) <= MAX_MOVE
            and m.isascii()
            and m.isprintable()
            and " " not in m
            for m in moves
        )
    ):
        raise Refused("'moves' is a list of moves (at most %d plies)" % MAX_MOVES)
    if start is not None and (not isinstance(start, str) or len(start) > 400):
        raise Refused("'start' is a position, or absent")
    return rid, game, start, frm, moves, bool(d.get("done"))


def replay(game: str, start: str | None, moves: Iterable[str]) -> State:
    """The State after moves; Refused when they do not replay."""
    try:
        s = State(make_game(game), start)
        for m in moves:
            s.push(m, False)
    except RulesError as e:
        raise Refused("the moves do not replay: %s" % " ".join(str(e).split())[:200])
    return s


def event(row: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The message spectators get for a live row: who, the ply, the last move, the picture."""
    from ..serve import boardview as B

    moves = row["moves"].split() if row["moves"] else []
    s = replay(row["game"], row["start"], moves)
    g = s.game
    pos = g.format(s.position)
    out = s.outcome()
    msg = {
        "type": "board",
        "board": row["board"],
        "id": row["rid"],
        "game": row["game"],
        "ply": len(moves),
        "last": moves[-1] if moves else None,
        "position": pos,
        "south": row.get("south"),
        "north": row.get("north"),
        "done": bool(row["done"]),
        "result": None if out is None else (winner_name(g, out) or "draw"),
        "updated": row["updated"],
        "moves": moves,
    }
    if row.get("result"):  # a remote game the club ended (resign, agreement, time)
        msg.update(result=row["result"], reason=row.get("reason"), done=True)
    try:
        lay = B.layout(row["game"])
        msg.update(frame=B.picture(row["game"], pos)["frame"], w=lay["w"], h=lay["h"])
    except Exception:  # a picture is a nicety: the move still goes out
        pass
    text = json.dumps(msg)
    for drop in ("moves", "frame"):  # past NOTIFY's limit: the page asks for the rest
        if len(text.encode()) <= MAX_PAYLOAD:
            break
        msg.pop(drop, None)
        text = json.dumps(msg)
    return msg, text


class Live:
    """This process's spectators, fed from NOTIFY (PostgreSQL) or directly (SQLite)."""

    def __init__(self, store: SqliteStore | PgStore) -> None:
        self.store = store
        self.hub = Hub()
        self.stop = threading.Event()
        self.listening = threading.Event()
        self.lock = threading.Lock()
        self.thread = None
        self.shared = store.engine == "postgresql"
        # Who else hears the change feed: remote_api's long polls. Each is called with the
        # message of type "remote" ({"type", "game"}), or None after the listener lost
        # PostgreSQL (anything may have changed). Not for spectators.
        self.hooks = []

    def start(self, loop: asyncio.AbstractEventLoop) -> bool:
        """Before the first spectator's snapshot: the listener is up, so no move committed
        after the snapshot is missed (it comes as an event, at worst once more)."""
        if self.hub.loop is None:
            self.hub.loop = loop
        with self.lock:
            if self.shared and self.thread is None:
                self.thread = threading.Thread(
                    target=self.store.listen,
                    args=(self._heard, self.stop, self.listening),
                    daemon=True,
                    name="club-listen",
                )
                self.thread.start()
        return self.listening.wait(10) if self.shared else True

    def _heard(self, payload: str | None) -> None:
        if payload is None:
            self._hook(None)
            self.resync()
            return
        try:
            msg = json.loads(payload)
        except ValueError:
            return
        if isinstance(msg, dict) and msg.get("type") == "remote":
            self._hook(msg)
        else:
            self.hub.publish(msg)

    def _hook(self, msg):
        for f in list(self.hooks):
            f(msg)

    def signal(self, msg: dict[str, Any]) -> None:
        """A change of a remote game, to every process's long polls (not to spectators):
        this process's at once, the others' through NOTIFY on PostgreSQL."""
        self._hook(msg)
        if self.shared:
            self.store.notify(json.dumps(msg))

    def resync(self) -> None:
        """Every board's game as the database has it, to this process's spectators: after the
        listener lost PostgreSQL for a while, the moves it missed are in there."""
        if not self.hub.subs:
            return
        try:
            for row in self.store.live_boards(since_hours(LIVE_HOURS)):
                self.hub.publish(event(row)[0])
        except ClubError:
            pass

    def send(self, msg: dict[str, Any], text: str) -> None:
        """After the commit: to every process's spectators."""
        if not (self.shared and self.store.notify(text)):
            self.hub.publish(msg)

    def close(self) -> None:
        self.stop.set()
