"""`bawo flash` against a MicroPython unix-port REPL on a pty: the same raw REPL mpremote
drives on a Pico (reached with `mpremote connect PORT resume`, no soft reset)."""
import os
import subprocess
import time

import pytest

from _host_helpers import micropython

from bawo import cli, flash


@pytest.fixture
def repl_board(tmp_path):
    root = tmp_path / "flash"
    root.mkdir()
    master, slave = os.openpty()
    import tty
    tty.setraw(slave)
    proc = subprocess.Popen([micropython()], stdin=master, stdout=master, stderr=master, cwd=str(root),
                            start_new_session=True)
    time.sleep(0.3)
    yield os.ttyname(slave), root
    proc.kill()
    proc.wait(5)
    os.close(master)
    os.close(slave)


def _flash(capsys, port, *extra):
    rc = cli.main(["flash", "--port", port, "--no-reset"] + list(extra))
    out, err = capsys.readouterr()
    return rc, out, err


def test_flash_installs_verifies_and_detects_damage(repl_board, capsys):
    port, root = repl_board
    rc, out, err = _flash(capsys, port, "--dry-run")
    assert rc == 0 and "would be copied" in out and "same" not in out
    rc, out, err = _flash(capsys, port)
    assert rc == 0, err
    assert "verified on the board" in err
    assert (root / "profile.json").exists() and (root / "shared_rules" / "state.mpy").exists()
    assert not (root / flash.STAGE).exists()
    # The installed bundle runs on the "board": the rules engine imports from .mpy files.
    r = subprocess.run([micropython(), "-c", "from shared_rules import game, State; "
                        "s = State(game('bawo')); s.push('A1+'); print(s.position)"],
                       cwd=str(root), capture_output=True, text=True, env={"MICROPYPATH": "."})
    assert r.stdout.strip().endswith(" N"), r.stderr
    rc, out, err = _flash(capsys, port, "--dry-run")
    assert "0 of" in out
    # A damaged file on the board is found by its hash and is the only one copied again.
    p = root / "protocol.mpy"
    p.write_bytes(p.read_bytes()[:-3] + b"xyz")
    rc, out, err = _flash(capsys, port, "--dry-run")
    assert "changed  protocol.mpy" in out and "1 of" in out
    rc, out, err = _flash(capsys, port)
    assert rc == 0 and "installed 1 file(s)" in err


def test_flash_transfer_damage_leaves_board_untouched(repl_board, capsys, monkeypatch):
    port, root = repl_board
    real = flash.board_hashes

    def damaged(remote, paths):
        got = real(remote, paths)
        for p in got:
            if p.startswith(flash.STAGE) and p.endswith("link.mpy"):
                got[p] = "0" * 64
        return got
    monkeypatch.setattr(flash, "board_hashes", damaged)
    rc, out, err = _flash(capsys, port)
    assert rc == 1
    assert "arrived damaged" in err and "recover with: bawo flash --port" in err
    assert len(err.strip().splitlines()) == 3  # two progress lines and the one-line error
    assert not (root / "link.mpy").exists()  # nothing moved into place


def test_flash_refuses_unsupported_micropython():
    emitted = (6, 3, "mpy-cross emitting mpy v6.3")
    assert flash.check_target(6 | (3 << 8) | (4 << 10), emitted) == "armv6m"
    assert flash.check_target(6 | (3 << 8) | (2 << 10), emitted) == "x64"
    with pytest.raises(flash.FlashError) as e:
        flash.check_target(5 | (0 << 8) | (4 << 10), emitted, "1.18.0")
    assert "1.18.0" in str(e.value) and "--no-compile" in str(e.value)


def test_bundle_only(tmp_path, capsys):
    rc = cli.main(["flash", "--bundle-only", str(tmp_path / "b"), "--profile", "grid-5x5"])
    out, err = capsys.readouterr()
    assert rc == 0
    names = [line.split()[1] for line in out.splitlines()]
    assert "main.py" in names or not os.path.exists(os.path.join(flash.firmware_dir(), "main.py"))
    assert "profile.json" in names and "shared_rules/__init__.mpy" in names
    assert not any(n.endswith(".py") and n not in flash.KEEP_PY for n in names)
