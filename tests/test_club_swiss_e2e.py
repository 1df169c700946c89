"""Issue 26, a Swiss end to end: a club on PostgreSQL (a real server on loopback), an admin who
creates a Swiss of 9 players over 4 rounds of Oware on the club's pages and starts each round,
and 4 simulated boards on 4 "PCs" (a bawo data dir each). Each round the club pairs the
players, gives each pairing a board and seats its players there; each PC's `bawo club stream
--exit-after-game` tells its board the round and table (SEAT), which the board's seat card
shows; the players start the round's game there with MENU and press random legal moves for
both sides while the PC streams it to the club, then the PC syncs the board (`bawo sync`):
the record, tagged with its round and table, fills the pairing's result.

After each round the pairings are checked against the rules, written here on their own
(pairing.py only as a cross-check): no two players meet twice, nor two who must both have the
same side; sides within +-2 of each other and never three times the same running; two
different side preferences both granted, one alone granted; score groups paired from the top
with the fewest players floated out of each any legal pairing allows (all pairings tried),
tables in score order; round 1 top half against bottom half; the bye to the lowest-ranked
player who has had none and without whom the others can be paired. The standings (points, the
bye's point, Buchholz, Sonneborn-Berger, direct encounter) are recomputed from the games the
test played, after every round. Chromium renders the wall (the current round's boards live,
mid-game) and the crosstable; screenshots in test-artifacts/club-swiss-*.png.

The real path: the players start each game from the board's seat card (a club's PC does not
start games), the PC's `bawo club stream` and `bawo sync` as subprocesses, each PC with its own
XDG_DATA_HOME after `bawo club join`. About 60 s on 2 busy cores (Oware at speed 8: a random
game is ~100 plies, 5-8 s on the board)."""

import csv
import io
import itertools
import random
import subprocess
import threading
import time

import pytest

from _club_helpers import live_server, login, token_for
from _club_pg import club_url, server as pg_server  # noqa: F401  (fixture)
from _host_helpers import bawo_cmd, env_with_path

from shared_rules import State, game as make_game

from bawo import sim
from bawo.club import pairing, tournaments as T

pytestmark = pytest.mark.xdist_group("club_pg")

GAME = "oware"
PLAYERS = ["Ada", "Bo", "Chi", "Dee", "Eve", "Femi", "Gift", "Hawa", "Zoë"]
ROUNDS = 4
BOARDS = ["pico-s%d" % i for i in range(1, 5)]
WALL_ROUND = 4  # the round whose wall Chromium shows mid-game
WALL_PLY = 8  # ... with every board at this ply


# -- the rules, on their own ----------------------------------------------------------------
def history(games):
    """{player: [(opponent or None, side or None, points)]} of the games with a result."""
    h = {p: [] for p in PLAYERS}
    for g in games:
        s, n, r = g["south"], g["north"], g["result"]
        if n is None:
            h[s].append((None, None, 1.0))
            continue
        ps = {"S": 1.0, "N": 0.0, "D": 0.5}[r]
        h[s].append((n, "S", ps))
        h[n].append((s, "N", 1.0 - ps))
    return h


def score(h, p):
    return sum(x[2] for x in h[p])


def sides(h, p):
    return [x[1] for x in h[p] if x[1]]


def must(h, p):
    """The side p must have next (absolute preference), or None."""
    s = sides(h, p)
    d = s.count("S") - s.count("N")
    if d > 1 or s[-2:] == ["S", "S"]:
        return "N"
    if d < -1 or s[-2:] == ["N", "N"]:
        return "S"
    return None


def preference(h, p):
    """The side p would have next (C.04.3 A.6: absolute, strong or mild alike), or None
    before p's first game: the side p had less of, else the other side than last time."""
    s = sides(h, p)
    if not s:
        return None
    d = s.count("S") - s.count("N")
    return "N" if d > 0 else "S" if d < 0 else {"S": "N", "N": "S"}[s[-1]]


def can_meet(h, a, b):
    met = {x[0] for x in h[a]}
    return b not in met and not (must(h, a) and must(h, a) == must(h, b))


def matchings(players, ok):
    """Every perfect matching of players (a list) into pairs allowed by ok(a, b)."""
    if not players:
        yield []
        return
    a, rest = players[0], players[1:]
    for i, b in enumerate(rest):
        if ok(a, b):
            for m in matchings(rest[:i] + rest[i + 1 :], ok):
                yield [(a, b)] + m


def floats(pairs, pts):
    """The players a pairing moves down across each boundary between score groups, from the
    top: the brackets paired from the top, each with as many pairs as can be (C.5, C.6). Which
    players float is the bracket-by-bracket choice (C.7), not checked here: it may float a
    player down two groups where another choice of the bracket above floated two players one."""
    groups = sorted(set(pts.values()), reverse=True)
    return tuple(
        sum(1 for a, b in pairs if min(pts[a], pts[b]) < g <= max(pts[a], pts[b]))
        for g in groups[:-1]
    )


def check_round(rnd, games, before, seed_of):
    """games: this round's pairings (table order); before: the games of the rounds before."""
    h = history(before)
    pts = {p: score(h, p) for p in PLAYERS}
    played = [g for g in games if g["north"] is not None]
    byes = [g["south"] for g in games if g["north"] is None]
    assert len(played) == 4 and len(byes) == 1 and games[-1]["north"] is None, games
    assert sorted([g["south"] for g in played] + [g["north"] for g in played] + byes) == sorted(
        PLAYERS
    )
    # C.1 and C.3: no repeat, no two players who must both have the same side.
    for g in played:
        assert can_meet(h, g["south"], g["north"]), (rnd, g, h)
    # Sides (E.1, E.2): two different preferences are both granted; one alone is granted.
    for g in played:
        ps, pn = preference(h, g["south"]), preference(h, g["north"])
        if ps != pn:
            assert ps in ("S", None) and pn in ("N", None), (rnd, g, ps, pn)
    if rnd == 1:
        # Round 1 (no scores, no sides yet): the top half against the bottom half in order,
        # the higher-ranked player South on odd tables (the initial side South); the bye to
        # the last pairing number.
        by_seed = sorted(PLAYERS, key=seed_of.get)
        assert [(g["south"], g["north"]) for g in played] == [
            (by_seed[k], by_seed[k + 4]) if k % 2 == 0 else (by_seed[k + 4], by_seed[k])
            for k in range(4)
        ]
        assert byes == [by_seed[8]]
    # The bye: to the lowest-ranked player (score, then pairing number) who has had none and
    # without whom the others can all be paired.
    eligible = sorted(
        (p for p in PLAYERS if all(x[0] is not None for x in h[p])),
        key=lambda p: (pts[p], -seed_of[p]),
    )
    for p in eligible:
        if next(matchings([q for q in PLAYERS if q != p], lambda a, b: can_meet(h, a, b)), None):
            assert byes == [p], (rnd, byes, p, pts)
            break
    # Score groups from the top: no legal pairing of the others floats fewer players out of a
    # higher group.
    rest = [q for q in PLAYERS if q != byes[0]]
    best = min(floats(m, pts) for m in matchings(rest, lambda a, b: can_meet(h, a, b)))
    got = floats([(g["south"], g["north"]) for g in played], pts)
    assert got == best, (rnd, got, best, pts, games)
    # Tables in score order: the higher score of each pair, then the lower, never rise.
    keys = [
        (max(pts[g["south"]], pts[g["north"]]), min(pts[g["south"]], pts[g["north"]]))
        for g in played
    ]
    assert keys == sorted(keys, reverse=True), (rnd, keys)


def check_sides(games):
    """Each player's sides so far: within +-2, never three times the same side running."""
    h = history(games)
    for p in PLAYERS:
        s = sides(h, p)
        assert abs(s.count("S") - s.count("N")) <= 2, (p, s)
        assert "SSS" not in "".join(s) and "NNN" not in "".join(s), (p, s)


def expected_standings(games, seed_of):
    """(player, points, Buchholz, Sonneborn-Berger, direct encounter), best first."""
    h = history(games)
    pts = {p: score(h, p) for p in PLAYERS}
    bh = {p: sum(pts[o] for o, _, _ in h[p] if o) for p in PLAYERS}
    sb = {p: sum(pts[o] * s for o, _, s in h[p] if o) for p in PLAYERS}
    de = dict.fromkeys(PLAYERS, 0.0)
    key = lambda p: (pts[p], bh[p], sb[p])  # noqa: E731
    for _, tied in itertools.groupby(sorted(PLAYERS, key=key), key=key):
        tied = set(tied)
        if len(tied) > 1 and all(o in {x[0] for x in h[p]} for p in tied for o in tied - {p}):
            for p in tied:
                de[p] = sum(s for o, _, s in h[p] if o in tied)
    order = sorted(PLAYERS, key=lambda p: (-pts[p], -bh[p], -sb[p], -de[p], seed_of[p]))
    return [(p, pts[p], bh[p], sb[p], de[p]) for p in order]


# -- the PCs and their boards ----------------------------------------------------------------
class Pc:
    """A PC (its own bawo data dir) with a simulated board on a pty, id `board`."""

    def __init__(self, tmp, board, url, token):
        self.id = board
        self.dir = tmp / board
        self.relay = sim.PtyRelay()
        self.board = sim.BoardProcess(
            "bawo-4x8",
            str(self.dir / "flash"),
            fake=False,
            speed=8,
            link=self.relay.board_ends(),
            extra_env={"BAWO_BOARD_ID": board},
        )
        self.relay.start()
        self.env = env_with_path()
        self.env["XDG_DATA_HOME"] = str(self.dir / "data")
        self.env.pop("BAWO_DB", None)
        self.games = 0
        self.procs = []  # the PC's commands that hold the port: killed at the end
        r = self.bawo("club", "join", url, "--token", token)
        assert r.returncode == 0 and "joined the club" in r.stdout, r.stdout + r.stderr

    def bawo(self, *args):
        r = subprocess.run(
            bawo_cmd() + list(args), capture_output=True, text=True, env=self.env, timeout=60
        )
        assert "Traceback" not in r.stderr, r.stderr
        return r

    def pump(self, done, timeout=30.0, what="the PC"):
        """Read the board's status lines (it blocks when nobody does) until done()."""
        deadline = time.monotonic() + timeout
        while not done():
            assert time.monotonic() < deadline, "%s: no %s within %.0f s" % (self.id, what, timeout)
            if self.board.has_line() or self.board.proc.poll() is None:
                try:
                    self.board.readline(timeout=0.1)
                except sim.SimError:
                    assert self.board.proc.poll() is None, self.board.stderr_text()

    def play(self, store, seed, seat, halfway=None):
        """One game on the board, its players at the keys, streamed to the club; then the PC
        syncs it. seat: [round, table, tournament, game] the PC's stream tells the board and
        the board's seat card shows; MENU there starts the round's game. Returns the game's
        id and moves. halfway: a barrier the board waits at, at WALL_PLY, while the test looks
        at the wall."""
        b = self.board
        if self.games:
            b.menu()  # the last game's end: back to the menu, the seat card
        self.games += 1
        err = open(str(self.dir / ("stream%d.err" % self.games)), "w")
        stream = subprocess.Popen(
            bawo_cmd() + ["club", "stream", "--port", self.relay.path, "--exit-after-game"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=self.env,
            start_new_session=True,
        )
        self.procs.append(stream)
        try:
            # The PC tells the board its seat: the card shows this round's table, and MENU
            # on it starts the round's game between two people.
            deadline = time.monotonic() + 30
            while True:
                st = b.idle()
                if st.get("seat") == seat and st.get("card") and st["mode"] == "menu":
                    break
                assert time.monotonic() < deadline, (self.id, seat, st.get("seat"))
                time.sleep(0.2)
            b.menu()
            st = b.idle()
            assert st["mode"] == "play" and st["ply"] == 0 and st["game"] == GAME, st
            assert st["opponent"] == "people", st
            gid = st["id"]
            # The PC has joined the game: the club shows it, at ply 0.
            self.pump(
                lambda: any(
                    r["board"] == self.id and r["rid"] == gid
                    for r in store.live_boards(since="2000")
                ),
                what="live game on the club",
            )
            moves = self.moves = sim.random_moves(GAME, st["pos"], seed, 1000)
            if halfway is not None:
                st = sim.play_moves(b, GAME, moves[:WALL_PLY])
                self.pump(
                    lambda: any(
                        r["board"] == self.id and r["ply"] == WALL_PLY
                        for r in store.live_boards(since="2000")
                    ),
                    what="ply on the club",
                )
                halfway.wait(60)  # the test looks at the wall
                halfway.wait(60)  # ... and has seen it
                st = sim.play_moves(b, GAME, moves[WALL_PLY:])
            else:
                st = sim.play_moves(b, GAME, moves)
            assert st.get("result") and st["ply"] == len(moves), st
            self.pump(lambda: stream.poll() is not None, what="end of the stream")
        finally:
            if stream.poll() is None:
                stream.kill()
            stream.wait(10)
            err.close()
        assert stream.returncode == 0, open(err.name).read()
        # The PC syncs the board: into its log, and on to the club.
        sync = subprocess.Popen(
            bawo_cmd() + ["sync", "--port", self.relay.path],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=self.env,
            start_new_session=True,
        )
        self.procs.append(sync)
        out = []
        threading.Thread(
            target=lambda: out.append(sync.communicate(timeout=60)), daemon=True
        ).start()
        self.pump(lambda: out, timeout=60, what="end of the sync")
        assert sync.returncode == 0 and "club: 1 record(s) delivered" in out[0][0], out
        return gid, moves

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait(10)
        self.board.kill()
        self.relay.close()


def result_of(moves):
    s = State(make_game(GAME))
    for m in moves:
        s.push(m)
    end = s.outcome()
    assert end is not None, moves
    return {0: "S", 1: "N"}.get(end.winner, "D")  # the first side (South) is 0; a draw None


def test_a_swiss_of_nine_players_from_four_simulated_boards(tmp_path):
    import httpx
    from _serve_helpers import browser, quit_browser, screenshot, wait_for

    t_start = time.monotonic()
    db = pg_server().fresh()
    pcs, drv = [], None
    with live_server(db) as (url, store), httpx.Client(base_url=url, timeout=30) as c:
        try:
            csrf = login(c, store)

            def admin(what, **fields):
                r = c.post("/tournaments/" + what, data=dict(fields, csrf=csrf))
                assert r.status_code == 303, r.text
                assert "error=" not in r.headers["location"], r.headers["location"]
                return r.headers["location"]

            assert (
                admin("new", name="Swiss of nine", game=GAME, system="swiss", rounds=str(ROUNDS))
                == "/tournament?id=1"
            )
            for p in PLAYERS:
                admin("register", id="1", player=p)
            pcs = [Pc(tmp_path, b, url, token_for(store, b)) for b in BOARDS]
            played = []  # every pairing with its result, as the test saw it played
            seed_of = None
            for rnd in range(1, ROUNDS + 1):
                admin("round", id="1")
                data = c.get("/tournament/export.json?id=1").json()
                games = [g for g in data["games"] if g["round"] == rnd]
                if seed_of is None:
                    seed_of = {p: i + 1 for i, p in enumerate(T.entrants(store, 1))}
                    assert sorted(seed_of) == sorted(PLAYERS)
                check_round(rnd, games, played, seed_of)
                # The club's own check agrees (a cross-check only).
                rows = T.pairings(store, 1)
                assert pairing.swiss_round(
                    T.entrants(store, 1), T.played_rounds([r for r in rows if r["round"] < rnd])
                ) == [(g["south"], g["north"]) for g in games]
                # Each game has a board, in the boards' order, its players seated there.
                assert [g["board"] for g in games] == BOARDS + [None]
                seats = {s["board"]: (s["south"], s["north"]) for s in store.seats()}
                assert all(seats[g["board"]] == (g["south"], g["north"]) for g in games[:4])
                assert games[4]["result"] == "bye"
                # The four boards play at once.
                halfway = threading.Barrier(len(pcs) + 1) if rnd == WALL_ROUND else None
                out, errors = {}, []

                def run(pc, seed, seat):
                    try:
                        out[pc.id] = pc.play(store, seed, seat, halfway)
                    except BaseException as e:  # reported below
                        errors.append((pc.id, e))
                        if halfway:
                            halfway.abort()

                threads = [
                    threading.Thread(
                        target=run,
                        args=(pc, 100 * rnd + i, [rnd, games[i]["table"], 1, GAME]),
                        daemon=True,
                    )
                    for i, pc in enumerate(pcs)
                ]
                for t in threads:
                    t.start()
                if halfway is not None:
                    try:
                        halfway.wait(120)
                    except threading.BrokenBarrierError:
                        pass
                    if not errors:
                        try:
                            drv = browser()
                            look_at_wall(
                                drv,
                                url,
                                games,
                                {pc.id: pc.moves for pc in pcs},
                                wait_for,
                                screenshot,
                            )
                        except BaseException:
                            halfway.abort()  # the boards stop waiting for the test
                            raise
                        halfway.wait(60)
                for t in threads:
                    t.join(180)
                assert not errors, errors
                # The records filled the results: the players seated, the result the moves'.
                got = [
                    g
                    for g in c.get("/tournament/export.json?id=1").json()["games"]
                    if g["round"] == rnd
                ]
                for g in got[:4]:
                    gid, moves = out[g["board"]]
                    assert g["record_seq"], (g, [dict(r) for r in store.records(board=g["board"])])
                    rec = store.record(g["record_seq"])
                    assert (rec["rid"], rec["south"], rec["north"], rec["plies"]) == (
                        gid,
                        g["south"],
                        g["north"],
                        len(moves),
                    ), (g, dict(rec))
                    assert g["result"] == result_of(moves), (g, moves)
                    # Filled by its seat: the record names the round and table it was played on.
                    assert T.seat_tags(rec["record"]) == (1, rnd, g["table"]), rec["record"][:400]
                played += [
                    dict(g, result=result_of(out[g["board"]][1])) if g["north"] else g for g in got
                ]
                check_sides(played)
                # The club's standings agree with the games after every round: the bye's point.
                club = [
                    (r["player"], r["points"], r["buchholz"], r["sb"], r["de"])
                    for r in c.get("/tournament/export.json?id=1").json()["standings"]
                ]
                assert club == expected_standings(played, seed_of), (rnd, club)
            # All rounds played: no more; every player met different opponents, 4 byes to 4.
            r = c.post("/tournaments/round", data={"id": "1", "csrf": csrf})
            assert "all%204%20rounds" in r.headers["location"]
            assert len({g["south"] for g in played if g["north"] is None}) == ROUNDS
            want = expected_standings(played, seed_of)
            assert sum(x[1] for x in want) == 4 * ROUNDS + ROUNDS  # 16 games, 4 byes
            table = list(csv.reader(io.StringIO(c.get("/tournament/standings.csv?id=1").text)))[1:]
            assert [
                (r[1], float(r[2]), float(r[3]), float(r[4]), float(r[5])) for r in table
            ] == want, table
            # Chromium: the crosstable.
            drv = drv or browser()
            drv.get(url + "tournament/crosstable?id=1")
            rows = [r.text for r in drv.find_elements("css selector", "#crosstable tr")][1:]
            assert len(rows) == len(PLAYERS)
            for text, (p, pts, bh, sb, de) in zip(rows, want):
                assert text.startswith(tuple("%d %s " % (k, p) for k in range(1, 10))), (text, p)
                assert text.endswith("%s %s %s %s" % (pts, bh, sb, de)), (text, p)
            assert sum(r.count("bye +") for r in rows) == ROUNDS
            screenshot(drv, "club-swiss-crosstable")
            print("swiss e2e: %.1f s" % (time.monotonic() - t_start))
        finally:
            if drv is not None:
                quit_browser(drv)
            for pc in pcs:
                pc.close()


def look_at_wall(drv, url, games, moves, wait_for, screenshot):
    """The wall of the round, every board half way through its game: each card names its
    table and players and shows the board's last move."""
    drv.get(url + "tournament/wall?id=1")

    def cards():
        return {
            c.get_attribute("data-board"): c for c in drv.find_elements("css selector", ".card")
        }

    wait_for(
        lambda: (
            {b: c.get_attribute("data-ply") for b, c in cards().items()}
            == {g["board"]: str(WALL_PLY) for g in games if g["board"]}
        ),
        timeout=30,
        what="every board of the round live on the wall",
    )
    text = drv.find_element("css selector", "#wall-tables").text
    for g in games:
        assert g["south"] in text and (g["north"] or "bye") in text
    assert text.count("playing") == 4 and "bye" in text
    for g in games[:4]:
        card = cards()[g["board"]].text
        assert "table %d: %s" % (g["table"], g["board"]) in card, card
        assert "%s – %s" % (g["south"], g["north"]) in card, card
        assert "ply %d: %s" % (WALL_PLY, moves[g["board"]][WALL_PLY - 1]) in card, card
    screenshot(drv, "club-swiss-wall")


def test_a_game_the_boards_clock_starts_a_second_before_its_round_is_the_rounds(club_url):
    """A board's clock (the PC's, set to the whole second) lags the club's by up to 2 s: a
    game started as its round began carries a Start a second before the round's, and was named
    after the seat before. It fills its round's result, renamed; an older game does not."""
    import datetime
    from _club_helpers import bearer, club_client
    from _host_helpers import random_record
    from shared_rules.record import Record

    def record(gid, seconds_before):
        """An Oware game of two people on pico-c1, started seconds_before the round did."""
        rec = random_record(1, gid, name=GAME)
        start = datetime.datetime.strptime(
            store.one("SELECT started FROM pairings WHERE id=1")["started"], "%Y-%m-%dT%H:%M:%SZ"
        ) - datetime.timedelta(seconds=seconds_before)
        return Record(
            dict(
                rec.header,
                Id=gid,
                Device="pico-c1",
                First="person",
                Second="person",
                Start=start.strftime("%Y-%m-%d %H:%M:%S"),
            ),
            rec.moves,
        ).to_text(), rec

    with club_client(club_url) as (c, store):
        tok = token_for(store, "pico-c1")
        tid = T.create(store, "Clock", GAME, "swiss", 2)
        for p in ("Ada", "Bo", "Chi"):
            T.register(store, tid, p)
        store.seat("pico-c1", "Old", "Timer", since="2000-01-01T00:00:00Z")
        T.next_round(store, tid)
        game = T.pairings(store, tid)[0]
        # A game 10 s before the round: the players before; it fills nothing.
        text, _ = record("pico-c1-0001", 10)
        assert (
            c.post("/api/records", content=text, headers=bearer(tok)).json()["outcome"] == "added"
        )
        assert T.pairings(store, tid)[0]["result"] is None
        assert store.records()[0]["south"] == "Old"
        # A game a second before: the round's own, renamed to its players.
        text, rec = record("pico-c1-0002", 1)
        assert (
            c.post("/api/records", content=text, headers=bearer(tok)).json()["outcome"] == "added"
        )
        got = T.pairings(store, tid)[0]
        assert got["rid"] == "pico-c1-0002" and got["result"] == result_of(rec.moves)
        row = [r for r in store.records() if r["rid"] == "pico-c1-0002"][0]
        assert (row["south"], row["north"]) == (game["south"], game["north"])


def test_the_rule_checks_pass_pairing_pys_rounds_and_catch_broken_ones():
    """The checks above, on their own: pairing.py's Swiss of 9 over 4 rounds (random results)
    passes them; a round with a repeat, a bye to the wrong player or sides swapped fails."""
    rng = random.Random(26)
    seed_of = {p: i + 1 for i, p in enumerate(PLAYERS)}
    games = []

    def as_games(rnd, pairs):
        return [
            {
                "round": rnd,
                "table": i + 1,
                "south": s,
                "north": n,
                "result": "bye" if n is None else None,
            }
            for i, (s, n) in enumerate(pairs)
        ]

    for rnd in range(1, ROUNDS + 1):
        rounds = [
            [(g["south"], g["north"], g["result"]) for g in games if g["round"] == k]
            for k in range(1, rnd)
        ]
        now = as_games(rnd, pairing.swiss_round(PLAYERS, rounds))
        check_round(rnd, now, games, seed_of)
        if rnd == 3:
            played = [g for g in now if g["north"]]
            h = history(games)
            granted = next(
                g for g in played if preference(h, g["south"]) != preference(h, g["north"])
            )
            broken = [
                # sides swapped on a table where they were both granted
                [dict(g, south=g["north"], north=g["south"]) if g is granted else g for g in now],
                # the bye to the top player of the round, who then plays the bye's player
                [
                    dict(g, south=now[-1]["south"])
                    if g is played[0]
                    else dict(g, south=played[0]["south"])
                    if g["north"] is None
                    else g
                    for g in now
                ],
                # two players who met in round 1, paired again
                as_games(
                    rnd,
                    [(g["south"], g["north"]) for g in games if g["round"] == 1 and g["north"]]
                    + [(now[-1]["south"], None)],
                ),
            ]
            for bad in broken:
                with pytest.raises(AssertionError):
                    check_round(rnd, bad, games, seed_of)
        for g in now:
            if g["north"]:
                g["result"] = rng.choice("SND")
        games += now
        check_sides(games)
