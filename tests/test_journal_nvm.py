"""The CircuitPython journal (firmware/journal_nvm.py) under CPython, on a model of
microcontroller.nvm that behaves as CircuitPython 10's raspberrypi port does on the Pico's
flash (common-hal/nvm/ByteArray.c): a write whose target bytes are all 0xFF programs them in
place (programming only clears bits); any other write erases the 4 KiB sector (every byte
0xFF) and programs it again whole. A power cut stops the flash part way: a byte half
programmed, an erase that reached only the sector's first part. The emulator tests in
test_circuitpython.py cut the real thing; this one cuts at every kind of instant, fast."""

import random

import pytest

from journal import seal
from journal_nvm import NvmJournal, SIZE


class PowerCut(BaseException):
    """Not an OSError: nothing in the firmware may catch it, as nothing catches a cut."""


class Nvm:
    """microcontroller.nvm of CircuitPython on an RP2040, with a power cut after `budget`
    flash steps (a byte programmed, 256 bytes erased); rng decides what a torn step leaves."""

    PAGE = 256

    def __init__(self):
        self.mem = bytearray(b"\xff" * SIZE)
        self.budget = None
        self.rng = random.Random(0)
        self.programmed = self.erases = self.steps = 0
        self.erase_steps = []  # self.steps when each erase began

    def __len__(self):
        return SIZE

    def __getitem__(self, s):
        return bytearray(self.mem[s])

    def _step(self):
        self.steps += 1
        if self.budget is not None:
            if self.budget == 0:
                raise PowerCut
            self.budget -= 1

    def _program(self, addr, data):
        for i, v in enumerate(data):
            if self.budget == 0:
                # Torn mid-byte: some of its bits cleared, some not yet.
                self.mem[addr + i] &= v | self.rng.randrange(256)
            self._step()
            self.mem[addr + i] &= v
            self.programmed += 1

    def __setitem__(self, s, values):
        start, stop, _ = s.indices(SIZE)
        values = bytes(values)
        assert len(values) == stop - start, "nvm slices are written whole"
        if all(b == 0xFF for b in self.mem[start:stop]):
            # No erase: each page programmed with what it holds plus the new bytes.
            addr = start
            while addr < stop:
                page = addr - addr % self.PAGE
                end = min(stop, page + self.PAGE)
                buf = bytearray(self.mem[page : page + self.PAGE])
                buf[addr - page : end - page] = values[addr - start : end - start]
                self._program(page, buf)
                addr = end
        else:
            buf = bytearray(self.mem)
            buf[start:stop] = values
            self.erases += 1
            self.erase_steps.append(self.steps)
            for a in range(0, SIZE, self.PAGE):  # an erase cut short: its first part erased
                self._step()
                self.mem[a : a + self.PAGE] = b"\xff" * self.PAGE
            self._program(0, buf)


def moves_of(n, seed=1):
    """n Bawo-like move texts (the journal does not check rules)."""
    rng = random.Random(seed)
    return [
        "%s%d%s" % (rng.choice("abcd"), rng.randrange(1, 9), rng.choice("<>+")) for _ in range(n)
    ]


def journal(tmp_path, nvm):
    return NvmJournal(str(tmp_path / "games"), "cp", nvm=nvm, min_free=0, log=lambda m: None)


def play(j, moves, acked, record="the record\n"):
    h = {"game": "bawo", "opponent": "people", "seed": 3}
    gid = j.start(h)
    for i, m in enumerate(moves):
        j.append(i + 1, m)
        acked.append(m)  # the board shows the move only once append returned
    j.finish(gid, record)
    return gid


def test_a_game_lives_in_nvm_and_only_its_record_on_fat(tmp_path):
    nvm = Nvm()
    j = journal(tmp_path, nvm)
    gid = j.start({"game": "bawo", "opponent": "people", "seed": 3})
    moves = moves_of(40)
    for i, m in enumerate(moves):
        j.append(i + 1, m)
    assert nvm.erases == 0  # appends never erase
    assert sorted(p.name for p in (tmp_path / "games").iterdir()) == ["counter", "counter.2"]
    h, got = journal(tmp_path, nvm).read_current()
    assert h["id"] == gid and got == moves
    j.finish(gid, "rec\n")
    assert nvm.mem == b"\xff" * SIZE and nvm.erases == 1
    assert j.read_record(gid) == "rec\n"
    assert journal(tmp_path, nvm).read_current() is None


def test_a_game_longer_than_the_nvm_goes_on_through_a_checkpoint_in_cur_jnl(tmp_path):
    nvm = Nvm()
    j = journal(tmp_path, nvm)
    moves = moves_of(600)
    h = {"game": "bawo", "opponent": "people", "seed": 3}
    gid = j.start(h)
    for i, m in enumerate(moves):
        j.append(i + 1, m)
        if i in (100, 300, 599):
            assert journal(tmp_path, nvm).read_current()[1] == moves[: i + 1]
    assert nvm.erases >= 2 and (tmp_path / "games" / "cur.jnl").exists()
    j.finish(gid, "rec\n")
    assert not (tmp_path / "games" / "cur.jnl").exists() and nvm.mem == b"\xff" * SIZE


def run_cut(tmp_path, n_moves, budget, seed):
    """Play a game with the power cut after `budget` flash steps; boot again and check the
    journal holds every acknowledged move (and at most the one being written); then finish
    the game from there. Returns what happened."""
    nvm = Nvm()
    nvm.rng = random.Random(seed)
    j = journal(tmp_path, nvm)
    moves = moves_of(n_moves, seed)
    acked = []
    nvm.budget = budget
    try:
        play(j, moves, acked)
        return "no cut"
    except PowerCut:
        pass
    nvm.budget = None
    j = journal(tmp_path, nvm)  # power on again
    cur = j.read_current()
    recs = [p for p in (tmp_path / "games").iterdir() if p.name.endswith(".rec")]
    if cur is None:
        # No game in progress: it never had a move, or it is finished and its record is whole.
        if recs:
            assert len(recs) == 1 and j.read_record(recs[0].name[:-4]) == "the record\n"
            assert acked == moves
        else:
            assert acked == [], "lost %d acknowledged moves" % len(acked)
        assert not j.aside, j.aside
        return "finished" if recs else "empty"
    h, got = cur
    assert got[: len(acked)] == acked, "lost acknowledged moves: %d journaled of %d" % (
        len(got),
        len(acked),
    )
    assert got == moves[: len(got)] and len(got) <= len(acked) + 1
    assert not j.aside, j.aside
    # The game goes on from there after the cut, and ends with its record, nvm erased.
    for i in range(len(got), n_moves):
        j.append(i + 1, moves[i])
    assert journal(tmp_path, nvm).read_current()[1] == moves
    j.finish(h["id"], "the record\n")
    assert j.read_record(h["id"]) == "the record\n" and nvm.mem == b"\xff" * SIZE
    return "resumed"


@pytest.mark.parametrize("n_moves", [30, 250])
def test_power_cuts_at_every_kind_of_instant_lose_no_acknowledged_move(tmp_path_factory, n_moves):
    """Cuts inside every phase (header, appends, a torn byte, the checkpoint's erase and its
    new header, the record, the final erase), seeded; each image boots, keeps every
    acknowledged move, and the game is finished from there."""
    probe = Nvm()
    play(journal(tmp_path_factory.mktemp("probe"), probe), moves_of(n_moves, 0), [])
    total = probe.steps
    rng = random.Random(n_moves)
    # Random instants, and some in and right after every erase (a checkpoint's, the last).
    windows = {e + k for e in probe.erase_steps for k in (0, 1, 8, 15, 16, 17, 40, 4111, 4150)}
    budgets = sorted(
        set(rng.randrange(total + 1) for _ in range(120))
        | {0, 1, total - 1}
        | {b for b in windows if b < total}
    )
    seen = {}
    for k, b in enumerate(budgets):
        what = run_cut(tmp_path_factory.mktemp("cut"), n_moves, b, seed=k)
        seen[what] = seen.get(what, 0) + 1
    assert seen.get("resumed", 0) > 50 and seen.get("finished", 0) >= 1, seen


def test_a_torn_line_is_skipped_and_the_next_move_is_written_after_it(tmp_path):
    nvm = Nvm()
    j = journal(tmp_path, nvm)
    j.start({"game": "bawo", "opponent": "people", "seed": 3})
    j.append(1, "a1>")
    nvm.budget = 7  # move 2 torn after 7 bytes
    with pytest.raises(PowerCut):
        j.append(2, "b2<")
    nvm.budget = None
    j = journal(tmp_path, nvm)
    assert j.read_current()[1] == ["a1>"]
    j.append(2, "c3+")  # not the move that was cut: a person pressed another
    j.append(3, "d4>")
    assert journal(tmp_path, nvm).read_current()[1] == ["a1>", "c3+", "d4>"]
    assert nvm.erases == 0


def test_damage_that_no_cut_makes_is_copied_to_fat_then_erased(tmp_path):
    nvm = Nvm()
    j = journal(tmp_path, nvm)
    j.start({"game": "bawo", "opponent": "people", "seed": 3})
    for i, m in enumerate(moves_of(5)):
        j.append(i + 1, m)
    # Move 3's line replaced by a sound line for ply 7: not a torn write.
    text = bytes(nvm.mem).rstrip(b"\xff")
    lines = text.split(b"\n")
    lines[3] = seal("M 7 a1>")[:-1]
    bad = b"\n".join(lines)
    nvm.mem[: len(bad)] = bad
    j = journal(tmp_path, nvm)
    assert j.read_current() is None
    assert j.aside == ["nvm.jnl.bad"]
    assert (tmp_path / "games" / "nvm.jnl.bad").read_bytes() == bad
    assert nvm.mem == b"\xff" * SIZE


def test_an_erase_cut_short_or_a_torn_header_is_no_game(tmp_path):
    for pattern in (b"\xff" * 300 + b"a2> 01234567\nM 3 b1< 89abcdef\n", b'H {"game": "ba'):
        nvm = Nvm()
        nvm.mem[: len(pattern)] = pattern
        j = journal(tmp_path, nvm)
        assert j.read_current() is None and not j.aside
        j.start({"game": "bawo", "opponent": "people", "seed": 3})
        j.append(1, "a1>")
        assert journal(tmp_path, nvm).read_current()[1] == ["a1>"]
