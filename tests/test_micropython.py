"""shared_rules under the real MicroPython unix port, and compiled by mpy-cross for the Pico."""

import subprocess
import sys

from conftest import ROOT, run_micropython, mpy_cross_all

MP_TESTS = ROOT / "tests" / "mp" / "test_rules_mp.py"


def test_rules_checks_pass_under_micropython():
    r = run_micropython([str(MP_TESTS)], path=(ROOT,))
    assert r.returncode == 0, r.stdout + r.stderr
    n = sum(1 for line in MP_TESTS.read_text().splitlines() if line.startswith("def test_"))
    assert ("%d passed, 0 failed" % n) in r.stdout


def test_rules_checks_pass_under_cpython():
    r = subprocess.run(
        [sys.executable, str(MP_TESTS)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT)},
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_mpy_cross_compiles_every_shared_rules_file(tmp_path):
    files = sorted((ROOT / "shared_rules").glob("*.py"))
    assert len(files) >= 8
    assert mpy_cross_all(files, tmp_path) == []


def test_no_cpython_only_features_in_shared_rules():
    for f in (ROOT / "shared_rules").glob("*.py"):
        text = f.read_text()
        for bad in (
            "import enum",
            "import dataclasses",
            "from dataclasses",
            "from typing",
            "import typing",
            "from enum",
        ):
            assert bad not in text, "%s uses %s (not on MicroPython)" % (f.name, bad)
