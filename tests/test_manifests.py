"""The freeze manifests (micropython-lib format) name every file the board needs, and only those."""

from pathlib import Path

from conftest import ROOT
from bawo.flash import for_micropython


def read_manifest(path, calls):
    def record(kind):
        return lambda *a, **k: calls.append((kind, Path(path).parent, a, k))

    env = {n: record(n) for n in ("metadata", "include", "module", "package", "require", "freeze")}
    exec(compile(Path(path).read_text(), str(path), "exec"), env)


def test_firmware_manifest_lists_every_board_module():
    calls = []
    read_manifest(ROOT / "firmware" / "manifest.py", calls)
    modules = {a[0] for kind, _, a, _ in calls if kind == "module"}
    for m in modules:
        assert (ROOT / "firmware" / m).exists(), m
    wanted = {
        p.name
        for p in (ROOT / "firmware").glob("*.py")
        if p.name != "main.py" and for_micropython(p.name)
    }
    assert modules == wanted
    includes = [a[0] for kind, _, a, _ in calls if kind == "include"]
    assert "../shared_rules/manifest.py" in includes


def test_shared_rules_manifest_packages_the_engine():
    calls = []
    read_manifest(ROOT / "shared_rules" / "manifest.py", calls)
    ((kind, here, args, kw),) = [c for c in calls if c[0] == "package"]
    assert args[0] == "shared_rules"
    assert (here / kw["base_path"] / "shared_rules" / "__init__.py").resolve().exists()
    meta = [c for c in calls if c[0] == "metadata"]
    assert meta and meta[0][3]["version"]
