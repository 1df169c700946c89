"""Every firmware file compiles for the Pico (armv6m), and a whole game plays as deployed."""

from pathlib import Path

import pytest

from conftest import mpy_cross_all
from bawo.sim import BoardProcess, build_mpy, choose_settings, play_moves, random_moves

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "path",
    sorted(str(p.relative_to(ROOT)) for p in (ROOT / "firmware").glob("*.py"))
    + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "firmware_sim").glob("*.py")),
)
def test_mpy_cross_armv6m(tmp_path, path):
    assert mpy_cross_all([ROOT / path], tmp_path) == []


@pytest.mark.parametrize("game,profile", [("bawo", "bawo-4x8"), ("bagh-chal", "grid-5x5")])
def test_full_game_as_deployed(tmp_path, game, profile):
    # As deployed: precompiled .mpy files (compiling source on the board needs far more RAM).
    mpy = build_mpy(tmp_path / "mpy")
    b = BoardProcess(
        profile, str(tmp_path / "flash"), speed=None, extra_env={"BAWO_HEAP": "1"}, mpy_dir=mpy
    )
    try:
        choose_settings(b, game, "people", 5)  # animated: the event lists are live too
        b.menu()
        st = b.idle()
        # The longest of a few seeded games: the move list and repetition table peak at the end.
        moves = max((random_moves(game, st["pos"], seed, 400) for seed in range(20, 30)), key=len)
        st = play_moves(b, game, moves)
        assert st.get("result"), st
        peak = st["peak"]
        # The unix port's figures, for a look (pytest -s); the board's budget is the Pico's.
        print(
            "%s: %d plies, peak gc.mem_alloc %d bytes (%.1f KB), live after gc.collect() "
            "%.1f KB" % (game, st["ply"], peak, peak / 1024, st["live"] / 1024)
        )
    finally:
        b.quit()
