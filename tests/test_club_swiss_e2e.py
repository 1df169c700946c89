"""Issue 26, a Swiss end to end (the tournament's games from simulated boards' records)."""
import pytest

from _club_helpers import token_for
from _club_pg import club_url  # noqa: F401  (fixture)

from shared_rules import State, game as make_game

from bawo.club import tournaments as T

pytestmark = pytest.mark.xdist_group("club_pg")

GAME = "oware"


def result_of(moves):
    s = State(make_game(GAME))
    for m in moves:
        s.push(m)
    end = s.outcome()
    assert end is not None, moves
    return {0: "S", 1: "N"}.get(end.winner, "D")   # the first side (South) is 0; a draw None


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
        start = datetime.datetime.strptime(store.one("SELECT started FROM pairings WHERE id=1")["started"],
                                           "%Y-%m-%dT%H:%M:%SZ") - datetime.timedelta(seconds=seconds_before)
        return Record(dict(rec.header, Id=gid, Device="pico-c1", First="person", Second="person",
                           Start=start.strftime("%Y-%m-%d %H:%M:%S")), rec.moves).to_text(), rec
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
        assert c.post("/api/records", content=text, headers=bearer(tok)).json()["outcome"] == "added"
        assert T.pairings(store, tid)[0]["result"] is None
        assert store.records()[0]["south"] == "Old"
        # A game a second before: the round's own, renamed to its players.
        text, rec = record("pico-c1-0002", 1)
        assert c.post("/api/records", content=text, headers=bearer(tok)).json()["outcome"] == "added"
        got = T.pairings(store, tid)[0]
        assert got["rid"] == "pico-c1-0002" and got["result"] == result_of(rec.moves)
        row = [r for r in store.records() if r["rid"] == "pico-c1-0002"][0]
        assert (row["south"], row["north"]) == (game["south"], game["north"])
