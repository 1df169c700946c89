# The board's modules (micropython-lib manifest format), for a MicroPython build of one's own:
#   make -C ports/rp2 BOARD=RPI_PICO FROZEN_MANIFEST=$PWD/firmware/manifest.py
# `bawo build-uf2` freezes exactly what `bawo flash` copies for a profile instead: these
# modules, main.py, the profile and the book (host/bawo/uf2.py).
metadata(version="0.1.0", description="Bawo Board firmware")
include("$(PORT_DIR)/boards/manifest.py")
include("../shared_rules/manifest.py")
for name in ("animator", "app", "appconst", "archive", "book", "buildinfo", "compat",
             "datafiles", "handler", "hint", "hw", "hw_rp2", "journal", "journal_read", "keys",
             "link", "menu", "opponent", "pixels", "pixels_viper", "pinmap", "power_on",
             "protocol", "remote", "render", "seat", "session", "settings", "snapshot",
             "view"):
    module(name + ".py")
