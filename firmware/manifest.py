# Freeze the board's firmware and shared_rules into a MicroPython build for the Pico, so their
# bytecode runs from flash and leaves the heap to the game (micropython-lib manifest format):
#   make -C ports/rp2 BOARD=RPI_PICO FROZEN_MANIFEST=$PWD/firmware/manifest.py
# `bawo flash` does not need this: it copies .mpy files instead. main.py stays a file on the
# board's filesystem, as do profile.json and the journal.
metadata(version="0.1.0", description="Bawo Board firmware")
include("$(PORT_DIR)/boards/manifest.py")
include("../shared_rules/manifest.py")
for name in ("animator", "app", "appconst", "archive", "book", "compat", "datafiles", "finish",
             "handler", "hint", "hw", "hw_rp2", "journal", "journal_read", "keys", "link", "menu",
             "opponent", "pixels", "pixels_viper", "pinmap", "power_on", "protocol", "render",
             "settings", "snapshot", "start", "think", "view"):
    module(name + ".py")
