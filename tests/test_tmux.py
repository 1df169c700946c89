"""The terminal commands in a real terminal (tmux): `bawo sim`, `bawo sim --pico`, `bawo show`.
Each test starts the command in its own tmux server (its own socket in a temp dir), types
keys with send-keys and reads the screen with capture-pane, waiting for what it expects."""

import shutil
import subprocess
import sys
import time

import pytest

from _host_helpers import env_with_path


class Tmux:
    """One command in a detached tmux session of a private server."""

    def __init__(self, tmp_path, argv, cols=110, rows=40, env=None, after="true"):
        if not shutil.which("tmux"):  # never skipped: the terminal is what is tested
            raise RuntimeError("tmux is missing: bash tools/install-system-deps.sh installs it")
        self.sock = str(tmp_path / "tmux.sock")
        e = env_with_path()
        e.update(env or {})
        e.pop("TMUX", None)
        self.env = e
        # Once the command ends, `after`, then its rc: a screen that shows the rc shows all
        # of `after` too (the other way round, a loaded machine read the rc before it).
        # The pane stays, to be read.
        script = tmp_path / ("run%d.sh" % len(list(tmp_path.glob("run*.sh"))))
        # A Ctrl-C is the command's: the shell traps it (a trap, not an ignore, which the
        # command would inherit) and goes on to print the rc.
        script.write_text(
            "trap true INT\n%s\nrc=$?\n%s\necho rc=$rc\nexec sleep 3600\n"
            % (" ".join(_quote(a) for a in argv), after)
        )
        self._tmux(
            "new-session",
            "-d",
            "-x",
            str(cols),
            "-y",
            str(rows),
            "-s",
            "t",
            "sh " + _quote(str(script)),
        )

    def _tmux(self, *args):
        return subprocess.run(
            ["tmux", "-S", self.sock] + list(args),
            capture_output=True,
            text=True,
            env=self.env,
            timeout=30,
        )

    def screen(self, colours=False):
        """The pane's text; colours: with its colours' escape sequences (capture-pane -e)."""
        return self._tmux("capture-pane", "-p", "-t", "t", *(["-e"] if colours else [])).stdout

    def wait_for(self, words, timeout=60, gone=None):
        """The screen once it shows `words` (and no longer shows `gone`)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            s = self.screen()
            if words in s and (gone is None or gone not in s):
                return s
            if "rc=" in s and "rc=" not in words:
                break  # the command ended without showing it
            time.sleep(0.1)
        raise AssertionError(
            "%r not shown within %d s; the screen:\n%s" % (words, timeout, self.screen())
        )

    def keys(self, *keys):
        self._tmux("send-keys", "-t", "t", *keys)

    def close(self):
        self._tmux("kill-server")


def _quote(a):
    import shlex

    return shlex.quote(a)


def bawo(*args):
    return [sys.executable, "-m", "bawo.cli"] + list(args)


@pytest.fixture
def tmux(tmp_path):
    made = []

    def start(argv, **kw):
        t = Tmux(tmp_path, argv, **kw)
        made.append(t)
        return t

    yield start
    for t in made:
        t.close()


def test_bawo_sim_in_a_terminal_plays_a_pocket_and_quits(tmux, tmp_path):
    t = tmux(bawo("sim", "--data", str(tmp_path / "d"), "--game", "bawo"), env={"NO_COLOR": "1"})
    t.wait_for("menu:")
    t.keys("m")  # MENU starts the game the menu shows
    t.wait_for("South to move, ply 0")
    t.keys("a")
    t.keys("s")  # A1 then A2: the move A1+
    t.wait_for("North to move, ply 1")
    t.keys("Q")
    t.wait_for("quit?")
    t.keys("y")
    t.wait_for("rc=0")


def test_bawo_sim_pico_in_a_terminal_plays_a_pocket_and_quits(tmux, tmp_path):
    """It used to die at once: AttributeError: 'function' object has no attribute '_geometry'
    (sim/__init__.py's re-exported render() shadowed the module sim/render.py, now sim/leds.py). In colour:
    the LEDs' changes show in the pane's colours."""
    t = tmux(bawo("sim", "--pico", "--data", str(tmp_path / "d")))
    first = t.wait_for("emulated Pico (rp2 image", timeout=600)
    assert "Traceback" not in first and "Error" not in first, first

    def changes(key):
        before = t.screen(colours=True)
        t.keys(key)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if t.screen(colours=True) != before:
                return
            time.sleep(0.2)
        raise AssertionError("the LEDs did not change after %r:\n%s" % (key, t.screen()))

    changes("m")  # MENU: the game starts
    changes("a")  # South's A1: picked
    t.keys("Q")
    t.wait_for("rc=0", timeout=60)


def _logged_game(tmp_path):
    """A game log holding one short Bawo game; its id."""
    from _host_helpers import random_record
    from bawo.db import Log

    db = str(tmp_path / "g.sqlite")
    rec = random_record(5, "sim-test-0001", "bawo", max_plies=6)
    log = Log(db)
    try:
        log.add(rec, "test", check=rec.replay)
    finally:
        log.close()
    return db, "sim-test-0001"


def test_bawo_show_takes_single_keys_in_a_terminal(tmux, tmp_path):
    """`bawo show` asked "Enter: next, b: back, q: quit" but read whole lines: a key did
    nothing until Enter. Each key acts at once now."""
    db, gid = _logged_game(tmp_path)
    t = tmux(bawo("show", gid, "--db", db, "--numbers"))
    t.wait_for("-- start;")
    t.keys("n")
    t.wait_for("-- ply 1/")
    t.keys(" ")
    t.wait_for("-- ply 2/")
    t.keys("b")
    t.wait_for("back to ply 1:")
    t.keys("q")
    t.wait_for("rc=0")


def test_bawo_show_leaves_the_terminal_as_it_found_it_after_ctrl_c(tmux, tmp_path):
    db, gid = _logged_game(tmp_path)
    t = tmux(
        bawo("show", gid, "--db", db, "--numbers"),
        after="stty -a | tr ' ' '\\n' | grep -x -e -icanon -e icanon -e echo -e -echo | tr '\\n' ' '",
    )
    t.wait_for("-- start;")
    t.keys("C-c")
    s = t.wait_for("rc=130")
    tail = s[s.index("bawo: interrupted") : s.index("rc=130")].split()  # what `after` printed
    assert "icanon" in tail and "echo" in tail and "-icanon" not in tail, s


def _hello(data):
    from bawo.ports import connect

    ser, link, info = connect(None, str(data), timeout=2.0)
    try:
        return info, link.position()
    finally:
        ser.close()


def _flash(*args):
    return subprocess.run(
        bawo("flash", *args), capture_output=True, text=True, timeout=600, env=env_with_path()
    )


def test_flash_dry_run_leaves_an_interactive_sim_running(tmux, tmp_path):
    """`bawo flash --dry-run --sim D` stopped an interactive `bawo sim`: its REPL's soft reboot
    (the dry run's Ctrl-D) ended the simulator, and flash waited 47 s for it. The simulator
    reboots into its firmware now, the game in progress goes on, and flash says so."""
    data = tmp_path / "d"
    t = tmux(bawo("sim", "--data", str(data), "--game", "bawo"), env={"NO_COLOR": "1"})
    t.wait_for("menu:")
    t.keys("m")
    t.wait_for("South to move, ply 0")
    t.keys("a")
    t.keys("s")
    t.wait_for("North to move, ply 1")
    info, before = _hello(data)
    r = _flash("--sim", str(data), "--dry-run")
    assert r.returncode == 0 and "would be copied" in r.stdout, r.stderr
    assert "board answers" in r.stderr, r.stderr
    t.wait_for("North to move, ply 1")  # drawn again after the reboot
    again, after = _hello(data)
    assert again["board"] == info["board"]
    assert (after["id"], after["ply"], after["position"]) == (before["id"], 1, before["position"])
    assert "rc=" not in t.screen()
    t.keys("Q")
    t.wait_for("quit?")
    t.keys("y")
    t.wait_for("rc=0")


def test_flash_into_an_interactive_sim_runs_the_new_firmware(tmux, tmp_path):
    """The board page's "Update the firmware" left the simulator at its REPL ("busy", then
    "no board connected"): after an install the simulated board runs again."""
    data = tmp_path / "d"
    t = tmux(bawo("sim", "--data", str(data), "--game", "bawo"), env={"NO_COLOR": "1"})
    t.wait_for("menu:")
    info, _ = _hello(data)
    r = _flash("--sim", str(data))
    assert r.returncode == 0 and "verified on the board" in r.stderr, r.stderr
    assert (data / "app.mpy").exists()
    t.wait_for("menu:")
    again, pos = _hello(data)
    assert again["board"] == info["board"] and pos["mode"] == "menu"
    assert "rc=" not in t.screen()
    t.keys("Q")
    t.wait_for("rc=0")
