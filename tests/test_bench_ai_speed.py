"""bench/ai_speed.py runs: it compiles shared_rules for the unix port, the viper kernels
included, and measures both runtimes. It failed unseen for two stops once Bawo's kernel came
(mpy-cross without -march refuses viper code), so its few seconds are part of the test run."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ai_speed_bench_runs_on_both_runtimes():
    r = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "ai_speed.py")],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=str(ROOT),
    )
    assert r.returncode == 0, r.stderr[-2000:]
    rows = [line for line in r.stdout.splitlines() if line.startswith("| ")]
    for name in ("bawo", "oware", "bagh-chal"):
        speed = [line for line in rows if line.startswith("| %s | " % name) and "nodes" not in line]
        assert speed, r.stdout
    # Both heap tables: the source and the mpy-cross build (the kernels compiled for the port).
    assert any(line.startswith("| mpy-cross .mpy | oware |") for line in rows), r.stdout
