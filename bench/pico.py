"""The board measured on the emulated RP2040 (rp2040js, bawo.pico), as it ships and as it is
updated, in the same run: the frozen image (`bawo build-uf2`: MicroPython v1.28.0 with the
firmware frozen into flash) and the stock rp2 image with the bundle `bawo flash` copies onto
its filesystem. Every time is EMULATED time (the emulator's clock at 125 MHz), so the figures
are the same on any PC; the wall time it takes only depends on the PC.

    python bench/pico.py                     # all of it (20 midgame positions a game)
    python bench/pico.py --positions 3 --only boot press ai sync
    python bench/pico.py --only ai --levels 5 --ai-games oware --peer-bytecode
    python bench/pico.py --images frozen     # one of the two (default: both, frozen first)

- boot: power-on to the first bit of the first frame on the LED data pin;
- press: a switch closes -> the first bit of the frame that answers it, against the wire time
  of one frame (512 LEDs: 15.4 ms);
- ai: the board's AI (shared_rules.ai.Player, the board's budgets) choosing a move in midgame
  positions (seeded random playouts, 10-40 plies in), at every level; mean and max per level;
  `--peer-bytecode` runs each search again with the engine's viper kernel turned off, the
  peer in the same run, and says whether both chose the same moves with the same nodes;
  `--nodes N` searches N nodes instead of the level's budget;
- sync: `bawo sync` of N finished games over the emulated USB CDC, games per emulated second;
- emulator: the PC's CPU for the same scripted boot and game on the runner's fast paths and
  on rp2040js alone (the peer), as a ratio; the two must give the same frames;
- fast-boot: wall and node CPU seconds from power-on to the first frame, on rp2040js alone
  and with the runner's fast core (pico/fastcore.mjs), alternated, best of 3: its ratio;
- parts: what a press's answer is made of, each timed on the Pico (best of 5, ticks_us):
  key scan, App.draw (menu, whole board, a selection), render, show (render + transmit), a
  move's journal line, the settings file, the rules engine playing a move (once) and
  finding whether the game is over (the next position's legal moves).
"""

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from bawo import firmware, sim  # noqa: E402
from bawo.pico import Pico, load_profile, make_flash, menu_keys  # noqa: E402
from shared_rules import State, game  # noqa: E402

GAMES = ("bawo", "oware", "bagh-chal")
AI_SCRIPT = """
import gc, time
from shared_rules import game, State
from shared_rules.ai import Player
import app
for name, level, text, nodes, kernel in %r:
    app.load_ai(name) if hasattr(app, 'load_ai') else None
    g = game(name)
    if not kernel:  # the peer: the same search on the engine's bytecode
        g.use_kernel = lambda: False
    s = State(g, text)
    p = Player(g, level=level, seed=1, node_budget=nodes)
    gc.collect()
    t = time.ticks_us()
    m = p.choose(s)
    dt = time.ticks_diff(time.ticks_us(), t)
    print('AI', name, level, dt, (p.last_info or {}).get('nodes', -1), kernel, m)
"""

PARTS_SCRIPT = """
import gc, time
import hw
import app as A
from journal import Journal
b = hw.open_board('profile.json')


def t(f, n=5):
    best = 1 << 29
    for _ in range(n):
        gc.collect()
        t0 = time.ticks_us()
        f()
        best = min(best, time.ticks_diff(time.ticks_us(), t0))
    return best


a = A.App(b, Journal('/games', 'bench'), 'bench',
          settings={'game': 'bawo', 'opponent': 'people', 'speed': 8})
a.open_menu()
a.draw()
print('PART scan', t(lambda: b.keys.scan(time.ticks_ms())))
print('PART render', t(b.pixels.render))
print('PART show', t(b.pixels.show))


def menu():
    a.view.reset()
    a.draw()
print('PART draw_menu', t(menu))
a.new_game('bawo')


def full():
    a.view.reset()
    a.draw()
print('PART draw_board', t(full))
print('PART draw_unchanged', t(a.draw))
start = sorted(a.scene.starts)[0]


def select():
    a.scene.sel = -1
    a.draw()
    a.scene.sel = start
    t0 = time.ticks_us()
    a.draw()
    return time.ticks_diff(time.ticks_us(), t0)
print('PART draw_select', min(select() for _ in range(5)))
print('PART settings', t(a.save_settings))
s = a.session.s
m = sorted(s.legal_moves)[0]
gc.collect()
t0 = time.ticks_us()
s.push(m, a.anim)
t1 = time.ticks_us()
s.outcome()
t2 = time.ticks_us()
print('PART rules_push', time.ticks_diff(t1, t0))
print('PART rules_outcome', time.ticks_diff(t2, t1))
j = a.journal


def line():
    j.append(a.session.s.ply + 1, 'A1+')
print('PART journal_line', t(line, 3))
"""


def bench_parts(files, d):
    files = files.copy()
    files["partsbench.py"] = PARTS_SCRIPT.encode()
    p = boot(files, "bawo-4x8", d)
    try:
        r = subprocess.run(
            [sys.executable, "-m", "mpremote", "connect", p.port, "exec", "import partsbench"],
            capture_output=True,
            text=True,
            timeout=3000,
        )
    finally:
        p.close()
    out = {}
    for line in r.stdout.splitlines():
        if line.startswith("PART "):
            _, name, us = line.split()
            out[name] = int(us) / 1000
    if len(out) < 11:
        raise SystemExit("the parts bench did not finish: %s" % (r.stdout[-500:] + r.stderr[-500:]))
    return out


def bundle(profile, dest):
    from _pico_helpers import build_bundle

    return build_bundle(dest, profile)


def frozen(profile, dest=None):
    from _pico_helpers import frozen_install

    return frozen_install(profile)


INSTALLS = {
    "frozen": ("the frozen UF2 image", frozen),
    "stock": ("the stock image with the bundle on littlefs", bundle),
}


def boot(files, profile, d):
    make_flash(d / "flash.bin", files)
    p = Pico(load_profile(profile), d / "flash.bin")
    p.wait_boot(timeout=600)
    return p


def bench_boot_press(files, d, presses=6):
    p = boot(files, "bawo-4x8", d)
    try:
        first = p.frames[0]
        out = {"boot_ms": first[0] / 1e6, "frame_wire_ms": (first[1] - first[0]) / 1e6}
        p.settle(0)
        prof = load_profile("bawo-4x8")
        keys = menu_keys(prof, "bawo", "people", 8) + [p.menu_key]
        cells = sim.key_of_cell(firmware.profile_path("bawo-4x8"), "bawo")
        lat = []
        for k in keys:
            answer, settled = _press_latency(p, k)
            lat.append(answer)
        out["menu_start_ms"] = settled  # MENU, the last of them: the game's start position
        st = State(game("bawo"))
        rng = random.Random(1)
        while len(lat) < len(keys) + presses:
            mv = st.move_str(rng.choice(sorted(st.legal_moves)))
            for k in sim.presses_for("bawo", str(st.position), mv, cells):
                lat.append(_press_latency(p, k)[0])
            st.push(mv)
        out["press_ms"] = lat
        return out
    finally:
        p.close()


def _press_latency(p, k):
    n = len(p.frames)
    t0 = p.set_keys({k})
    p.wait_frames(n + 1, timeout=600)
    t1 = p.frames[n][0]
    p.run_ms(30)
    p.set_keys(set())
    p.settle(n + 1, quiet_ms=80)
    p.run_ms(25)
    # The answer, and the last frame before the board went quiet (for MENU: the game's start
    # position, drawn once its rules are loaded).
    return (t1 - t0) / 1e6, (p.frames[-1][0] - t0) / 1e6


def midgame(name, count, seed=5):
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = State(game(name))
        depth = rng.randint(10, 40)
        for _ in range(depth):
            if s.outcome() is not None or not s.legal_moves:
                break
            s.push(rng.choice(sorted(s.legal_moves)))
        if s.outcome() is None and s.legal_moves:
            out.append(str(s.position))
    return out


# The board each game is measured on: a bundle holds only the engines its profile plays.
AI_PROFILE = {"bawo": "bawo-4x8", "oware": "bawo-4x8", "bagh-chal": "grid-5x5"}


def bench_ai(d, positions, levels, games=GAMES, nodes=None, peer=False, install=bundle):
    """{(game, level, kernel): [(seconds, nodes, move)]}; with peer, each search is run again on
    the engine's bytecode (kernel False), the yardstick for a viper kernel in the same run."""
    res = {}
    for profile in sorted({AI_PROFILE[name] for name in games}):
        jobs = []
        for name in games:
            if AI_PROFILE[name] != profile:
                continue
            for text in midgame(name, positions):
                for lv in levels:
                    for kernel in (True, False) if peer else (True,):
                        jobs.append((name, lv, text, nodes, kernel))
        files = install(profile, d / ("bundle-" + profile)).copy()
        files["aibench.py"] = (AI_SCRIPT % (jobs,)).encode()
        (d / profile).mkdir()
        p = boot(files, profile, d / profile)
        try:
            r = subprocess.run(
                [sys.executable, "-m", "mpremote", "connect", p.port, "exec", "import aibench"],
                capture_output=True,
                text=True,
                timeout=36000,
            )
        finally:
            p.close()
        got = 0
        for line in r.stdout.splitlines():
            if line.startswith("AI "):
                _, name, lv, us, n, kernel, move = line.split()
                res.setdefault((name, int(lv), kernel == "True"), []).append(
                    (int(us) / 1e6, int(n), move)
                )
                got += 1
        if got != len(jobs):
            raise SystemExit(
                "the AI bench did not finish on %s: %s"
                % (profile, r.stdout[-500:] + r.stderr[-500:])
            )
    return res


def bench_sync(files, d, games):
    from _pico_helpers import sim_games

    runs = [("oware" if i % 2 else "bawo", 25 + i) for i in range(games)]
    recs = sim_games(d / "sim", runs)
    files = files.copy()
    files.update({"games/" + n: b for n, b in recs.items()})
    p = boot(files, "bawo-4x8", d)
    try:
        p.settle(0)
        t0 = p.now()
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "bawo.cli",
                "sync",
                "--port",
                p.port,
                "--db",
                str(d / "log.sqlite"),
                "--json",
            ],
            capture_output=True,
            text=True,
        )
        t1 = p.now()
    finally:
        p.close()
    rep = json.loads(r.stdout)
    assert len(rep["added"]) == len(recs), rep
    return len(recs), (t1 - t0) / 1e9, rep["bytes"]


def bench_emulator(files, d):
    """Node CPU seconds of the same scripted boot and game (keys at emulated instants) on the
    runner's fast paths and on rp2040js alone (the peer, same run); their frames must agree."""
    import resource
    from _pico_helpers import scripted_game

    prof = load_profile("bawo-4x8")
    script, end, _ = scripted_game(prof)
    out = {}
    for fast in (False, True):
        # One flash id for both runs, as the test does: a new random id each run gave other frames.
        make_flash(d / "flash.bin", files, uid=bytes(range(8)))
        c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = Pico(prof, d / "flash.bin", options={"fast": fast, "script": script})
        try:
            p.until_ns(end, timeout=1800)
        finally:
            p.close()
        c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        out[fast] = (c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime, p.frames)
    assert out[True][1] == out[False][1], "the fast paths changed a frame"
    return out[False][0], out[True][0], end / 1e9


def bench_fast_boot(files, d, runs=3):
    """Wall and node CPU seconds from power-on to the first LED frame, on rp2040js alone and
    with the runner's fast core, alternated in the same run (the fast core's ratio)."""
    import resource

    prof = load_profile("bawo-4x8")
    out = {False: [], True: []}
    for _ in range(runs):
        for fast in (False, True):
            make_flash(d / "flash.bin", files)
            c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.monotonic()
            p = Pico(prof, d / "flash.bin", options={"fast": fast})
            try:
                p.wait_boot(timeout=1800)
                wall = time.monotonic() - t0
            finally:
                p.close()
            c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            out[fast].append((wall, c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime))
    # The best run of each: the cores are shared, so noise only ever adds time.
    best = {k: (min(w for w, _ in v), min(c for _, c in v)) for k, v in out.items()}
    return best[False], best[True]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--levels", default="1,2,3,4,5")
    ap.add_argument("--games", type=int, default=20, help="games to sync")
    ap.add_argument("--presses", type=int, default=12, help="game presses timed")
    ap.add_argument(
        "--only",
        nargs="*",
        default=["boot", "press", "parts", "ai", "sync", "emulator", "fast-boot"],
    )
    ap.add_argument(
        "--ai-games", nargs="*", default=list(GAMES), choices=GAMES, help="games of the ai part"
    )
    ap.add_argument("--nodes", type=int, help="ai: this node budget instead of the levels' own")
    ap.add_argument(
        "--peer-bytecode",
        action="store_true",
        help="ai: each search again without the engine's viper kernel, as the peer",
    )
    ap.add_argument(
        "--images",
        nargs="*",
        default=["frozen", "stock"],
        choices=sorted(INSTALLS),
        help="which installs to measure (default both, in the same run)",
    )
    ap.add_argument(
        "--uf2",
        metavar="IMAGE",
        help="also measure this UF2 (say, the image of the tree before a change), last",
    )
    a = ap.parse_args()
    installs = [(kind,) + INSTALLS[kind] for kind in a.images]
    if a.uf2:
        from bawo.pico import Install

        installs.append(
            ("given", "the image %s" % a.uf2, lambda profile, dest: Install({}, image=a.uf2))
        )
    wall = time.time()
    with tempfile.TemporaryDirectory(prefix="bawo-pico-bench-") as tmp:
        for kind, title, make in installs:
            print("\n## %s" % title)
            d = Path(tmp) / kind
            d.mkdir()
            files = make("bawo-4x8", d / "bundle")
            if "boot" in a.only or "press" in a.only:
                (d / "bp").mkdir(parents=True)
                r = bench_boot_press(files, d / "bp", a.presses)
                lat = r["press_ms"]
                print("boot to first frame: %.0f ms (emulated)" % r["boot_ms"])
                print("one frame on the wire: %.2f ms (512 LEDs)" % r["frame_wire_ms"])
                print(
                    "press to first bit of the answering frame: mean %.1f ms, max %.1f ms over %d "
                    "presses (%.2fx / %.2fx the wire time)"
                    % (
                        sum(lat) / len(lat),
                        max(lat),
                        len(lat),
                        sum(lat) / len(lat) / r["frame_wire_ms"],
                        max(lat) / r["frame_wire_ms"],
                    )
                )
                n_menu = len(lat) - a.presses
                print(
                    "  settings menu and MENU (each saves settings or starts a game on flash): %s ms"
                    % ", ".join("%.0f" % x for x in lat[:n_menu])
                )
                print(
                    "  MENU: the answer (the menu dark but the game's pocket) %.0f ms, the game's start "
                    "position %.0f ms" % (lat[n_menu - 1], r["menu_start_ms"])
                )
                print(
                    "  game presses (start pocket, then target: the move is journaled): %s ms"
                    % ", ".join("%.0f" % x for x in lat[n_menu:])
                )
            if "emulator" in a.only:
                (d / "em").mkdir(parents=True)
                slow, fast, emu_s = bench_emulator(files, d / "em")
                print(
                    "emulator: %.1f s of the Pico (boot, menu, MENU, 2 moves, scripted): node CPU %.1f s "
                    "on rp2040js alone, %.1f s with the runner's fast paths: %.2fx (frames identical)"
                    % (emu_s, slow, fast, slow / fast)
                )
            if "fast-boot" in a.only:
                (d / "fb").mkdir(parents=True)
                (sw, sc), (fw, fc) = bench_fast_boot(files, d / "fb")
                print(
                    "fast core at boot (power-on to the first frame, best of 3): wall %.1f s on "
                    "rp2040js alone, %.1f s with the fast core (%.2fx); node CPU %.1f s, %.1f s (%.2fx)"
                    % (sw, fw, sw / fw, sc, fc, sc / fc)
                )
            if "parts" in a.only:
                (d / "pa").mkdir(parents=True)
                parts = bench_parts(files, d / "pa")
                print(
                    "parts of an answer on the Pico (best of 5, emulated ms): "
                    + ", ".join("%s %.2f" % kv for kv in parts.items())
                )
            if "sync" in a.only:
                (d / "sy").mkdir(parents=True)
                n, secs, nbytes = bench_sync(files, d / "sy", a.games)
                print(
                    "bawo sync: %d games in %.2f s emulated: %.1f games/s, %.1f KB/s of records"
                    % (n, secs, n / secs, nbytes / secs / 1024)
                )
            if "ai" in a.only:
                (d / "ai").mkdir(parents=True)
                levels = [int(x) for x in a.levels.split(",")]
                res = bench_ai(
                    d / "ai", a.positions, levels, a.ai_games, a.nodes, a.peer_bytecode, make
                )
                print(
                    "| game | level | engine | positions | mean s a move | max s a move | mean nodes | nodes/s |"
                )
                print("|---|---:|---|---:|---:|---:|---:|---:|")
                for name in a.ai_games:
                    for lv in levels:
                        for kernel in (True, False) if a.peer_bytecode else (True,):
                            r = res[(name, lv, kernel)]
                            t = [x[0] for x in r]
                            n = [x[1] for x in r]
                            print(
                                "| %s | %d | %s | %d | %.3f | %.3f | %.0f | %.0f |"
                                % (
                                    name,
                                    lv,
                                    "as deployed" if kernel else "bytecode (peer)",
                                    len(t),
                                    sum(t) / len(t),
                                    max(t),
                                    sum(n) / len(n),
                                    sum(n) / sum(t),
                                )
                            )
                        if a.peer_bytecode:
                            fast, slow = res[(name, lv, True)], res[(name, lv, False)]
                            same = all(x[1:] == y[1:] for x, y in zip(fast, slow))
                            capped = sum(x[1] for x in slow) < sum(x[1] for x in fast)
                            print(
                                "|  | | deployed / peer: %.2fx the nodes a second, %s |"
                                % (
                                    (sum(x[1] for x in fast) / sum(x[0] for x in fast))
                                    / (sum(x[1] for x in slow) / sum(x[0] for x in slow)),
                                    "the same moves and nodes"
                                    if same
                                    else "the peer searched fewer nodes (the time cap)"
                                    if capped
                                    else "**moves or nodes differ**",
                                )
                            )
    print("(wall time of this run: %.0f s)" % (time.time() - wall))


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)
    main()
