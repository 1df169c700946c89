"""The board as the page draws it: the LED frame the firmware would send (bawo.sim.draw.frame, the
firmware's renderer run on CPython), the sowing animation stepped by the firmware's own
animator (its simulator's pictures.sowing), and the pocket hit-areas and labels from the hardware profile and the game's
own layout (shared_rules: cell_at, label; through bawo.sim.layout). No layout or colour is
defined here."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from shared_rules import game as make_game

from .. import firmware, sim
from ..sim import draw
from ..sim import layout as sim_layout
from ..sim.leds import split

# The firmware App objects bawo.sim.draw keeps are shared state: one drawing at a time.
_lock = threading.Lock()
_layouts: dict[str, dict[str, Any]] = {}
MAX_ANIM_FRAMES = 400  # a longer sowing is shown sampled; the last frame is always exact


class _HostGC:
    """The firmware tidies the Pico's heap with gc.collect() at each game setup; in the server a
    full collection of all its objects takes tens of ms holding the GIL, and delays the live
    page: the firmware code drawing here gets a gc whose collect() does nothing."""

    def __getattr__(self, name: str) -> Any:
        import gc

        return getattr(gc, name)

    @staticmethod
    def collect() -> int:
        return 0


def _quiet_gc() -> None:
    for name in ("app",):  # the firmware modules that collect
        m = firmware.module(name)
        if not isinstance(m.gc, _HostGC):
            m.gc = _HostGC()


def layout(game_name: str) -> dict[str, Any]:
    """Geometry for the page: LED canvas size, each pocket's block, label and cell index."""
    lay = _layouts.get(game_name)
    if lay is not None:
        return lay
    prof_file = firmware.profile_path(sim.PROFILES[game_name])
    prof = json.loads(Path(prof_file).read_text())
    rows, cols = prof["grid"]["rows"], prof["grid"]["cols"]
    blk = prof["leds"]["block"]
    cells = prof.get("pockets") or prof.get("points")
    labels = sim_layout.labels(game_name, rows, cols)
    cell_of_key = {k: c for c, k in sim.key_of_cell(prof_file, game_name).items()}
    pockets = []
    for key, (r, c) in enumerate(cells):
        pockets.append(
            {
                "key": key,
                "cell": cell_of_key.get(key),
                "label": labels.get((r, c), ""),
                "r": r,
                "c": c,
                "x": blk["x0"] + c * blk["pitch_x"],
                "y": blk["y0"] + r * blk["pitch_y"],
                "w": blk["w"],
                "h": blk["h"],
            }
        )
    lay = {
        "game": game_name,
        "w": prof["leds"]["width"],
        "h": prof["leds"]["height"],
        "rows": rows,
        "cols": cols,
        "pockets": pockets,
        # Bawo and Oware: a gap between the two players' halves, as the terminal draws it.
        "split": rows // 2 if split(game_name) else None,
    }
    _layouts[game_name] = lay
    return lay


def counts(game_name: str, position_text: str) -> dict[int, str]:
    """{cell: text} shown next to each pocket: seeds (stores for Oware), pieces for Bagh-Chal."""
    return {
        cell: t for cell, t in sim_layout.cell_texts(game_name, position_text).items() if t != "."
    }


def _hex(app: Any) -> str:
    px = app.board.pixels
    px.show()
    return px.canvas_rgb().hex()


def picture(game_name: str, position_text: str) -> dict[str, Any]:
    """One still: the frame, the counts, whose turn; the position as text."""
    with _lock:
        _quiet_gc()
        line, _ = draw.frame(game_name, position_text)
    g = make_game(game_name)
    pos = g.parse(position_text)
    return {
        "frame": line.split(" ", 1)[1],
        "counts": counts(game_name, position_text),
        "turn": g.sides[pos.turn] if hasattr(g, "sides") else None,
        "position": position_text,
    }


def sowing(game_name: str, position_text: str, move_text: str) -> list[tuple[str, int]]:
    """The frames the board shows while it animates move_text from position_text, each with
    the wait (ms) the firmware gives it at its default speed: [(hex, ms), ...]."""
    out: list[tuple[str, int]] = []
    with _lock:
        # Loaded under the lock: a module half run by another thread lacks its names.
        pictures = firmware.module("pictures")
        _quiet_gc()
        draw.frame(game_name, position_text)  # the picture set up on the position, drawn
        a = draw.picture_for(game_name)
        for i, n, wait in pictures.sowing(a, move_text):
            step = max(1, (n + MAX_ANIM_FRAMES - 1) // MAX_ANIM_FRAMES)
            if wait > 0 and (i % step == 0 or i == n):
                a.draw()
                out.append((_hex(a), wait))
    return out
