"""`bawo club stream`: follow the board as `bawo watch` does (the same Watcher, the same live
rows in the PC's log) and send each move to the club.

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

from shared_rules.record import Record

from ..watch import Watcher
from .client import TIMEOUT

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


def watcher_class(sender: Sender) -> type[Watcher]:
    class ClubWatcher(Watcher):
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
