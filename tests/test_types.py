"""The host's type hints: mypy passes on host/bawo (pyproject.toml, [tool.mypy], which also
requires every function there to have its hints), and every public function has them, the
club's included (mypy leaves the club's bodies to its own branch for now).

pico/ (the emulated Pico's driver) and serve/static (the page's JavaScript) are left out, as
firmware/ and shared_rules/ are: they run on MicroPython, which has no use for hints."""

import ast
import os
import subprocess
import sys
import time

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

from conftest import ROOT

HOST = ROOT / "host" / "bawo"
LEFT_OUT = (HOST / "pico", HOST / "serve" / "static")


def host_modules():
    for path in sorted(HOST.rglob("*.py")):
        if not any(path.is_relative_to(part) for part in LEFT_OUT):
            yield path


def unannotated(tree):
    """(line, name, what lacks a hint) of each public function with a parameter or its return
    not annotated: module-level functions and the methods of public classes, named without a
    leading `_`."""
    found = []

    def check(fn, method):
        a = fn.args
        params = a.posonlyargs + a.args + a.kwonlyargs
        if (
            method
            and params
            and not any(
                isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list
            )
        ):
            params = params[1:]  # self, or cls
        params += [p for p in (a.vararg, a.kwarg) if p is not None]
        missing = [p.arg for p in params if p.annotation is None]
        if fn.returns is None:
            missing.append("return")
        if missing:
            found.append((fn.lineno, fn.name, missing))

    def public(node):
        return isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef)
        ) and not node.name.startswith("_")

    for node in tree.body:
        if public(node):
            check(node, False)
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if public(item):
                    check(item, True)
    return found


def test_the_public_annotation_check_catches_a_missing_hint():
    tree = ast.parse(
        "def f(a: int, b) -> int: ...\n"
        "def g(a: int): ...\n"
        "def _h(a): ...\n"
        "class C:\n"
        "    def m(self, x: int) -> None: ...\n"
        "    def n(self, x): ...\n"
        "    @staticmethod\n"
        "    def s(x) -> None: ...\n"
        "    def _p(self, x): ...\n"
        "class _D:\n"
        "    def m(self, x): ...\n"
    )
    assert [(name, missing) for _, name, missing in unannotated(tree)] == [
        ("f", ["b"]),
        ("g", ["return"]),
        ("n", ["x", "return"]),
        ("s", ["x"]),
    ]


def test_every_public_host_function_has_its_hints():
    missing = []
    for path in host_modules():
        for line, name, params in unannotated(ast.parse(path.read_text(), str(path))):
            missing.append(
                "%s:%d: %s (%s)" % (path.relative_to(ROOT), line, name, ", ".join(params))
            )
    assert not missing, "public functions without type hints:\n" + "\n".join(missing)


def test_mypy_checks_the_host_but_the_micropython_side():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert any(d.startswith("mypy>=") for d in cfg["project"]["optional-dependencies"]["test"])
    mp = cfg["tool"]["mypy"]
    assert mp["files"] == ["host/bawo"]
    assert mp["exclude"] == ["^host/bawo/pico/", "^host/bawo/serve/static/"]
    assert mp["disallow_untyped_defs"] and mp["check_untyped_defs"]
    # Only what cannot be checked is let off: pico/ and the MicroPython side are read for
    # their names, third-party libraries without hints are not looked for.
    for o in mp["overrides"]:
        assert set(o) - {"module"} <= {
            "follow_imports",
            "ignore_missing_imports",
            "ignore_errors",
        }, o
        if o.get("follow_imports"):
            assert {m.split(".")[0] for m in o["module"]} <= {"shared_rules", "bawo"}, o
            assert all(
                m in ("shared_rules", "shared_rules.*") or m.startswith("bawo.pico")
                for m in o["module"]
            ), o
        if o.get("ignore_errors"):  # the club's bodies, until its branch has landed
            assert o["module"] == ["bawo.club", "bawo.club.*"], o


def test_mypy_passes_on_the_host(tmp_path):
    try:
        import mypy  # noqa: F401
    except ImportError:
        pytest.fail("mypy is not installed: python3 -m pip install -e '.[test]'")
    # A cache of its own, cold each run: 3 to 7 s on this tree (2 cores), 0.3 s warm.
    env = dict(os.environ, MYPYPATH="")
    t0 = time.monotonic()
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / "mypy-cache"),
            "--no-color-output",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    took = time.monotonic() - t0
    assert r.returncode == 0, "mypy failed (%.1f s):\n%s%s" % (took, r.stdout, r.stderr)
