"""`bawo club stream`: follow the board as `bawo watch` does (the same Watcher, the same live
rows in the PC's log) and send each move to the club; tell the board the tournament game it
is seated for (SEAT), which it shows while idle.

One sender thread a PC holds the game as the PC knows it and the ply the club has; it posts
what the club lacks, so the watch loop never waits for the network. It keeps one HTTP
connection open (keep-alive), made again after a drop; then it resumes from the club's ply
(the club answers 409 with it when the PC guessed wrong).
"""

from __future__ import annotations

import http.client
import json
import threading
import urllib.parse
from collections.abc import Callable, Iterable
from typing import Any

from bawo_firmware import protocol as P
from shared_rules import GAMES
from shared_rules.record import Record

from ..boardlink import BoardLink, BoardLinkError
from ..watch import Watcher
from .client import TIMEOUT, request

RETRY_S = 1.0


class Sender:
    def __init__(
        self, url: str, token: str, on_error: Callable[[str], object] | None = None
    ) -> None:
        self.url = url
        self.token = token
        self.on_error = on_error
        self.cond = threading.Condition()
        self.want = None  # (id, game, start, moves, done): the newest the PC knows
        self.club = {}  # game id -> the ply the club has
        self.stopping = False
        self.sent = 0  # posts the club took (for tests and the summary)
        self.connections = 0  # connections made: one while the club stays up
        self.settled = None  # (id, ply, done) the club has, or refused for good
        self.thread = threading.Thread(target=self._run, daemon=True, name="club-stream")
        self.thread.start()

    def update(
        self, gid: str, game: str, start: str | None, moves: Iterable[str], done: bool
    ) -> None:
        with self.cond:
            self.want = (gid, game, start, list(moves), done)
            self.cond.notify()

    conn = None

    def _post(self, body: dict[str, Any]) -> tuple[int | None, Any]:
        """(status, JSON answer) on the one connection; None when the club is out of reach."""
        u = urllib.parse.urlsplit(self.url)
        data = json.dumps(body).encode()
        for attempt in (0, 1):  # a kept connection the server closed meanwhile: once more
            fresh = self.conn is None
            if fresh:
                cls = (
                    http.client.HTTPSConnection
                    if u.scheme == "https"
                    else http.client.HTTPConnection
                )
                self.conn = cls(u.hostname, u.port, timeout=TIMEOUT)
                self.connections += 1
            try:
                self.conn.request(
                    "POST",
                    u.path.rstrip("/") + "/api/live",
                    body=data,
                    headers={
                        "Authorization": "Bearer " + self.token,
                        "Content-Type": "application/json",
                    },
                )
                r = self.conn.getresponse()
                raw = r.read(65536)
                if r.getheader("connection", "").lower() == "close":
                    self._drop()
                try:
                    return r.status, json.loads(raw or b"{}")
                except ValueError:
                    return r.status, {"error": "HTTP %d" % r.status}
            except (OSError, http.client.HTTPException) as e:
                self._drop()
                if fresh or attempt:
                    return None, {"error": str(e)[:200] or type(e).__name__}
        return None, {"error": "no answer"}

    def _drop(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def _run(self) -> None:
        while True:
            with self.cond:
                while not self.stopping and (self.want is None or self._settled(self.want)):
                    self.cond.wait()
                if self.want is None or self._settled(self.want):
                    return  # stopping, and the club has all there is
                gid, game, start, moves, done = self.want
            frm = min(self.club.get(gid, 0), len(moves))
            status, ans = self._post(
                {
                    "id": gid,
                    "game": game,
                    "start": start,
                    "from": frm,
                    "moves": moves[frm:],
                    "done": done,
                }
            )
            if status == 200:
                self.club[gid] = ans.get("ply", len(moves))
                self.settled = (gid, len(moves), done)
                self.sent += 1
                continue
            if status == 409 and isinstance(ans.get("ply"), int):
                # The club has another ply than we guessed: resume from there (from the
                # start if it has more than we do: another game under this id).
                self.club[gid] = ans["ply"] if ans["ply"] <= len(moves) else 0
                continue
            if self.on_error:
                self.on_error("club: %s" % (ans.get("error") or "HTTP %s" % status))
            if status in (400, 401, 403, 413, 422):
                self.settled = (gid, len(moves), done)  # refused for good: wait for news
                continue
            with self.cond:  # offline or busy: try again in a moment
                if not self.stopping:
                    self.cond.wait(RETRY_S)
                if self.stopping:
                    return

    def _settled(self, want: tuple[str, str, str | None, list[str], bool]) -> bool:
        gid, _, _, moves, done = want
        return self.settled == (gid, len(moves), done)

    def close(self, wait: float = 5.0) -> None:
        with self.cond:
            self.stopping = True
            self.cond.notify()
        self.thread.join(wait)
        if not self.thread.is_alive():
            self._drop()


SEAT_POLL_S = 3.0  # how often the PC asks the club for the board's seat
UNSENT = ("unsent",)  # the board's seat is not known: told again (a board back, a gap)


def check_seat(seat: object) -> tuple[int, int, int, str] | None:
    """(round, table, tournament, game) of the club's answer to /api/seat, checked as the
    board would (protocol.SCHEMA); None for none, ValueError for one out of range."""
    if seat is None:
        return None
    if not isinstance(seat, dict):
        raise ValueError("a seat is an object")
    out = []
    for name, lo, hi in (("round", 1, 99), ("table", 1, 99), ("tournament", 1, 65535)):
        v = seat.get(name)
        if type(v) is not int or not lo <= v <= hi:
            raise ValueError("seat %s is not an integer %d..%d" % (name, lo, hi))
        out.append(v)
    if seat.get("game") not in GAMES:
        raise ValueError("seat game is not one of %s" % ", ".join(GAMES))
    return out[0], out[1], out[2], seat["game"]


class SeatPoller:
    """Asks the club every SEAT_POLL_S which tournament game the board is seated for
    (GET /api/seat); `seat` is the newest answer, UNSENT until the first one."""

    def __init__(
        self, url: str, token: str, on_error: Callable[[str], object] | None = None
    ) -> None:
        self.url = url
        self.token = token
        self.on_error = on_error
        self.seat: Any = UNSENT
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name="club-seat")
        self.thread.start()

    def _run(self) -> None:
        told = None
        while not self.stop.is_set():
            status, ans = request(self.url, "api/seat", self.token)
            why = None
            if status == 200 and isinstance(ans, dict):
                try:
                    self.seat = check_seat(ans.get("seat"))
                except ValueError as e:
                    why = "the club's seat for this board is refused: %s" % e
            elif status == 404:
                self.seat = None  # a club without tournament seats: nothing to show
                return
            else:
                why = "club: %s" % (ans.get("error") if isinstance(ans, dict) else status)
            if why and why != told and self.on_error:
                self.on_error(why)
            told = why
            self.stop.wait(SEAT_POLL_S)

    def close(self) -> None:
        self.stop.set()


def watcher_class(sender: Sender, seats: SeatPoller | None = None) -> type[Watcher]:
    class ClubWatcher(Watcher):
        told: Any = UNSENT  # the seat the board was told

        def join(self, link: BoardLink) -> None:
            self.told = UNSENT  # the board may have restarted: tell it again
            Watcher.join(self, link)

        def tick(self, link: BoardLink) -> None:
            want = seats.seat if seats is not None else UNSENT
            if want is UNSENT or want == self.told:
                return
            try:
                if want is None:
                    link.seat(0)
                else:
                    link.seat(*want)
                    self.say("seated: round %d, table %d (tournament %d)" % want[:3])
            except BoardLinkError as e:
                if e.code not in (P.E_UNKNOWN_TYPE, P.E_BAD_PAYLOAD):
                    raise  # no answer: the board is gone (watch waits for it)
                self.say("the board cannot show its seat: %s" % " ".join(str(e).split()))
            self.told = want

        def _store(self, final: bool = False) -> None:
            Watcher._store(self, final)
            done = final or self.state.outcome() is not None
            rec = Record.from_state(self.state, Id=self.gid, Device=self.device)
            sender.update(
                self.gid,
                self.state.game.name,
                rec.header.get("Position"),
                list(self.state.iter_moves()),
                done,
            )

    return ClubWatcher
