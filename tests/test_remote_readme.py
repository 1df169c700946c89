"""The README's "Play a friend far away", command by command: a club (`bawo club serve`), two
simulated boards, a token and a join for each, `bawo club play` to challenge and to accept.
The two `bawo sim` terminals are the test's own simulated boards (the same firmware on the
unix port, a pty each, their port file where `--sim DIR` looks): a test cannot press keys in
a terminal, so it presses the boards' buttons itself."""

import os
import re
import shlex
import socket
import subprocess
import time
import urllib.request

from conftest import ROOT
from _host_helpers import bawo_cmd
from _remote_helpers import Pc


def _section():
    text = (ROOT / "README.md").read_text()
    part = text.split("## Play a friend far away", 1)[1].split("\n## ", 1)[0]
    block = part.split("```sh", 1)[1].split("```", 1)[0]
    cmds = []
    for line in block.strip().splitlines():
        for cmd in line.split("#", 1)[0].split(";"):
            if cmd.strip():
                cmds.append(shlex.split(cmd))
    return part, cmds


def _port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def test_the_readme_says_how_to_play_a_friend_far_away():
    part, cmds = _section()
    words = [" ".join(c[:3]) for c in cmds]
    assert words == [
        "bawo club serve",
        "bawo sim --data",
        "bawo sim --data",
        "bawo club token",
        "bawo club token",
        "bawo club join",
        "bawo club play",
        "bawo club play",
    ], words
    assert "MENU held 2 s resigns" in part and "BACK held 2 s offers" in part
    assert "`!` and `=`" in part and "--game 1" in part


def test_two_boards_play_through_the_readmes_commands(tmp_path):
    part, cmds = _section()
    ana_id, ben_id = cmds[3][-1], cmds[4][-1]  # the ids the README names
    port = _port()
    url = "http://127.0.0.1:%d/" % port
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "pc"))  # the PC's data dir: its club too
    for name in ("BAWO_DB", "BAWO_CLUB_DB", "BAWO_PORT", "BAWO_SIM"):
        env.pop(name, None)

    def bawo(*args):
        r = subprocess.run(
            bawo_cmd() + list(args), capture_output=True, text=True, env=env, timeout=120
        )
        assert r.returncode == 0 and "Traceback" not in r.stderr, (args, r.stdout, r.stderr)
        return r

    club = subprocess.Popen(
        bawo_cmd() + ["club", "serve", "--http-port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    boards, players = [], []
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(url, timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        for name, bid, seed in (("ana", ana_id, 18), ("ben", ben_id, 19)):
            pc = Pc(tmp_path, name, bid, port, seed)
            boards.append(pc)
            with open(os.path.join(pc.data, "port"), "w") as f:  # as `bawo sim` does
                f.write(pc.relay.path + "\n")
        for pc in boards:
            tok = bawo("club", "token", pc.board_id).stdout.strip()
            assert tok.startswith("bawo_"), tok
            r = bawo("club", "join", url, "--token", tok)
            assert pc.board_id in r.stdout, r.stdout
        ana, ben = boards
        play = bawo_cmd() + ["club", "play", "--sim", ana.data, "bawo", "--opponent", ben.board_id]
        players.append(
            subprocess.Popen(
                play, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
            )
        )
        first = players[0].stdout.readline()
        m = re.match(r"game (\d+): waiting for %s to accept" % ben.board_id, first)
        assert m, first
        game = m.group(1)
        assert cmds[-1][-1] == "1" and game == "1"  # the README's game number
        players.append(
            subprocess.Popen(
                bawo_cmd() + ["club", "play", "--sim", ben.data, "--accept", game],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
        )
        # Both people press their moves; after four plies Ben resigns on his board's keys.
        t0 = time.monotonic()
        resigned = None
        while any(p.poll() is None for p in players) and time.monotonic() - t0 < 180:
            for pc in boards:
                pc.read()
                pc.person()
            now = time.monotonic()
            if ben.status.get("ply", 0) >= 4 and (
                resigned is None or (now - resigned > 6 and ben.status.get("offered") != "resign")
            ):
                ben.board.resign()
                resigned = now
            time.sleep(0.05)
        outs = []
        for p in players:
            try:
                outs.append(p.communicate(timeout=30)[0])
            except subprocess.TimeoutExpired:
                p.kill()
                outs.append("(still running, killed)\n" + p.communicate()[0])
        for p, out in zip(players, outs):
            assert p.returncode == 0, outs
            assert "game over: S wins (resign)" in out, out
        assert "you resign" in outs[1] and "North" in outs[0], outs
        page = urllib.request.urlopen(url + "remote", timeout=10).read().decode()
        assert ana.board_id in page and ben.board_id in page
    finally:
        for p in players:
            if p.poll() is None:
                p.kill()
        club.terminate()
        club.wait(10)
        for pc in boards:
            pc.close()
