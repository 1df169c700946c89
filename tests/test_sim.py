"""`bawo sim` scripted modes and the simulator's serial port (pty)."""
import os
import subprocess
import sys
import time

import pytest


def sim(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "bawo.sim", *args], capture_output=True,
                          text=True, timeout=timeout)


def test_demo_plays_a_whole_game(tmp_path):
    out = sim("--demo", "--seed", "3", "--data", str(tmp_path), "--quiet")
    assert out.returncode == 0, out.stderr
    assert "result: " in out.stdout and "wins" in out.stdout
    recs = [p for p in os.listdir(tmp_path) if p.endswith(".rec")]
    assert len(recs) == 1


def test_moves_golden_and_headless(tmp_path):
    out = sim("--moves", "A1+", "--data", str(tmp_path), "--headless", "--speed", "4")
    assert out.returncode == 0, out.stderr
    assert "2,2,2,2,2,2,2,2/2,0,0,2,2,2,0,0/3,1,0,4,4,4,1,5/3,3,0,3,3,0,3,3 N" in out.stdout


def test_script_file_and_other_games(tmp_path):
    script = tmp_path / "moves.txt"
    script.write_text("# a Bagh-Chal opening\n1. c3 a1-a2 2. b2\n")
    out = sim("--game", "bagh-chal", "--script", str(script), "--data", str(tmp_path / "b"))
    assert out.returncode == 0, out.stderr
    assert "Goats to move" in out.stdout or "ply 3" in out.stdout
    out = sim("--game", "oware", "--random", "30", "--seed", "2", "--data", str(tmp_path / "o"), "--quiet")
    assert out.returncode == 0, out.stderr


def test_illegal_scripted_move_is_an_error(tmp_path):
    out = sim("--moves", "A1+ A1+", "--data", str(tmp_path), "--headless")
    assert out.returncode == 1 and "did not take move A1+" in out.stderr


def test_interactive_exposes_a_pty_link(tmp_path):
    proto = pytest.importorskip("bawo.link")
    p = subprocess.Popen([sys.executable, "-m", "bawo.sim", "--data", str(tmp_path), "--headless"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while not (tmp_path / "port").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        path = (tmp_path / "port").read_text().strip()
        assert path.startswith("/dev/")
        import serial
        ser = serial.serial_for_url(path, timeout=0.05)
        link = proto.BoardLink(ser, timeout=2.0)
        info = link.hello()
        assert info["profile"] == "bawo-4x8" and "bawo" in info["games"]
        r = link.new_game("bawo")
        assert r["ply"] == 0
        r = link.move("A1+")
        assert r["position"] == "2,2,2,2,2,2,2,2/2,0,0,2,2,2,0,0/3,1,0,4,4,4,1,5/3,3,0,3,3,0,3,3 N"
        assert link.list_games() == [] or isinstance(link.list_games(), list)
        ser.close()
    finally:
        p.terminate()
        p.wait(timeout=10)


def test_ai_vs_ai_level5_whole_bawo_game_in_160k(tmp_path):
    # As deployed (.mpy), both sides the board's own AI at level 5, animated, in the Pico's
    # heap budget: the game reaches its end and the peak is printed (pytest -s shows it).
    out = sim("--ai-vs-ai", "--level", "5", "--game", "bawo", "--heap", "160k", "--mpy",
              "--data", str(tmp_path), "--quiet", "--headless", timeout=180)
    assert out.returncode == 0, out.stderr + out.stdout[-2000:]
    assert "result: " in out.stdout and "plies" in out.stdout, out.stdout
    heap = [x for x in out.stdout.splitlines() if x.startswith("heap: ")]
    ai = [x for x in out.stdout.splitlines() if x.startswith("board's AI: ")]
    assert heap and ai, out.stdout
    print(ai[0])
    print(heap[0])
    peak = int(heap[0].split("peak gc.mem_alloc ")[1].split()[0])
    assert peak < 160 * 1024


def test_opponent_board_with_random_person(tmp_path):
    out = sim("--opponent", "board-second", "--level", "2", "--random", "40", "--seed", "3",
              "--data", str(tmp_path), "--quiet", "--headless", "--speed", "8")
    assert out.returncode == 0, out.stderr
    assert "board's AI: " in out.stdout


def test_a_board_that_stops_is_one_line_from_bawo(tmp_path):
    # A heap far below the Pico's: the simulated board runs out of memory at boot.
    out = subprocess.run([sys.executable, "-m", "bawo.cli", "sim", "--random", "4", "--headless",
                          "--heap", "20k", "--data", str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    assert out.stderr.startswith("bawo: error: the simulated board stopped: MemoryError")
    assert "Traceback" not in out.stderr


def test_relay_never_blocks_the_board_under_20000_back_to_back_requests(tmp_path):
    # A tool writing requests faster than the board answers them: the relay used to block
    # writing into the board's full input pipe while the board blocked writing its answers
    # into the relay's full output pipe, for good (it stalled after about 60 answers).
    from bawo.sim import BoardProcess, PtyRelay
    from _link_helpers import P
    import serial
    import threading
    relay = PtyRelay()
    board = BoardProcess("bawo-4x8", str(tmp_path), fake=False, link=relay.board_ends())
    relay.start()
    board.drain()
    ser = serial.Serial(relay.path, timeout=0.1)
    try:
        n = 20000
        frames = b"".join(P.encode(1 + i, "HELLO") for i in range(n))
        threading.Thread(target=ser.write, args=(frames,), daemon=True).start()
        parser, got, last = P.Parser(), 0, time.monotonic()
        while got < n and time.monotonic() - last < 20:   # 20 s without an answer: stuck
            k = len([r for r in parser.feed(ser.read(65536)) if isinstance(r, P.Frame)])
            if k:
                got, last = got + k, time.monotonic()
        assert got == n and board.proc.poll() is None
    finally:
        ser.close()
        relay.stop = True
        board.kill()
