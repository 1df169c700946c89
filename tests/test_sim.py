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
