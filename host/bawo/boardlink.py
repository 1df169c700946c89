"""Host end of the board link (docs/protocol.md) over any pyserial-like port."""

from __future__ import annotations

import collections
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

from bawo_firmware import protocol as P

from .errors import BawoError

POLL_S = 0.05  # port read timeout; a read returns as soon as a byte arrives
MAX_PAGES = 1000  # POSITION pages of one move list: ~50 moves each, games end long before


class BoardLinkError(BawoError):
    """A failed exchange with the board. code: protocol error code, or None for link failures.
    The board's own LinkError (firmware/link.py) answers a request with an ERROR frame; this is
    the host's side of it, named apart so that one name means one class."""

    def __init__(self, message: str, code: int | None = None, words: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.words = words or message  # the board's own text, for a person (no codes)


class ReplyError(BoardLinkError):
    """A reply that arrived whole (its CRC right) but is not what the protocol says: a broken
    or hostile board. Nothing of it has been used."""


# Bounds on what a board may make a host do (docs/protocol.md, "Field ranges"): LIST's start
# is 0..65535, GET's off below P.OFF_MAX; a record on a Pico is a few kB, 12 kB for a long game.
MAX_GAMES = 65536
MAX_RECORD = 256 * 1024
CRC_MAX = 0xFFFFFFFF


def _int(r: Any, name: str, lo: int, hi: int, what: str) -> int:
    v = r.get(name) if isinstance(r, dict) else None
    if type(v) is not int or not lo <= v <= hi:  # bool is not int here
        raise ReplyError(
            "the board sent a malformed %s reply: %s is %s, not an integer in %d..%d"
            % (what, name, _show(v), lo, hi)
        )
    return v


def _show(v: object) -> str:
    t = repr(v)
    return t if len(t) <= 24 else t[:21] + "..."


def game_id_ok(gid: object) -> bool:
    """A game id as the protocol allows one (never a path): '<board>-<n>', 6..40 characters."""
    if type(gid) is not str or not 6 <= len(gid) <= 40 or not gid.isascii():
        return False
    return P.id_ok(gid.encode())


def _event_ok(ev: Any) -> bool:
    """An EVENT payload a host may use: a dict with an "ev"; an "offer" names the game and
    what is offered (resign or draw). Others pass as they are (their readers check them)."""
    if not isinstance(ev, dict):
        return False
    if ev.get("ev") == P.EV_OFFER:
        return game_id_ok(ev.get("id")) and ev.get("what") in ("resign", "draw")
    return True


def _listed(g: Any) -> dict[str, Any]:
    """One LIST entry, checked: a dict with a game id, 'synced' a bool if there, 'crc' an
    unsigned 32-bit int or absent (an older board: its records are fetched, never just acked)."""
    if not isinstance(g, dict) or not game_id_ok(g.get("id")):
        raise ReplyError(
            "the board sent a malformed LIST reply: entry %s has no valid game id" % _show(g)
        )
    for k in ("synced", "acked", "done", "finished"):
        if g.get(k) is not None and type(g[k]) is not bool:
            raise ReplyError(
                "the board sent a malformed LIST reply: %s of %s is %s, not true/false"
                % (k, g["id"], _show(g[k]))
            )
    if g.get("crc") is not None:
        _int(g, "crc", 0, CRC_MAX, "LIST")
    return g


NOMEM_TRIES = 5  # a request the board had no room for, asked again (BoardLink.request)
NOMEM_PAUSE_S = 0.2


class BoardLink:
    """Request/response client. port: has read(n), write(b) and a timeout attribute."""

    def __init__(
        self, port: Any, timeout: float = 2.0, retries: int = 3, busy_s: float = 10.0
    ) -> None:
        self.port = port
        self.timeout = timeout
        self.retries = retries
        self.busy_s = busy_s  # how long to ask again while the board answers busy (6)
        self.parser = P.Parser()
        self._seq = int.from_bytes(os.urandom(2), "big") % P.SEQ_MAX
        self._events: collections.deque[dict[str, Any]] = collections.deque()
        self._seen_events: collections.deque[tuple[int, int]] = collections.deque(maxlen=64)
        self.info: dict[str, Any] | None = None
        self.stats: collections.Counter[str] = collections.Counter()
        try:
            port.timeout = POLL_S
        except (AttributeError, ValueError):
            pass

    # --- transport -------------------------------------------------------------------------

    def _send(self, frame: bytes) -> None:
        self.port.write(frame)
        flush = getattr(self.port, "flush", None)
        if flush:
            flush()

    def _read_results(self) -> list[Any]:
        data = self.port.read(1)
        if not data:
            return []
        n = getattr(self.port, "in_waiting", 0)
        if n:
            data += self.port.read(n)
        return self.parser.feed(data)

    def _on_unsolicited(self, r: Any) -> bool:
        """Handle frames that are not the awaited reply. Returns True if it was a NAK for us."""
        if not isinstance(r, P.Frame):
            self.stats["naks_sent"] += 1
            self._send(P.encode(r.seq, P.NAK))
            return False
        if r.type == P.EVENT:
            self._send(P.encode(r.seq, P.ACK))
            key = (r.seq, r.crc)
            if key not in self._seen_events:  # a resend of an event we already queued
                self._seen_events.append(key)
                if _event_ok(r.payload):
                    self._events.append(r.payload)
                else:
                    self.stats["bad_events"] += 1
            return False
        return r.type == P.NAK

    def request(
        self, typ: int, payload: dict[str, Any] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        """Send one request and return the OK payload (dict). Raises BoardLinkError. A board busy
        thinking (error 6) is asked again, each time as a new request, for busy_s seconds:
        NEW and MOVE stop its search, a sync's requests wait for it (at most ~2 s). A request
        that changes nothing but a sync mark (not NEW, MOVE) is asked again NOMEM_TRIES times
        when the board had no room for it (error 9, "memory allocation failed"): a board's
        heap has room again a moment later (docs/protocol.md)."""
        until = time.monotonic() + self.busy_s
        nomem = 0
        while True:
            try:
                return self._request_once(typ, payload, timeout)
            except BoardLinkError as e:
                if (
                    e.code == P.E_INTERNAL
                    and typ not in (P.NEW, P.MOVE, P.END)
                    and "memory" in str(e)
                    and nomem < NOMEM_TRIES
                ):
                    nomem += 1
                    self.stats["nomem"] += 1
                    time.sleep(NOMEM_PAUSE_S)
                    continue
                if e.code != P.E_BUSY or time.monotonic() > until:
                    raise
                self.stats["busy"] += 1
                time.sleep(0.05)

    def _request_once(
        self, typ: int, payload: dict[str, Any] | None, timeout: float | None
    ) -> dict[str, Any]:
        self._seq = P.next_seq(self._seq)
        seq = self._seq
        frame = P.encode(seq, typ, payload)
        timeout = self.timeout if timeout is None else timeout
        tries = 0
        while True:
            tries += 1
            if tries > 1:
                self.stats["resends"] += 1
            self._send(frame)
            deadline = time.monotonic() + timeout
            resend = False
            while not resend and time.monotonic() < deadline:
                for r in self._read_results():
                    if isinstance(r, P.Frame) and r.seq == seq and r.type in (P.OK, P.ERROR):
                        return self._reply(r, typ)
                    if self._on_unsolicited(r) and r.seq in (seq, 0):
                        self.stats["naks_received"] += 1
                        resend = True
            if not resend:
                self.stats["timeouts"] += 1
            if tries > self.retries:
                raise BoardLinkError(
                    "no valid reply from the board to %s after %d tries: check the cable/port and "
                    "that the Bawo firmware is running (not the REPL)" % (typ, tries)
                )

    def _reply(self, r: Any, typ: int) -> dict[str, Any]:
        if r.ver != P.VERSION:
            raise BoardLinkError(
                "board speaks protocol v%d, this host v%d: update the %s"
                % (r.ver, P.VERSION, "host tools" if r.ver > P.VERSION else "firmware")
            )
        if r.type == P.ERROR:
            code = r.payload.get("code")
            text = r.payload.get("text") or P.ERROR_TEXT.get(code, "error")
            raise BoardLinkError("board refused %s: error %s (%s)" % (typ, code, text), code, text)
        return r.payload

    # --- typed helpers ---------------------------------------------------------------------

    def hello(self) -> dict[str, Any]:
        info = self.request(P.HELLO, {"proto": P.VERSION, "host": "bawo-host"})
        _int(info, "proto", 0, 65535, "HELLO")
        for k in ("board", "fw", "profile", "build", "image"):
            if info.get(k) is not None and (type(info[k]) is not str or len(info[k]) > 64):
                raise ReplyError(
                    "the board sent a malformed HELLO reply: %s is %s" % (k, _show(info[k]))
                )
        self.info = info
        return info

    def set_time(self, t: float | None = None) -> None:
        self.request(P.TIME, {"t": int(time.time() if t is None else t)})

    def list_games(self) -> list[dict[str, Any]]:
        """Every LIST page, each checked whole: next is where the page ends (start + its
        games) and never past total, total at most MAX_GAMES, so the pages end."""
        games: list[dict[str, Any]] = []
        start: int | None = 0
        total = None
        while start is not None:
            page = self.request(P.LIST, {"start": start})
            got = page.get("games")
            if not isinstance(got, list):
                raise ReplyError("the board sent a malformed LIST reply: no list of games")
            n = _int(page, "total", 0, MAX_GAMES, "LIST")
            if total is not None and n != total:
                raise ReplyError("the board's list of games changed while it was read: sync again")
            total = n
            if _int(page, "start", start, start, "LIST") + len(got) > total:
                raise ReplyError("the board sent a malformed LIST reply: more games than its total")
            nxt = page.get("next")
            if nxt is not None:
                _int(page, "next", start + 1, total - 1, "LIST")
                if nxt != start + len(got):
                    raise ReplyError(
                        "the board sent a malformed LIST reply: next is %s after %d "
                        "games from %d" % (_show(nxt), len(got), start)
                    )
            games.extend(_listed(g) for g in got)
            start = nxt
        return games

    def fetch_record(
        self,
        game_id: str,
        progress: Callable[[int, int], None] | None = None,
        chunk: int = P.MAX_CHUNK,
    ) -> bytes:
        """Fetch a whole game record (bytes) in chunks; verifies the record's CRC32. Every
        reply is checked whole (ReplyError), the record is at most MAX_RECORD bytes and each
        chunk brings some: a fetch ends."""
        out = bytearray()
        total, crc = None, None
        while total is None or len(out) < total:
            r = self.request(P.GET, {"id": game_id, "off": len(out), "n": chunk})
            if r.get("id") != game_id:
                raise ReplyError(
                    "the board answered GET %s with record %s" % (game_id, _show(r.get("id")))
                )
            t = _int(r, "total", 0, MAX_RECORD, "GET")
            c = _int(r, "crc", 0, CRC_MAX, "GET")
            if _int(r, "off", 0, P.OFF_MAX, "GET") != len(out) or (
                total is not None and (t, c) != (total, crc)
            ):
                raise ReplyError("record %s changed while being fetched: fetch it again" % game_id)
            total, crc = t, c
            data = r.get("data")
            try:
                if type(data) is not str or len(data) > 4 * ((chunk + 2) // 3):
                    raise ValueError
                data = P.unb64(data)
            except ValueError:  # binascii.Error too
                raise ReplyError(
                    "the board sent a malformed GET reply: data of record %s is not "
                    "base64 of at most %d bytes" % (game_id, chunk)
                )
            if len(data) > min(chunk, total - len(out)):
                raise ReplyError("the board sent more of record %s than asked for" % game_id)
            if not data and len(out) < total:
                raise ReplyError(
                    "board sent an empty chunk of record %s at %d/%d" % (game_id, len(out), total)
                )
            out += data
            if progress:
                progress(len(out), total)
        if len(out) != total or P.crc32(out) != crc:
            raise ReplyError("record %s arrived damaged (CRC mismatch): fetch it again" % game_id)
        return bytes(out)

    def ack_game(self, game_id: str) -> None:
        self.request(P.ACK_GAME, {"id": game_id})

    def position(self, moves: bool = False) -> dict[str, Any]:
        """The board's game (POSITION). moves=True adds its whole move list ('moves') and its
        set-up position ('root'), paged from the board, so a host that joins mid-game has the
        game from its first ply. A board too old to page them: the reply without 'moves'."""
        if not moves:
            return self.request(P.POSITION)
        got: list[str] = []
        gid = None
        for _ in range(MAX_PAGES):
            r = self.request(P.POSITION, {"from": len(got)})
            if "moves" not in r or r.get("id") is None:
                return r
            page, ply = r["moves"], r.get("ply")
            if (
                not isinstance(page, list)
                or not all(isinstance(m, str) for m in page)
                or not isinstance(ply, int)
                or r.get("from") != len(got)
            ):
                raise BoardLinkError(
                    "the board sent a malformed move list for game %s" % r.get("id")
                )
            if gid is not None and r["id"] != gid:
                got = []  # a new game began while paging: start over
                gid = r["id"]
                continue
            gid = r["id"]
            got += page
            if len(got) >= ply:
                r["moves"] = got[:ply]
                return r
            if not page:
                raise BoardLinkError(
                    "the board sent no moves of game %s past ply %d of %d" % (gid, len(got), ply)
                )
        raise BoardLinkError(
            "the board's move list of game %s did not end within %d pages" % (gid, MAX_PAGES)
        )

    def new_game(
        self, kind: str, position: str | None = None, opponent: str | None = None
    ) -> dict[str, Any]:
        """opponent: 'host-first'/'host-second', the side the host plays (the board then
        refuses presses for it), or None for the board's menu setting."""
        p = {"kind": kind}
        if position is not None:
            p["position"] = position
        if opponent is not None:
            p["opponent"] = opponent
        return self.request(P.NEW, p)

    def move(self, text: str) -> dict[str, Any]:
        return self.request(P.MOVE, {"move": text})

    def peer(
        self, here: bool, offer: bool | None = None, bar: int | None = None, low: bool | None = None
    ) -> dict[str, Any]:
        """PEER (a remote game, docs/protocol.md): whether the opponent behind the host's
        side is connected (here), offers a draw (offer), the side to move's clock in eighths
        of its start (bar 0..8, None: no clock) and whether it is low. ValueError for a bar
        out of range, before anything is sent. The board answers {} (ERROR 2: a board too
        old for remote games)."""
        p = {"here": 1 if here else 0}
        if offer is not None:
            p["offer"] = 1 if offer else 0
        if bar is not None:
            if type(bar) is not int or not 0 <= bar <= 8:
                raise ValueError("bar must be an integer 0..8, not %s" % _show(bar))
            p["bar"] = bar
        if low is not None:
            p["low"] = 1 if low else 0
        return self.request(P.PEER, p)

    def end(self, result: str, reason: str) -> dict[str, Any]:
        """END: the host game ends with `result` (the winner's side letter, or "draw") for
        `reason` ("resign", "agreement", "time"); the board's POSITION reply, checked to say
        that end. ValueError for a result or reason the protocol does not know, before
        anything is sent; BoardLinkError code 4 when the board has no host game in progress
        (a retry after a lost reply: read position() instead), 3 a result that does not fit."""
        if result not in P.RESULTS or reason not in P.REASONS:
            raise ValueError(
                "END needs a result of %s and a reason of %s, not %s %s"
                % ("/".join(P.RESULTS), "/".join(P.REASONS), _show(result), _show(reason))
            )
        r = self.request(P.END, {"result": result, "reason": reason})
        if r.get("mode") != "over" or r.get("result") != {"result": result, "reason": reason}:
            raise ReplyError(
                "the board answered END %s %s with %s %s"
                % (result, reason, _show(r.get("mode")), _show(r.get("result")))
            )
        return r

    def seat(
        self, rnd: int, table: int = 1, tournament: int = 1, kind: str | None = None
    ) -> dict[str, Any]:
        """SEAT (docs/protocol.md): a club tournament's round and table for this board, and
        the round's game kind; round 0 takes the seat away. ValueError for a field out of
        the protocol's range (protocol.SCHEMA), before anything is sent; BoardLinkError code 3 for a game the
        board does not play, 2 from a board too old for seats."""
        p: dict[str, Any] = {"round": rnd, "table": table, "tour": tournament}
        if kind is not None:
            p["kind"] = kind
        bad = P.args(P.SEAT, p)  # the board's own check of SEAT (protocol.SCHEMA)
        if isinstance(bad, str):
            raise ValueError("SEAT refused before sending: %s" % bad)
        return self.request(P.SEAT, p)

    # --- events ----------------------------------------------------------------------------

    def poll_events(self, timeout: float = 0.0) -> list[dict[str, Any]]:
        """Read for up to timeout seconds; return the queued events (list of dicts)."""
        deadline = time.monotonic() + timeout
        while True:
            for r in self._read_results():
                self._on_unsolicited(r)
            if self._events or time.monotonic() >= deadline:
                break
        out = list(self._events)
        self._events.clear()
        return out

    def events(
        self, timeout: float | None = None, tick: Callable[[], object] | None = None
    ) -> Iterator[dict[str, Any]]:
        """Yield events as they arrive; stop after timeout seconds without one (None: never).
        tick: called between reads, at least every POLL_S (it may make requests)."""
        last = time.monotonic()
        while True:
            wait = POLL_S
            if timeout is not None:
                wait = timeout if tick is None else min(POLL_S, timeout)
            got = self.poll_events(wait)
            if tick is not None:
                tick()
            if got:
                last = time.monotonic()
                yield from got
            elif timeout is not None and time.monotonic() - last >= timeout:
                return
