"""Rules checks that run unchanged under python3 and micropython (run by tests/test_micropython.py).

micropython tests/mp/test_rules_mp.py      (with the repo root on MICROPYPATH)
"""

import json
import sys

from shared_rules import game, State, Bawo, RulesError, RecordError
from shared_rules.record import Record
from shared_rules.events import LAP_END, CAPTURE, STORE, SWEEP, TURN_END
from shared_rules.rng import Rng

HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."


def golden():
    with open(HERE + "/../golden/bawo_001.json") as f:
        return json.load(f)


def test_worked_turn_golden():
    data = golden()["worked_turn"]
    g = Bawo()
    ev = []
    after = g.play(g.parse(data["start"]), data["move"], ev)
    assert str(after) == data["final"], str(after)
    assert len([e for e in ev if e[0] == LAP_END]) == len(data["lap_ends"])
    assert len([e for e in ev if e[0] == CAPTURE]) == 4


def test_takata_golden():
    data = golden()["takata"]
    g = Bawo()
    pos = g.parse(data["start"])
    assert not g.capturing(pos)
    assert str(g.play(pos, data["move"])) == data["final_by_hand"]


def test_win_diagrams():
    g = Bawo()
    for case in golden()["wins"]:
        out = g.outcome(g.parse(case["position"]))
        assert g.sides[out.winner] == case["winner"]


def test_oware_capture_chain_and_feeding():
    g = game("oware")
    assert (
        str(g.play(g.parse("4,4,4,1,2,1/4,4,4,4,4,3 S:6 N:3 S"), "F"))
        == "4,4,4,0,0,0/4,4,4,4,4,0 S:13 N:3 N"
    )
    pos = g.parse("0,0,0,0,0,0/6,1,0,0,1,2 S:19 N:19 S")
    assert [g.move_str(m, pos) for m in g.legal_moves(pos)] == ["A", "F"]


def test_baghchal_jump_and_repetition():
    g = game("bagh-chal")
    pos = g.parse("T...T/...../...../G..../T...T H:19 C:0 T")
    assert str(g.play(pos, "a1xa3")) == "T...T/...../T..../...../....T H:19 C:1 G"
    s = State(g, "TGGGT/GGGGG/GG.GG/GGGG./T.GGT H:0 C:2 T")
    for k in range(8):
        s.push(["a1-b1", "d2-e2", "b1-a1", "e2-d2"][k % 4])
    assert s.outcome().reason == "threefold repetition"


def test_bad_input_is_a_value_error():
    for name, text in (("bawo", "1,2/3 S"), ("oware", "x"), ("bagh-chal", "T...T H:20 C:0 G")):
        try:
            game(name).parse(text)
        except ValueError:
            pass
        else:
            raise AssertionError("accepted " + text)
    try:
        game("chess")
    except RulesError:
        pass
    else:
        raise AssertionError("accepted an unknown game")


def test_seeded_playouts_conserve_and_replay():
    for name in ("bawo", "oware", "bagh-chal"):
        for seed in range(1, 6):
            rnd = Rng(seed)
            s = State(game(name))
            while s.ply < 200 and s.outcome() is None:
                legal = s.legal_moves
                s.push(legal[rnd.below(len(legal))])
            if name == "bawo":
                assert sum(s.position.board) == 64
            rec = Record.from_text(Record.from_state(s, Id="t").to_text())
            assert s.game.format(rec.replay().position) == s.game.format(s.position)


# RULES.md 1.6: a capturing start that never ends is refused as endless; and where every
# capturing start is endless the player has no legal move, though takata starts would end.
ENDLESS_CAPTURE = "0,1,2,3,2,0,2,1/3,4,4,1,0,0,0,1/2,1,0,1,3,1,4,5/3,2,1,2,1,8,5,1 S"
ONLY_ENDLESS_CAPTURES = "3,0,0,3,0,3,3,0/0,0,0,2,0,0,0,0/0,1,0,9,1,6,1,2/1,8,2,6,2,1,6,4 S"


def refused(g, pos, move):
    try:
        g.play(pos, move)
    except RulesError as e:
        return str(e)
    raise AssertionError("played " + move)


def test_bawo_endless_capturing_start_is_refused_as_endless():
    g = Bawo()
    pos = g.parse(ENDLESS_CAPTURE)
    assert g.capturing(pos)
    assert sorted([g.move_str(m) for m in g.legal_moves(pos)]) == ["A5+", "B2+"]
    assert "never end" in refused(g, pos, "A5-")
    assert "capture is available" in refused(g, pos, "A1+")
    pos = g.parse(ONLY_ENDLESS_CAPTURES)
    assert g.capturing(pos) and g.legal_moves(pos) == []
    out = g.outcome(pos)
    assert (out.winner, out.reason) == (1, "no legal move")


def test_oware_repetition_final_position_shows_the_collection():
    # One seed a side chase each other round the board: the set-up recurs every 12 plies,
    # for the third time at ply 24; each side then adds its own row to its store.
    g = game("oware")
    setup = "0,0,0,0,0,1/1,0,0,0,0,0 S:24 N:22 S"
    s = State(g, setup)
    while s.outcome() is None and s.ply < 100:
        events = s.push(s.legal_moves[0])
    assert s.ply == 24
    assert str(s.position) == "0,0,0,0,0,0/0,0,0,0,0,0 S:25 N:23 S", str(s.position)
    out = s.outcome()
    assert (out.winner, out.reason) == (0, "threefold repetition")
    assert [e for e in events if e[0] == STORE] == [(STORE, 0, 1), (STORE, 1, 1)]
    # Each row's collection is said, so a view empties the pits the engine emptied.
    assert [e for e in events if e[0] in (SWEEP, STORE)] == [
        (SWEEP, 0, 1),
        (STORE, 0, 1),
        (SWEEP, 1, 1),
        (STORE, 1, 1),
    ], events
    # The position as played was the set-up itself; undo and redo go through it.
    last = s.pop()
    assert s.outcome() is None
    s.push(last)
    assert str(s.position) == "0,0,0,0,0,0/0,0,0,0,0,0 S:25 N:23 S"
    s.pop()
    assert str(g.play(s.position, last)) == setup
    s.push(last)
    rec = Record.from_state(s)
    assert (rec.header["Result"], rec.header["Reason"]) == ("S", "threefold repetition")
    assert str(Record.from_text(rec.to_text()).replay().position) == str(s.position)


def test_oware_setup_without_seeds_for_the_mover_is_over():
    g = game("oware")
    out = State(g, "0,0,3,0,0,0/0,0,0,0,0,0 S:22 N:23 S").outcome()
    assert (out.winner, out.reason) == (1, "opponent cannot move")  # North takes the 3: 26-22
    for bad in ("0,0,3,0,0,0/0,0,0,0,0,0 S:22 N:22 S", "4,4,4,4,4,4/4,4,4,4,4,4 S:49 N:0 S"):
        try:
            g.parse(bad)
        except RulesError:
            continue
        raise AssertionError("accepted " + bad)


def test_counts_are_ascii_digits_only():
    # Arabic-Indic three, fullwidth three, superscript two, and other non-counts; the same
    # refusal (a RulesError, never another exception) on CPython and MicroPython.
    row = "2,2,2,2,2,2,2,2/"
    for bad in ("\u0663", "\uff13", "\u00b2", "+2", "-1", "", "0x2", "2.0", "1e2", "0002", "256"):
        texts = (
            ("bawo", row * 3 + "2,2,2,2,2,2,2," + bad + " S"),
            ("oware", "4,4,4,4,4,4/4,4,4,4,4," + bad + " S:0 N:0 S"),
            ("oware", "4,4,4,4,4,4/4,4,4,4,4,4 S:" + bad + " N:0 S"),
            ("bagh-chal", "T...T/...../...../...../T...T H:" + bad + " C:0 G"),
            ("bagh-chal", "T...T/...../...../...../T...T H:20 C:" + bad + " G"),
        )
        for name, text in texts:
            try:
                game(name).parse(text)
            except RulesError as e:
                assert "ASCII digits" in str(e), str(e)
                continue
            raise AssertionError("accepted " + text)


def test_bawo_totals_up_to_255():
    g = Bawo()
    full = ",".join(["8"] * 8)
    text = "/".join([full, full, full, "8,8,8,8,8,8,8,7"]) + " S"
    pos = g.parse(text)
    assert sum(pos.board) == 255 and str(pos) == text
    for m in g.legal_moves(pos):
        assert sum(g.play(pos, m).board) == 255
    try:
        g.parse(text.replace("7 S", "8 S"))
    except RulesError as e:
        assert "more than 255" in str(e), str(e)
    else:
        raise AssertionError("accepted 256 seeds")
    assert (
        sum(g.parse("0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 S").board) == 0
    )


def test_record_replay_checks_rules_version_and_reason():
    e = RecordError("record does not replay", 2)  # constructible on MicroPython too
    assert (str(e), e.ply) == ("record does not replay", 2)
    s = State(game("oware"), "0,0,0,0,0,1/1,0,0,0,0,0 S:24 N:22 S")
    while s.outcome() is None:
        s.push(s.legal_moves[0])
    good = Record.from_state(s)
    good.replay()
    unfinished = Record.from_state(State(game("bawo")))
    unfinished.moves = ["A1+"]
    unfinished.replay()
    cases = (
        (good, "Rules", "2", "rules version '2'"),
        (good, "Rules", None, "no [Rules] tag"),
        (good, "Reason", "25 seeds", "reason is '25 seeds'"),
        (good, "Reason", None, "no [Reason] tag"),
        (unfinished, "Reason", "front row empty", "do not end the game"),
    )
    for rec, tag, value, msg in cases:
        h = dict(rec.header)
        if value is None:
            del h[tag]
        else:
            h[tag] = value
        try:
            Record(h, rec.moves).replay()
        except RulesError as e:
            assert msg in str(e), (msg, str(e))
            continue
        raise AssertionError("replayed with %s %r" % (tag, value))


def test_header_control_characters_are_refused():
    # The board writes records with the same check the host reads them with (RULES.md 4).
    s = State(game("oware"))
    s.push("A")
    for bad in ("a\nb", "\x1b[2J", "c1\x9b", "x\u2028y"):
        for make in (
            lambda: Record.from_state(s, Id=bad).to_text(),
            lambda: Record.from_dict({"game": "oware", "id": bad, "moves": []}),
        ):
            try:
                make()
            except ValueError as e:
                assert "control character" in str(e), str(e)
            else:
                raise AssertionError("accepted %r" % bad)
    assert (
        Record.from_text(Record.from_state(s, Id="pico-\u00e9 1").to_text()).header["Id"]
        == "pico-\u00e9 1"
    )


# Replay checks one move a ply with try_play(), not the whole legal list: it must agree with
# legal_moves() and play() exactly, and push(m, False) (the fast path) with push(m) (the full
# one) on every move text, legal or not: same position, outcome, or error and message.
EDGE = {
    "bawo": [
        ENDLESS_CAPTURE,
        ONLY_ENDLESS_CAPTURES,
        "2,2,2,2,2,2,2,2/2,0,8,2,2,2,0,4/0,1,0,4,4,0,1,0/3,3,3,3,3,0,0,3 S",  # takata golden
        "1,0,0,2,1,1,0,3/0,0,0,0,0,0,0,0/0,3,1,3,3,0,4,2/6,5,8,6,1,4,4,3 N",  # win diagrams
        "6,5,4,4,6,1,3,7/2,0,3,2,0,4,1,3/1,1,1,0,1,0,1,1/0,1,1,1,0,0,1,0 S",
        "1,0,0,2,1,1,0,3/0,0,0,0,0,0,0,0/0,3,1,3,3,0,4,2/6,5,8,6,1,4,4,3 S",  # mover wins
        "/".join([",".join(["8"] * 8)] * 3 + ["8,8,8,8,8,8,8,7"]) + " S",
    ],
    "oware": [
        "0,0,0,0,0,0/6,1,0,0,1,2 S:19 N:19 S",
        "0,0,0,0,0,0/1,0,0,2,0,0 S:20 N:25 S",
        "0,0,0,0,0,0/1,0,0,1,0,0 S:22 N:24 S",
        "0,0,0,0,0,0/0,0,0,0,0,1 S:20 N:27 S",
        "4,4,4,1,2,1/4,4,4,4,4,3 S:6 N:3 S",
        "0,0,3,0,0,0/0,0,0,0,0,0 S:22 N:23 S",
        "0,0,0,1,0,0/0,1,0,0,0,0 S:24 N:22 N",
        "2,2,2,2,2,2/2,2,2,2,2,2 S:12 N:12 N",
    ],
    "bagh-chal": [
        "T...T/...../...../G..../T...T H:15 C:4 T",
        "TGGGT/GGGGG/G.GGG/GGGGG/TGGGT H:0 C:0 T",
        "TGGGT/GGGGG/G.GGG/GGGGG/TGGGT H:0 C:0 G",
        "GGGGT/GGGGG/GGGGG/GTGGG/T.TGG H:0 C:0 G",
        "GGGGT/GGGGG/GGGGG/GTGGG/T.TGG H:0 C:0 T",
        "TGGGT/GGGGG/GG.GG/GGGG./T.GGT H:0 C:2 T",
        "TG..T/...../..G../...../T...T H:18 C:0 T",
        "TGGGT/GGGGG/GGGGG/GG.../T...T H:0 C:5 G",
        "TGGGT/GG.GG/G.G.G/GG.GG/TGGGT H:3 C:0 G",
    ],  # tigers boxed in, goats in hand,
}


def move_texts(g):
    """Every move text of a game, legal somewhere or nowhere, and one that does not parse."""
    if g.name == "bawo":
        return [g.move_str(m) for m in range(32)] + ["C1+"]
    if g.name == "oware":
        return list("ABCDEFabcdef") + ["G"]
    out = [g.move_str(p) for p in range(25)]
    for a in range(25):
        out += [g.move_str(25 + a * 25 + c) for c in g.adjacent[a]]
        out += [g.move_str(25 + a * 25 + r) for q, r in g.jumps[a]]
    return out + ["a1-c5"]


def pushed(s, text, events):
    """What push(text, events) does to s, undone: (position, outcome, move) or the error."""
    try:
        s.push(text, events)
    except RulesError as e:
        return "%s: %s" % (type(e).__name__, e)
    out = s.outcome()
    got = (str(s.position), None if out is None else (out.winner, out.reason), s.moves[-1])
    s.pop()
    return got


def check_fast_path(g, pos):
    """try_play() against legal_moves()/play() on every action; returns the legal moves."""
    over = g.outcome(pos) is not None
    legal = [] if over else g.legal_moves(pos)
    actions = 650 if g.name == "bagh-chal" else (32 if g.name == "bawo" else 6)
    for m in range(-1, actions + 1):
        got = g.try_play(pos, m)
        if m not in legal:
            assert got is None, (str(pos), m)
            continue
        after = g.play(pos, m)
        assert str(g.play(pos, m, [])) == str(after)  # sown seed by seed, for the events
        if got is None:
            # Only Oware's starving move is left to play(): it ends the game, all collected.
            assert g.name == "oware" and not any(after.pits), (str(pos), m)
        else:
            assert got == after and str(got) == str(after), (str(pos), m, str(got), str(after))
    return legal


def check_push_paths(s, texts):
    before = str(s.position)
    for t in texts:
        fast = pushed(s, t, False)
        assert fast == pushed(s, t, None), (str(s.position), t, fast)
        assert str(s.position) == before


def fast_path_games(seeds, plies=150, stride=1):
    """Random games of every engine: at each ply try_play() is checked on every action, and
    push on every stride-th move text (a different slice each ply)."""
    n = 0
    for name in ("bawo", "oware", "bagh-chal"):
        g = game(name)
        texts = move_texts(g)
        starts = [None] + EDGE[name]
        for seed in seeds:
            rnd = Rng(seed)
            for start in starts if seed == seeds[0] else [None]:
                s = State(g, start)
                while True:
                    legal = check_fast_path(g, s.position)
                    check_push_paths(s, texts[s.ply % stride :: stride])
                    n += 1
                    if s.outcome() is not None or s.ply >= plies:
                        break
                    s.push(legal[rnd.below(len(legal))])
    return n


def test_fast_path_agrees_with_full_legal_moves():
    assert fast_path_games([1, 2], 40, 4) > 200  # a longer run: tests/test_state.py


def test_fast_replay_refuses_as_before():
    # Record.replay goes by the fast path: every kind of bad move is refused with the full
    # path's message, at its ply; a good record still replays to the same position.
    for name in ("bawo", "oware", "bagh-chal"):
        g = game(name)
        rnd = Rng(7)
        s = State(g)
        while s.outcome() is None and s.ply < 60:
            legal = s.legal_moves
            s.push(legal[rnd.below(len(legal))])
        rec = Record.from_state(s)
        assert str(rec.replay().position) == str(s.position)
        for k in (0, len(rec.moves) // 2, len(rec.moves)):
            ref = State(g)
            for m in rec.moves[:k]:
                ref.push(m)
            for t in move_texts(g):
                if t == (rec.moves[k] if k < len(rec.moves) else None):
                    continue
                want = pushed(ref, t, None)
                if isinstance(want, str):
                    try:
                        Record(rec.header, rec.moves[:k] + [t]).replay()
                    except RecordError as e:
                        assert str(e) == "record does not replay at ply %d (%s): %s" % (
                            k + 1,
                            t,
                            want.split(": ", 1)[1],
                        ), (str(e), want)
                        assert e.ply == k + 1
                        continue
                    raise AssertionError("replayed %s at ply %d" % (t, k + 1))


def test_oware_starving_move_sweeps_the_movers_row():
    g = game("oware")
    ev = []
    after = g.play(g.parse("0,0,0,0,0,0/1,0,0,1,0,0 S:22 N:24 S"), "A", ev)
    assert str(after) == "0,0,0,0,0,0/0,0,0,0,0,0 S:24 N:24 N", str(after)
    assert ev[-3:] == [(SWEEP, 0, 2), (STORE, 0, 2), (TURN_END, 0, 0)], ev
    ev = []
    g.play(g.parse("4,4,4,4,4,4/4,4,4,4,4,4 S:0 N:0 S"), "A", ev)
    assert [e for e in ev if e[0] == SWEEP] == [], "no sweep while the game goes on"


def _grid_labels(g, rows, cols):
    out = []
    for r in range(rows):
        cells = [g.cell_at(rows, cols, r, c) for c in range(cols)]
        out.append(" ".join([g.label(x) if x >= 0 else "." for x in cells]))
    return out


def test_each_game_lays_out_every_cell_once_on_the_grids_it_fits():
    import shared_rules

    for name in ("bawo", "oware", "bagh-chal"):
        g = game(name)
        for rows in range(1, 9):
            for cols in range(1, 11):
                seen = []
                for r in range(rows):
                    for c in range(cols):
                        cell = g.cell_at(rows, cols, r, c)
                        if cell >= 0:
                            seen.append(cell)
                placed = sorted(seen) == list(range(g.cells + g.stores))
                assert placed == shared_rules.fits(name, rows, cols), (name, rows, cols, seen)
                assert placed or seen == [], (name, rows, cols, seen)


def test_layouts_as_the_board_shows_them():
    assert _grid_labels(game("bawo"), 4, 8) == [
        "B8 B7 B6 B5 B4 B3 B2 B1",
        "A8 A7 A6 A5 A4 A3 A2 A1",
        "A1 A2 A3 A4 A5 A6 A7 A8",
        "B1 B2 B3 B4 B5 B6 B7 B8",
    ]
    ow = game("oware")
    assert _grid_labels(ow, 4, 8) == [
        ". . . . . . . .",
        "N f e d c b a .",
        ". A B C D E F S",
        ". . . . . . . .",
    ]
    assert _grid_labels(ow, 3, 10)[:2] == [". N f e d c b a . .", ". . A B C D E F S ."]
    assert _grid_labels(game("bagh-chal"), 5, 5) == [
        "a5 b5 c5 d5 e5",
        "a4 b4 c4 d4 e4",
        "a3 b3 c3 d3 e3",
        "a2 b2 c2 d2 e2",
        "a1 b1 c1 d1 e1",
    ]
    assert [ow.owner(c) for c in range(14)] == [0] * 6 + [1] * 6 + [0, 1]
    assert (ow.cells, ow.stores, game("bawo").stores) == (12, 2, 0)
    b = game("bawo")
    assert [b.owner(c) for c in (0, 15, 16, 31)] == [0, 0, 1, 1]
    bc = game("bagh-chal")
    assert [bc.owner(0, v) for v in (0, 1, 2)] == [-1, 0, 1]


def test_move_cell_is_the_pockets_a_move_names():
    for name in ("bawo", "oware", "bagh-chal"):
        g = game(name)
        s = State(g)
        rng = Rng(7)
        while s.outcome() is None and s.ply < 60:
            pos = s.position
            for m in s.legal_moves:
                text = g.move_str(m, pos)
                start, target = g.move_cell(m, pos.turn), g.move_cell(m, pos.turn, True)
                assert text.startswith(g.label(start)), (name, text, start)
                if name == "bawo":
                    # the pocket sown next in the move's direction
                    assert g.owner(start) == pos.turn == g.owner(target)
                    assert (target - start) % 16 == (15 if text[2] == "-" else 1), (text, target)
                elif name == "oware":
                    assert target == -1 and g.owner(start) == pos.turn
                elif m < 25:
                    assert target == -1 and pos.board[start] == 0
                else:
                    assert text.endswith(g.label(target)) and pos.board[target] == 0, text
            s.push(s.legal_moves[rng.below(len(s.legal_moves))])


def _random_game(name, plies, seed=3, history=1):
    s = State(game(name), None, history=history)
    r = Rng(seed)
    while s.ply < plies and s.outcome() is None:
        ms = s.legal_moves
        s.push(ms[r.below(len(ms))], events=False)
    return s


def test_a_game_in_progress_takes_a_few_bytes_a_ply():
    # The board keeps its game's State for as long as the game lasts: every ply's move, its
    # text and (Oware, Bagh-Chal) its repetition key. As a list of tuples and a dict of keys
    # they took 130-190 bytes a ply on the 64-bit unix port, and a long game starved the
    # board's 160 KB heap. Measured where the heap is the board's (gc.mem_alloc); the same
    # game and its moves on both runtimes.
    for name, plies in (("oware", 150), ("bagh-chal", 56), ("bawo", 6)):
        _random_game(name, 1)  # the engine's code loaded and its tables made, before measuring
        if sys.implementation.name == "micropython":
            import gc

            gc.collect()
            m0 = gc.mem_alloc()
        s = _random_game(name, plies)
        assert s.ply == plies, (name, s.ply)
        if sys.implementation.name == "micropython":
            gc.collect()
            grew = gc.mem_alloc() - m0
            # The position, one kept before it, the buffers' doubling: 48 bytes a ply at most.
            assert grew < 48 * plies + 2048, (name, grew, grew // plies)
        moves = s.moves
        assert list(s.iter_moves(plies - 2)) == moves[-2:] and len(moves) == plies
        text = [s.pop() for _ in range(3)]
        assert text == moves[-1:-4:-1] and s.moves == moves[:-3], (text, moves[-3:])


def test_reserve_takes_a_replays_room_at_once():
    # A game replayed from its journal (start.resume) reserves its buffers first: one block
    # each, none grown during the replay (a doubling series of them found no room on the
    # fuzz's restarted board). The state plays and pops as without it.
    for name, plies in (("oware", 120), ("bagh-chal", 40), ("bawo", 6)):
        moves = _random_game(name, plies, seed=9).moves
        s = State(game(name), None, history=1)
        s.reserve(len(moves), sum(len(m) for m in moves))
        bufs = (s._act, s._txt, s._keys)
        for m in moves:
            s.push(s.parse_move(m), events=False)
        # (Repetition keys are those of the current stage only: not reserved, they stay few.)
        assert all(a is b for a, b in zip(bufs[:2], (s._act, s._txt))), name
        assert s.moves == moves and s.pop() == moves[-1] and s.ply == len(moves) - 1
        s.reserve(0)  # nothing more: the same buffers
        assert s._act is bufs[0]


def test_repetition_counts_only_the_current_stages_positions_and_answers_the_same():
    # A long Oware game's keys (15 bytes a ply) took one block of KBs, more than the fuzz's
    # restarted board had in one piece: it could not resume its game. Positions of two stages
    # (game.stage: captures, placements) are never the same, so State keeps the keys of the
    # current stage only. The same moves and pops against a State that keeps every key (stage
    # None): the same position and outcome at every step, repetitions included.
    repeated = {}
    for name, games, plies in (("oware", 12, 400), ("bagh-chal", 30, 300)):
        r = Rng(5)
        repeated[name] = 0
        for _ in range(games):
            g, every = game(name), game(name)
            every.stage = lambda pos: None
            s, ref = State(g, None, history=1), State(every, None, history=1)
            most = 0
            seen = {}
            while s.ply < plies and s.outcome() is None:
                if s.ply and r.below(8) == 0:
                    assert s.pop() == ref.pop()
                else:
                    ms = s.legal_moves
                    assert ms == ref.legal_moves
                    m = ms[r.below(len(ms))]
                    if r.below(3):  # mostly a move back to a position seen: repetitions
                        for c in ms:
                            if g.key(g.play(s.position, c)) in seen:
                                m = c
                                break
                    s.push(m, events=False)
                    seen[g.key(s.position)] = 1
                    ref.push(m, events=False)
                assert s.position == ref.position and s.outcome() == ref.outcome(), (name, s.ply)
                most = max(most, s._kn)
            if s.outcome() is not None and s.outcome().reason == "threefold repetition":
                repeated[name] += 1
                assert s.pop() == ref.pop() and s.outcome() is None and ref.outcome() is None
                assert s.position == ref.position
            assert s._kn <= ref._kn and most < ref._kn or s.ply < 40, (name, most, ref._kn)
    assert repeated["bagh-chal"] and repeated["oware"], repeated


def test_move_texts_hold_a_games_moves_as_the_list_would():
    # The journal reads a game back into MoveTexts (start.resume replays it): a few bytes a
    # move, where a list of str took about 50 on the 64-bit test build.
    from shared_rules.movetexts import MoveTexts

    moves = _random_game("oware", 150, seed=4).moves
    t = MoveTexts()
    for m in moves:
        t.append(m)
    assert len(t) == len(moves) and list(t) == moves and t == moves and not t == moves[:-1]
    assert t[0] == moves[0] and t[-1] == moves[-1] and t[:3] == moves[:3]
    assert t.size == sum(len(m) for m in moves) and MoveTexts(moves) == t
    assert MoveTexts() == [] and len(MoveTexts()) == 0
    for bad in ("A1 A2", ""):
        try:
            t.append(bad)
        except ValueError:
            continue
        raise AssertionError("appended %r" % bad)
    assert t == moves  # a refused text changed nothing
    if sys.implementation.name == "micropython":
        import gc

        gc.collect()
        m0 = gc.mem_alloc()
        t = MoveTexts(moves)
        gc.collect()
        assert gc.mem_alloc() - m0 < 8 * len(moves) + 256, gc.mem_alloc() - m0


def test_text_of_state_is_the_records_text():
    # The board writes its records from the state's buffer, a move at a time: the same text
    # as the record made from the state's list of moves, wrapping and set-ups included.
    from shared_rules.record import text_of_state

    for name, plies, seed in (
        ("oware", 300, 5),
        ("bagh-chal", 120, 2),
        ("bawo", 40, 7),
        ("oware", 0, 1),
        ("oware", 1, 1),
    ):
        s = _random_game(name, plies, seed)
        tags = {"Id": "t-%d" % seed, "Device": "t", "First": "board (level 5)"}
        assert text_of_state(s, **tags) == Record.from_state(s, **tags).to_text(), name


def test_record_ends_by_resign_agreement_and_time():
    # A remote game's end (RULES.md 4): the moves go on, Reason says why it ended; the board
    # writes it from its state and every reader replays it.
    from shared_rules.record import text_of_state

    for name, plies, seed in (("bawo", 2, 3), ("oware", 9, 4), ("bagh-chal", 5, 2)):
        s = _random_game(name, plies, seed)
        g = s.game
        for res, why in ((g.sides[0], "resign"), (g.sides[1], "time"), ("draw", "agreement")):
            text = text_of_state(s, Id="t-0001", Result=res, Reason=why)
            assert ('[Result "%s"]' % res) in text and ('[Reason "%s"]' % why) in text, text
            assert text.rstrip().endswith(" " + res), text
            rec = Record.from_text(text)
            assert (rec.header["Result"], rec.header["Reason"]) == (res, why)
            assert rec.replay().ply == plies
        for res, why in (
            ("draw", "resign"),
            ("draw", "time"),
            (g.sides[0], "agreement"),
            ("*", "resign"),
            ("X", "time"),
        ):
            rec = Record({"Game": name, "Rules": "1", "Result": res, "Reason": why}, s.moves)
            try:
                rec.replay()
                raise AssertionError("replayed %s %s" % (res, why))
            except RecordError as e:
                assert e.ply == plies and why in str(e), str(e)
        # Without a Reason the game is unfinished, as before; the writer's caller checks an
        # end (record_end.end_error), and every reader refuses a wrong one (above).
        assert '[Result "*"]' in text_of_state(s, Result="draw") and "Reason" not in text_of_state(
            s
        )
        from shared_rules.record_end import end_error

        assert (
            end_error(g, "draw", "agreement") is None and end_error(g, g.sides[1], "time") is None
        )
        assert "needs the winner" in end_error(g, "draw", "resign")


def test_record_agreed_reason_on_a_finished_game_must_match_the_moves():
    s = _random_game("oware", 400, 5)
    assert s.outcome() is not None
    rec = Record.from_state(s)
    rec.header["Reason"] = "resign"
    try:
        rec.replay()
        raise AssertionError("replayed")
    except RecordError as e:
        assert "the reason is" in str(e), str(e)


def main():
    passed = failed = 0
    names = sorted([n for n in globals() if n.startswith("test_")])
    for n in names:
        try:
            globals()[n]()
            passed += 1
        except Exception as e:
            failed += 1
            print("FAIL %s: %s: %s" % (n, type(e).__name__, e))
    print("%d passed, %d failed" % (passed, failed))
    return failed


if __name__ == "__main__":
    sys.exit(1 if main() else 0)
