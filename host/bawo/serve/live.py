"""The live board: one thread owns the link, follows the board with bawo.watch.Watcher (the
same logic and the same live log rows as `bawo watch`), and publishes what the page shows to
every open page through the Hub. It reconnects by itself when the board goes away."""

from __future__ import annotations

import asyncio
import io
import queue
import threading
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from bawo_firmware import protocol as _P
from shared_rules import GAMES, game as make_game
from shared_rules.record_end import end_error

from ..sim.draw import result_line
from ..errors import BawoError
from .. import ports
from ..db import Log
from ..text import safe
from ..boardlink import BoardLinkError
from ..watch import Watcher, agreed_line
from . import boardview as B

if TYPE_CHECKING:
    from ..boardlink import BoardLink

RETRY_S = 0.5  # between connection attempts while no board answers
HEARTBEAT_S = 1.5  # a silent board is asked for its position this often (a pty never EOFs)


class Hub:
    """Fan-out of JSON messages from the bridge thread to the pages' SSE streams."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.subs: set[asyncio.Queue[dict[str, Any]]] = set()
        # The latest message of each type: a new page starts from these.
        self.last: dict[str, dict[str, Any]] = {}
        self.lock = threading.Lock()

    def subscribe(self) -> asyncio.Queue[dict[str, Any]]:
        q: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=256)
        with self.lock:
            self.subs.add(q)
            for t in ("status", "position"):
                if t in self.last:
                    q.put_nowait(self.last[t])
        return q

    def unsubscribe(self, q: asyncio.Queue[dict[str, Any]]) -> None:
        with self.lock:
            self.subs.discard(q)

    def publish(self, msg: dict[str, Any]) -> None:
        with self.lock:
            if msg["type"] in ("status", "position"):
                self.last[msg["type"]] = msg
            subs = list(self.subs)
        if self.loop is None:
            return
        for q in subs:
            self.loop.call_soon_threadsafe(_offer, q, msg)


def _offer(q: asyncio.Queue[dict[str, Any]], msg: dict[str, Any]) -> None:
    try:
        q.put_nowait(msg)
    except asyncio.QueueFull:  # a page that stopped reading loses old messages, not memory
        pass


def _result_text(kind: str, pos: dict[str, Any]) -> str:
    """The board's result of its game, in the words `bawo play` uses: 'South wins (...)'."""
    r = pos.get("result")
    if not isinstance(r, dict):
        return "game over"
    who, why = r.get("result"), str(r.get("reason") or "")[:80]
    if kind in GAMES and isinstance(who, str) and end_error(make_game(kind), who, why) is None:
        # Resigned, drawn by agreement, lost on time: as `bawo watch` says it.
        return agreed_line(make_game(kind), who, why)
    return result_line(kind, None if who == "draw" else str(who)[:8], why, pos.get("position"))


class _Say(io.TextIOBase):
    """Watcher's messages become the page's one-line notices."""

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge

    def write(self, text: str) -> int:
        text = text.strip()
        if text:
            self.bridge.note = text.splitlines()[-1][:300]
        return len(text)


class _LaterLog:
    """The Watcher's log, written after the page has been told: the page does not wait for the
    disk (the row is written, committed, a few ms later, as `bawo watch` writes it)."""

    def __init__(self, log: Log) -> None:
        self.log = log
        self.todo: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def add(self, *a: Any, **kw: Any) -> None:
        self.todo.append((a, kw))

    def flush(self) -> None:
        todo, self.todo = self.todo, []
        for a, kw in todo:
            self.log.add(*a, **kw)


class _Release(Exception):
    """Leave the link: a command needs the port for itself (flash: mpremote opens it)."""


def flash_step(line: str) -> tuple[int, int] | None:
    """(k, n) from bawo flash's per-file line '  k/n path (size B)' (file k of n is being
    copied), else None: what the board page's percentage bar follows."""
    head = line.split(None, 1)
    if not line.startswith("  ") or not head:
        return None
    k_text, _, n_text = head[0].partition("/")
    if not (k_text.isdigit() and n_text.isdigit() and len(k_text) <= 5 and len(n_text) <= 5):
        return None
    k, n = int(k_text), int(n_text)
    return (k, n) if 1 <= k <= n else None


def _free(v: object) -> str:
    # A count of bytes from the board: shown only if it is one (-1: the board could not tell).
    if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 1 << 40:
        return size(v)
    return "unknown"


def size(n: float) -> str:
    """n bytes as a person reads them: '812 bytes', '793 KB', '78.4 GB' (KB = 1024 bytes,
    as the board's own tools count flash)."""
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return ("%d %s" if unit == "bytes" or n >= 100 else "%.1f %s") % (n, unit)
        n /= 1024.0
    raise AssertionError("not reached: the loop returns at GB")


def facts(hello: dict[str, Any]) -> dict[str, Any]:
    """What the board page shows of a HELLO answer, every value checked: the names of
    docs/protocol.md (board, fw) or the older ones (device, firmware), versions in words;
    free flash and heap as a person reads a size (size()), or 'unknown' from a firmware
    that does not say."""
    out: dict[str, Any] = {}
    for k, alt in (
        ("device", "board"),
        ("firmware", "fw"),
        ("rules", None),
        ("profile", None),
        ("games", None),
        ("proto", None),
    ):
        v = hello.get(k)
        if v is None and alt:
            v = hello.get(alt)
        if isinstance(v, list):
            v = [str(x)[:32] for x in v[:16]]
        elif v is not None:
            v = str(v)[:64]
        if v is not None:
            out[k] = v
    how = ports.install_words(hello)  # as bawo flash --dry-run says it
    if how:
        out["installed as"] = how
    if "proto" in out:  # docs/protocol.md's version, in words
        out["protocol"] = "version %s" % out.pop("proto")
    if "rules" in out:
        out["rules"] = "version %s" % out["rules"]
    out["flash free"] = _free(hello.get("flash_free"))
    out["heap free"] = _free(hello.get("heap_free"))
    return out


def sync_with_club(link: BoardLink, log: Log) -> dict[str, Any]:
    """The page's Sync, as `bawo sync`: the board's games into the log, and each record the
    log holds queued for the club when this PC joined one (the club's outbox, in the log's
    file) before the board is told it may forget it. The delivery to the club is the page's
    (page_live), off this thread: the board is not kept waiting on the network."""
    from ..club.client import held_hook, load_config
    from ..sync import sync

    note = None
    try:
        club = load_config()
    except BawoError as e:  # a damaged club.json never keeps the games on the board
        club, note = None, "%s; synced without the club" % e
    out = sync(link, log, held=held_hook(log, club)).to_dict()
    if note:
        out["club"] = {"error": note}
    return out


class Bridge:
    def __init__(
        self,
        hub: Hub,
        db_path: str,
        port: str | None = None,
        sim: str | None = None,
        enabled: bool = True,
    ) -> None:
        self.hub = hub
        self.db_path = db_path
        self.port = port
        self.sim = sim
        self.enabled = enabled
        self.stop = threading.Event()
        self.commands: queue.Queue[tuple[str, Any, threading.Event, dict[str, Any]]] = queue.Queue()
        self.info: dict[str, Any] | None = None
        self.note = ""
        self.thread: threading.Thread | None = None
        self.watcher: Watcher | None = None

    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, name="bawo-live", daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join(5)

    def status(self, connected: bool, text: str) -> None:
        # The page shows the board's text as the CLI does: controls and bidi marks escaped.
        board = None
        if connected and self.info:
            board = {
                k: [safe(x) for x in v] if isinstance(v, list) else safe(v)
                for k, v in self.info.items()
            }
        self.hub.publish(
            {
                "type": "status",
                "connected": connected,
                "text": safe(text),
                "board": board,
                "t": time.time() * 1000,
            }
        )

    # -- commands from the page, run in this thread (the link is not shared) ------------------
    def call(self, name: str, arg: Any = None, timeout: float = 120) -> Any:
        """Run a command on the link thread; returns its result or raises BawoError."""
        if not self.enabled:
            raise BawoError("no board is followed: start `bawo serve` without --no-board")
        done = threading.Event()
        box: dict[str, Any] = {}
        self.commands.put((name, arg, done, box))
        if not done.wait(timeout):
            raise BawoError("the board did not answer in time: check it is plugged in")
        if "error" in box:
            raise BawoError(box["error"])
        return box["result"]

    def _run(self) -> None:
        if not self.enabled:
            self.status(False, "not following a board (started with --no-board)")
            return
        log = Log(self.db_path)
        said = None
        try:
            while not self.stop.is_set():
                try:
                    ser, link, info = ports.connect(self.port, self.sim, timeout=1.0)
                except (BawoError, OSError) as e:
                    msg = "no board: %s" % e
                    if msg != said:
                        if "busy" in str(e):  # ports.explain_open_error: another program has it
                            self.status(
                                False,
                                "the board's port is in use by another program "
                                "(`bawo club play` during a remote game, `bawo "
                                "watch`): this page follows the board once it is free",
                            )
                        else:
                            self.status(
                                False,
                                "no board connected: plug the board in or start "
                                "`bawo sim`; this page reconnects by itself",
                            )
                        said = msg
                    self._fail_commands("no board is connected: plug it in and try again")
                    self.stop.wait(RETRY_S)
                    continue
                said = None
                self.info = facts(info)
                flash_req = None
                try:
                    self._follow(link, log)
                except _Release as r:
                    flash_req = r.args[0]
                except Exception as e:  # unplugged, or the board stopped answering
                    self.status(False, "board disconnected (%s): reconnecting" % str(e)[:200])
                finally:
                    try:
                        ser.close()
                    except Exception:
                        pass
                if flash_req is not None:
                    self._flash(*flash_req)
        finally:
            log.close()

    def _fail_commands(self, text: str) -> None:
        while True:
            try:
                _, _, done, box = self.commands.get_nowait()
            except queue.Empty:
                return
            box["error"] = text
            done.set()

    def _follow(self, link: BoardLink, log: Log) -> None:
        assert self.info is not None  # the board's HELLO, set when it connected
        device = str(self.info.get("device") or "board")
        later = _LaterLog(log)
        w = Watcher(later, device, _Say(self), draw_board=False)
        self.watcher = w
        self._count_games(link)
        self.status(True, "connected to %s" % device)
        w.join(link)  # the board's game from its first ply, as `bawo watch` takes it up
        cur = None
        if w.state is None:  # none, or one that ended before we came: the board's picture
            try:
                cur = link.position()
            except BoardLinkError:
                pass
        later.flush()
        self._publish_position(
            w, cur, logged=bool(cur and cur.get("id") is not None and log.get(str(cur["id"])))
        )
        quiet_since = time.monotonic()
        while not self.stop.is_set():
            self._run_commands(link, log, w)
            evs = link.poll_events(0.05)
            if evs:
                quiet_since = time.monotonic()
            for ev in evs:
                self._event(link, w, ev, device)
            later.flush()
            if time.monotonic() - quiet_since > HEARTBEAT_S:
                link.retries = 1
                try:
                    link.position()
                finally:
                    link.retries = 3
                quiet_since = time.monotonic()

    def _event(self, link: BoardLink, w: Watcher, ev: dict[str, Any], device: str) -> None:
        """One EVENT: the Watcher logs it, the pages are told. A gap (a move the events
        missed, or an end before its last move) is filled from the board's move list."""
        t_recv = time.time() * 1000
        before = (
            (w.state.game.name, w.state.game.format(w.state.position))
            if w.state is not None
            else None
        )
        kind = w.handle(ev)
        if kind == "gap":
            w.join(link)
            if w.state is None and w.ended is None:
                return  # nothing the board can tell of: the next start is followed
            kind = "end" if w.state is None else "joined"
        if kind == "move" and w.state is not None:
            self._publish_position(w, None, t_recv, ev.get("move"))
            if before is not None and before[0] == w.state.game.name:
                try:
                    frames = B.sowing(before[0], before[1], ev.get("move") or "")
                except Exception:
                    frames = []
                self.hub.publish({"type": "sow", "ply": w.state.ply, "frames": frames})
        elif kind in ("start", "end", "joined"):
            if kind == "end":
                self._count_games(link)
                self.status(True, "connected to %s" % device)
            self._publish_position(w, None, t_recv)

    def _flash(self, profile: str, done: threading.Event, box: dict[str, Any]) -> None:
        """`bawo flash` itself (bawo.flash.run: the same build, copy, SHA-256 checks and
        messages), with the port released; each message goes to the pages as it is said."""
        from .. import flash

        lines: list[str] = []

        def say(msg: str) -> None:
            lines.append(msg)
            m: dict[str, Any] = {"type": "flash", "text": msg, "done": False}
            step = flash_step(msg)
            if step:
                m["step"], m["of"] = step
            self.hub.publish(m)

        self.status(False, "updating the firmware: the board is busy")
        try:
            flash.run(profile=profile, port=self.port, sim=self.sim or None, say=say)
            box["result"] = {"ok": True, "lines": lines}
            self.hub.publish(
                {"type": "flash", "text": "firmware updated", "done": True, "ok": True}
            )
        except (BawoError, OSError) as e:
            box["error"] = "firmware update failed: %s" % e
            self.hub.publish({"type": "flash", "text": box["error"], "done": True, "ok": False})
        done.set()

    def _count_games(self, link: BoardLink) -> None:
        """The board page's record counts: games on the board's flash, and not yet synced."""
        from ..sync import pending

        games = link.list_games()
        assert self.info is not None  # connected
        self.info["records on the board"] = len(games)
        self.info["unsynced"] = len(pending(games))

    def _publish_position(
        self,
        w: Watcher,
        board_pos: dict[str, Any] | None,
        t_recv: float | None = None,
        last: str | None = None,
        logged: bool = False,
    ) -> None:
        """What the live page shows: the game followed, else the one that ended last (its
        final position, the winner and the reason stay until the next game), else the board's
        own picture of a game we did not follow. replay: the game's page, once it is logged."""
        msg: dict[str, Any] = {
            "type": "position",
            "t_recv": t_recv or time.time() * 1000,
            "note": self.note,
        }
        s = w.state or w.final
        if s is not None:
            g = s.game
            over = w.state is None or s.outcome() is not None
            msg.update(
                game=g.name,
                id=w.gid,
                ply=s.ply,
                moves=list(s.moves),
                last=last or (s.moves[-1] if s.ply else None),
                result=w.result_text() if over else None,
                over=over,
                picture=B.picture(g.name, g.format(s.position)),
            )
            logged = over and w.unlogged != w.gid
        elif board_pos and isinstance(board_pos.get("position"), str):
            kind = board_pos.get("kind") or board_pos.get("game") or "bawo"
            kind = {"baghchal": "bagh-chal"}.get(kind, kind)
            over = board_pos.get("mode") == "over" or bool(board_pos.get("result"))
            try:
                msg.update(
                    game=kind,
                    id=board_pos.get("id"),
                    ply=board_pos.get("ply"),
                    last=None,
                    result=_result_text(kind, board_pos) if over else None,
                    over=over,
                    picture=B.picture(kind, board_pos["position"]),
                )
            except Exception:
                msg.update(game=None)
            logged = logged and over
        else:
            msg.update(game=None)
        if msg.get("game") and logged and msg.get("id") is not None:
            msg["replay"] = "/game/" + quote(str(msg["id"]), safe="")
        self.hub.publish(msg)

    def _run_commands(self, link: BoardLink, log: Log, w: Watcher) -> None:
        while True:
            try:
                name, arg, done, box = self.commands.get_nowait()
            except queue.Empty:
                return
            try:
                if name == "move":
                    # Its EVENTs (the move, then the end of a game it finishes) came before
                    # the reply and wait, in order, for the next poll_events.
                    try:
                        box["result"] = link.move(arg)
                    except BoardLinkError as e:
                        if e.code != _P.E_ILLEGAL_MOVE:
                            raise
                        raise BawoError(e.words)  # the rules' words, as the person typed it
                elif name == "sync":
                    box["result"] = sync_with_club(link, log)
                    self._count_games(link)
                    assert self.info is not None  # connected
                    self.status(True, "connected to %s" % (self.info.get("device") or "board"))
                elif name == "flash":
                    raise _Release((arg, done, box))
                elif name == "info":
                    box["result"] = link.hello()
                else:
                    box["error"] = "unknown command"
            except BawoError as e:
                box["error"] = str(e)
            except _Release:
                raise
            except Exception as e:
                box["error"] = "the board did not answer: %s" % e
                done.set()
                raise
            done.set()
