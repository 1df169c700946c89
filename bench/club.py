"""`bawo club serve` under a club's load: upload rate, and spectator latency with many boards
and spectators, for 1 process on SQLite and 2 processes on one PostgreSQL.

Everything on loopback. The club processes are real `bawo club serve` processes; PostgreSQL
is a throwaway server (tests/_club_pg.py: Debian's postgresql, as `postgres` when root).
Uploads: every record replayed and committed before its answer, from 8 clients at once.
Live: each board posts one move every --interval seconds (bounded load: boards / interval
moves a second), to the processes in turn; every spectator (SSE, spread over the processes)
stamps each event on arrival; latency = arrival - the post's send time. CPU: each club
process's user+system time over the live phase (/proc), and PostgreSQL's.

A remote game (two simulated boards, each with its PC's bridge, through a club on SQLite):
press to the pressing board's own status, and press to the other board's, in one run.

    python bench/club.py [--boards 32] [--spectators 200] [--seconds 20] [--interval 2]
    python bench/club.py --only remote [--remote-moves 60]
"""

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "tests"), os.path.join(ROOT, "host")]

from bawo.club import auth  # noqa: E402
from bawo.club.store import open_store  # noqa: E402
from shared_rules import State, game as make_game  # noqa: E402


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu(pids):
    total = 0.0
    for p in pids:
        try:
            total += cpu_seconds(p)
        except OSError:
            pass
    return total


def pg_pids(server):
    out = subprocess.run(
        ["pgrep", "-f", "-d", " ", server.dir], capture_output=True, text=True
    ).stdout
    pids = [int(x) for x in out.split()]
    kids = []
    for p in pids:
        kids += [
            int(x)
            for x in subprocess.run(
                ["pgrep", "-P", str(p)], capture_output=True, text=True
            ).stdout.split()
        ]
    return sorted(set(pids + kids))


def start_clubs(db, n):
    procs, urls = [], []
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "host")]))
    for _ in range(n):
        port = free_port()
        procs.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "bawo.cli",
                    "club",
                    "serve",
                    "--db",
                    db,
                    "--http-port",
                    str(port),
                ],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        urls.append("http://127.0.0.1:%d/" % port)
    for u in urls:
        t0 = time.monotonic()
        while True:
            try:
                urllib.request.urlopen(u + "live", timeout=2).read()
                break
            except OSError:
                if time.monotonic() - t0 > 30:
                    raise SystemExit("club server at %s did not start" % u)
                time.sleep(0.1)
    return procs, urls


def games(n, plies):
    """n boards' move lists (seeded random Oware games, at least `plies` long where they last)."""
    import random

    out = []
    for i in range(n):
        rng = random.Random(i)
        s = State(make_game("oware"))
        while s.outcome() is None and s.ply < plies:
            s.push(rng.choice(sorted(s.legal_moves)))
        out.append(list(s.iter_moves()))
    return out


def upload_rate(urls, tokens, records):
    """Records a second through the upload API: 8 clients, every record new."""
    import queue
    from _host_helpers import random_record

    todo = queue.Queue()
    boards = list(tokens)
    for i in range(records):
        b = boards[i % len(boards)]
        todo.put(
            (urls[i % len(urls)], tokens[b], random_record(i, "%s-%05d" % (b, i + 1)).to_text())
        )
    bad = []

    def worker():
        while True:
            try:
                url, tok, text = todo.get_nowait()
            except queue.Empty:
                return
            req = urllib.request.Request(
                url + "api/records", data=text.encode(), headers={"Authorization": "Bearer " + tok}
            )
            try:
                urllib.request.urlopen(req, timeout=30).read()
            except OSError as e:
                bad.append(str(e))

    t0 = time.perf_counter()
    ts = [threading.Thread(target=worker) for _ in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    dt = time.perf_counter() - t0
    return records / dt, len(bad)


async def spectator(url, lat, sent, stop, ready):
    host, port = url.split("//")[1].strip("/").split(":")
    r, w = await asyncio.open_connection(host, int(port))
    w.write(b"GET /live/events HTTP/1.1\r\nHost: %s:%s\r\n\r\n" % (host.encode(), port.encode()))
    await w.drain()
    ready.append(1)
    try:
        while not stop.is_set():
            line = await r.readline()
            if not line:
                return
            if line.startswith(b"data:"):
                now = time.monotonic()
                m = json.loads(line[5:])
                t = sent.get((m["board"], m["ply"]))
                if t is not None:
                    lat.append(now - t)
    finally:
        w.close()


async def post(url, tok, body):
    host, port = url.split("//")[1].strip("/").split(":")
    r, w = await asyncio.open_connection(host, int(port))
    data = json.dumps(body).encode()
    w.write(
        b"POST /api/live HTTP/1.1\r\nHost: %s:%s\r\nAuthorization: Bearer %s\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
        % (host.encode(), port.encode(), tok.encode(), len(data))
        + data
    )
    await w.drain()
    status = (await r.readline()).split()[1]
    await r.read()
    w.close()
    return status


async def live_phase(urls, tokens, boards_moves, spectators, seconds, interval):
    lat, sent, ready, errors = [], {}, [], []
    stop = asyncio.Event()
    tasks = [
        asyncio.create_task(spectator(urls[i % len(urls)], lat, sent, stop, ready))
        for i in range(spectators)
    ]
    while len(ready) < spectators:
        await asyncio.sleep(0.05)
    await asyncio.sleep(1.0)  # each spectator's snapshot has arrived
    names = list(tokens)
    t_end = time.monotonic() + seconds

    async def board(i):
        b = names[i]
        moves = boards_moves[i]
        await asyncio.sleep(interval * i / len(names))  # boards spread over the interval
        k = 0
        while time.monotonic() < t_end and k < len(moves):
            sent[(b, k + 1)] = time.monotonic()
            st = await post(
                urls[(i + k) % len(urls)],
                tokens[b],
                {"id": b + "-live", "game": "oware", "from": k, "moves": [moves[k]]},
            )
            if st != b"200":
                errors.append(st)
            k += 1
            await asyncio.sleep(interval)
        return k

    plies = await asyncio.gather(*(board(i) for i in range(len(names))))
    await asyncio.sleep(1.5)
    stop.set()
    for t in tasks:
        t.cancel()
    return lat, sum(plies), errors


def run(engine, processes, args):
    tmp = tempfile.mkdtemp(prefix="bawo-club-bench-")
    pg = None
    if engine == "postgresql":
        from _club_pg import Server

        pg = Server()
        db = pg.fresh()
    else:
        db = os.path.join(tmp, "club.sqlite")
    store = open_store(db)
    tokens = {}
    for i in range(args.boards):
        b = "pico-%04x" % i
        tokens[b] = auth.new_token()
        store.add_token(b, auth.token_hash(tokens[b]))
        store.seat(b, "S%d" % i, "N%d" % i, since="2000-01-01T00:00:00Z")
    store.close()
    procs, urls = start_clubs(db, processes)
    try:
        rate, bad = upload_rate(urls, tokens, args.records)
        pids = [p.pid for p in procs]
        pgp = pg_pids(pg) if pg else []
        c0 = [cpu_seconds(p) for p in pids]
        g0 = tree_cpu(pgp)
        t0 = time.monotonic()
        lat, plies, errors = asyncio.run(
            live_phase(
                urls, tokens, games(args.boards, 200), args.spectators, args.seconds, args.interval
            )
        )
        wall = time.monotonic() - t0
        cpu = [(cpu_seconds(p) - c) / wall for p, c in zip(pids, c0)]
        pgcpu = (tree_cpu(pgp) - g0) / wall if pg else None
    finally:
        for p in procs:
            p.terminate()
            p.wait(10)
        if pg:
            pg.stop()
    lat.sort()
    q = lambda f: lat[min(len(lat) - 1, int(f * len(lat)))] * 1000 if lat else float("nan")  # noqa: E731
    expected = plies * args.spectators
    return {
        "engine": engine,
        "processes": processes,
        "upload_rate": rate,
        "upload_errors": bad,
        "plies": plies,
        "events": len(lat),
        "expected": expected,
        "errors": len(errors),
        "p50": q(0.5),
        "p95": q(0.95),
        "p99": q(0.99),
        "max": lat[-1] * 1000 if lat else float("nan"),
        "within_1s": sum(x <= 1.0 for x in lat) / len(lat) if lat else 0.0,
        "cpu": cpu,
        "pg_cpu": pgcpu,
    }


def remote_latency(moves):
    """A remote game between two simulated boards through a club (SQLite, one process, real
    server), on loopback: for each move pressed, the time from the last press to the
    pressing board's own status with the move (local press to frame) and to the other
    board's (press to the other board: the bridge, the club, its long poll, the other
    bridge, MOVE). Games follow one another until `moves` moves were timed."""
    import pathlib
    from _club_helpers import live_server
    from _remote_helpers import Match

    local, remote = [], []
    n = 0
    while len(remote) < moves:
        n += 1
        tmp = pathlib.Path(tempfile.mkdtemp(prefix="bawo-remote-bench-"))
        with live_server(str(tmp / "club.sqlite")) as (url, store):
            port = int(url.rsplit(":", 1)[1].strip("/"))
            m = Match(tmp, port, store, 30 + n, "oware", limit_s=300)
            try:
                pressed = {}  # ply -> (board index, time of its last press)
                seen = [0, 0]
                t0 = time.monotonic()
                while m.playing() and len(remote) < moves and time.monotonic() - t0 < 300:
                    for i, pc in enumerate(m.pcs):
                        pc.read()
                        ply = pc.status.get("ply", 0)
                        now = time.monotonic()
                        if ply > seen[i]:
                            for p in range(seen[i] + 1, ply + 1):
                                if p in pressed:
                                    who, at = pressed[p]
                                    (local if who == i else remote).append(now - at)
                            seen[i] = ply
                        got = pc.person()
                        if got is not None:
                            pressed[got] = (i, pc.last_tap)
                    time.sleep(0.002)
            finally:
                m.close()
    return local, remote


def quantiles(xs):
    xs = sorted(xs)
    q = lambda f: xs[min(len(xs) - 1, int(f * len(xs)))] * 1000  # noqa: E731
    return q(0.5), q(0.99)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--boards", type=int, default=32)
    ap.add_argument("--spectators", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--interval", type=float, default=2.0, help="seconds between a board's moves")
    ap.add_argument("--records", type=int, default=400, help="records uploaded for the rate")
    ap.add_argument("--only", choices=("sqlite", "postgresql", "remote"))
    ap.add_argument("--remote-moves", type=int, default=60, help="moves timed in remote games")
    args = ap.parse_args()
    if args.only in (None, "remote"):
        local, remote = remote_latency(args.remote_moves)
        lp, l99 = quantiles(local)
        rp, r99 = quantiles(remote)
        print(
            "remote game, two simulated boards through a club on loopback (%d moves):" % len(remote)
        )
        print()
        print("| from the last press to | median ms | p99 ms | moves |")
        print("|---|---|---|---|")
        print(
            "| the pressing board's own status (local press to frame) | %.0f | %.0f | %d |"
            % (lp, l99, len(local))
        )
        print(
            "| the other board's status (through both PCs and the club) | %.0f | %.0f | %d |"
            % (rp, r99, len(remote))
        )
        print()
        print("remote / local: %.1fx the median" % (rp / lp if lp else float("nan")))
        print()
        if args.only == "remote":
            return
    runs = [("sqlite", 1), ("postgresql", 2)]
    if args.only:
        runs = [r for r in runs if r[0] == args.only]
    print(
        "%d boards x %d spectators, one move a board every %.1f s for %.0f s; %d records uploaded"
        % (args.boards, args.spectators, args.interval, args.seconds, args.records)
    )
    print()
    print(
        "| engine, processes | uploads/s | events seen / sent | p50 ms | p95 ms | p99 ms | max ms | within 1 s | CPU a club process | PostgreSQL CPU |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for engine, n in runs:
        r = run(engine, n, args)
        print(
            "| %s, %d | %.0f%s | %d / %d | %.0f | %.0f | %.0f | %.0f | %.1f%% | %s | %s |"
            % (
                engine,
                n,
                r["upload_rate"],
                " (%d failed)" % r["upload_errors"] if r["upload_errors"] else "",
                r["events"],
                r["expected"],
                r["p50"],
                r["p95"],
                r["p99"],
                r["max"],
                100 * r["within_1s"],
                ", ".join("%.0f%%" % (100 * c) for c in r["cpu"]),
                "-" if r["pg_cpu"] is None else "%.0f%%" % (100 * r["pg_cpu"]),
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
