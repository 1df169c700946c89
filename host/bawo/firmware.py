"""Where the board's files are on this PC, and how the host runs the firmware's own code.

The one locator: the firmware, `shared_rules` and the hardware profiles are installed packages
(`bawo_firmware`, `shared_rules`, `bawo_profiles`), so a wheel finds them as an editable
install does. Nothing here reads the repository's layout.
"""

from __future__ import annotations

import builtins
import importlib.util
import os
from types import ModuleType
from typing import Any

from .errors import BawoError


class FirmwareFilesError(BawoError):
    pass


def _package_dir(package: str, probe: str) -> str:
    """The directory of an installed package (plain or namespace) that holds the file probe."""
    spec = importlib.util.find_spec(package)
    for d in (spec.submodule_search_locations or []) if spec else []:
        if os.path.isfile(os.path.join(d, probe)):
            return os.path.abspath(d)
    raise FirmwareFilesError(
        "the %s package is missing %s: reinstall bawo-board "
        "(pip install bawo-board, or pip install -e . in its source)" % (package, probe)
    )


def firmware_dir() -> str:
    """The device folder: every file in it goes to the board (firmware/)."""
    return _package_dir("bawo_firmware", "main.py")


def sim_firmware_dir() -> str:
    """The simulator's own firmware files (its entry and its fake hardware), apart from the
    device's: on the MicroPython path before firmware_dir() when the simulator runs."""
    return _package_dir("bawo_firmware_sim", "board_sim.py")


def rules_dir() -> str:
    import shared_rules

    return os.path.dirname(os.path.abspath(shared_rules.__file__))


def micropython_path() -> str:
    """MICROPYPATH entries that run the firmware on the unix port as on the board's root:
    the simulator's files, the device's, and the directory holding shared_rules."""
    dirs = [sim_firmware_dir(), firmware_dir(), os.path.dirname(rules_dir())]
    return os.pathsep.join(dict.fromkeys(dirs))


def profiles_dir() -> str:
    """hardware/profiles: the pin maps, the single source of truth the firmware reads."""
    return _package_dir("bawo_profiles", "bawo-4x8.json")


def profile_names() -> list[str]:
    return sorted(f[:-5] for f in os.listdir(profiles_dir()) if f.endswith(".json"))


def profile_path(name: str) -> str:
    """name: a shipped profile's name (bawo-4x8) or the path of a .json file of one's own.
    A name is looked up among the shipped files, never joined into a path."""
    if name.endswith(".json"):  # one's own file: the firmware names what is wrong with it
        return name
    known = profile_names()
    if name not in known:
        raise FirmwareFilesError(
            "no hardware profile %r: choose one of %s, or give a .json path"
            % (name, ", ".join(known))
        )
    return os.path.join(profiles_dir(), name + ".json")


def book_path() -> str:
    """The opening book the board reads (firmware/bawo_book.bin)."""
    return os.path.join(firmware_dir(), "bawo_book.bin")


# -- the firmware's code on CPython ----------------------------------------------------------
# The firmware's modules import each other by bare names (`import keys`), as they sit at the
# root of the board's flash. Here each is loaded as bawo_firmware.<name> with an import of its
# own that answers those bare names from this private set, so neither sys.path nor sys.modules
# changes and no firmware name (keys, view, app, ...) can shadow or be shadowed by another.
_loaded: dict[str, ModuleType] = {}


def _firmware_import(
    name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
) -> ModuleType:
    if level == 0 and name in _names():
        return module(name)
    return builtins.__import__(name, globals, locals, fromlist, level)


_names_cache: list[str] = []


def _names() -> list[str]:
    if not _names_cache:
        for d in (firmware_dir(), sim_firmware_dir()):
            _names_cache.extend(f[:-3] for f in os.listdir(d) if f.endswith(".py"))
    return _names_cache


def _path_of(name: str) -> str:
    for d in (sim_firmware_dir(), firmware_dir()):
        p = os.path.join(d, name + ".py")
        if os.path.isfile(p):
            return p
    raise FirmwareFilesError("no firmware module %r" % name)


def module(name: str) -> Any:
    """The firmware module `name` (app, view, pinmap, hw_sim, ...) run by CPython."""
    m = _loaded.get(name)
    if m is None:
        if name not in _names():
            raise FirmwareFilesError("no firmware module %r" % name)
        spec = importlib.util.spec_from_file_location("bawo_firmware." + name, _path_of(name))
        if spec is None or spec.loader is None:
            raise FirmwareFilesError("firmware module %r cannot be loaded" % name)
        m = importlib.util.module_from_spec(spec)
        own = dict(vars(builtins))
        own["__import__"] = _firmware_import
        m.__dict__["__builtins__"] = own
        _loaded[name] = m  # before running it: the firmware's lazy circular imports see it
        try:
            spec.loader.exec_module(m)
        except BaseException:
            del _loaded[name]
            raise
    return m
