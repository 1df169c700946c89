"""Property tests (hypothesis) over all three games."""

import random

from hypothesis import given, settings, strategies as st, HealthCheck

from shared_rules import Bawo, Oware, BaghChal, State, game, GAMES
from shared_rules.record import Record
from shared_rules.events import LAP_END

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
names = st.sampled_from(sorted(GAMES))


def material(g, pos):
    if g.name == "bawo":
        return sum(pos.board)
    if g.name == "oware":
        return sum(pos.pits) + pos.stores[0] + pos.stores[1]
    return (
        sum(1 for v in pos.board if v == 1) + pos.hand + pos.captured,
        sum(1 for v in pos.board if v == 2),
    )


def playout(name, seed, plies=400):
    g = game(name)
    s = State(g)
    rnd = random.Random(seed)
    while s.ply < plies and s.outcome() is None:
        legal = s.legal_moves
        s.push(legal[rnd.randrange(len(legal))])
    return s


@st.composite
def bawo_positions(draw):
    b = bytearray(draw(st.lists(st.integers(0, 6), min_size=32, max_size=32)))
    from shared_rules.bawo import Position

    return Position(b, draw(st.integers(0, 1)))


@st.composite
def oware_positions(draw):
    from shared_rules.oware import Position

    cuts = sorted(draw(st.lists(st.integers(0, 48), min_size=13, max_size=13)))
    parts = [b - a for a, b in zip([0] + cuts, cuts + [48])]
    pits = bytearray(parts[:12])
    rest = parts[12] + parts[13]
    s = min(rest, 24)
    return Position(pits, bytearray([s, rest - s]), draw(st.integers(0, 1)))


@st.composite
def baghchal_positions(draw):
    from shared_rules.baghchal import Position

    pts = draw(st.permutations(range(25)))
    cap = draw(st.integers(0, 4))
    hand = draw(st.integers(0, 20 - cap))
    on = 20 - hand - cap
    b = bytearray(25)
    for p in pts[:4]:
        b[p] = 2
    for p in pts[4 : 4 + min(on, 21)]:
        b[p] = 1
    if on > 21:
        return None
    return Position(b, hand, cap, draw(st.integers(0, 1)))


@SETTINGS
@given(names, st.integers(0, 2**32 - 1))
def test_material_conserved_and_nonterminal_has_moves(name, seed):
    g = game(name)
    s = State(g)
    start = material(g, s.position)
    rnd = random.Random(seed)
    while s.ply < 300:
        out = s.outcome()
        legal = s.legal_moves
        assert (out is None) == bool(legal), "a non-terminal position always has a legal move"
        if out is not None:
            break
        s.push(legal[rnd.randrange(len(legal))])
        assert material(g, s.position) == start


@SETTINGS
@given(names, st.integers(0, 2**32 - 1))
def test_move_and_position_text_round_trip(name, seed):
    s = playout(name, seed, plies=rnd_plies(seed))
    g = s.game
    pos = s.position
    assert g.format(g.parse(g.format(pos))) == g.format(pos)
    assert g.parse(g.format(pos)) == pos
    for m in g.legal_moves(pos):
        assert g.parse_move(g.move_str(m, pos), pos) == m


def rnd_plies(seed):
    return seed % 60


@SETTINGS
@given(names, st.integers(0, 2**32 - 1))
def test_records_replay(name, seed):
    s = playout(name, seed)
    rec = Record.from_state(s, Id="test-%d" % seed, Device="test")
    again = Record.from_text(rec.to_text())
    assert again == rec
    assert Record.from_dict(rec.to_dict()) == rec
    replayed = again.replay()
    assert s.game.format(replayed.position) == s.game.format(s.position)
    assert replayed.moves == s.moves


@SETTINGS
@given(names, st.integers(0, 2**32 - 1))
def test_undo_restores(name, seed):
    s = playout(name, seed, plies=rnd_plies(seed))
    if s.ply == 0:
        return
    before = (s.game.format(s.position), list(s.legal_moves))
    last = s.moves[-1]
    assert s.pop() == last
    s.push(last)
    assert (s.game.format(s.position), list(s.legal_moves)) == before


@SETTINGS
@given(bawo_positions())
def test_bawo_random_positions(pos):
    g = Bawo()
    text = g.format(pos)
    assert g.parse(text) == pos
    total = sum(pos.board)
    out = g.outcome(pos)
    legal = g.legal_moves(pos)
    if out is None:
        assert legal
    for m in legal:
        assert sum(g.play(pos, m).board) == total


@SETTINGS
@given(bawo_positions(), st.integers(1, 12))
def test_bawo_endless_cap_honoured(pos, cap):
    # With a cap of k laps, a start is legal exactly when its turn ends within k laps.
    small, big = Bawo(max_laps=cap), Bawo()
    if small.capturing(pos) != big.capturing(pos):
        raise AssertionError("the capture rule does not depend on the cap")
    for m in big.legal_moves(pos):
        ev = []
        big.play(pos, m, ev)
        laps = sum(1 for e in ev if e[0] == LAP_END)
        assert laps <= 1000
        assert (m in small.legal_moves(pos)) == (laps <= cap)


@SETTINGS
@given(oware_positions())
def test_oware_random_positions(pos):
    g = Oware()
    assert g.parse(g.format(pos)) == pos
    for m in g.legal_moves(pos):
        after = g.play(pos, m)
        assert sum(after.pits) + sum(after.stores) == 48


@SETTINGS
@given(baghchal_positions())
def test_baghchal_random_positions(pos):
    if pos is None:
        return
    g = BaghChal()
    assert g.parse(g.format(pos)) == pos
    for m in g.legal_moves(pos):
        after = g.play(pos, m)
        assert sum(1 for v in after.board if v == 2) == 4
        goats = sum(1 for v in after.board if v == 1)
        assert goats + after.hand + after.captured == 20
        assert g.move_str(m, pos) == g.move_str(g.parse_move(g.move_str(m, pos)), pos)


@settings(max_examples=300, deadline=None)
@given(oware_positions())
def test_oware_legal_moves_match_the_feeding_rule_by_brute_force(pos):
    g = Oware()
    o = pos.turn * 6
    feeding, starving = [], []
    for m in range(6):
        if pos.pits[o + m]:
            scratch = bytearray(pos.pits)
            g._sow(scratch, bytearray(2), o, m, None)
            (feeding if any(scratch[6 - o : 12 - o]) else starving).append(m)
    assert g.legal_moves(pos) == (feeding or starving)
