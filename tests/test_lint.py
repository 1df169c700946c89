"""ruff's lint passes on the project's Python: the host tools, the benchmarks and the tests, and,
with a MicroPython-safe rule set (pyproject.toml, [tool.ruff]), the firmware and the rules."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

from conftest import ROOT

PATHS = ["host", "bench", "tests", "firmware", "shared_rules"]
FORMATTED = ["host", "bench", "tests"]


def ruff():
    # The venv's ruff (the test extra), else one on PATH.
    exe = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if exe is None:
        pytest.fail("ruff is not installed: python3 -m pip install -e '.[test]'")
    return exe


def test_ruff_check_passes():
    r = subprocess.run(
        [ruff(), "check", "--no-cache", "--output-format", "concise", *PATHS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_format_keeps_the_host_side_formatted():
    # The host's side only: the MicroPython side keeps its hand layout (pyproject.toml).
    r = subprocess.run(
        [ruff(), "format", "--check", "--no-cache", *FORMATTED],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, "run `ruff format %s`:\n%s%s" % (
        " ".join(FORMATTED),
        r.stdout,
        r.stderr,
    )


def test_ruff_covers_every_part_with_rules_micropython_can_run():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    ruff_cfg = cfg["tool"]["ruff"]
    lint = ruff_cfg["lint"]
    for part in PATHS:
        assert "%s/**/*.py" % part in ruff_cfg["include"], part
    # pyflakes on every part; nothing that rewrites code to f-strings or type hints (UP, FA),
    # nor a formatter's style, which MicroPython's side would not keep.
    assert "F" in lint["select"]
    assert not {"UP", "FA", "ANN", "ALL"} & set(lint["select"])
    # The firmware and the rules turn off only the host's extra family, never pyflakes.
    for part in ("firmware/**", "shared_rules/**"):
        assert lint["per-file-ignores"][part] == ["B"]
    # Each file-wide exception is one file or one family of tests, not a directory.
    for pattern, codes in lint["per-file-ignores"].items():
        if pattern in ("firmware/**", "shared_rules/**"):
            continue
        assert pattern.endswith(".py") and "F" not in codes, (pattern, codes)


def test_ruff_sees_the_micropython_side():
    # The include list is live: an unused import in the firmware would fail the check.
    probe = ROOT / "firmware" / "_ruff_probe.py"
    r = subprocess.run(
        [ruff(), "check", "--no-cache", "--stdin-filename", str(probe), "-"],
        cwd=ROOT,
        input="import os\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 1 and "F401" in r.stdout, r.stdout + r.stderr
