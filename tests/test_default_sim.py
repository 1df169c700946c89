"""A new user's first hour: `bawo sim` with no --data runs in the default data dir, and the
host commands find it without --sim, as they find a USB board; `bawo demo` keeps its game in
the user's own game log. Each test has its own user data dir (XDG_DATA_HOME)."""

import os
import signal
import subprocess
import sys

import pytest

from _host_helpers import env_with_path, stop_sim


@pytest.fixture
def user_env(tmp_path):
    env = env_with_path()
    env["XDG_DATA_HOME"] = str(tmp_path / "share")
    for name in ("BAWO_SIM", "BAWO_PORT", "BAWO_DB"):
        env.pop(name, None)
    return env


def bawo(env, *args, timeout=300):
    return subprocess.run(
        [sys.executable, "-m", "bawo.cli"] + list(args),
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


def start_sim(env):
    p = subprocess.Popen(
        [sys.executable, "-m", "bawo.sim", "--headless"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines = []
    for line in p.stdout:
        lines.append(line)
        if "running headless" in line:
            return p
    raise AssertionError("the simulator did not start: %s" % "".join(lines))


def test_sync_watch_and_flash_find_the_simulator_in_its_default_dir(user_env, tmp_path):
    p = start_sim(user_env)
    try:
        db = str(tmp_path / "g.sqlite")
        r = bawo(user_env, "sync", "--db", db)
        assert r.returncode == 0, r.stderr
        assert r.stdout.startswith("sim-") and "0 new game(s)" in r.stdout, r.stdout
        r = bawo(user_env, "watch", "--db", db, "--no-draw", "--timeout", "1")
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
        r = bawo(user_env, "flash", "--dry-run")
        assert r.returncode == 0 and "would be copied" in r.stdout, r.stderr
        assert "board answers" in r.stderr and p.poll() is None, r.stderr  # still running
        # Which firmware runs, and which this tree's bundle would be (issue 25).
        assert (
            "the board runs Bawo Board 0.1.0 (run from the source tree, as the simulator does)"
            in r.stderr
        ), r.stderr
        assert (
            "this tree's bundle would be Bawo Board 0.1.0 (files copied by bawo flash, build "
            in r.stderr
        )
        r = bawo(user_env, "ports")
        assert r.returncode == 0 and "bawo sim (simulated board)" in r.stdout, r.stdout
        assert (
            "runs Bawo Board 0.1.0 (run from the source tree, as the simulator does)" in r.stdout
        ), r.stdout
        assert ", board sim-" in r.stdout, r.stdout  # the id a club's token is for
    finally:
        stop_sim(p)
    # Gone, it is not found any more: its pty is not opened by name.
    r = bawo(user_env, "sync", "--db", str(tmp_path / "g.sqlite"))
    assert r.returncode == 1 and "no board found" in r.stderr, r.stderr


def test_a_killed_simulators_port_file_is_not_followed(user_env, tmp_path):
    p = start_sim(user_env)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait(10)
    data = tmp_path / "share" / "bawo" / "sim"
    assert (data / "port").exists()  # left behind; its pty may be a terminal's by now
    r = bawo(user_env, "sync", "--db", str(tmp_path / "g.sqlite"))
    assert r.returncode == 1 and "no board found" in r.stderr, r.stderr


def test_demo_keeps_its_game_in_the_users_game_log(user_env):
    r = bawo(user_env, "demo", timeout=600)
    assert r.returncode == 0, r.stderr
    assert "your game log" in r.stdout, r.stdout
    gid = [ln.split()[0] for ln in r.stdout.splitlines() if ln.startswith("sim-")][0]
    listed = bawo(user_env, "games")
    assert listed.returncode == 0 and gid in listed.stdout, listed.stdout + listed.stderr
