"""Hardening of the game log commands (issue 9): records that cannot break the log, hostile
files, a read-only or locked log, terminal-safe output, the games listing, show, import speed."""
import json
import os

import pytest

from _host_helpers import journal_module, random_record
from shared_rules.record import Record

from bawo.sim import BoardProcess, choose_settings, play_moves


# -- header values: refused on the board too ---------------------------------------------------
def _board(tmp_path, game="oware", **env):
    b = BoardProcess("bawo-4x8", str(tmp_path / "flash"), speed=None,
                     extra_env=dict({"BAWO_BOUNCE": "15"}, **env))
    return b


def test_board_refuses_a_board_id_with_control_characters(tmp_path):
    b = _board(tmp_path, BAWO_BOARD_ID="sim\x1b[2Jx")
    try:
        choose_settings(b, "oware", "people", 8)
        b.menu()
        b.idle()
        play_moves(b, "oware", ["A"])
        b.menu()
        b.menu()  # a new game archives the one just played: the board writes its record
        st = b.idle()
        assert st["ply"] == 0
        assert any("board id refused" in x for x in b.log), b.log[-8:]
        recs = [n for n in os.listdir(str(tmp_path / "flash")) if n.endswith(".rec")]
        assert recs == ["board-0001.rec"]
        text = (tmp_path / "flash" / recs[0]).read_text()
        rec = Record.from_text(text[: text.rindex("#crc")])
        assert rec.header["Device"] == "board" and rec.header["Id"] == "board-0001"
        assert rec.moves == ["A"]
    finally:
        b.quit()


def test_board_sets_aside_a_journal_whose_header_holds_control_characters(tmp_path):
    J = journal_module()
    flash = tmp_path / "flash"
    flash.mkdir()
    header = {"game": "oware", "id": "x\x1b]0;pwned\x07-0001", "opponent": "people", "seed": 1}
    (flash / "cur.jnl").write_bytes(J.seal("H " + json.dumps(header)) + J.seal("M 1 A"))
    b = _board(tmp_path, BAWO_BOARD_ID="sim-0a0b")
    try:
        st = b.idle()
        assert st["mode"] == "menu"
        assert "cur.jnl.bad" in os.listdir(str(flash))
        assert any("bad header" in x and "control character" in x for x in b.log), b.log[-8:]
    finally:
        b.quit()
