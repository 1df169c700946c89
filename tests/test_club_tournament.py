"""A Swiss and a round robin run on the club: the admin creates them, registers players and
starts rounds; each pairing gets a board with its players seated there, the board's record
arrives through the PCs' API and fills the result; standings, crosstable, CSV and JSON agree.
A club on each engine in the test client (the pairing rules themselves: test_club_pairing.py)."""

import csv
import datetime
import html
import io
import itertools
import json
import re

import pytest

from _club_helpers import bearer, club_client, login, token_for
from _club_pg import club_url  # noqa: F401  (fixture)
from _host_helpers import random_record

from bawo.club import pairing, tournaments as T
from shared_rules.record import Record

pytestmark = pytest.mark.xdist_group("club_pg")
_found = {}


def _record(result, gid, board, start):
    """An Oware game (random legal moves) that ends in result, as the board would write it."""
    if result not in _found:
        for seed in itertools.count():
            rec = random_record(seed, "x-0001", name="oware")
            if rec.header.get("Result") == result:
                _found[result] = rec
                break
    rec = _found[result]
    header = dict(rec.header, Id=gid, Device=board, Start=start, First="person", Second="person")
    return Record(header, rec.moves).to_text()


def _at(seconds):
    t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%S")


def _form(c, path, csrf, **fields):
    return c.post(path, data=dict(fields, csrf=csrf), follow_redirects=False)


def test_a_swiss_runs_from_the_boards_records(club_url):
    with club_client(club_url) as (c, store):
        csrf = login(c, store)
        tokens = {b: token_for(store, b) for b in ("pico-t1", "pico-t2")}
        r = _form(
            c, "/tournaments/new", csrf, name="Spring <b>", game="oware", system="swiss", rounds="3"
        )
        assert r.status_code == 303 and r.headers["location"] == "/tournament?id=1"
        for p in ("Ada", "Bo", "Chi", "Dee", "Eve"):
            assert _form(c, "/tournaments/register", csrf, id="1", player=p).status_code == 303
        results = itertools.cycle(["S", "N", "draw", "S"])
        n = 0
        for rnd in (1, 2, 3):
            assert (
                _form(c, "/tournaments/round", csrf, id="1").headers["location"]
                == "/tournament?id=1"
            )
            games = [p for p in T.pairings(store, 1) if p["round"] == rnd]
            assert len(games) == 3 and [g["board"] for g in games] == ["pico-t1", "pico-t2", None]
            assert games[2]["north"] is None and games[2]["result"] == "bye"
            # The players are seated at their boards: the records carry their names.
            seats = {s["board"]: (s["south"], s["north"]) for s in store.seats()}
            assert all(seats[g["board"]] == (g["south"], g["north"]) for g in games[:2])
            # The next round waits for the results.
            r = _form(c, "/tournaments/round", csrf, id="1")
            assert "without%20a%20result" in r.headers["location"]
            for g in games[:2]:
                n += 1
                text = _record(next(results), "%s-%04d" % (g["board"], n), g["board"], _at(5 + n))
                r = c.post("/api/records", content=text, headers=bearer(tokens[g["board"]]))
                assert r.json()["outcome"] == "added", r.text
            got = [p for p in T.pairings(store, 1) if p["round"] == rnd]
            assert all(p["result"] in ("S", "N", "D") and p["rid"] for p in got[:2]), got
        assert (
            "all%203%20rounds" in _form(c, "/tournaments/round", csrf, id="1").headers["location"]
        )
        rows = T.pairings(store, 1)
        # The rules, once more on the club's own rounds: no repeat, three byes to three players.
        met = [frozenset((p["south"], p["north"])) for p in rows if p["north"]]
        assert len(met) == len(set(met)) == 6
        assert len({p["south"] for p in rows if p["north"] is None}) == 3
        standings = T.standings(store, 1)
        assert standings == pairing.standings(T.entrants(store, 1), T.played_rounds(rows), "swiss")
        assert sum(r["points"] for r in standings) == 6 + 3  # six games, three byes
        page = c.get("/tournament?id=1").text
        assert "Spring &lt;b&gt;" in page and "<b>" not in page.split("<h1>")[1].split("</h1>")[0]
        assert page.count('<a href="/game?seq=') == 6
        cross = c.get("/tournament/crosstable?id=1").text
        assert all(p in cross for p in ("Ada", "Bo", "Chi", "Dee", "Eve")) and "bye +" in cross
        table = list(csv.reader(io.StringIO(c.get("/tournament/standings.csv?id=1").text)))
        assert (
            table[0][:6]
            == ["place", "player", "points", "buchholz", "sonneborn_berger", "direct_encounter"]
            and len(table) == 6
        )
        assert [row[1] for row in table[1:]] == [r["player"] for r in standings]
        data = c.get("/tournament/export.json?id=1").json()
        assert len(data["games"]) == 9 and all(g["record"] for g in data["games"] if g["north"])
        # Nobody but an admin changes a tournament.
        c.cookies.clear()
        assert _form(c, "/tournaments/round", csrf, id="1").status_code == 403


def test_a_round_robin_follows_the_berger_table_and_takes_the_admins_results(tmp_path):
    with club_client(str(tmp_path / "club.sqlite")) as (c, store):
        csrf = login(c, store)
        token_for(store, "pico-r1")
        _form(c, "/tournaments/new", csrf, name="Club RR", game="bawo", system="roundrobin")
        for p in ("Ada", "Bo", "Chi", "Dee"):
            _form(c, "/tournaments/register", csrf, id="1", player=p)
        for rnd in (1, 2, 3):
            _form(c, "/tournaments/round", csrf, id="1")
            seeds = T.entrants(store, 1)
            games = [p for p in T.pairings(store, 1) if p["round"] == rnd]
            assert [(g["south"], g["north"]) for g in games] == [
                (seeds[a - 1], seeds[b - 1]) for a, b in pairing.berger(4)[rnd - 1]
            ]
            assert [g["board"] for g in games] == ["pico-r1", None]  # one board: one table
            for g in games:
                assert (
                    _form(
                        c, "/tournaments/result", csrf, id="1", pairing=str(g["id"]), result="S"
                    ).status_code
                    == 303
                )
        assert [(r["player"], r["points"]) for r in T.standings(store, 1)][0][1] >= 2
        assert (
            "all%203%20rounds" in _form(c, "/tournaments/round", csrf, id="1").headers["location"]
        )
        # The wall: the current round's boards live, each card named by its table.
        wall = c.get("/tournament/wall?id=1").text
        m = re.search(r'data-tables="([^"]*)"', wall)
        assert json.loads(html.unescape(m.group(1))) == {"pico-r1": 1} and "round 3" in wall
        assert "Club RR" in c.get("/tournaments").text
        assert c.get("/tournament?id=99").status_code == 404


def test_the_boards_seat_reaches_its_pc_and_a_record_tagged_with_it_fills_the_round(club_url):
    """GET /api/seat names the pairing a board is seated for; the board shows it and tags the
    game started on it (firmware/seat.py). A record with the seat's tags fills its pairing
    whatever its Start says (a board's clock an hour off); one tagged for another seat fills
    nothing, even with the pairing's players' names."""
    from bawo.club.stream import check_seat

    with club_client(club_url) as (c, store):
        tok = token_for(store, "pico-c1")
        assert c.get("/api/seat", headers=bearer(tok)).json() == {"seat": None}
        assert c.get("/api/seat").status_code == 401
        tid = T.create(store, "Seats", "oware", "swiss", 2)
        for p in ("Ada", "Bo", "Chi"):
            T.register(store, tid, p)
        T.next_round(store, tid)
        game = T.pairings(store, tid)[0]
        seat = c.get("/api/seat", headers=bearer(tok)).json()["seat"]
        assert seat == {
            "tournament": tid,
            "round": 1,
            "table": 1,
            "game": "oware",
            "south": game["south"],
            "north": game["north"],
        }
        assert check_seat(seat) == (1, 1, tid, "oware")

        def tagged(gid, rnd, start, result="S"):
            rec = Record.from_text(_record(result, gid, "pico-c1", start))
            header = dict(rec.header, Tournament=str(tid), Round=str(rnd), Table="1")
            return Record(header, rec.moves).to_text()

        # Tagged for round 2, started now (so named after the pairing's seat): not this round's.
        text = tagged("pico-c1-0001", 2, _at(0).replace("T", " "))
        assert T.seat_tags(text) == (tid, 2, 1)
        r = c.post("/api/records", content=text, headers=bearer(tok))
        assert r.json()["outcome"] == "added"
        assert T.pairings(store, tid)[0]["result"] is None
        # Tagged with the seat, its Start an hour before the round: the round's game.
        text = tagged("pico-c1-0002", 1, _at(-3600).replace("T", " "), "N")
        r = c.post("/api/records", content=text, headers=bearer(tok))
        assert r.json()["outcome"] == "added"
        got = T.pairings(store, tid)[0]
        assert (got["rid"], got["result"]) == ("pico-c1-0002", "N")
        row = [x for x in store.records() if x["rid"] == "pico-c1-0002"][0]
        assert (row["south"], row["north"]) == (game["south"], game["north"])
        # The result is in: the board is seated for nothing until the next round.
        assert c.get("/api/seat", headers=bearer(tok)).json() == {"seat": None}


@pytest.mark.parametrize(
    "seat",
    [
        [],
        {"round": 0, "table": 1, "tournament": 1, "game": "oware"},
        {"round": 1, "table": 100, "tournament": 1, "game": "oware"},
        {"round": 1, "table": 1, "tournament": 70000, "game": "oware"},
        {"round": True, "table": 1, "tournament": 1, "game": "oware"},
        {"round": "1", "table": 1, "tournament": 1, "game": "oware"},
        {"round": 1, "table": 1, "tournament": 1, "game": "chess"},
        {"round": 1, "table": 1, "tournament": 1},
    ],
)
def test_a_seat_the_board_could_not_take_is_refused_on_the_pc(seat):
    from bawo.club.stream import check_seat

    with pytest.raises(ValueError):
        check_seat(seat)
