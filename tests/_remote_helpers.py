"""Two PCs, each with a simulated board on a pty, playing one remote game through a club:
the PC's bridge (bawo.club.bridge), a person pressing moves on each board, and the faults
the tests cut in: a board's power, its USB cable, its PC's network to the club."""

import json
import os
import random
import select
import socket
import threading
import time

from shared_rules import game as make_game

from bawo import sim
from bawo_firmware_sim.simpipe import STATUS
from bawo.ports import connect
from bawo.sim.relay import PtyRelay

SIDE_LETTER = {"host-second": 0, "host-first": 1}  # the board's opponent -> the person's side


class Proxy:
    """A TCP hop between a PC and the club that the test can cut: while cut, every open
    connection is closed and new ones are closed at once (the PC's network is down)."""

    def __init__(self, target_port):
        self.target = ("127.0.0.1", target_port)
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.up = True
        self.conns = []
        self.lock = threading.Lock()
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self):
        return "http://127.0.0.1:%d/" % self.port

    def _accept(self):
        while not self.closed:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            if not self.up:
                c.close()
                continue
            try:
                s = socket.create_connection(self.target, timeout=5)
            except OSError:
                c.close()
                continue
            with self.lock:
                self.conns += [c, s]
            threading.Thread(target=self._pipe, args=(c, s), daemon=True).start()
            threading.Thread(target=self._pipe, args=(s, c), daemon=True).start()

    def _pipe(self, a, b):
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        for x in (a, b):
            try:
                x.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        self.up = False
        with self.lock:
            conns, self.conns = self.conns, []
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
                c.close()
            except OSError:
                pass

    def restore(self):
        self.up = True

    def close(self):
        self.closed = True
        self.cut()
        self.sock.close()


class Pc:
    """One PC: its simulated board (the firmware on the unix port) on a pty, and the hop to
    the club. The board's person presses random legal moves of their side."""

    def __init__(self, tmp, name, board_id, club_port, seed):
        self.name, self.board_id = name, board_id
        self.data = str(tmp / name / "flash")
        self.relay = PtyRelay()
        self.relay.start()
        self.usb = True
        self.proxy = Proxy(club_port)
        self.rng = random.Random(seed)
        self.board = None
        self.power_on()
        self.pressed = None  # (ply, when) of the last move pressed
        self.paused = False  # the person stops pressing (lets a clock run out)
        self.asked = 0.0
        self.last_tap = 0.0  # when the last press went to the board
        self.seen = set()  # what the board showed at least once (away, offered, low time)
        self.status = {}
        self.faults = {"power": 0, "usb": 0, "net": 0}

    # -- the board --
    def power_on(self):
        self.board = sim.BoardProcess(
            "bawo-4x8",
            self.data,
            fake=False,
            speed=8,
            link=self.relay.board_ends(),
            extra_env={"BAWO_BOARD_ID": self.board_id},
        )
        self.status = {}
        self.pressed = None

    def power_cut(self):
        self.board.kill()
        self.faults["power"] += 1
        self.power_on()

    def usb_cut(self):
        """The cable out: the pty goes (the PC's reads fail), bytes in flight are lost; a new
        pty (another port name, as a replug may give) comes with the cable back in."""
        self.usb = False
        old = self.relay
        old.close()
        fresh = PtyRelay()  # a new pty; the board's pipes stay the old ones
        for fd in (fresh.to_board_r, fresh.to_board_w, fresh.from_board_r, fresh.from_board_w):
            os.close(fd)
        fresh.to_board_r, fresh.to_board_w = old.to_board_r, old.to_board_w
        fresh.from_board_r, fresh.from_board_w = old.from_board_r, old.from_board_w
        self.relay = fresh
        self.faults["usb"] += 1

    def usb_back(self):
        if not self.usb:
            self.relay.start()
            self.usb = True

    def net_cut(self):
        self.proxy.cut()
        self.faults["net"] += 1

    def net_back(self):
        self.proxy.restore()

    def open_board(self):
        """The bridge's way to the board: refused while the cable is out."""
        if not self.usb:
            raise OSError("no such device (the USB cable is out)")
        ser, link, info = connect(self.relay.path, None, timeout=1.0)
        return link

    # -- the person --
    def read(self):
        """Take the board's status lines that are waiting; the newest status. The board
        reports itself when its game changes; what only its LEDs show (low time, away) is
        asked for twice a second."""
        b = self.board
        now = time.monotonic()
        if now - self.asked > 0.5:
            b.command(STATUS)
            self.asked = now
        while b.has_line() or select.select([b.stream], [], [], 0)[0]:
            try:
                line = b.readline(timeout=1)
            except sim.SimError:
                break
            if line.startswith("S "):
                self.status = json.loads(line[2:])
                self.seen.update(k for k in ("away", "offered") if self.status.get(k))
                clock = self.status.get("clock")
                if clock and clock[1]:
                    self.seen.add("low time")

    def person(self):
        """Press a move if it is this board's person's turn (again if a press went missing);
        the ply it plays, or None."""
        st = self.status
        if self.paused or not st or st.get("mode") != "play" or st.get("result") or st.get("anim"):
            return None
        side = SIDE_LETTER.get(st.get("opponent"))
        g = make_game(st["game"]) if st.get("game") else make_game("bawo")
        if side is None or st.get("turn") != g.sides[side]:
            return None
        now = time.monotonic()
        if self.pressed is not None and self.pressed[0] == st["ply"] and now - self.pressed[1] < 4:
            return None
        if self.pressed is not None and self.pressed[0] == st["ply"]:
            self.board.tap(self.board.back_key)  # a pick left half done: start again
            time.sleep(0.1)
        pos = g.parse(st["pos"])
        mv = g.move_str(self.rng.choice(sorted(g.legal_moves(pos))), pos)
        cells = sim.key_of_cell(self.board.profile_file, g.name)
        for k in sim.presses_for(g.name, st["pos"], mv, cells):
            self.board.tap(k)
            self.last_tap = time.monotonic()
            time.sleep(0.08)
        self.pressed = (st["ply"], time.monotonic())
        return st["ply"] + 1

    def close(self):
        self.board.kill()
        self.relay.stop = True
        self.relay.close()
        self.proxy.close()


class Said:
    """What a bridge tells its person, kept for a failure's message."""

    def __init__(self):
        self.lines = []

    def write(self, text):
        self.lines.append(text)

    def flush(self):
        pass

    def tail(self):
        return "".join(self.lines[-30:])


class Match:
    """Two PCs with their boards and bridges in one remote game of `kind` at the club at url
    (port: its TCP port; store: its Store, for the boards' tokens)."""

    def __init__(self, tmp, port, store, seed, kind="bawo", limit_s=240, clock=None):
        from bawo.club import remote_client as api

        self.api, self.tmp, self.limit_s = api, tmp, limit_s
        self.pcs = [
            Pc(tmp, "a", "pico-aaaa%04d" % seed, port, seed),
            Pc(tmp, "b", "pico-bbbb%04d" % seed, port, seed + 1),
        ]
        self.toks = []
        for pc in self.pcs:
            from _club_helpers import token_for

            self.toks.append(token_for(store, pc.board_id))
        self.said = [Said(), Said()]
        self.results = {}
        a, b = self.pcs
        self.game = api.seek(a.proxy.url, self.toks[0], kind, "south", b.board_id, clock)["game"]
        self.firsts = [None, api.accept(b.proxy.url, self.toks[1], self.game)]
        self.firsts[0] = api.state(a.proxy.url, self.toks[0], self.game)
        self.threads = [threading.Thread(target=self._run, args=(i,), daemon=True) for i in (0, 1)]
        for t in self.threads:
            t.start()

    def _run(self, i):
        from bawo.club.bridge import Bridge, ClubGame

        pc = self.pcs[i]
        b = Bridge(
            ClubGame(self.api, pc.proxy.url, self.toks[i], self.game),
            pc.open_board,
            str(self.tmp / pc.name / "remote-games.json"),
            self.said[i],
            peer_every=1.0,
            retry_s=0.3,
            poll_wait=3,
        )
        try:
            self.results[i] = b.run(self.firsts[i], timeout=self.limit_s)
        except Exception as e:  # the caller's assertion shows it
            self.results[i] = e

    def playing(self):
        return any(t.is_alive() for t in self.threads)

    def step(self):
        """Read both boards; each person presses if it is their turn. [(pc, ply pressed)]."""
        pressed = []
        for pc in self.pcs:
            pc.read()
            ply = pc.person()
            if ply is not None:
                pressed.append((pc, ply))
        return pressed

    def club_state(self):
        return self.api.state(self.pcs[0].proxy.url, self.toks[0], self.game)

    def close(self):
        for pc in self.pcs:
            pc.close()
