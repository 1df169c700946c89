"""Board A of a remote game as the emulated Pico (the frozen image, in real time, power cycles
in the emulator) on its PC: the bridge's way to its USB serial port, and its person pressing
the Pico's buttons. The bridge owns the Pico's port, so the person does not open it: they see
the game as the bridge last read it from the board (Bridge.board_moves, filled from the board's
move EVENTs and POSITION), which is what the board showed them.

The Pico runs in real time (Pico(realtime=True)), as a real board beside its PC does: its
clock (PEER's 10 s away timeout, the animations) never gets ahead of the PC's. Unbounded, the
emulator runs as fast as it can and leaps over the firmware's idle waits (in a host game here,
1.24x the PC's clock on an idle machine); on a loaded machine it falls behind either way, which
only makes the board more patient."""

import random
import threading
import time

from shared_rules import State, game as make_game

from bawo import firmware, sim
from bawo.pico import Pico, PicoError, load_profile, make_flash
from bawo.ports import connect

from _remote_helpers import Proxy

PROFILE = "bawo-4x8"
HOLD_MS = 120  # a pocket held as long as a person holds it (a flash erase can hide 45 ms)
RESIGN_HOLD_MS = 2300  # MENU held 2 s: the resign gesture (docs/visual-language.md)
LINK_TIMEOUT_S = 3.0  # a reply from the emulated Pico; it may run slower than real time
AGAIN_S = 6.0  # a press the board never reported: BACK, and the move again


class PicoPc:
    """The PC with the emulated Pico on its USB. side: the person's side (0 South, 1 North).
    The person's move at each ply is drawn from a generator seeded by (seed, ply), so a move
    pressed again after a power cut is the same move."""

    def __init__(self, tmp, files, club_port, seed, side=0):
        self.name = "pico"
        d = tmp / "pico"
        d.mkdir(parents=True)
        uid = random.Random(seed).randbytes(8)
        self.flash = make_flash(d / "flash.bin", files, uid=uid)
        self.board_id = "pico-" + uid.hex()[-8:]
        self.seed, self.side = seed, side
        self.g = make_game("bawo")
        self.cells = sim.key_of_cell(firmware.profile_path(PROFILE), "bawo")
        self.proxy = Proxy(club_port)
        self.on = threading.Event()  # the Pico has power (its USB is there)
        self.pico = Pico(load_profile(PROFILE), self.flash, realtime=True, power_cycle=True)
        try:
            self.pico.wait_boot(timeout=300)
        except BaseException:
            self.pico.close()
            raise
        self.on.set()
        self.bridge = None  # set once the PC's bridge is made
        self.pressed = None  # (ply, when) of the last move pressed
        self.presses = []  # (ply, move) of every move pressed
        self.cuts = []  # what each power cut hit
        self.faults = {"power": 0, "usb": 0, "net": 0}
        self.resigned = None

    # -- the PC's side -----------------------------------------------------------------------
    def open_board(self):
        """The bridge's way to the board: no port while the Pico has no power."""
        if not self.on.is_set():
            raise OSError("no such device (the Pico is off)")
        ser, link, info = connect(self.pico.port, None, timeout=LINK_TIMEOUT_S)
        return link

    # -- the board ---------------------------------------------------------------------------
    def power_cut(self, inside_flash=False):
        """The power goes, now or (inside_flash) half way through the Pico's next flash write;
        then it comes back: a fresh RP2040 boots from the flash as the cut left it. Returns the
        cut's event (its `busy`: the flash operation it stopped)."""
        cut = None
        if inside_flash:
            cut = self.pico.until_cut(2000)
        self.on.clear()
        if cut is None:
            self.pico.cut()
            cut = [e for e in self.pico.events if e.get("ev") == "cut"][-1]
        self.faults["power"] += 1
        self.cuts.append(cut)
        self.pico.power_on()
        self.pico.wait_boot(timeout=300)
        self.on.set()
        self.pressed = None
        return cut

    def tap(self, key, hold_ms=HOLD_MS):
        self.pico.tap(key, hold_ms=hold_ms, settle=False)

    # -- the person ----------------------------------------------------------------------------
    def seen(self):
        """The game as the board last showed it to its person (the bridge's reading of the
        board), or None before the bridge brought the board into the game."""
        b = self.bridge
        if b is None or b.link is None or b.board_moves is None or not self.on.is_set():
            return None
        s = State(self.g)
        for m in list(b.board_moves):
            s.push(m)
        return s

    def person(self, cut_at=None):
        """Press this side's move if it is this side's turn on the board (again, after BACK,
        if the board never reported it). cut_at: a ply whose press the power cuts (half way
        through the flash write that journals it; once). The ply pressed, or None."""
        s = self.seen()
        if s is None or self.bridge.board_over or s.is_over() or s.turn != self.side:
            return None
        ply = s.ply
        now = time.monotonic()
        if self.pressed is not None and self.pressed[0] == ply:
            if now - self.pressed[1] < AGAIN_S:
                return None
            self.tap(self.pico.back_key)  # a pick left half done: start again
        pos = s.position
        legal = sorted(self.g.legal_moves(pos))
        mv = self.g.move_str(random.Random(self.seed * 1000 + ply + 1).choice(legal), pos)
        keys = sim.presses_for("bawo", self.g.format(pos), mv, self.cells)
        cut = cut_at == ply + 1 and not self.cuts
        for k in keys[:-1]:
            self.tap(k)
        if cut:
            self.pico.cut_inside_flash_op(frac=0.5)
        try:
            self.tap(keys[-1])
        except PicoError:
            if not cut:
                raise
        self.presses.append((ply + 1, mv))
        self.pressed = (ply, time.monotonic())
        if cut:
            self.power_cut(inside_flash=True)
        return ply + 1

    def resign(self):
        """MENU held 2 s on the Pico: the resign offer."""
        self.tap(self.pico.menu_key, hold_ms=RESIGN_HOLD_MS)
        self.resigned = time.monotonic()

    def close(self):
        self.on.clear()
        self.pico.close()
        self.proxy.close()
