"""`bawo import` of a big record file: games/s and peak memory, against peers in the same run.

    python bench/import.py [--games 100000] [--small 10000] [--pool 2000]

The file: JSON lines of random legal games (tests/_host_helpers.random_record), a pool of
--pool distinct move lists repeated under distinct ids (every line is a new game to the log,
replayed in full; generating a million distinct random games would take longer than importing
them). Measured, each `bawo import` in its own process (peak RSS from getrusage):

  import   the command, on a new log: read, replay (--jobs processes), store (batched
           commits); also with --jobs 1 on the small file
  replay   the same records read and replayed in this process, no log (the rules' cost)
  sqlite   the same rows stored with one sqlite3 executemany, no reading or replay

Memory is flat when the peak RSS of --games is about that of --small.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from _host_helpers import random_record  # noqa: E402

from shared_rules.record import Record  # noqa: E402
from bawo.db import SCHEMA  # noqa: E402

TARGET = 2000  # games/s, issue 9

CHILD = r'''
import resource, sys, time
from bawo import cli
t = time.perf_counter()
rc = cli.main(["import", sys.argv[1], "--db", sys.argv[2]] + sys.argv[3:])
dt = time.perf_counter() - t
sys.stderr.write("BENCH %f %d %d\n" % (dt, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, rc))
'''


def make_file(path, n, pool):
    lines = []
    for i in range(pool):
        d = random_record(i, "x").to_dict()
        d.pop("id")
        lines.append(d)
    with open(path, "w") as f:
        for k in range(n):
            d = dict(lines[k % pool])
            d["id"] = "bench-%07d" % k
            f.write(json.dumps(d) + "\n")
    return os.path.getsize(path)


def run_import(path, db, jobs=None):
    extra = ["--jobs", str(jobs)] if jobs else []
    r = subprocess.run(
        [sys.executable, "-c", CHILD, path, db] + extra,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    line = [x for x in r.stderr.splitlines() if x.startswith("BENCH ")]
    if not line:
        raise SystemExit("import failed:\n" + r.stdout[-2000:] + r.stderr[-2000:])
    dt, rss, rc = line[-1].split()[1:]
    if rc != "0":
        raise SystemExit("import exit status %s:\n%s" % (rc, r.stdout[-2000:]))
    return float(dt), int(rss), r.stdout.strip().splitlines()[-1]


def replay_rate(path, n):
    t = time.perf_counter()
    k = 0
    with open(path) as f:
        for line in f:
            Record.from_dict(json.loads(line)).replay()
            k += 1
            if k == n:
                break
    return k / (time.perf_counter() - t)


def sqlite_rate(path, n, tmp):
    rows = []
    with open(path) as f:
        for line in f:
            rec = Record.from_dict(json.loads(line))
            h = rec.header
            rows.append(
                (
                    h["Id"],
                    h["Game"],
                    h.get("Device"),
                    h.get("Start"),
                    h.get("Result"),
                    h.get("Reason"),
                    len(rec.moves),
                    "done",
                    "import",
                    "now",
                    rec.to_text(),
                )
            )
            if len(rows) == n:
                break
    db = os.path.join(tmp, "raw.sqlite")
    import sqlite3

    c = sqlite3.connect(db)
    c.execute("PRAGMA journal_mode=WAL")
    c.execute("PRAGMA synchronous=FULL")
    c.executescript(SCHEMA)
    t = time.perf_counter()
    with c:
        c.executemany(
            "INSERT INTO games (id, game, device, start, result, reason, plies, status,"
            " source, added, record) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
    dt = time.perf_counter() - t
    c.close()
    return len(rows) / dt


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--games", type=int, default=100000)
    ap.add_argument("--small", type=int, default=10000)
    ap.add_argument("--pool", type=int, default=2000)
    ap.add_argument("--peer-games", type=int, default=5000, help="games the peers measure")
    ap.add_argument("--jobs", type=int, help="bawo import --jobs (default: its default)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bawo-bench-import-") as tmp:
        big = os.path.join(tmp, "big.jsonl")
        small = os.path.join(tmp, "small.jsonl")
        size = make_file(big, a.games, a.pool)
        make_file(small, a.small, a.pool)
        print("file: %d games, %.1f MB (pool of %d distinct games)" % (a.games, size / 1e6, a.pool))
        rep = replay_rate(big, a.peer_games)
        sq = sqlite_rate(big, a.peer_games, tmp)
        dt1, _, _ = run_import(small, os.path.join(tmp, "one.sqlite"), jobs=1)
        dt_s, rss_s, _ = run_import(small, os.path.join(tmp, "s.sqlite"), jobs=a.jobs)
        dt, rss, summary = run_import(big, os.path.join(tmp, "b.sqlite"), jobs=a.jobs)
        rate = a.games / dt
        print(
            "import %8d games: %7.1f s  %6.0f games/s  peak RSS %6.1f MB   (%s)"
            % (a.games, dt, rate, rss / 1024, summary)
        )
        print(
            "import %8d games: %7.1f s  %6.0f games/s  peak RSS %6.1f MB"
            % (a.small, dt_s, a.small / dt_s, rss_s / 1024)
        )
        print(
            "import %8d games: %7.1f s  %6.0f games/s  with --jobs 1"
            % (a.small, dt1, a.small / dt1)
        )
        print("peer replay only (same records, one process, no log): %6.0f games/s" % rep)
        print("peer sqlite3 executemany (same rows):                 %6.0f games/s" % sq)
        print(
            "ratio import/replay-only %.2f, import/executemany %.3f, peak RSS %d/%d games %.2f"
            % (rate / rep, rate / sq, a.games, a.small, rss / rss_s)
        )
        print(
            "jobs %s on %d CPUs, load average %.1f"
            % (a.jobs or "default", os.cpu_count(), os.getloadavg()[0])
        )
        print(
            "target %d games/s: %s"
            % (TARGET, "met" if rate >= TARGET else "NOT met (%.0f%%)" % (100 * rate / TARGET))
        )


if __name__ == "__main__":
    main()
