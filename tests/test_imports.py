"""The terminal board's modules (bawo.draw, bawo.sim, bawo.pico.terminal) import one way:
model (sim.board, sim.layout, sim.relay, sim.script) -> render (sim.render, draw) -> the runs
(sim.main, sim.terminal, pico.terminal). A circle there once made `from ..sim import render`
give a function instead of the module, and `bawo sim --pico` died at start."""
import ast
from pathlib import Path

HOST = Path(__file__).resolve().parents[1] / "host"
FILES = ["bawo/draw.py", "bawo/pico/terminal.py"] + sorted(
    str(p.relative_to(HOST)) for p in (HOST / "bawo" / "sim").glob("*.py"))


def _module(rel):
    parts = rel[:-3].split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package(rel):
    mod = _module(rel)
    return mod if rel.endswith("__init__.py") else mod.rsplit(".", 1)[0]


def _exists(mod):
    base = HOST.joinpath(*mod.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def imports(rel):
    """[(module imported, names taken from it)] of a file, at any depth (functions too)."""
    tree = ast.parse((HOST / rel).read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = _package(rel).split(".")
                pkg = pkg[:len(pkg) - node.level + 1]
                base = ".".join(pkg + ([base] if base else []))
            names = [a.name for a in node.names]
            # `from pkg import mod` takes a module: an edge to that module.
            subs = [n for n in names if _exists(base + "." + n)]
            out += [(base + "." + n, []) for n in subs]
            rest = [n for n in names if n not in subs]
            if rest or not subs:
                out.append((base, rest))
    return out


def graph():
    mods = {_module(f): f for f in FILES}
    return {m: {i for i, _ in imports(f) if i in mods and i != m} for m, f in mods.items()}


def test_no_import_circle_among_the_terminal_boards_modules():
    g = graph()
    seen, stack, circles = set(), [], []

    def visit(m):
        if m in stack:
            circles.append(stack[stack.index(m):] + [m])
            return
        if m in seen:
            return
        seen.add(m)
        stack.append(m)
        for n in sorted(g[m]):
            visit(n)
        stack.pop()
    for m in sorted(g):
        visit(m)
    assert not circles, circles
    # The package itself imports only the model: the modules that draw and run build on it.
    assert g["bawo.sim"] <= {"bawo.sim.board", "bawo.sim.layout", "bawo.sim.relay",
                             "bawo.sim.script"}, g["bawo.sim"]


def test_no_private_name_is_imported_across_these_modules():
    bad = [(f, mod, n) for f in FILES for mod, names in imports(f) for n in names
           if n.startswith("_") and mod.startswith("bawo")]
    assert not bad, bad


def test_from_sim_import_render_is_the_module():
    import types
    import bawo.draw  # noqa: F401 - everything that once rebound the name, loaded
    import bawo.pico.terminal  # noqa: F401
    from bawo.sim import render
    assert isinstance(render, types.ModuleType) and callable(render.geometry)
