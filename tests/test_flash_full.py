"""A full flash never stops the board: tests/mp/check_flash_full.py runs the real app, journal
and handler on a full littlefs (MicroPython unix port, vfs.VfsLfs2 on a RAM block device) and on
a byte-budgeted directory under CPython."""
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).parent / 'mp'))
import harness  # noqa: E402

CHECKS = harness.load('check_flash_full')
test_cpython, test_same_checks_under_micropython = harness.both_runtimes(CHECKS)


def test_ack_frees_room_even_when_a_rename_does_not_fit(tmp_path, monkeypatch):
    # littlefs can refuse even a rename (a metadata commit) when it is full. The host has the
    # game once it ACKs it, so the record goes: else a sync could never make room. (CPython
    # only: MicroPython's os module cannot be patched, and a real littlefs that refuses a
    # rename but not a remove is hard to reach on purpose.)
    root = CHECKS._flash()
    ids = CHECKS._fill(root)
    J = CHECKS.journal
    j = J.Journal(root, 'tb', min_free=4096, log=lambda m: None)

    def no_room(a, b):
        raise OSError(28, 'No space left on device')
    monkeypatch.setattr(J.os, 'rename', no_room)
    assert j.mark_synced(ids[0])
    monkeypatch.undo()
    assert CHECKS._records(root) == [i + '.rec' for i in ids[1:]]
