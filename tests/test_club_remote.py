"""Remote games through the club's API (host/bawo/club/remote*.py), on SQLite and PostgreSQL:
a whole game by two board tokens to its end by the rules, every refusal (with nothing
changed), offers, clocks on an injected clock (no test sleeps for a clock), the peer flag,
the record stored and rated once, a board's own record bound to it, the live view."""

import datetime
import json
import types

import pytest

from _club_pg import club_url  # noqa: F401  (fixture)
from _club_helpers import bearer, club_client, token_for

from shared_rules import State, game as make_game
from shared_rules.record import Record

from bawo.club import ratings as R

pytestmark = pytest.mark.xdist_group("club_pg")

# An Oware game to its end by the rules in 28 plies (North wins, "25 seeds").
OWARE = "E b D e F d C e A a B c F b E a F e B b C c A d B e E f".split()
T0 = 1_800_000_000_000


class Clock:
    """The club's clock in ms, moved by the test."""

    def __init__(self):
        self.t = T0

    def __call__(self):
        return self.t

    def add(self, seconds):
        self.t += int(seconds * 1000)


@pytest.fixture
def club(club_url):  # noqa: F811
    clock = Clock()
    with club_client(club_url, clock=clock) as (c, store):
        toks = {b: token_for(store, b) for b in ("pico-a", "pico-b", "pico-c")}
        yield types.SimpleNamespace(c=c, store=store, clock=clock, tok=toks)


def call(club, board, method, path, body=None, raw=None, **params):
    h = bearer(club.tok[board])
    if method == "GET":
        r = club.c.get("/api/remote/" + path, headers=h, params=params)
    else:
        data = raw if raw is not None else json.dumps({} if body is None else body).encode()
        r = club.c.post(
            "/api/remote/" + path,
            headers=dict(h, **{"Content-Type": "application/json"}),
            content=data,
        )
    return r.status_code, r.json()


def start(club, kind="oware", side="south", clock=None):
    """A game sought by pico-a (side), accepted by pico-b: its id."""
    st, ans = call(club, "pico-a", "POST", "seek", {"kind": kind, "side": side, "clock": clock})
    assert st == 200 and ans["state"] == "open", ans
    gid = ans["game"]
    st, s = call(club, "pico-b", "POST", "%d/accept" % gid)
    assert st == 200 and s["state"] == "playing", s
    return gid


def look(club, board, gid, **params):
    st, s = call(club, board, "GET", str(gid), **params)
    assert st == 200, s
    return s


def play(club, gid, moves, first=0):
    """Post moves from ply first + 1, each by the board whose turn it is."""
    for k, m in enumerate(moves, first + 1):
        board = "pico-a" if k % 2 else "pico-b"
        st, ans = call(club, board, "POST", "%d/move" % gid, {"ply": k, "move": m})
        assert (st, ans) == (200, {"ply": k}), (k, m, ans)


def remote_records(store, gid):
    return [r for r in store.records() if r["rid"] == "remote-%d" % gid]


def test_a_whole_game_by_two_tokens_to_its_end_by_the_rules(club):
    club.store.seat("pico-b", "Ada", "Bo", since="2000-01-01T00:00:00Z")
    st, ans = call(
        club,
        "pico-a",
        "POST",
        "seek",
        {"kind": "oware", "side": "south", "opponent": None, "clock": None},
    )
    gid = ans["game"]
    # The seeker sees its own seek; another board sees it as one it may accept.
    assert call(club, "pico-a", "GET", "open")[1]["seeks"] == [
        {
            "game": gid,
            "kind": "oware",
            "by": "pico-a",
            "side": "south",
            "opponent": None,
            "clock": None,
            "mine": True,
        }
    ]
    assert call(club, "pico-b", "GET", "open")[1]["seeks"][0]["mine"] is False
    st, s = call(club, "pico-b", "POST", "%d/accept" % gid)
    assert (s["south"], s["north"], s["side"], s["ply"], s["turn"]) == (
        "pico-a",
        "pico-b",
        "north",
        0,
        "south",
    )
    assert call(club, "pico-b", "GET", "open")[1]["seeks"] == []
    play(club, gid, OWARE[:27])
    s = look(club, "pico-a", gid)
    assert (s["state"], s["ply"], s["turn"], s["result"]) == ("playing", 27, "north", None)
    play(club, gid, OWARE[27:], first=27)
    for board, side in (("pico-a", "south"), ("pico-b", "north")):
        s = look(club, board, gid)
        assert (s["state"], s["result"], s["reason"], s["side"], s["moves"]) == (
            "over",
            "N",
            "25 seeds",
            side,
            OWARE,
        )
        g = make_game("oware")
        st_ = State(g)
        for m in OWARE:
            st_.push(m)
        assert s["position"] == g.format(st_.position)
    # Stored once (polls and a replayed last move add nothing), with the players' names:
    # pico-b's seat names its North, pico-a has none: its board id.
    assert call(club, "pico-b", "POST", "%d/move" % gid, {"ply": 28, "move": "f"}) == (
        200,
        {"ply": 28},
    )
    (rec,) = remote_records(club.store, gid)
    assert (
        rec["board"],
        rec["result"],
        rec["reason"],
        rec["plies"],
        rec["south"],
        rec["north"],
        rec["status"],
    ) == ("pico-a", "N", "25 seeds", 28, "pico-a", "Bo", "ok")
    r = Record.from_text(club.store.record(rec["seq"])["record"])
    assert r.moves == OWARE and r.replay().outcome().reason == "25 seeds"
    # Rated once.
    table = R.recompute(club.store.rated_games())["oware"]
    assert (table["Bo"]["wins"], table["pico-a"]["losses"], table["Bo"]["games"]) == (1, 1, 1)
    # The over game takes no move.
    st, ans = call(club, "pico-a", "POST", "%d/move" % gid, {"ply": 29, "move": "A"})
    assert st == 422 and "over" in ans["error"]


def test_every_wrong_move_is_refused_and_changes_nothing(club):
    gid = start(club)
    play(club, gid, OWARE[:2])
    before = look(club, "pico-a", gid)

    def refused(board, body, status, words):
        st, ans = call(club, board, "POST", "%d/move" % gid, body)
        assert st == status and words in ans["error"], (body, st, ans)
        return ans

    # Illegal by the rules (pit D is South's, but empty? no: a move letter of North's).
    refused("pico-a", {"ply": 3, "move": "a"}, 422, "illegal move")
    refused("pico-a", {"ply": 3, "move": "Z"}, 422, "illegal move")
    # The other side's turn: North's board posts South's ply.
    refused("pico-b", {"ply": 3, "move": "D"}, 422, "turn")
    # Out of turn: a ply past the next one, or long before it.
    assert refused("pico-a", {"ply": 5, "move": "D"}, 409, "next ply")["ply"] == 2
    # Another move at a played ply.
    assert refused("pico-a", {"ply": 1, "move": "A"}, 409, "played already")["ply"] == 2
    # Not a player of this game.
    refused("pico-c", {"ply": 3, "move": "D"}, 422, "not a player")
    after = look(club, "pico-a", gid)
    assert (after["ply"], after["moves"], after["v"]) == (
        before["ply"],
        before["moves"],
        before["v"],
    )
    # The same move again at a played ply is taken (a retry after a lost answer): nothing new.
    assert call(club, "pico-a", "POST", "%d/move" % gid, {"ply": 1, "move": "E"}) == (
        200,
        {"ply": 1},
    )
    assert call(club, "pico-b", "POST", "%d/move" % gid, {"ply": 2, "move": "b"}) == (
        200,
        {"ply": 2},
    )
    assert look(club, "pico-a", gid)["v"] == before["v"]
    # No such game; a game not yet accepted.
    assert call(club, "pico-a", "POST", "999/move", {"ply": 1, "move": "A"})[0] == 404
    st, ans = call(club, "pico-a", "POST", "seek", {"kind": "oware", "side": "any"})
    st, ans = call(club, "pico-a", "POST", "%d/move" % ans["game"], {"ply": 1, "move": "A"})
    assert st == 422 and "not started" in ans["error"]


BAD_BODIES = [
    ("seek", b"{" + b" " * 5000 + b"}", 413),
    ("seek", json.dumps({"kind": "oware", "side": "any", "clock": {"base": [[1]]}}).encode(), 400),
    ("seek", b"[" * 50 + b"]" * 50, 400),
    ("seek", json.dumps({"kind": "chess", "side": "any"}).encode(), 400),
    ("seek", json.dumps({"kind": ["oware"], "side": "any"}).encode(), 400),
    ("seek", json.dumps({"kind": "oware", "side": "east"}).encode(), 400),
    ("seek", json.dumps({"kind": "oware", "side": "any", "clock": {"base": 10**30}}).encode(), 400),
    (
        "seek",
        json.dumps({"kind": "oware", "side": "any", "clock": {"base": 60, "inc": -1}}).encode(),
        400,
    ),
    ("seek", json.dumps({"kind": "oware", "side": "any", "clock": {"move": True}}).encode(), 400),
    ("seek", json.dumps({"kind": "oware", "side": "any", "clock": {"base": 1.5}}).encode(), 400),
    ("seek", json.dumps({"kind": "oware", "side": "any", "opponent": "a b"}).encode(), 400),
    ("seek", json.dumps({"kind": "oware", "side": "any", "admin": 1}).encode(), 400),
    ("seek", b'{"kind": "oware", "side": "any", "clock": {"base": ' + b"9" * 3000 + b"}}", 400),
    ("seek", b"\xff\xfe", 400),
    ("seek", b"not json", 400),
    ("{gid}/move", json.dumps({"ply": 10**30, "move": "E"}).encode(), 400),
    ("{gid}/move", json.dumps({"ply": True, "move": "E"}).encode(), 400),
    ("{gid}/move", json.dumps({"ply": 1, "move": "E" * 17}).encode(), 400),
    ("{gid}/move", json.dumps({"ply": 1, "move": "E\x00"}).encode(), 400),
    ("{gid}/move", json.dumps({"ply": 1, "move": "E F"}).encode(), 400),
    ("{gid}/move", json.dumps({"ply": 1}).encode(), 400),
    ("{gid}/move", b"[]", 400),
    ("{gid}/offer", json.dumps({"what": "abort"}).encode(), 400),
    ("{gid}/bind", json.dumps({"record": "x" * 81}).encode(), 400),
    ("{gid}/bind", json.dumps({"record": 5}).encode(), 400),
    ("99999999999999999999999/move", json.dumps({"ply": 1, "move": "E"}).encode(), 404),
    ("-1/move", json.dumps({"ply": 1, "move": "E"}).encode(), 404),
]


def test_bad_bodies_and_parameters_are_refused_with_nothing_changed(club):
    gid = start(club)
    before = look(club, "pico-a", gid)
    n = club.store.one("SELECT COUNT(*) AS n FROM remote_games")["n"]
    for path, raw, status in BAD_BODIES:
        st, ans = call(club, "pico-a", "POST", path.replace("{gid}", str(gid)), raw=raw)
        assert st == status and ans["error"], (path, raw[:60], st, ans)
    for params in (
        {"wait": "26"},
        {"wait": "nan"},
        {"wait": "-1"},
        {"wait": "inf"},
        {"after": "-2"},
        {"after": "9" * 30},
        {"after": "x"},
        {"v": "-1"},
    ):
        st, ans = call(club, "pico-a", "GET", str(gid), **params)
        assert st == 400, (params, ans)
    assert club.c.get("/api/remote/%d" % gid).status_code == 401
    assert (
        club.c.post(
            "/api/remote/seek", headers=bearer("bawo_forged"), content=b'{"kind": "oware"}'
        ).status_code
        == 401
    )
    after = look(club, "pico-a", gid)
    assert (after["ply"], after["v"], after["offer"]) == (before["ply"], before["v"], None)
    assert club.store.one("SELECT COUNT(*) AS n FROM remote_games")["n"] == n
    assert club.store.one("SELECT COUNT(*) AS n FROM remote_binds")["n"] == 0


def test_seeks_challenges_and_accepting(club):
    # A challenge only its board may accept; a board cannot accept its own seek.
    st, ans = call(
        club,
        "pico-a",
        "POST",
        "seek",
        {"kind": "bagh-chal", "side": "north", "opponent": "pico-b", "clock": {"move": 30}},
    )
    gid = ans["game"]
    assert [s["game"] for s in call(club, "pico-c", "GET", "open")[1]["seeks"]] == []
    assert call(club, "pico-c", "POST", "%d/accept" % gid)[0] == 422
    assert call(club, "pico-a", "POST", "%d/accept" % gid)[0] == 422
    st, s = call(club, "pico-b", "POST", "%d/accept" % gid)
    assert (s["south"], s["north"], s["side"], s["kind"], s["turn"]) == (
        "pico-b",
        "pico-a",
        "south",
        "bagh-chal",
        "south",
    )
    assert s["clock"] == {"south_ms": 30000, "north_ms": 30000, "low": False, "bar": 8}
    # Accepted again (a retry): the same state; by another board: refused.
    assert call(club, "pico-b", "POST", "%d/accept" % gid)[1]["south"] == "pico-b"
    assert call(club, "pico-c", "POST", "%d/accept" % gid)[0] == 422
    # Unknown opponent, itself as opponent.
    for opp in ("pico-zz", "pico-a"):
        st, ans = call(
            club, "pico-a", "POST", "seek", {"kind": "oware", "side": "any", "opponent": opp}
        )
        assert st == 422, ans
    # The seeker withdraws a seek (resign before it began): no longer open, no record.
    st, ans = call(club, "pico-a", "POST", "seek", {"kind": "oware", "side": "any"})
    assert call(club, "pico-b", "POST", "%d/offer" % ans["game"], {"what": "resign"})[0] == 422
    st, s = call(club, "pico-a", "POST", "%d/offer" % ans["game"], {"what": "resign"})
    assert (st, s["state"], s["result"], s["reason"]) == (200, "over", None, "cancelled")
    assert ans["game"] not in [x["game"] for x in call(club, "pico-b", "GET", "open")[1]["seeks"]]
    assert call(club, "pico-b", "POST", "%d/accept" % ans["game"])[0] == 422
    assert club.store.records() == [] and "remote-%d" % ans["game"] not in [
        r["board"] for r in club.store.live_boards("2000")
    ]
    # "any": the club draws the accepter's side.
    st, ans = call(club, "pico-a", "POST", "seek", {"kind": "oware", "side": "any"})
    s = call(club, "pico-c", "POST", "%d/accept" % ans["game"])[1]
    assert {s["south"], s["north"]} == {"pico-a", "pico-c"} and s["side"] in ("south", "north")


def test_offers_a_draw_offer_is_cleared_by_the_opponents_move(club):
    gid = start(club)
    st, s = call(club, "pico-a", "POST", "%d/offer" % gid, {"what": "draw"})
    assert (st, s["offer"], s["state"]) == (200, "south", "playing")
    assert look(club, "pico-b", gid)["offer"] == "south"
    # Offered again: one offer. Accept with no offer of the other side: refused.
    assert call(club, "pico-a", "POST", "%d/offer" % gid, {"what": "draw"})[1]["offer"] == "south"
    assert call(club, "pico-a", "POST", "%d/offer" % gid, {"what": "accept"})[0] == 422
    # The offerer's own move keeps it; the opponent's move declines it.
    play(club, gid, OWARE[:1])
    assert look(club, "pico-b", gid)["offer"] == "south"
    play(club, gid, OWARE[1:2], first=1)
    assert look(club, "pico-a", gid)["offer"] is None
    # Not a player; a game not started.
    assert call(club, "pico-c", "POST", "%d/offer" % gid, {"what": "draw"})[0] == 422


def test_resign_ends_the_game_and_is_recorded(club):
    gid = start(club)
    play(club, gid, OWARE[:3])
    st, s = call(club, "pico-b", "POST", "%d/offer" % gid, {"what": "resign"})
    assert (st, s["state"], s["result"], s["reason"]) == (200, "over", "S", "resign")
    (rec,) = remote_records(club.store, gid)
    assert (rec["result"], rec["reason"], rec["plies"]) == ("S", "resign", 3)
    assert call(club, "pico-a", "POST", "%d/offer" % gid, {"what": "draw"})[0] == 422


def test_a_draw_offered_and_accepted_is_agreement(club):
    gid = start(club)
    play(club, gid, OWARE[:2])
    call(club, "pico-b", "POST", "%d/offer" % gid, {"what": "draw"})
    st, s = call(club, "pico-a", "POST", "%d/offer" % gid, {"what": "accept"})
    assert (st, s["state"], s["result"], s["reason"], s["offer"]) == (
        200,
        "over",
        "draw",
        "agreement",
        None,
    )
    (rec,) = remote_records(club.store, gid)
    assert (rec["result"], rec["reason"]) == ("draw", "agreement")


def test_fischer_and_per_move_clocks_run_on_the_clubs_clock(club):
    gid = start(club, clock={"base": 60, "inc": 2})
    club.clock.add(10)
    play(club, gid, OWARE[:1])
    c = look(club, "pico-b", gid)["clock"]
    assert (c["south_ms"], c["north_ms"], c["bar"], c["low"]) == (52000, 60000, 8, False)
    club.clock.add(45)  # North's clock runs: 15 s left of 60: the bar is 2/8
    c = look(club, "pico-b", gid)["clock"]
    assert (c["south_ms"], c["north_ms"], c["bar"], c["low"]) == (52000, 15000, 2, False)
    club.clock.add(9)  # 6 s: under 10 s is low
    c = look(club, "pico-b", gid)["clock"]
    assert (c["north_ms"], c["bar"], c["low"]) == (6000, 1, True)
    play(club, gid, OWARE[1:2], first=1)
    c = look(club, "pico-a", gid)["clock"]
    assert (c["south_ms"], c["north_ms"], c["bar"]) == (52000, 8000, 7)
    # Per move: each move has its 30 s, whatever the last one took.
    gid = start(club, clock={"move": 30})
    club.clock.add(25)
    c = look(club, "pico-a", gid)["clock"]
    assert (c["south_ms"], c["north_ms"], c["bar"], c["low"]) == (5000, 30000, 2, True)
    play(club, gid, OWARE[:1])
    club.clock.add(3)
    c = look(club, "pico-a", gid)["clock"]
    assert (c["south_ms"], c["north_ms"], c["bar"], c["low"]) == (30000, 27000, 8, False)


def test_a_flag_falls_on_the_club_at_a_poll_or_a_move(club):
    gid = start(club, clock={"base": 60, "inc": 0})
    play(club, gid, OWARE[:1])
    club.clock.add(60)
    s = look(club, "pico-a", gid)
    assert (s["state"], s["result"], s["reason"], s["clock"]["north_ms"]) == (
        "over",
        "S",
        "time",
        0,
    )
    (rec,) = remote_records(club.store, gid)
    assert rec["reason"] == "time"
    # A move that comes after the flag: refused, the game stays over, no second record.
    gid = start(club, clock={"move": 5})
    club.clock.add(5.001)
    st, ans = call(club, "pico-a", "POST", "%d/move" % gid, {"ply": 1, "move": "E"})
    assert st == 422 and "time" in ans["error"]
    s = look(club, "pico-b", gid)
    assert (s["state"], s["result"], s["reason"], s["ply"]) == ("over", "N", "time", 0)
    assert len(remote_records(club.store, gid)) == 1


def test_a_seek_nobody_accepted_in_a_day_expires(club):
    """An open seek older than SEEK_TTL_H is withdrawn: not listed, not accepted, over with
    reason "expired" for its seeker, and no longer counted in the board's MAX_OPEN."""
    from bawo.club import remote_games as RG

    seeks = [call(club, "pico-a", "POST", "seek", {"kind": "oware"})[1]["game"] for _ in range(3)]
    old, fresh = seeks[0], seeks[1:]
    day = datetime.timedelta(hours=RG.SEEK_TTL_H, seconds=5)
    when = (datetime.datetime.now(datetime.timezone.utc) - day).strftime("%Y-%m-%dT%H:%M:%SZ")
    with club.store.tx() as t:
        t.execute("UPDATE remote_games SET created=? WHERE id=?", (when, old))
    listed = [x["game"] for x in call(club, "pico-b", "GET", "open")[1]["seeks"]]
    assert old not in listed and all(g in listed for g in fresh)
    assert call(club, "pico-b", "POST", "%d/accept" % old)[0] == 422
    s = look(club, "pico-a", old)
    assert (s["state"], s["result"], s["reason"], s["side"]) == ("over", None, "expired", None)
    assert call(club, "pico-b", "POST", "%d/accept" % fresh[0])[1]["state"] == "playing"
    # Room again: MAX_OPEN counts the open seeks only.
    n = RG.MAX_OPEN - 1  # fresh[1] is open
    got = [call(club, "pico-a", "POST", "seek", {"kind": "oware"})[0] for _ in range(n + 1)]
    assert got == [200] * n + [422], got
    assert club.store.records() == []


def test_peer_is_the_other_pcs_poll_within_ten_seconds(club):
    gid = start(club)
    assert look(club, "pico-b", gid)["peer"] is False  # pico-a's PC has not polled yet
    assert look(club, "pico-a", gid)["peer"] is True  # pico-b's polled just now
    assert look(club, "pico-b", gid)["peer"] is True
    club.clock.add(10.001)
    s = look(club, "pico-b", gid, after=0)
    assert s["peer"] is False
    # pico-a comes back: pico-b's poll (told peer false) answers at once, peer true.
    v = s["v"]
    look(club, "pico-a", gid)
    s = look(club, "pico-b", gid, after=0, wait=5)
    assert s["peer"] is True and s["v"] > v


def test_a_pages_look_does_not_keep_its_pc_here(club):
    """`bawo serve`'s panel looks with look=1: a page left open with its bridge dead must not
    keep the opponent's board from showing this player away."""
    gid = start(club)
    look(club, "pico-a", gid)
    look(club, "pico-b", gid)
    club.clock.add(10.001)
    for _ in range(3):
        s = look(club, "pico-a", gid, look=1)  # pico-a's page, its bridge gone
        assert s["side"] == "south" and s["state"] == "playing"
        club.clock.add(1)
    assert look(club, "pico-b", gid)["peer"] is False

    # Nor as told: the bridge's next poll still hears of a change the page saw first.
    def told():
        q = "SELECT told_v FROM remote_seen WHERE game=? AND board=?"
        return club.store.one(q, (gid, "pico-a"))["told_v"]

    before = told()
    call(club, "pico-b", "POST", "%d/offer" % gid, {"what": "draw"})
    s = look(club, "pico-a", gid, look=1)
    assert s["offer"] == "north" and s["v"] != before and told() == before
    s = look(club, "pico-a", gid, after=0)  # the bridge: back, so the version moves on
    assert s["offer"] == "north" and told() == s["v"]
    assert look(club, "pico-b", gid)["peer"] is True
    st, ans = call(club, "pico-a", "GET", str(gid), look=2)
    assert st == 400 and "look" in ans["error"]


def test_a_poll_answers_at_once_only_what_the_board_was_not_told(club):
    gid = start(club)
    s = look(club, "pico-a", gid, after=-1, wait=0)
    # Told; a poll that waits 0.2 s with nothing new answers when its wait ends, same state.
    import time

    t0 = time.monotonic()
    s2 = look(club, "pico-a", gid, after=0, wait=0.2)
    assert time.monotonic() - t0 >= 0.2 and s2["v"] == s["v"]
    # A version the board names (v) older than the game's: at once.
    t0 = time.monotonic()
    assert look(club, "pico-a", gid, after=0, v=s["v"] - 1, wait=20)["v"] == s["v"]
    assert time.monotonic() - t0 < 10
    # The mover knows its own move: its next poll waits for the other side's news...
    play(club, gid, OWARE[:1])
    t0 = time.monotonic()
    s3 = look(club, "pico-a", gid, after=1, wait=0.2)
    assert time.monotonic() - t0 >= 0.2 and (s3["ply"], s3["v"]) == (1, s["v"] + 1)
    # ... the other side's poll answers at once; and an offer's answer is what it was told.
    assert look(club, "pico-b", gid, after=0, wait=20)["ply"] == 1
    v = call(club, "pico-b", "POST", "%d/offer" % gid, {"what": "draw"})[1]["v"]
    t0 = time.monotonic()
    assert look(club, "pico-b", gid, after=1, wait=0.2)["v"] == v
    assert time.monotonic() - t0 >= 0.2
    assert look(club, "pico-a", gid, after=1, wait=20)["offer"] == "north"
    # A move that ends the game by the rules is news to its mover too.
    gid = start(club)
    play(club, gid, OWARE[:27])
    look(club, "pico-b", gid)
    play(club, gid, OWARE[27:], first=27)
    assert look(club, "pico-b", gid, after=28, wait=20)["state"] == "over"


def _board_record(moves, result, reason, device, rid):
    s = State(make_game("oware"))
    for m in moves:
        s.push(m)
    rec = Record.from_state(s, Id=rid, Device=device, Start="2026-12-04 01:00:00")
    if result is not None:
        rec.header["Result"] = result
        rec.header["Reason"] = reason
    return rec.to_text()


def test_bind_attaches_the_boards_own_records_and_they_are_not_rated_again(club):
    gid = start(club)
    # pico-a binds before its record comes; pico-b's record came before its bind.
    assert call(club, "pico-a", "POST", "%d/bind" % gid, {"record": "pico-a-0007"}) == (
        200,
        {"game": gid, "record": "pico-a-0007", "seq": None, "status": None},
    )
    assert call(club, "pico-c", "POST", "%d/bind" % gid, {"record": "pico-c-0001"})[0] == 422
    play(club, gid, OWARE)

    def up(board, text):
        return club.c.post("/api/records", headers=bearer(club.tok[board]), content=text.encode())

    r = up("pico-b", _board_record(OWARE, None, None, "pico-b", "pico-b-0003"))
    assert r.status_code == 200 and r.json()["outcome"] == "added"
    st, ans = call(club, "pico-b", "POST", "%d/bind" % gid, {"record": "pico-b-0003"})
    assert (st, ans["status"]) == (200, "remote") and ans["seq"] == r.json()["seq"]
    r = up("pico-a", _board_record(OWARE, None, None, "pico-a", "pico-a-0007"))
    assert r.status_code == 200
    st, ans = call(club, "pico-a", "POST", "%d/bind" % gid, {"record": "pico-a-0007"})
    assert ans["status"] == "remote" and ans["seq"] == r.json()["seq"]
    statuses = {x["rid"]: x["status"] for x in club.store.records()}
    assert statuses == {"pico-a-0007": "remote", "pico-b-0003": "remote", "remote-%d" % gid: "ok"}
    # Rated once: the club's record only.
    assert len(club.store.rated_games()) == 1
    assert R.recompute(club.store.rated_games())["oware"]["pico-b"]["games"] == 1
    # The bound id is taken; another id for a game whose record came: refused.
    assert call(club, "pico-a", "POST", "%d/bind" % gid, {"record": "pico-a-0008"})[0] == 422
    # A record that does not agree with the club's moves, bound: kept as a conflict.
    gid2 = start(club)
    play(club, gid2, OWARE[:2])
    call(club, "pico-a", "POST", "%d/bind" % gid2, {"record": "pico-a-0009"})
    r = up("pico-a", _board_record(["E", "a"], None, None, "pico-a", "pico-a-0009"))
    assert r.status_code == 200
    assert {x["rid"]: x["status"] for x in club.store.records()}["pico-a-0009"] == "conflict"
    assert call(club, "pico-b", "POST", "%d/bind" % gid2, {"record": "pico-a-0007"})[0] == 200
    assert call(club, "pico-a", "POST", "%d/bind" % gid2, {"record": "pico-a-0007"})[0] == 422
    # A game the club ended by resign: the board's record ends so too (END), and is attached.
    call(club, "pico-b", "POST", "%d/offer" % gid2, {"what": "resign"})
    call(club, "pico-b", "POST", "%d/bind" % gid2, {"record": "pico-b-0004"})
    r = up("pico-b", _board_record(OWARE[:2], "S", "resign", "pico-b", "pico-b-0004"))
    assert r.status_code == 200, r.text
    # ... but one that says another end is a conflict.
    gid3 = start(club)
    play(club, gid3, OWARE[:2])
    call(club, "pico-a", "POST", "%d/offer" % gid3, {"what": "resign"})
    call(club, "pico-a", "POST", "%d/bind" % gid3, {"record": "pico-a-0010"})
    assert (
        up("pico-a", _board_record(OWARE[:2], "S", "time", "pico-a", "pico-a-0010")).status_code
        == 200
    )
    statuses = {x["rid"]: x["status"] for x in club.store.records()}
    assert (statuses["pico-b-0004"], statuses["pico-a-0010"]) == ("remote", "conflict")
    assert len(club.store.rated_games()) == 3  # the club's three records, no board's


def test_the_live_view_and_the_page_show_the_remote_game(club):
    club.store.seat("pico-a", "<b>Ada</b>", "Bo", since="2000-01-01T00:00:00Z")
    gid = start(club)
    st, open_ = call(
        club,
        "pico-a",
        "POST",
        "seek",
        {"kind": "bawo", "side": "any", "clock": {"base": 300, "inc": 5}},
    )
    play(club, gid, OWARE[:3])
    (row,) = [r for r in club.store.live_boards("2000") if r["board"] == "remote-%d" % gid]
    assert (row["ply"], row["south"], row["north"], row["game"]) == (
        3,
        "<b>Ada</b>",
        "pico-b",
        "oware",
    )
    page = club.c.get("/remote").text
    assert "/live?board=remote-%d" % gid in page and "&lt;b&gt;Ada&lt;/b&gt;" in page
    assert "<b>Ada</b>" not in page and "300+5 s" in page
    assert club.c.get("/live?board=remote-%d" % gid).status_code == 200
