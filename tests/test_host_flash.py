"""`bawo flash` against a MicroPython unix-port REPL on a pty: the same raw REPL mpremote
drives on a Pico (reached with `mpremote connect PORT resume`, no soft reset)."""

import os
import signal
import subprocess
import time

import pytest

from _host_helpers import micropython, bawo_cmd, env_with_path

from bawo import cli, flash, sim


@pytest.fixture
def repl_board(tmp_path):
    root = tmp_path / "flash"
    root.mkdir()
    master, slave = os.openpty()
    import tty

    tty.setraw(slave)
    proc = subprocess.Popen(
        [micropython()],
        stdin=master,
        stdout=master,
        stderr=master,
        cwd=str(root),
        start_new_session=True,
    )
    # Ready once its REPL prompts (a fixed pause was too short on a loaded machine).
    import select

    seen, deadline = b"", time.monotonic() + 60
    while b">>> " not in seen:
        assert time.monotonic() < deadline and proc.poll() is None, seen
        if select.select([slave], [], [], 0.5)[0]:
            seen += os.read(slave, 4096)
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
    r = subprocess.run(
        [
            micropython(),
            "-c",
            "from shared_rules import game, State; "
            "s = State(game('bawo')); s.push('A1+'); print(s.position)",
        ],
        cwd=str(root),
        capture_output=True,
        text=True,
        env={"MICROPYPATH": "."},
    )
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

    def damaged(remote, paths, *step):
        got = real(remote, paths, *step)
        for p in got:
            if p.startswith(flash.STAGE) and p.endswith("link.mpy"):
                got[p] = "0" * 64
        return got

    monkeypatch.setattr(flash, "board_hashes", damaged)
    rc, out, err = _flash(capsys, port)
    assert rc == 1
    assert "arrived damaged" in err and "recover with: bawo flash --port" in err
    lines = err.strip().splitlines()
    # Progress: the copy step, then one line per file copied, then the one-line error.
    i = next(k for k, line in enumerate(lines) if line.startswith("copying "))
    n = int(lines[i].split()[1])
    files = [line.split() for line in lines[i + 1 : -1]]
    assert [f[0] for f in files] == ["%d/%d" % (k, n) for k in range(1, n + 1)], lines
    assert files[-1][1] == "view.mpy" and lines[-1].startswith("bawo: error: ")
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


def test_bundle_leaves_out_simulator_files(tmp_path, capsys):
    for extra in ([], ["--no-compile"]):
        rc = cli.main(["flash", "--bundle-only", str(tmp_path / ("b%d" % len(extra)))] + extra)
        out, err = capsys.readouterr()
        assert rc == 0, err
        names = {line.split()[1] for line in out.splitlines()}
        fw = sorted(f for f in os.listdir(flash.firmware_dir()) if f.endswith(".py"))
        want = {
            f if f in flash.KEEP_PY or extra else f[:-3] + ".mpy"
            for f in fw
            if f not in ("hw_circuitpython.py", "drive_mode.py", "journal_nvm.py", "manifest.py")
        }
        assert {
            n for n in names if "/" not in n and n not in ("profile.json", "bawo_book.bin")
        } == want
        assert not any("sim" in n for n in names), names
        # The opening book travels as a data file, within its 16 KB of flash.
        book = tmp_path / ("b%d" % len(extra)) / "bawo_book.bin"
        assert "bawo_book.bin" in names and 0 < book.stat().st_size <= 16 * 1024


@pytest.fixture
def sim_board(tmp_path):
    """`bawo sim --headless` with its flash in a temp dir; start() may be called again."""
    data = tmp_path / "sim"
    data.mkdir()
    procs = []

    def start():
        p = subprocess.Popen(
            bawo_cmd() + ["sim", "--headless", "--data", str(data)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env_with_path(),
            start_new_session=True,
        )
        procs.append(p)
        lines = []
        for line in p.stdout:
            lines.append(line)
            if "running headless" in line:
                return p, lines
        raise AssertionError("the simulator did not start: %s" % "".join(lines))

    def stop(p):
        os.killpg(p.pid, signal.SIGTERM)
        p.wait(10)

    yield data, start, stop
    for p in procs:
        if p.poll() is None:
            stop(p)


def test_flash_the_simulated_board(sim_board, capsys):
    """`bawo flash --sim DIR` against the simulated board on its pty: mpremote's Ctrl-C stops
    the firmware and the board drops to the REPL in its flash dir, as a Pico does."""
    data, start, stop = sim_board
    p, lines = start()
    assert not any("flashed" in line for line in lines)
    rc = cli.main(["flash", "--sim", str(data)])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "board runs MicroPython" in err and "verified on the board" in err
    assert (data / "app.mpy").exists() and (data / "shared_rules" / "state.mpy").exists()
    assert (data / "profile.json").exists() and not (data / flash.STAGE).exists()
    assert not any("sim" in n for n in os.listdir(data) if n.endswith((".py", ".mpy")))
    # A damaged file on the simulated flash: the dry run names exactly that file.
    f = data / "link.mpy"
    f.write_bytes(f.read_bytes()[:-3] + b"xyz")
    rc = cli.main(["flash", "--sim", str(data), "--dry-run"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    rows = [line.split() for line in out.splitlines()[:-1]]
    assert [r[1] for r in rows if r[0] != "same"] == ["link.mpy"], out
    assert out.splitlines()[-1].startswith("1 of ")
    rc = cli.main(["flash", "--sim", str(data)])
    out, err = capsys.readouterr()
    assert rc == 0 and "installed 1 file(s)" in err, err
    # Restarted, the simulator runs the flashed firmware and answers the host.
    stop(p)
    p, lines = start()
    assert any("running the firmware flashed in" in line for line in lines), lines
    # app imported from the flash (the sim's cwd), not from the checkout's firmware/app.py
    assert any(
        line.strip() in ("bawo sim: firmware app.mpy", "bawo sim: firmware %s" % (data / "app.mpy"))
        for line in lines
    ), lines
    from bawo.ports import connect

    ser, link, info = connect(None, str(data), timeout=1.0)
    ser.close()
    assert info["proto"] == 1 and info["board"].startswith("sim-")


@pytest.fixture
def silent_port():
    """A serial port with nothing behind it that answers: a pty nobody serves."""
    import tty

    master, slave = os.openpty()
    tty.setraw(slave)
    yield os.ttyname(slave)
    os.close(master)
    os.close(slave)


@pytest.mark.parametrize(
    "extra,step",
    [
        ([], "asking the board's MicroPython version"),
        (["--no-compile"], "hashing the files on the board"),
    ],
)
def test_flash_gives_up_on_a_port_that_is_not_a_board(
    silent_port, capsys, monkeypatch, extra, step
):
    """mpremote waits forever on a port that never answers; flash gives up with one line
    naming the step it was in."""
    monkeypatch.setattr(flash, "CONTACT_TIMEOUT", 3)
    t0 = time.monotonic()
    rc, out, err = _flash(capsys, silent_port, *extra)
    assert time.monotonic() - t0 < 20
    assert rc == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bawo: error: no MicroPython board answered"), (
        err
    )
    assert silent_port in lines[0] and ("while " + step) in lines[0]


def test_flash_mpy_refuses_a_format_the_board_cannot_load(repl_board, capsys, monkeypatch):
    port, root = repl_board
    # Refused before the board is touched: a port that does not exist is never reached.
    for ver, why in (
        ("1.22.0", ".mpy v6.2"),
        ("1.19.1", ".mpy v6.0"),
        ("2.0.0", "not known"),
        ("1.8", "cannot load"),
        ("banana", "like 1.28.0"),
    ):
        rc, out, err = _flash(capsys, "/dev/nonexistent-bawo", "--mpy", ver, "--dry-run")
        assert rc == 1 and why in err and len(err.strip().splitlines()) == 1, (ver, err)
    # A release whose format this mpy-cross writes: the dry run goes ahead, asking nothing.
    rc, out, err = _flash(capsys, port, "--mpy", "1.28.0", "--dry-run")
    assert rc == 0 and "would be copied" in out and "board runs" not in err, err
    # With an mpy-cross that writes v6.2 (MicroPython 1.22's), 1.28 is refused in turn.
    monkeypatch.setattr(
        flash, "mpy_cross_version", lambda exe: (6, 2, "mpy-cross emitting mpy v6.2")
    )
    rc, out, err = _flash(capsys, "/dev/nonexistent-bawo", "--mpy", "1.28.0", "--dry-run")
    assert rc == 1 and "writes .mpy v6.2" in err, err


def test_flash_dry_run_leaves_the_game_running(sim_board, capsys):
    """mpremote stops the firmware to reach the REPL; the dry run starts it again, and the
    game in progress goes on from its journal."""
    from bawo.ports import connect

    data, start, stop = sim_board
    start()
    ser, link, info = connect(None, str(data), timeout=2.0)
    st = link.new_game("bawo")
    for m in sim.random_moves("bawo", st["position"], 2, 3):
        link.move(m)
    before = link.position()
    ser.close()
    assert before["ply"] == 3 and before["mode"] == "play"
    rc = cli.main(["flash", "--sim", str(data), "--dry-run"])
    out, err = capsys.readouterr()
    assert rc == 0 and "would be copied" in out, err
    ser, link, info = connect(None, str(data), timeout=2.0)
    try:
        after = link.position()
    finally:
        ser.close()
    assert (after["id"], after["ply"], after["mode"], after["position"]) == (
        before["id"],
        3,
        "play",
        before["position"],
    )


@pytest.mark.parametrize(
    "profile, kept, left",
    [
        (
            "bawo-4x8",
            {"bawo.py", "bawo_viper.py", "oware.py", "oware_viper.py"},
            {"baghchal.py", "baghchal_viper.py"},
        ),
        (
            "grid-5x5",
            {"baghchal.py", "baghchal_viper.py"},
            {"bawo.py", "bawo_viper.py", "oware.py", "oware_viper.py"},
        ),
    ],
)
def test_bundle_holds_only_the_engines_the_profile_plays(profile, kept, left):
    # The firmware offers only the profile's games that fit its grid: another game's engine
    # would be flash the board never reads, and the referee's command line is the PC's.
    names = {
        os.path.basename(b) for b, _ in flash.sources(profile) if b.startswith("shared_rules/")
    }
    assert kept <= names and not (left & names), names
    assert "__main__.py" not in names and {"__init__.py", "state.py", "ai.py"} <= names


def _modules_named(path):
    # Every module a source names: its imports (absolute, relative within shared_rules, and
    # `from package import module`), and strings that name one (compat.run_part, unload).
    import ast

    tree = ast.parse(open(path, encoding="utf-8").read())
    pkg = "shared_rules" if os.path.basename(os.path.dirname(path)) == "shared_rules" else ""
    named = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            named.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = (pkg if node.level else "") + (
                "." + node.module if node.level and node.module else node.module or ""
            )
            base = base.strip(".")
            named.add(base)
            named.update(base + "." + a.name for a in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            named.add(node.value)
    return named


@pytest.mark.parametrize("profile", ["bawo-4x8", "grid-5x5"])
def test_what_the_bundle_leaves_out_of_shared_rules_no_file_in_it_imports(profile):
    # The records' reader and replay (record.py) is the host's sync: the board writes its
    # records with record_text.py and never reads one. Shipped, it was 2.7 KB of flash no
    # board reads. The engines of games the profile does not offer are named in GAMES and
    # loaded only for their game, which the menu never offers (the test above).
    bundle = flash.sources(profile)
    names = {os.path.basename(b) for b, _ in bundle if b.startswith("shared_rules/")}
    assert "record.py" not in names and "record_text.py" in names
    engines = {m.rsplit(".", 1)[1] + ".py" for m, _ in shared_rules_games().values()}
    engines |= {e[:-3] + "_viper.py" for e in engines}
    rules = flash.rules_dir()
    left = {f[:-3] for f in os.listdir(rules) if f.endswith(".py")} - {n[:-3] for n in names}
    left -= {e[:-3] for e in engines}
    assert left == {"__main__", "manifest", "record"}, left  # manifest.py: the freeze build's
    for board_path, src in bundle:
        if src.endswith(".py"):
            named = _modules_named(src)
            for m in left:
                assert "shared_rules." + m not in named, (board_path, m)


def shared_rules_games():
    import shared_rules

    return shared_rules.GAMES


def test_a_profile_the_firmware_refuses_leaves_no_engine_out(tmp_path):
    bad = tmp_path / "mine.json"
    bad.write_text('{"schema": 1, "games": "bawo"}')
    names = {
        os.path.basename(b) for b, _ in flash.sources(str(bad)) if b.startswith("shared_rules/")
    }
    assert {"bawo.py", "oware.py", "baghchal.py"} <= names


def test_flash_fails_when_another_board_answers_after_the_restart(sim_board, tmp_path):
    """A port name freed while the board restarts may be another board's by then (one run
    reported another emulator's board, rc 0): flash checks the board that answers is the
    one it started with (HELLO's board id), else fails loudly."""
    from bawo.ports import sim_port

    data, start, stop = sim_board
    start()
    other = tmp_path / "other"
    other.mkdir()
    p = subprocess.Popen(
        bawo_cmd() + ["sim", "--headless", "--data", str(other)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env_with_path(),
        start_new_session=True,
    )
    try:
        for line in p.stdout:
            if "running headless" in line:
                break
        first = flash.board_hello(sim_port(str(data)))
        second = flash.board_hello(sim_port(str(other)))
        assert first and second and first["board"] != second["board"]
        said = []
        with pytest.raises(flash.FlashError) as e:
            flash.restart_firmware(sim_port(str(other)), said.append, first)
        msg = str(e.value)
        assert "now answers as board %s, not %s" % (second["board"], first["board"]) in msg, msg
        assert not any("board answers" in s for s in said)
    finally:
        os.killpg(p.pid, signal.SIGTERM)
        p.wait(10)


def test_the_board_pages_update_leaves_the_simulated_board_running(sim_board, tmp_path):
    """The board page's "Update the firmware" against the simulator left it at its REPL: the
    page said "busy", then "no board connected". After the update the board runs again and
    the page's bridge talks to it (a sync goes through)."""
    import httpx
    from _serve_helpers import Server, wait_for

    data, start, stop = sim_board
    p, _ = start()
    srv = Server(str(tmp_path / "g.sqlite"), sim=str(data))
    h = {
        "Host": "127.0.0.1:%d" % srv.cfg.port,
        "X-Bawo-Token": srv.cfg.token,
        "Content-Type": "application/json",
    }

    def post(path, timeout=30):
        return httpx.post(srv.url.rstrip("/") + path, headers=h, json={}, timeout=timeout)

    try:
        wait_for(lambda: post("/api/sync").status_code == 200, 60, "the page's link to the board")
        r = post("/api/flash", timeout=900)
        assert r.status_code == 200 and r.json().get("ok"), r.text
        assert any("board answers" in line for line in r.json()["lines"]), r.json()
        wait_for(lambda: post("/api/sync").status_code == 200, 60, "the board after the update")
        assert p.poll() is None and (data / "app.mpy").exists()
    finally:
        srv.stop()
