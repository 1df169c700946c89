"""Tournament pairings (bawo.club.pairing), pure Python: the Berger tables as FIDE publishes
them (C.05 Annex 1), and a Swiss of 9 players over 4 rounds whose every round is checked
against each rule the module names, the score groups against every legal pairing."""

import random

import pytest

from bawo.club.pairing import (
    NORTH,
    SOUTH,
    PairingError,
    State,
    berger,
    compatible,
    sides,
    standings,
    states,
    swiss_round,
)

# FIDE Handbook C.05 Annex 1, "Berger Tables for Round-Robin Tournaments".
BERGER_4 = ["1-4 2-3", "4-3 1-2", "2-4 3-1"]
BERGER_6 = ["1-6 2-5 3-4", "6-4 5-3 1-2", "2-6 3-1 4-5", "6-5 1-4 2-3", "3-6 4-2 5-1"]
BERGER_8_ROUND_2 = "8-5 6-4 7-3 1-2"


def _text(rnd):
    return " ".join("%s-%s" % pair for pair in rnd)


def test_berger_tables_are_fides():
    assert [_text(r) for r in berger(4)] == BERGER_4
    assert [_text(r) for r in berger(6)] == BERGER_6
    assert _text(berger(8)[1]) == BERGER_8_ROUND_2
    # An odd field: the table of n+1, the pair with n+1 a bye.
    five = berger(5)
    assert [[(a, b) for a, b in r if b is not None] for r in five] == [
        [(a, b) for a, b in r if 6 not in (a, b)] for r in berger(6)
    ]
    assert sorted(a for r in five for a, b in r if b is None) == [1, 2, 3, 4, 5]
    # Every pair meets once.
    for n in (4, 5, 6, 7, 10):
        games = [frozenset(p) for r in berger(n) for p in r if None not in p]
        assert len(games) == len(set(games)) == n * (n - 1) // 2


def _play(rnd, rng, strength):
    """Results: the stronger player wins two times in three, a draw one time in six."""
    out = []
    for south, north in rnd:
        if north is None:
            out.append((south, None, "bye"))
            continue
        x = rng.random()
        fav = SOUTH if strength[south] > strength[north] else NORTH
        out.append(
            (
                south,
                north,
                "D" if x < 1 / 6 else fav if x < 5 / 6 else (NORTH if fav == SOUTH else SOUTH),
            )
        )
    return out


def _matchings(players):
    if not players:
        yield []
        return
    a = players[0]
    for i, b in enumerate(players[1:], 1):
        for rest in _matchings(players[1:i] + players[i + 1 :]):
            yield [(a, b)] + rest


def _floats(st, pairs):
    """For each score, highest first: how many players at or above it meet one below it."""
    levels = sorted({s.points for s in st.values()}, reverse=True)
    return [sum((st[a].points >= x) != (st[b].points >= x) for a, b in pairs) for x in levels]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_swiss_of_9_over_4_rounds_keeps_every_rule(seed):
    rng = random.Random(seed)
    seeds = ["P%d" % i for i in range(1, 10)]  # pairing numbers 1..9
    strength = {p: 100 - i * 10 + rng.randint(-15, 15) for i, p in enumerate(seeds)}
    rounds = []
    for r in range(4):
        st = states(seeds, rounds)
        rnd = swiss_round(seeds, rounds)
        games = [(a, b) for a, b in rnd if b is not None]
        byes = [a for a, b in rnd if b is None]
        # Everyone once; one bye, never twice to one player.
        assert sorted([p for g in games for p in g] + byes) == sorted(seeds)
        assert len(byes) == 1 and not st[byes[0]].had_bye
        # C.2: the bye to the lowest-ranked player who had none and without whom the others pair.
        others = [p for p in seeds if p != byes[0]]
        lower = [
            p
            for p in seeds
            if (st[p].points, -st[p].rank) < (st[byes[0]].points, -st[byes[0]].rank)
        ]
        for p in lower:
            rest = [q for q in seeds if q != p]
            assert st[p].had_bye or not any(
                all(compatible(st, a, b) for a, b in m) for m in _matchings(rest)
            ), (r, p, byes)
        # C.1, C.3: no repeat, no two absolute preferences for one side.
        for a, b in games:
            assert b not in st[a].opponents, (r, a, b)
            assert compatible(st, a, b)
        # Score groups, from the top: as few players float out of the top group as any legal
        # pairing of these players allows, then out of the top two groups, and so on.
        legal = [m for m in _matchings(others) if all(compatible(st, a, b) for a, b in m)]
        assert _floats(st, games) == min(_floats(st, m) for m in legal), r
        # Colours: both preferences granted when they differ (E.1); the stronger one when not (E.2).
        for south, north in games:
            (ps, ss), (pn, sn) = st[south].preference(), st[north].preference()
            if ps and pn and ps != pn:
                assert (ps, pn) == (SOUTH, NORTH), (r, south, north)
            elif ps and pn and ss != sn:
                assert (ps if ss > sn else pn) == (SOUTH if ss > sn else NORTH)
            assert sides(st, south, north) == (south, north)
        if r == 0:  # round 1: S1 against S2, the initial colour (South) to odd numbers
            assert rnd == [("P1", "P5"), ("P6", "P2"), ("P3", "P7"), ("P8", "P4"), ("P9", None)]
        rounds.append(_play(rnd, rng, strength))
    # Side balance: nobody is beyond +-2, nor on one side three times running.
    for p, s in states(seeds, rounds).items():
        c = s.colours
        assert abs(c.count(SOUTH) - c.count(NORTH)) <= 2, (p, c)
        assert all(len(set(c[i : i + 3])) > 1 for i in range(len(c) - 2)), (p, c)
    # Four byes to four players.
    assert len({a for rnd in rounds for a, b, _ in rnd if b is None}) == 4


def test_colour_rules():
    seeds = ["A", "B", "C", "D"]
    st = states(seeds, [[("A", "B", "S"), ("C", "D", "N")]])
    # A and C prefer North (mild), B and D South: both granted (E.1).
    assert sides(st, "A", "D") == ("D", "A")
    # A and C both prefer North, equally: alternate from the last difference (none), so the
    # higher-ranked (A, more points) gets his preference (E.4).
    assert sides(st, "A", "C") == ("C", "A")
    st = states(seeds, [[("A", "B", "S"), ("C", "D", "N")], [("A", "D", "S"), ("B", "C", "D")]])
    # A was South twice: an absolute preference for North, stronger than C's mild one (E.2).
    assert st["A"].preference() == (NORTH, 3) and st["C"].preference() == (SOUTH, 1)
    assert sides(st, "A", "C") == ("C", "A")
    assert not compatible(st, "A", "B") and not compatible(st, "A", "D")  # met before (C.1)
    # Equal preferences (both mild North): the sides alternate from the last round where the
    # two had different ones (E.3), here 3 games back: A was North then, so A is South now,
    # though A ranks higher (E.4 would give A North).
    st = {"A": State(1), "B": State(2)}
    st["A"].colours, st["B"].colours = list("SNNS"), list("NSNS")
    assert st["A"].preference() == st["B"].preference() == (NORTH, 1)
    assert sides(st, "A", "B") == ("A", "B")
    st["B"].colours = list("SNNS")  # no difference anywhere: E.4, A's preference
    assert sides(st, "A", "B") == ("B", "A")
    # Two absolute preferences for one side never meet (C.3).
    st["A"].colours, st["B"].colours = list("NSS"), list("SNSS")
    assert not compatible(st, "A", "B")


def test_a_round_that_cannot_be_paired_says_so():
    seeds = ["A", "B"]
    with pytest.raises(PairingError):
        swiss_round(seeds, [[("A", "B", "S")]])


def test_standings_and_tie_breaks():
    seeds = ["A", "B", "C", "D"]
    # A round robin: A beats B, B beats C, C beats A (a circle); all beat D.
    rounds = [
        [("A", "D", "S"), ("B", "C", "S")],
        [("D", "C", "N"), ("A", "B", "S")],
        [("B", "D", "S"), ("C", "A", "S")],
    ]
    rows = standings(seeds, rounds, "roundrobin")
    assert [(r["player"], r["points"]) for r in rows] == [("A", 2), ("B", 2), ("C", 2), ("D", 0)]
    assert all(r["de"] == 1 for r in rows[:3]) and rows[0]["sb"] == rows[1]["sb"] == 2
    assert [r["place"] for r in rows] == [1, 1, 1, 4]
    # Direct encounter decides between two equal on points who met.
    rounds = [[("A", "B", "N"), ("C", "D", "D")], [("A", "C", "S"), ("B", "D", "N")]]
    rows = standings(seeds, rounds, "roundrobin")
    a, b = (next(r for r in rows if r["player"] == p) for p in "AB")
    assert a["points"] == b["points"] == 1 and b["de"] == 1 and a["de"] == 0
    assert rows.index(b) < rows.index(a)
    # Buchholz and Sonneborn-Berger.
    s = {r["player"]: r for r in standings(seeds, rounds, "swiss")}
    assert s["A"]["buchholz"] == s["B"]["points"] + s["C"]["points"] == 1.5
    assert s["D"]["sb"] == s["B"]["points"] + 0.5 * s["C"]["points"] == 1.25
