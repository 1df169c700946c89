"""Rules checks that run unchanged under python3 and micropython (run by tests/test_micropython.py).

    micropython tests/mp/test_rules_mp.py      (with the repo root on MICROPYPATH)
"""
import json
import sys

from shared_rules import game, State, Bawo, RulesError
from shared_rules.record import Record
from shared_rules.events import LAP_END, CAPTURE
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
    assert str(g.play(g.parse("4,4,4,1,2,1/4,4,4,4,4,3 S:6 N:3 S"), "F")) == "4,4,4,0,0,0/4,4,4,4,4,0 S:13 N:3 N"
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


def test_header_control_characters_are_refused():
    # The board writes records with the same check the host reads them with (RULES.md 4).
    s = State(game("oware"))
    s.push("A")
    for bad in ("a\nb", "\x1b[2J", "c1\x9b", "x\u2028y"):
        for make in (lambda: Record.from_state(s, Id=bad).to_text(),
                     lambda: Record.from_dict({"game": "oware", "id": bad, "moves": []})):
            try:
                make()
            except ValueError as e:
                assert "control character" in str(e), str(e)
            else:
                raise AssertionError("accepted %r" % bad)
    assert Record.from_text(Record.from_state(s, Id="pico-\u00e9 1").to_text()).header["Id"] == "pico-\u00e9 1"


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
