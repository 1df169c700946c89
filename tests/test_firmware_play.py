"""The firmware (app, view, journal) under the MicroPython unix port, driven by presses."""

import json

import pytest

from bawo.sim import (
    BoardProcess,
    choose_settings,
    key_of_cell,
    play_moves,
    presses_for,
    random_moves,
)
from bawo.sim.leds import _parse_frame
from shared_rules import game as make_game, State
from shared_rules.record import Record


def start(tmp_path, game, profile=None, speed=8, bounce=15, **kw):
    b = BoardProcess(
        profile or ("grid-5x5" if game == "bagh-chal" else "bawo-4x8"),
        str(tmp_path / "flash"),
        speed=None,
        extra_env={"BAWO_BOUNCE": str(bounce)},
        **kw,
    )
    choose_settings(b, game, "people", speed)
    b.menu()
    st = b.idle()
    assert st["mode"] == "play" and st["game"] == game and st["ply"] == 0
    return b


def engine_result(game, moves):
    s = State(make_game(game))
    for m in moves:
        s.push(m)
    return s


@pytest.mark.parametrize(
    "game,seed,speed",
    [("bawo", 3, 8), ("bawo", 11, 6), ("oware", 5, 8), ("oware", 9, 7), ("bagh-chal", 2, 8)],
)
def test_full_game_by_presses(tmp_path, game, seed, speed):
    b = start(tmp_path, game, speed=speed)
    try:
        moves = random_moves(game, b.status["pos"], seed, 400)
        st = play_moves(b, game, moves)
        ref = engine_result(game, st["moves"])
        assert st["pos"] == ref.game.format(ref.position)
        assert [m for _, m in b.journaled] == st["moves"]
        if ref.outcome() is not None:
            assert st["mode"] == "over" and st["result"]
            rec_line = [x for x in b.log if x.startswith("R ")]
            assert rec_line, b.log[-5:]
            gid = rec_line[-1][2:]
            text = (tmp_path / "flash" / (gid + ".rec")).read_text()
            body = text[: text.rindex("#crc")]
            replayed = Record.from_text(body).replay()
            assert replayed.moves == st["moves"]
    finally:
        b.quit()


def test_illegal_press_cancel_and_skip(tmp_path):
    b = start(tmp_path, "bawo", speed=3)
    cells = key_of_cell(b.profile_file, "bawo")
    try:
        pos0 = b.status["pos"]
        # North's pocket on South's turn: red flash, nothing else changes.
        b.tap(cells[20])
        st = b.idle()
        assert st["flashes"] == 1 and st["pos"] == pos0 and st["sel"] == -1
        # Select A1 then press it again: cancelled.
        b.tap(cells[0])
        assert b.idle()["sel"] == 0
        b.tap(cells[0])
        st = b.idle()
        assert st["sel"] == -1 and st["ply"] == 0
        # A pocket that is neither a start nor a direction while A1 is selected: flash, keep.
        b.tap(cells[0])
        b.tap(cells[5 + 16])
        st = b.idle()
        assert st["sel"] == 0 and st["flashes"] == 2
        # Play A1+ and press North's start during its animation: the animation jumps to
        # its end and the press counts (it used to be eaten by the skip).
        b.tap(cells[1])
        b.send("w 200")
        b.send("s")
        st = json.loads(b.expect("S ")[2:])
        assert st["anim"] and st["ply"] == 1
        after = "2,2,2,2,2,2,2,2/2,0,0,2,2,2,0,0/3,1,0,4,4,4,1,5/3,3,0,3,3,0,3,3 N"
        g = make_game("bawo")
        start_key = presses_for(
            "bawo", after, g.move_str(g.legal_moves(g.parse(after))[0], g.parse(after)), cells
        )[0]
        b.tap(start_key)
        b.send("s")
        st = json.loads(b.expect("S ")[2:])
        assert not st["anim"] and st["pos"] == after
        assert st["sel"] != -1 and cells[st["sel"]] == start_key and st["flashes"] == 2
    finally:
        b.quit()


def _lit(frame, profile_file, key):
    """Bright LEDs in a pocket's block (seed dots), from an LED frame line."""
    prof = json.loads(open(profile_file).read())
    w, h, rgb = _parse_frame(frame)
    r, c = (prof.get("pockets") or prof.get("points"))[key]
    blk = prof["leds"]["block"]
    n = 0
    for dy in range(blk["h"]):
        for dx in range(blk["w"]):
            x, y = blk["x0"] + c * blk["pitch_x"] + dx, blk["y0"] + r * blk["pitch_y"] + dy
            o = 3 * (y * w + x)
            if rgb[o] + rgb[o + 1] + rgb[o + 2] > 40:
                n += 1
    return n


def test_frame_shows_counts(tmp_path):
    b = start(tmp_path, "bawo", speed=8)
    try:
        st = play_moves(b, "bawo", ["A1+"])
        frame = b.get_frame()
        cells = key_of_cell(b.profile_file, "bawo")
        from shared_rules.bawo import DISPLAY

        counts = [int(x) for row in st["pos"].split()[0].split("/") for x in row.split(",")]
        for i, n in enumerate(counts):
            assert _lit(frame, b.profile_file, cells[DISPLAY[i]]) == min(n, 16), i
    finally:
        b.quit()


def test_bouncing_switches_one_press_each(tmp_path):
    # Contacts bounce for 15 ms (debounce is 20 ms): every tap must count exactly once.
    b = start(tmp_path, "oware", speed=8, bounce=15)
    try:
        cells = key_of_cell(b.profile_file, "oware")
        moves = random_moves("oware", b.status["pos"], 4, 12)
        st = play_moves(b, "oware", moves)
        assert st["moves"] == moves[: len(st["moves"])] and st["flashes"] == 0
        assert len(b.journaled) == len(st["moves"])
        del cells
    finally:
        b.quit()


def test_profile_error_names_field(tmp_path):
    bad = json.loads(open("hardware/profiles/bawo-4x8.json").read())
    del bad["leds"]["data_pin"]
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(bad))
    from bawo.sim import SimError

    with pytest.raises(SimError):
        BoardProcess(str(p), str(tmp_path / "flash"))
    log = (tmp_path / "flash" / "console.log").read_text()
    assert "leds.data_pin" in log and "missing" in log
    with pytest.raises(SimError):
        BoardProcess(str(tmp_path / "none.json"), str(tmp_path / "flash2"))
    assert "cannot be read" in (tmp_path / "flash2" / "console.log").read_text()


def test_board_opponent_plays(tmp_path):
    b = BoardProcess("bawo-4x8", str(tmp_path / "flash"), speed=None)
    try:
        choose_settings(b, "oware", "board-second", 8)
        b.menu()
        st = b.idle()
        cells = key_of_cell(b.profile_file, "oware")
        g = make_game("oware")
        for _ in range(3):
            if st.get("result"):
                break
            pos = g.parse(st["pos"])
            mv = g.move_str(g.legal_moves(pos)[0], pos)
            for k in presses_for("oware", st["pos"], mv, cells):
                b.tap(k)
            st = b.idle()
            assert st["turn"] == "S" or st.get("result"), st  # the board answered
        assert st["ply"] >= 2
    finally:
        b.quit()
