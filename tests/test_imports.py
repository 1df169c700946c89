"""The host's modules import one way and use only each other's public names.

The terminal board is one package, bawo.sim, whose flow is model (process, layout, relay,
script, bawo.pico) -> render (leds, draw) -> terminal (console, pico_console, run). A circle
there once made `from ..sim import render` give a function instead of the module, and
`bawo sim --pico` died at start. The checks read the sources with ast, so an import inside a
function counts too: it can close a circle at run time just the same."""

import ast
from pathlib import Path

HOST = Path(__file__).resolve().parents[1] / "host"
FILES = sorted(str(p.relative_to(HOST)) for p in (HOST / "bawo").rglob("*.py"))

# The terminal board's layers, lowest first: a module imports only from its own layer or below.
LAYERS = [
    {
        "bawo.sim",
        "bawo.sim.process",
        "bawo.sim.layout",
        "bawo.sim.relay",
        "bawo.sim.script",
        "bawo.pico",
        "bawo.pico.circuitpython",
    },
    {"bawo.sim.leds", "bawo.sim.draw"},
    {"bawo.sim.console", "bawo.sim.pico_console", "bawo.sim.run"},
]


def _module(rel):
    parts = rel[:-3].split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package(rel):
    mod = _module(rel)
    return mod if rel.endswith("__init__.py") else mod.rsplit(".", 1)[0]


MODULES = {_module(f): f for f in FILES}


def _is_module(mod):
    return mod in MODULES or (HOST.joinpath(*mod.split(".")).with_suffix(".c")).is_file()


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
                pkg = pkg[: len(pkg) - node.level + 1]
                base = ".".join(pkg + ([base] if base else []))
            names = [a.name for a in node.names]
            # `from pkg import mod` takes a module: an edge to that module.
            subs = [n for n in names if _is_module(base + "." + n)]
            out += [(base + "." + n, []) for n in subs]
            rest = [n for n in names if n not in subs]
            if rest or not subs:
                out.append((base, rest))
    return out


def graph():
    """Each host module -> the host modules it imports. Importing a.b.c runs a and a.b first,
    so the packages on the way count as imported too."""
    g = {}
    for m, f in MODULES.items():
        edges = set()
        for i, _ in imports(f):
            parts = i.split(".")
            for n in range(2, len(parts) + 1):
                edges.add(".".join(parts[:n]))
        g[m] = {i for i in edges if i in MODULES and i != m and not m.startswith(i + ".")}
    return g


def circles(g):
    seen, stack, found = set(), [], []

    def visit(m):
        if m in stack:
            found.append(stack[stack.index(m) :] + [m])
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
    return found


def test_the_host_has_no_import_circle():
    g = graph()
    assert len(g) > 40, sorted(g)  # the walk found the package
    assert not circles(g), circles(g)


def test_the_circle_check_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]


def test_the_terminal_board_flows_one_way():
    g = graph()
    level = {m: i for i, layer in enumerate(LAYERS) for m in layer}
    assert set(level) <= set(g), set(level) - set(g)
    up = [(m, n) for m in level for n in g[m] if level.get(n, -1) > level[m]]
    assert not up, up
    # The package itself imports only the model: the modules that draw and run build on it.
    assert {n for n in g["bawo.sim"] if n.startswith("bawo.sim.")} <= LAYERS[0], g["bawo.sim"]


def test_no_host_module_takes_another_modules_private_name():
    """Neither `from m import _name` nor `m._name` for another host module m. A C extension
    module of the package's own (bawo._pnsearch) is a module, not a name."""
    bad = []
    for f in FILES:
        tree = ast.parse((HOST / f).read_text())
        aliases = {}
        for mod, names in imports(f):
            bad += [
                (f, mod, n)
                for n in names
                if n.startswith("_")
                and not n.startswith("__")
                and mod in MODULES
                and mod != _module(f)
                and not _is_module(mod + "." + n)
            ]
        for node in ast.walk(tree):  # the names host modules are bound to in this file
            if isinstance(node, ast.ImportFrom) or isinstance(node, ast.Import):
                for a in node.names:
                    aliases[a.asname or a.name.split(".")[0]] = a.name
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                target = [m for m in MODULES if m.rsplit(".", 1)[-1] == aliases.get(node.value.id)]
                if target and node.value.id not in ("self", "cls"):
                    bad.append((f, node.value.id, node.attr))
    assert not bad, bad


def test_from_sim_import_leds_is_the_module():
    import types
    import bawo.sim.draw  # noqa: F401 - everything that once rebound a name, loaded
    import bawo.sim.pico_console  # noqa: F401
    import bawo.sim.run  # noqa: F401
    from bawo.sim import leds

    assert isinstance(leds, types.ModuleType) and callable(leds.geometry)


def test_no_host_file_shares_a_name_with_a_firmware_file_or_another_host_file():
    """A newcomer who reads render.py or link.py should not have to ask which one. The board's
    files (firmware/, firmware_sim/) keep their names; the host's are named apart."""
    root = HOST.parent

    def names(folder):
        return [
            p.name
            for p in (root / folder).rglob("*.py")
            if p.name not in ("__init__.py", "__main__.py") and "node_modules" not in p.parts
        ]

    host = names("host/bawo")
    board = set(names("firmware")) | set(names("firmware_sim"))
    twice = sorted({n for n in host if host.count(n) > 1})
    assert not twice, twice
    shared = sorted(set(host) & board)
    assert not shared, shared


def test_there_is_one_link_error_class():
    """LinkError is the board's (firmware/link.py); the host's failed exchange is BoardLinkError."""
    found = []
    for p in [*(HOST / "bawo").rglob("*.py"), *(HOST.parent / "firmware").rglob("*.py")]:
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ClassDef) and node.name == "LinkError":
                found.append(str(p.relative_to(HOST.parent)))
    assert found == ["firmware/link.py"], found


def test_every_host_function_is_under_100_lines():
    """A function a reader can hold at once: build_parser was 279 lines, create_app 315.
    Nested functions count inside their parent too."""
    long = []
    for f in FILES:
        for node in ast.walk(ast.parse((HOST / f).read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n >= 100:
                    long.append((f, node.name, n))
    assert not long, long
