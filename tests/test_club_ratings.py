"""Players and ratings: Glicko-2 against Glickman's worked example, seats naming the players of
uploaded records, the board's AI as a player, deterministic recompute, the leaderboard's
provisional marks and the player page."""

import datetime
import random

import pytest

from _club_helpers import bearer, club_client, login, token_for
from _host_helpers import random_record

from bawo.club import ClubError
from bawo.club.glicko2 import Rating, update
from bawo.club.ratings import leaderboard, recompute
from bawo.club.records import check_player
from shared_rules.record import Record


def test_glickman_worked_example():
    # "Example of the Glicko-2 system", section 3: 1500/200/0.06 against 1400/30 (won),
    # 1550/100 (lost), 1700/300 (lost). The paper rounds its intermediate values (mu' =
    # -0.2069), so its r' is 1464.06 where the exact arithmetic gives 1464.0507.
    new = update(
        Rating(1500, 200, 0.06),
        [(Rating(1400, 30), 1), (Rating(1550, 100), 0), (Rating(1700, 300), 0)],
    )
    assert abs(new.r - 1464.06) < 0.015
    assert round(new.rd, 2) == 151.52
    assert abs(new.sigma - 0.05999) < 0.00001
    # A period without games: only the deviation grows (step 6).
    idle = update(Rating(1500, 200, 0.06), [])
    assert idle.r == 1500 and round(idle.rd, 2) == 200.27


def _games(n, seed):
    rng = random.Random(seed)
    people = ["Ada", "Bo", "Chi", "Dee"]
    out = []
    for i in range(n):
        s, t = rng.sample(people, 2)
        out.append(
            {
                "game": rng.choice(["bawo", "oware"]),
                "result": rng.choice(["S", "N", "draw"]),
                "played": "2025-06-%02dT10:00:00Z" % (1 + i // 5),
                "added": "x",
                "south": s,
                "north": t,
            }
        )
    return out


def test_recompute_is_deterministic_and_marks_provisional():
    games = _games(60, 1)
    a, b = recompute(games), recompute(list(games))
    assert {k: {p: repr(e["rating"]) for p, e in t.items()} for k, t in a.items()} == {
        k: {p: repr(e["rating"]) for p, e in t.items()} for k, t in b.items()
    }
    rows = leaderboard(a["bawo"])
    assert sum(r["games"] for r in rows) == 2 * sum(g["game"] == "bawo" for g in games)
    # One game against one opponent leaves a rating provisional (RD far above 110).
    one = leaderboard(
        recompute(
            [
                {
                    "game": "oware",
                    "result": "S",
                    "played": "2025-06-01T00:00:00Z",
                    "added": "x",
                    "south": "Ed",
                    "north": "Flo",
                }
            ]
        )["oware"]
    )
    assert [(r["player"], r["provisional"]) for r in one] == [("Ed", True), ("Flo", True)]
    assert one[0]["rating"] > 1500 > one[1]["rating"]


def test_names_are_checked():
    assert check_player("  Ada   Lovelace ") == "Ada Lovelace"
    for bad in ("", "x" * 41, "Ada\x1b[2J", "board (level 5)", "person"):
        with pytest.raises(ClubError):
            check_player(bad)


def _at(seconds):
    # A UTC time `seconds` from now, as the board writes Start (no zone: UTC).
    t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%S")


def _baghchal(gid, device, result_side, start, first="person", second="person"):
    # A random Bagh-Chal game, replayed until one side wins as asked.
    for seed in range(200):
        rec = random_record(seed, gid, name="bagh-chal")
        if rec.header.get("Result") == result_side:
            rec.header["Device"] = device
            rec.header["First"], rec.header["Second"] = first, second
            rec.header["Start"] = start
            return Record(rec.header, rec.moves)
    raise AssertionError("no game found")


def test_seats_name_records_and_the_board_ai_is_a_player(tmp_path):
    from bawo.cli import main

    db = str(tmp_path / "club.sqlite")
    with club_client(db) as (c, store):
        tok = token_for(store, "pico-dd04")
        # `bawo club seat` on the club's database, before the games.
        assert main(["club", "seat", "--db", db, "pico-dd04", "Ada", "Bo"]) == 0
        # Who sat there when the game was played names its players: the record's Start.
        g1 = _baghchal("pico-dd04-0001", "pico-dd04", "T", _at(10))  # Bo (tigers) wins
        assert (
            c.post("/api/records", content=g1.to_text(), headers=bearer(tok)).json()["outcome"]
            == "added"
        )
        store.seat("pico-dd04", "Bo", "Ada", since=_at(20) + "Z")
        g2 = _baghchal("pico-dd04-0002", "pico-dd04", "T", _at(30))  # Ada (tigers) wins
        c.post("/api/records", content=g2.to_text(), headers=bearer(tok))
        g3 = _baghchal("pico-dd04-0003", "pico-dd04", "T", _at(40), second="board (level 5)")
        c.post("/api/records", content=g3.to_text(), headers=bearer(tok))
        rows = {r["rid"]: (r["south"], r["north"]) for r in store.records()}
        assert rows == {
            "pico-dd04-0001": ("Ada", "Bo"),
            "pico-dd04-0002": ("Bo", "Ada"),
            "pico-dd04-0003": ("Bo", "board (level 5)"),
        }
        # Goats and tigers are one player's two sides: one Bagh-Chal rating each.
        lb = c.get("/leaderboard?game=bagh-chal").text
        for name in ("Ada", "Bo", "board (level 5)"):
            assert lb.count(">%s</a>" % name) == 1, name
        assert "?</td>" in lb  # all provisional after three games
        page = c.get("/player", params={"name": "Ada"}).text
        assert "bagh-chal:" in page and "1 won, 0 drawn, 1 lost" in page and "<svg" in page
        assert c.get("/player", params={"name": "Nobody"}).status_code == 404
        # The admin names the players of a game afterwards; the ratings follow the log.
        before = c.get("/leaderboard?game=bagh-chal").text
        csrf = login(c, store)
        seq = [r["seq"] for r in store.records() if r["rid"] == "pico-dd04-0001"][0]
        r = c.post(
            "/admin/names",
            data={"csrf": csrf, "seq": seq, "south": "Chi", "north": "Bo"},
            follow_redirects=False,
        )
        assert r.status_code == 303
        assert store.record(seq)["south"] == "Chi"
        after = c.get("/leaderboard?game=bagh-chal").text
        assert ">Chi</a>" in after and after != before
