"""`bawo build-uf2` and what `bawo flash --uf2` accepts, on the PC (issue 25). The image on an
emulated Pico: tests/test_pico.py."""

import json
import subprocess
import sys
from pathlib import Path

from bawo import flash, uf2
from bawo.pico import HERE as PICO_DIR

ROOT = Path(__file__).resolve().parent.parent
CIRCUITPYTHON = PICO_DIR / "images" / "circuitpython-10.2.1-raspberry_pi_pico.uf2"


def bawo(*args, timeout=900):
    return subprocess.run(
        [sys.executable, "-m", "bawo.cli", *args],
        capture_output=True,
        text=True,
        cwd=str(ROOT),
        timeout=timeout,
    )


def test_build_uf2_writes_the_image_of_this_tree(tmp_path):
    # Built here or taken from the cache (a lock keeps test workers to one build).
    r = bawo("build-uf2", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    out = tmp_path / uf2.image_name()
    path, hashed = r.stdout.split()[0], r.stdout.split("firmware sources ")[1].rstrip(")\n")
    assert Path(path) == out and out.stat().st_size > 600 * 1024
    assert hashed == flash.source_hash("bawo-4x8", every_game=True)
    assert uf2.build("bawo-4x8").read_bytes() == out.read_bytes()


def test_the_frozen_tree_holds_every_game_the_book_and_the_profile():
    tree = uf2.frozen_tree("bawo-4x8")
    rules = {p for p in tree if p.startswith("shared_rules/")}
    # Every engine, whatever the profile plays: a profile.json may choose the 5x5 build.
    assert {"shared_rules/bawo.py", "shared_rules/oware.py", "shared_rules/baghchal.py"} <= rules
    assert "shared_rules/record.py" not in rules  # the host's reader: never on the board
    profile = tree["default_profile.py"].decode()
    assert json.loads(eval(profile.split("JSON = ", 1)[1]))["name"] == "bawo-4x8"
    assert (
        eval(tree["book_data.py"].split(b"DATA = ", 1)[1]) == Path(flash.book_path()).read_bytes()
    )
    info = tree["buildinfo.py"].decode()
    assert "KIND = 'uf2'" in info and "SOURCE = %r" % flash.source_hash("bawo-4x8", True) in info
    assert "main.py" in tree and not [p for p in tree if not p.endswith(".py")]


def test_an_unknown_profile_fails_before_any_build(tmp_path):
    r = bawo("build-uf2", "--profile", "nosuch", "--out", str(tmp_path))
    assert r.returncode != 0 and "no hardware profile 'nosuch'" in r.stderr, r.stderr
    assert not list(tmp_path.iterdir())


def _no_board(*args):
    # A port that does not exist: a refusal must come before any board is looked for.
    return bawo("flash", "--uf2", *args, "--port", "/nonexistent/ttyACM9", timeout=120)


def test_flash_uf2_refuses_an_image_that_would_erase_the_games(tmp_path):
    """CircuitPython's image writes up to 0x100DDA00: past 640 KB, where MicroPython keeps the
    board's filesystem. Refused before the board is touched."""
    r = _no_board(str(CIRCUITPYTHON))
    assert r.returncode != 0
    assert "at or past 640 KB of flash, where the board keeps its games" in r.stderr, r.stderr
    assert "does not exist" not in r.stderr


def test_flash_uf2_refuses_what_is_not_a_whole_rp2040_image(tmp_path):
    good = uf2.build("bawo-4x8").read_bytes()
    cut = tmp_path / "cut.uf2"
    cut.write_bytes(good[:-100])
    other = bytearray(good)
    other[512 * 3 + 28 : 512 * 3 + 32] = (0x68ED2B88).to_bytes(4, "little")  # the RP2350's
    (tmp_path / "other.uf2").write_bytes(bytes(other))
    (tmp_path / "text.uf2").write_text("not an image\n" * 100)
    cases = {
        "cut.uf2": "is not a UF2 image",
        "other.uf2": "block 3 names another chip family",
        "text.uf2": "is not a UF2 image",
        "missing.uf2": "cannot read",
    }
    for name, words in cases.items():
        r = _no_board(str(tmp_path / name))
        assert r.returncode != 0 and words in r.stderr, (name, r.stderr)
        assert "Traceback" not in r.stderr


def _elf(segments):
    """A minimal 32-bit little-endian ELF with these (type, paddr, data) program headers."""
    import struct

    head = bytearray(52)
    head[:6] = b"\x7fELF\x01\x01"
    phoff = 52
    body = bytearray()
    table = bytearray()
    offset = phoff + 32 * len(segments)
    for typ, paddr, data in segments:
        table += struct.pack(
            "<8I", typ, offset + len(body), paddr, paddr, len(data), len(data), 5, 4
        )
        body += data
    struct.pack_into("<I", head, 0x1C, phoff)
    struct.pack_into("<HH", head, 0x2A, 32, len(segments))
    return bytes(head + table + body)


def test_elf_to_uf2_writes_each_flash_page_a_segment_touches():
    # The build's UF2 was compared once with picotool 2.2.0's `uf2 convert` of the same ELF:
    # byte for byte the same (the closing note of issue 25). Here, what it must do.
    from bawo.pico import uf2_blocks

    a = bytes(range(256)) * 2 + b"\x01\x02\x03"  # 515 bytes from the flash's start
    b = b"\xaa" * 10  # 10 bytes in the middle of a page
    ram = b"\x55" * 64  # loaded to RAM, not from flash: left out
    img = uf2.elf_to_uf2(
        _elf(
            [(1, 0x10000000, a), (1, 0x10000F05, b), (1, 0x20000000, ram), (4, 0x10002000, b"note")]
        )
    )
    blocks = list(uf2_blocks(img))
    assert [off for off, _ in blocks] == [0, 0x100, 0x200, 0xF00]
    assert blocks[0][1] + blocks[1][1] == a[:512]
    assert blocks[2][1] == a[512:] + bytes(253)
    assert blocks[3][1] == bytes(5) + b + bytes(241)
    assert all(
        len(img[i : i + 512]) == 512 and img[i + 28 : i + 32] == (0xE48BFF56).to_bytes(4, "little")
        for i in range(0, len(img), 512)
    )
