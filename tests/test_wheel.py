"""A wheel built from the repository works as the editable install does: the firmware, the
rules and the hardware profiles travel as package data, found by bawo.firmware, not by the
repository's layout."""

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _repository_copy(dest):
    """The repository's files (tracked and new, as a checkout has them), without tests."""
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    for f in files:
        if f and not f.startswith("tests/") and (ROOT / f).is_file():
            (dest / f).parent.mkdir(parents=True, exist_ok=True)
            (dest / f).write_bytes((ROOT / f).read_bytes())


def test_wheel_installed_in_a_fresh_venv_plays_a_simulated_game(tmp_path):
    src, dist, venv, work = (tmp_path / n for n in ("src", "dist", "venv", "work"))
    work.mkdir()
    _repository_copy(src)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(src)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = dist.glob("bawo_board-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    # Every package and its templates travel: the club's pages, the command groups.
    for f in (
        "bawo/club/asgi.py",
        "bawo/club/templates/club.html",
        "bawo/club/static/club.js",
        "bawo/commands/club.py",
        "bawo/serve/templates/base.html",
    ):
        assert f in names, f
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    # Its dependencies (pyserial, the unix port, ...) from this venv: a path entry, whose own
    # .pth files (this venv's editable install of bawo) are not run.
    fresh_site = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(fresh_site, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = dict(
        os.environ,
        PATH=os.pathsep.join(
            [str(venv / "bin"), os.path.dirname(sys.executable), os.environ.get("PATH", "")]
        ),
    )
    env.pop("PYTHONPATH", None)

    def run(*argv):
        return subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=300)

    where = run(
        str(venv / "bin" / "python"),
        "-c",
        "from bawo import firmware, sim; import shared_rules\n"
        "print(firmware.firmware_dir()); print(firmware.sim_firmware_dir())\n"
        "print(firmware.profiles_dir()); print(firmware.rules_dir()); print(sim.__file__)\n"
        "from bawo import _pnsearch, solve; print(_pnsearch.__file__); assert solve.Solver().fast",
    )
    assert where.returncode == 0, where.stderr
    # The solver's C search is built into the wheel, as into the editable install.
    assert "_pnsearch" in where.stdout.split()[-1], where.stdout
    for d in where.stdout.split():
        assert Path(d).resolve().is_relative_to(venv.resolve()), where.stdout
    bawo = str(venv / "bin" / "bawo")
    helped = run(bawo, "--help")
    assert helped.returncode == 0 and "sim" in helped.stdout and "flash" in helped.stdout, (
        helped.stderr
    )
    game = run(
        bawo, "sim", "--game", "oware", "--random", "400", "--headless", "--data", str(work / "sim")
    )
    assert game.returncode == 0, game.stderr
    assert "result: " in game.stdout and " plies; record sim-" in game.stdout, game.stdout
    bundle = run(
        bawo, "flash", "--profile", "grid-5x5", "--no-compile", "--bundle-only", str(work / "b")
    )
    assert bundle.returncode == 0, bundle.stderr
    assert (work / "b" / "profile.json").read_bytes() == (
        ROOT / "hardware/profiles/grid-5x5.json"
    ).read_bytes()
    assert (work / "b" / "main.py").is_file() and not (work / "b" / "board_sim.py").exists()
