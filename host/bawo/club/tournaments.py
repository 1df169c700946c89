"""A club's tournaments in its store: the admin creates one (round robin or Swiss, one game
kind), registers players and starts each round; pairing.py pairs it. Each pairing is assigned
one of the club's boards and its players are seated there (the club's seats, so the board's
record carries their names through sync); the record that arrives from that board with those
names, after the round started, fills the result. A pairing without a board, or a game the
board did not record, gets its result from the admin.

Seeds (pairing numbers) are fixed when round 1 starts: the club's rating for the game kind,
highest first, then the name.
"""

from __future__ import annotations

import csv
import datetime
import io
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from shared_rules import GAMES, game as make_game

from . import ClubError
from . import pairing as PR
from .records import check_player, player_of
from .store import utcnow

if TYPE_CHECKING:
    from .store import Store

SYSTEMS = {"swiss": "Swiss (FIDE Dutch)", "roundrobin": "round robin (Berger)"}
MAX_ROUNDS = 30
MAX_NAME = 60
ADMIN_RESULTS = ("S", "N", "D")
# A board's clock is the PC's, set to the whole second (truncated) and ticking in whole
# seconds: its records' Start lags the club's clock by up to 2 s. A game that started so little
# before its round did on the club's clock is the round's game (see fill_results).
CLOCK_SLACK_S = 2


def check_name(name: object) -> str:
    name = " ".join(str(name).split())
    if not 0 < len(name) <= MAX_NAME or not name.isprintable():
        raise ClubError("a tournament's name is 1 to %d printable characters" % MAX_NAME)
    return name


def create(store: Store, name: str, game: str, system: str, rounds: int | None = None) -> int:
    """A new tournament; returns its id. rounds: a Swiss's number of rounds (a round robin's
    follows from its field)."""
    name = check_name(name)
    if game not in GAMES:
        raise ClubError("no game kind %r" % str(game)[:40])
    if system not in SYSTEMS:
        raise ClubError("a tournament is a swiss or a roundrobin")
    rounds = int(rounds or 0)
    if system == "swiss" and not 1 <= rounds <= MAX_ROUNDS:
        raise ClubError("a Swiss has 1 to %d rounds" % MAX_ROUNDS)
    with store.tx() as t:
        if t.one("SELECT id FROM tournaments WHERE name=?", (name,)):
            raise ClubError("there is a tournament %s already" % name)
        return t.one(
            "INSERT INTO tournaments (name, game, system, rounds, created)"
            " VALUES (?,?,?,?,?) RETURNING id",
            (name, game, system, rounds, utcnow()),
        )["id"]


def get(store: Store, tid: int | str) -> dict[str, Any] | None:
    return store.one(
        "SELECT id, name, game, system, rounds, created, started FROM tournaments WHERE id=?",
        (int(tid),),
    )


def listing(store: Store) -> list[dict[str, Any]]:
    return store.query(
        "SELECT t.id, t.name, t.game, t.system, t.rounds, t.started,"
        " (SELECT MAX(round) FROM pairings p WHERE p.tournament = t.id) AS round,"
        " (SELECT COUNT(*) FROM entrants e WHERE e.tournament = t.id) AS players"
        " FROM tournaments t ORDER BY t.id DESC"
    )


def register(store: Store, tid: int | str, player: str) -> str:
    player = check_player(player)
    with store.tx() as t:
        tour = t.one("SELECT started FROM tournaments WHERE id=?", (int(tid),))
        if tour is None:
            raise ClubError("no such tournament")
        if tour["started"]:
            raise ClubError("the tournament has started: its field is closed")
        t.execute(
            "INSERT INTO players (name, added) VALUES (?, ?) ON CONFLICT DO NOTHING",
            (player, utcnow()),
        )
        t.execute(
            "INSERT INTO entrants (tournament, player, seed) VALUES (?, ?, 0)"
            " ON CONFLICT DO NOTHING",
            (int(tid), player),
        )
    return player


def entrants(store: Store, tid: int | str) -> list[str]:
    """The players, in pairing-number order once the tournament started."""
    return [
        r["player"]
        for r in store.query(
            "SELECT player FROM entrants WHERE tournament=? ORDER BY seed, player", (int(tid),)
        )
    ]


def pairings(store: Store, tid: int | str) -> list[dict[str, Any]]:
    return store.query(
        "SELECT p.id, p.round, p.tbl, p.south, p.north, p.board, p.result, p.record,"
        " r.rid FROM pairings p LEFT JOIN records r ON r.seq = p.record"
        " WHERE p.tournament=? ORDER BY p.round, p.tbl",
        (int(tid),),
    )


def played_rounds(rows: Iterable[dict[str, Any]]) -> list[list[tuple[str, str | None, str | None]]]:
    """pairing.py's rounds from the pairings' rows."""
    out = {}
    for r in rows:
        out.setdefault(r["round"], []).append(
            (r["south"], r["north"], "bye" if r["north"] is None else r["result"])
        )
    return [out[k] for k in sorted(out)]


def result_of(game: str, result: str | None) -> str | None:
    """A record's Result as a pairing's: S (the first side won), N, D; None unfinished."""
    if result == "draw":
        return "D"
    sides = make_game(game).sides
    if result == sides[0]:
        return "S"
    if result == sides[1]:
        return "N"
    return None


def seat_of(store: Store, board: str) -> dict[str, Any] | None:
    """The open pairing board is assigned (the newest round's), as the board's PC tells the
    board (SEAT, docs/protocol.md): {tournament, round, table, game, south, north}; None."""
    return store.one(
        "SELECT p.tournament, p.round, p.tbl AS \"table\", t.game, p.south, p.north"
        " FROM pairings p JOIN tournaments t ON t.id = p.tournament"
        " WHERE p.board=? AND p.result IS NULL ORDER BY p.id DESC LIMIT 1",
        (board,),
    )


_TAG = re.compile(r'^\[(Tournament|Round|Table) "(\d{1,5})"\]$', re.M)


def seat_tags(record: str) -> tuple[int, int, int] | None:
    """(tournament, round, table) a record's tags name: a game the board started on its seat
    card (firmware/seat.py); None for any other game."""
    head = record.split("\n\n", 1)[0]
    tags = {k: int(v) for k, v in _TAG.findall(head)}
    if len(tags) != 3:
        return None
    return tags["Tournament"], tags["Round"], tags["Table"]


def fill_results(store: Store, board: str | None = None) -> int:
    """Fill each open pairing (of board, or all) from the first finished record of its board
    that names the pairing's seat in its tags (a game started on the board's seat card), else
    that has its players' names and arrived after its round started. Returns how many."""
    q = (
        "SELECT p.id, p.tournament, p.round, p.tbl, p.board, p.south, p.north, p.started,"
        " t.game FROM pairings p"
        " JOIN tournaments t ON t.id = p.tournament"
        " WHERE p.result IS NULL AND p.board IS NOT NULL"
    )
    args = []
    if board is not None:
        q += " AND p.board=?"
        args.append(board)
    n = 0
    for p in store.query(q, args):
        rows = _seated(store, p)
        rename = bool(rows)
        if not rows:
            rows = store.query(
                "SELECT seq, result, record FROM records WHERE board=? AND status='ok'"
                " AND game=? AND south=? AND north=? AND added>=? AND result <> '*'"
                " AND seq NOT IN (SELECT record FROM pairings WHERE record IS NOT NULL)"
                " ORDER BY seq",
                (p["board"], p["game"], p["south"], p["north"], p["started"]),
            )
            rows = [r for r in rows if seat_tags(r["record"]) is None][:1]
        if not rows:
            rows = _started_with_the_round(store, p)
            rename = True
        if rows and result_of(p["game"], rows[0]["result"]):
            with store.tx() as t:
                got = t.execute(
                    "UPDATE pairings SET result=?, record=? WHERE id=? AND result IS NULL",
                    (result_of(p["game"], rows[0]["result"]), rows[0]["seq"], p["id"]),
                ).rowcount
                if got and rename:
                    t.execute(
                        "UPDATE records SET south=?, north=? WHERE seq=?",
                        (p["south"], p["north"], rows[0]["seq"]),
                    )
                n += got
    return n


def _seated(store: Store, p: dict) -> list:
    """The first finished record of the pairing's board whose tags name the pairing's seat."""
    rows = store.query(
        "SELECT seq, result, record FROM records WHERE board=? AND status='ok' AND game=?"
        " AND added>=? AND result <> '*'"
        " AND seq NOT IN (SELECT record FROM pairings WHERE record IS NOT NULL) ORDER BY seq",
        (p["board"], p["game"], p["started"]),
    )
    want = (p["tournament"], p["round"], p["tbl"])
    return [r for r in rows if seat_tags(r["record"]) == want][:1]


def _started_with_the_round(store: Store, p: dict) -> list:
    """The record of a game the pairing's players started on its board as the round began,
    whose Start the board's clock put a second or two before the round's start on the club's
    clock: the club named it after the seat before (its seat is the one at its Start). Both
    sides people, arrived after the round started, started at most CLOCK_SLACK_S before it."""
    t = datetime.datetime.strptime(p["started"], "%Y-%m-%dT%H:%M:%SZ")
    early = (t - datetime.timedelta(seconds=CLOCK_SLACK_S)).strftime("%Y-%m-%dT%H:%M:%SZ")
    rows = store.query(
        "SELECT seq, result, first_tag, second_tag, record FROM records WHERE board=?"
        " AND status='ok'"
        " AND game=? AND added>=? AND result <> '*' AND played >= ? AND played < ?"
        " AND seq NOT IN (SELECT record FROM pairings WHERE record IS NOT NULL)"
        " ORDER BY seq LIMIT 1",
        (p["board"], p["game"], p["started"], early, p["started"]),
    )
    return [
        r
        for r in rows
        if player_of(r["first_tag"]) is None
        and player_of(r["second_tag"]) is None
        and seat_tags(r["record"]) is None
    ]


def set_result(store: Store, pairing_id: int | str, result: str) -> int:
    """The admin's result of a game (played off the boards, forfeited, or misrecorded)."""
    if result not in ADMIN_RESULTS:
        raise ClubError("a result is S (South won), N (North won) or D (a draw)")
    with store.tx() as t:
        row = t.one(
            "UPDATE pairings SET result=? WHERE id=? AND north IS NOT NULL RETURNING tournament",
            (result, int(pairing_id)),
        )
    if row is None:
        raise ClubError("no such game")
    return row["tournament"]


def _seed(store: Store, tid: int | str, ratings: dict[str, float]) -> list[str]:
    """Fix the pairing numbers: rating for the game kind (highest first), then the name."""
    names = entrants(store, tid)
    if len(names) < 2:
        raise ClubError("a tournament needs 2 players or more")
    order = sorted(names, key=lambda p: (-(ratings.get(p) or 0), p))
    with store.tx() as t:
        for i, p in enumerate(order):
            t.execute(
                "UPDATE entrants SET seed=? WHERE tournament=? AND player=?", (i + 1, int(tid), p)
            )
    return order


def next_round(store: Store, tid: int | str, ratings: dict[str, float] | None = None) -> int:
    """Pair the next round, assign boards and seat the players there. ratings: {player: rating}
    of the game kind, for round 1's seeds. Returns the round's number."""
    tour = get(store, tid)
    if tour is None:
        raise ClubError("no such tournament")
    fill_results(store)
    rows = pairings(store, tid)
    open_ = [r for r in rows if r["north"] is not None and r["result"] is None]
    if open_:
        raise ClubError(
            "round %d has %d game(s) without a result" % (open_[0]["round"], len(open_))
        )
    done = max([r["round"] for r in rows] or [0])
    seeds = _seed(store, tid, ratings or {}) if done == 0 else entrants(store, tid)
    total = tour["rounds"] if tour["system"] == "swiss" else len(seeds) - 1 + len(seeds) % 2
    if done >= total:
        raise ClubError("all %d rounds are played" % total)
    if tour["system"] == "roundrobin":
        pairs = [
            (seeds[a - 1], seeds[b - 1] if b else None) for a, b in PR.berger(len(seeds))[done]
        ]
        pairs.sort(key=lambda x: x[1] is None)
    else:
        try:
            pairs = PR.swiss_round(seeds, played_rounds(rows))
        except PR.PairingError as e:
            raise ClubError(str(e))
    _store_round(store, tour, done + 1, total, pairs)
    return done + 1


def _store_round(
    store: Store, tour: dict[str, Any], rnd: int, total: int, pairs: list[tuple[str, str | None]]
) -> None:
    boards = [b["id"] for b in store.boards()]
    now = utcnow()
    with store.tx() as t:
        t.lock("tournament", str(tour["id"]))
        if t.one("SELECT 1 AS x FROM pairings WHERE tournament=? AND round=?", (tour["id"], rnd)):
            raise ClubError("round %d was started already" % rnd)
        if rnd == 1:
            t.execute(
                "UPDATE tournaments SET started=?, rounds=? WHERE id=?", (now, total, tour["id"])
            )
        for i, (south, north) in enumerate(pairs):
            board = boards[i] if north is not None and i < len(boards) else None
            t.execute(
                "INSERT INTO pairings (tournament, round, tbl, south, north, board, result,"
                " started) VALUES (?,?,?,?,?,?,?,?)",
                (
                    tour["id"],
                    rnd,
                    i + 1,
                    south,
                    north,
                    board,
                    "bye" if north is None else None,
                    now,
                ),
            )
            if board is not None:
                t.execute(
                    "INSERT INTO seats (board, south, north, since) VALUES (?,?,?,?)",
                    (board, south, north, now),
                )


def standings(store: Store, tid: int | str) -> list[dict[str, Any]]:
    tour = get(store, tid)
    return PR.standings(entrants(store, tid), played_rounds(pairings(store, tid)), tour["system"])


def crosstable(store: Store, tid: int | str) -> tuple[list[dict[str, Any]], int]:
    """The standings, each row with its rounds: (opponent's place, side, +/=/-), or a bye."""
    rows = standings(store, tid)
    place = {r["player"]: i + 1 for i, r in enumerate(rows)}
    cells = {r["player"]: {} for r in rows}
    for p in pairings(store, tid):
        if p["north"] is None:
            cells[p["south"]][p["round"]] = "bye +"
            continue
        for me, other, side in ((p["south"], p["north"], "S"), (p["north"], p["south"], "N")):
            mark = {None: "", "D": "="}.get(p["result"], "+" if p["result"] == side else "-")
            cells[me][p["round"]] = "%d%s%s" % (place[other], side, mark)
    n = max([p["round"] for p in pairings(store, tid)] or [0])
    for r in rows:
        r["rounds"] = [cells[r["player"]].get(k, "") for k in range(1, n + 1)]
    return rows, n


def standings_csv(store: Store, tid: int | str) -> str:
    rows, n = crosstable(store, tid)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(
        ["place", "player", "points", "buchholz", "sonneborn_berger", "direct_encounter"]
        + ["round_%d" % k for k in range(1, n + 1)]
    )
    for r in rows:
        w.writerow(
            [r["place"], cell(r["player"]), r["points"], r["buchholz"], r["sb"], r["de"]]
            + r["rounds"]
        )
    return out.getvalue()


def cell(text: str) -> str:
    """A name as a spreadsheet cell: one starting with = + - @ is not run as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def export(store: Store, tid: int | str) -> dict[str, Any]:
    """The tournament whole, as JSON-ready data: standings and every game with its record."""
    tour = dict(get(store, tid))
    rows, _ = crosstable(store, tid)
    games = [
        {
            "round": p["round"],
            "table": p["tbl"],
            "south": p["south"],
            "north": p["north"],
            "board": p["board"],
            "result": p["result"],
            "record": p["rid"],
            "record_seq": p["record"],
        }
        for p in pairings(store, tid)
    ]
    return {"tournament": tour, "standings": rows, "games": games}
