"""Each game's layout on a board exists once, in its engine (shared_rules: cell_at, label,
owner, move_cell, stores): the firmware's view, the simulator, the terminal drawing and the
web page read it there. Changed there, every one of them follows."""

from pathlib import Path


from shared_rules.oware import Oware

from bawo import firmware, sim
from bawo.serve import boardview as serve_board
from bawo.sim import draw, layout

POS = "1,2,3,4,5,6/7,0,0,0,0,2 S:9 N:9 N"  # North to move: South's pits are not tinted
POS_AF = "1,2,3,4,5,6/2,0,0,0,0,7 S:9 N:9 N"  # the same with South's A and F exchanged


def _fresh(monkeypatch):
    # The caches of what was laid out before.
    monkeypatch.setattr(draw, "_pictures", {})
    monkeypatch.setattr(layout, "_rows", {})
    monkeypatch.setattr(serve_board, "_layouts", {})


def test_every_view_takes_the_layout_from_the_engine(monkeypatch):
    prof = firmware.profile_path(sim.PROFILES["oware"])
    _fresh(monkeypatch)
    keys = sim.key_of_cell(prof, "oware")
    frame_af = draw.frame("oware", POS_AF)[0]
    numbers_af = draw.numbers("oware", POS_AF)
    a_at, f_at = keys[0], keys[5]

    # The engine's layout changed: South's pits A and F exchange places, A is labelled X.
    real_cell_at, real_label = Oware.cell_at, Oware.label
    monkeypatch.setattr(
        Oware,
        "cell_at",
        lambda self, rows, cols, r, c: {0: 5, 5: 0}.get(
            real_cell_at(self, rows, cols, r, c), real_cell_at(self, rows, cols, r, c)
        ),
    )
    monkeypatch.setattr(
        Oware, "label", lambda self, cell: "X" if cell == 0 else real_label(self, cell)
    )
    _fresh(monkeypatch)

    # the simulator's keys and scripted presses
    moved = sim.key_of_cell(prof, "oware")
    assert (moved[0], moved[5]) == (f_at, a_at)
    assert sim.presses_for("oware", "4,4,4,4,4,4/4,4,4,4,4,4 S:0 N:0 S", "A", moved) == [f_at]
    # the firmware (its renderer on CPython, as `bawo show --leds` runs it): its keys and LEDs
    frame = draw.frame("oware", POS)[0]
    app = draw.picture_for("oware")
    assert (app.scene.cell_of_key[a_at], app.scene.cell_of_key[f_at]) == (5, 0)
    assert frame == frame_af
    # the terminal: the grid of numbers and the LED drawing's labels
    assert draw.numbers("oware", POS) == numbers_af.replace("A  B  C  D  E  F", "F  B  C  D  E  X")
    from bawo.sim.leds import render

    lines = render(frame, prof, {"game": "oware", "mode": "play"}, keys=False).split("\n")
    assert ["F", "B", "C", "D", "E", "X", "S"] in [line.split() for line in lines]
    # the web page's hit areas
    pockets = {p["key"]: p for p in serve_board.layout("oware")["pockets"]}
    assert (pockets[a_at]["cell"], pockets[a_at]["label"]) == (5, "F")
    assert (pockets[f_at]["cell"], pockets[f_at]["label"]) == (0, "X")


def test_the_board_empties_only_the_pits_the_engine_sweeps():
    # The third repetition ends the game and each side takes its own row: South's seed
    # reaches South's store while North's seed still shows, then North's goes to North's.
    # (The board used to infer the sweep from a seed total over 48 and emptied both rows
    # at South's store.)
    draw.frame("oware", "0,0,0,0,0,1/1,0,0,0,0,0 S:24 N:22 S")
    a = draw.picture_for("oware")
    for _ in range(23):
        a.s.push(a.s.legal_moves[0])
    seen = [
        bytes(a.scene.shown[:14]) for _ in firmware.module("pictures").sowing(a, a.s.legal_moves[0])
    ]
    assert a.s.outcome().reason == "threefold repetition"
    assert any(s[12] == 25 and sum(s[:6]) == 0 and sum(s[6:12]) == 1 for s in seen), seen
    assert seen[-1] == bytes(12) + bytes((25, 23))


def test_no_firmware_module_imports_itself_back():
    # handler.py read app.py's constants while app.py imported handler.py, and journal.py and
    # archive.py loaded each other (lazily). Every import counts, at the top or inside a
    # function; a cycle through any number of modules fails.
    import ast
    from conftest import FIRMWARE, FIRMWARE_SIM

    graph = {}
    for folder in (FIRMWARE, FIRMWARE_SIM):
        for f in folder.glob("*.py"):
            names = set()
            for node in ast.walk(ast.parse(f.read_text())):
                if isinstance(node, ast.Import):
                    names.update(a.name.split(".")[0] for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names.add(node.module.split(".")[0])
            graph[f.stem] = names & {p.stem for p in FIRMWARE.glob("*.py")} | (
                names & {p.stem for p in FIRMWARE_SIM.glob("*.py")}
            )
    assert {"app", "journal", "archive", "handler", "session", "menu"} <= set(graph)

    def cycle_from(start, path):
        for dep in sorted(graph.get(path[-1], ())):
            if dep == start:
                return path + [dep]
            if dep not in path:
                found = cycle_from(start, path + [dep])
                if found:
                    return found
        return None

    for name in sorted(graph):
        found = cycle_from(name, [name])
        assert found is None, " -> ".join(found)


def test_only_the_entry_points_import_the_command_line():
    # cli.py parses arguments and calls the commands' functions with keywords; a command that
    # imported cli back (serve's run(args), analyse's cmd_analyse) read its Namespace and
    # helpers from there. Only `python -m` entry points may import it.
    import re

    host = Path(__file__).resolve().parent.parent / "host" / "bawo"
    pattern = re.compile(
        r"^\s*(from\s+(\.+|bawo\.?)\s*cli\b|from\s+(\.+|bawo)\s+import\s+cli\b|import\s+bawo\.cli\b)",
        re.M,
    )
    found = sorted(
        str(p.relative_to(host))
        for p in host.rglob("*.py")
        if p.name not in ("cli.py", "__main__.py") and pattern.search(p.read_text())
    )
    assert found == [], found


def test_no_firmware_module_reads_another_modules_private_names():
    # The App was taken apart by the modules it loaded for a moment (start.py alone touched
    # 35 of its attributes, private ones among them). Now each part is handed what it needs:
    # a name with a leading underscore is read only through `self` (or `cls`) in its module.
    import ast
    from conftest import FIRMWARE, FIRMWARE_SIM

    found = []
    for folder in (FIRMWARE, FIRMWARE_SIM):
        for f in sorted(folder.glob("*.py")):
            for node in ast.walk(ast.parse(f.read_text())):
                if (
                    isinstance(node, ast.Attribute)
                    and node.attr.startswith("_")
                    and not node.attr.startswith("__")
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
                ):
                    found.append("%s:%d %s" % (f.name, node.lineno, ast.unparse(node)))
                elif isinstance(node, ast.ImportFrom):
                    found += [
                        "%s:%d from %s import %s" % (f.name, node.lineno, node.module, a.name)
                        for a in node.names
                        if a.name.startswith("_") and not a.name.startswith("__")
                    ]
    assert not found, found
