"""A damaged data directory never stops the board: tests/mp/check_damaged_dir.py runs the real
app and journal on the simulated board under CPython and the MicroPython unix port."""

import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).parent / 'mp'))
import harness  # noqa: E402

CHECKS = harness.load('check_damaged_dir')
test_cpython, test_same_checks_under_micropython = harness.both_runtimes(CHECKS)


def test_simulated_board_with_a_directory_as_its_board_id(tmp_path):
    # The simulator's own file (board_id) was read before the journal could set it aside.
    from bawo.sim import BoardProcess

    flash = tmp_path / "flash"
    (flash / "board_id").mkdir(parents=True)
    (flash / "board_id" / "inside").write_text("keep me")
    b = BoardProcess("bawo-4x8", str(flash))
    try:
        st = b.idle()
        assert st["mode"] == "menu"
        assert any("damaged file set aside: board_id.bad" in x for x in b.log), b.log
    finally:
        b.quit()
    assert (flash / "board_id.bad" / "inside").read_text() == "keep me"
    assert (flash / "board_id").read_text().startswith("sim-")
