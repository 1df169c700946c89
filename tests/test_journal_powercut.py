"""Power cuts: the journal must resume on the acknowledged position, never lose or corrupt.

Two ways to cut: (1) torn writes: the journal of a real game is truncated at >= 200 seeded
random byte offsets (some also damaged) and booted by the real App inside one MicroPython
process; (2) real SIGKILLs of the simulated board at random instants, including while a
journal line is half written (board_sim's `crash` hook), then a restart.
"""

import json
import os
import random
import signal
import subprocess
import time

import pytest

from bawo.sim import (
    BoardProcess,
    SimError,
    choose_settings,
    key_of_cell,
    play_moves,
    presses_for,
    random_moves,
    micropython_binary,
)
from bawo.firmware import micropython_path, profile_path
from shared_rules import game as make_game, State

CUTS = 220


def replay(game, moves):
    s = State(make_game(game))
    for m in moves:
        s.push(m)
    return s.game.format(s.position)


BOOT_SCRIPT = r"""
import os, sys, json
import pinmap, hw_sim
from journal import Journal
import app as A
prof = pinmap.load(sys.argv[1])
board = hw_sim.Board(prof)
A.print = lambda *a: None
base = sys.argv[2]
cases = json.loads(open(sys.argv[3]).read())
src = open(sys.argv[4], 'rb').read()
for k, (off, flip) in enumerate(cases):
    d = base + '/c%d' % k
    os.mkdir(d)
    data = bytearray(src[:off])
    if flip >= 0 and flip < len(data):
        data[flip] ^= 0x5A
    with open(d + '/cur.jnl', 'wb') as f:
        f.write(data)
    j = Journal(d, 'cut', log=lambda m: None)
    a = A.App(board, j, 'cut')
    a.boot()
    out = {'k': k, 'mode': a.mode, 'bad': [n for n in os.listdir(d) if n.endswith('.bad')]}
    if a.session is not None and a.mode == A.PLAY:
        out['pos'] = a.session.g.format(a.session.s.position)
        out['ply'] = a.session.s.ply
        # The board goes on after the cut: the next move lands right after the good lines.
        m = a.session.s.legal_moves[0]
        a.play(m)
        j2 = Journal(d, 'cut', log=lambda m: None)
        cur = j2.read_current()
        out['after'] = len(cur[1]) if cur else -1
        out['next'] = cur[1][-1] if cur else None
    print(json.dumps(out))
"""


def test_torn_journal_200_cuts(tmp_path):
    data = tmp_path / "flash"
    b = BoardProcess("bawo-4x8", str(data), speed=None)
    try:
        choose_settings(b, "bawo", "people", 8)
        b.menu()
        st = b.idle()
        moves = random_moves("bawo", st["pos"], 7, 400)[:-1][:30]  # unfinished: journal stays
        st = play_moves(b, "bawo", moves)
    finally:
        b.quit()
    src = (data / "cur.jnl").read_bytes()
    lines = src.split(b"\n")
    ends = []  # byte offset where each complete line ends
    pos = 0
    for ln in lines[:-1]:
        pos += len(ln) + 1
        ends.append(pos)
    rng = random.Random(2024)
    cases = []
    for i in range(CUTS):
        off = rng.randrange(0, len(src) + 1)
        flip = -1
        if i % 5 == 4 and off > ends[1] + 4:
            flip = rng.randrange(ends[0], ends[-1] if off >= ends[-1] else off)  # inside a line
        cases.append((off, flip))
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    (tmp_path / "src.jnl").write_bytes(src)
    (tmp_path / "boot.py").write_text(BOOT_SCRIPT)
    work = tmp_path / "cuts"
    work.mkdir()
    env = dict(os.environ, MICROPYPATH=micropython_path())
    out = subprocess.run(
        [
            micropython_binary(),
            str(tmp_path / "boot.py"),
            profile_path("bawo-4x8"),
            str(work),
            str(tmp_path / "cases.json"),
            str(tmp_path / "src.jnl"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    results = [json.loads(x) for x in out.stdout.splitlines() if x.startswith("{")]
    assert len(results) == CUTS
    set_aside = resumed = 0
    for (off, flip), r in zip(cases, results):
        acked = sum(1 for e in ends if e <= off) - 1  # complete move lines (minus the header)
        damaged_line = flip >= 0 and any(
            s <= flip < e for s, e in zip([0] + ends, ends) if e <= off
        )
        if acked < 0:
            assert r["mode"] == 0, r  # the header itself was cut: a fresh menu
            continue
        if damaged_line:
            # A damaged complete line: last one is treated as torn, any other sets the file aside.
            if r.get("pos") is None:
                assert r["bad"], r
                set_aside += 1
                continue
            assert r["ply"] == acked - 1 and r["pos"] == replay("bawo", moves[: acked - 1]), (
                off,
                flip,
                r,
            )
        else:
            assert r["mode"] == 1 and r["ply"] == acked, (off, r)
            assert r["pos"] == replay("bawo", moves[:acked]), (off, r)
        assert r["after"] == r["ply"] + 1, r
        resumed += 1
    print(
        "torn-write cuts: %d (%d resumed, %d damaged journals set aside)"
        % (CUTS, resumed, set_aside)
    )
    assert resumed > 100 and set_aside > 5


def _drain(b, wait=0.3):
    """Read what the killed board had written (its acknowledgements are real)."""
    try:
        while True:
            b.readline(timeout=wait)
    except SimError:
        pass


@pytest.mark.parametrize("game,seed", [("bawo", 5), ("oware", 6)])
def test_sigkill_at_random_instants(tmp_path, game, seed):
    rng = random.Random(seed)
    games = 0
    moves = None
    acked = []
    kills = halfway = 0
    cells = None
    mid_write = False
    while kills < 18:
        if moves is None:
            # A random game can end before 18 cuts: the next one starts on fresh flash.
            games += 1
            data = str(tmp_path / ("flash%d" % games))
        b = BoardProcess("bawo-4x8", data, speed=None)
        st = b.status
        if moves is None:
            choose_settings(b, game, "people", rng.choice([6, 8]))
            b.menu()
            st = b.idle()
            moves = random_moves(game, st["pos"], seed + games, 400)[:-1]
            cells = key_of_cell(b.profile_file, game)
        else:
            st = b.idle()
            assert st["mode"] == "play", st
            n = st["ply"]
            # Resumed on what was acknowledged, or on one more move that reached flash
            # just before the cut; never less, never different.
            assert len(acked) <= n <= len(acked) + (0 if mid_write else 1), (n, len(acked))
            assert st["moves"] == moves[:n]
            assert st["pos"] == replay(game, moves[:n])
            acked = list(moves[:n])
        if st["ply"] >= len(moves) - 4:
            b.quit()
            b.close()
            moves = None
            acked = []
            continue
        if kills % 6 == 5:
            # Cut in the middle of a journal write: half the line is on flash.
            b.send("crash 1")
            mv = moves[st["ply"]]
            for k in presses_for(game, st["pos"], mv, cells):
                b.tap(k)
            b.expect("X", timeout=30)
            halfway += 1
            mid_write = True
        else:
            ply = st["ply"]
            pos = st["pos"]
            for mv in moves[ply : ply + rng.randint(1, 5)]:
                for k in presses_for(game, pos, mv, cells):
                    b.tap(k)
                b.send("i")
                pos = replay(game, moves[: ply + 1])
                ply += 1
            time.sleep(rng.random() * 0.03)
            mid_write = False
        os.kill(b.proc.pid, signal.SIGKILL)
        b.proc.wait()
        _drain(b)
        acked = acked + [m for _, m in b.journaled]
        b.close()
        kills += 1
    assert kills == 18 and halfway >= 2
    print(
        "%s: %d SIGKILLs (%d mid-write), resumed every time on the acknowledged moves"
        % (game, kills, halfway)
    )
