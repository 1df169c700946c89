# Backend selection: the rest of the firmware calls open_board() and open_journal() and
# never imports a backend directly, so the same main loop runs on the Pico, CircuitPython and the sim.
import sys


def backend_name():
    if sys.implementation.name == 'circuitpython':
        return 'circuitpython'
    # The unix port also has a `machine` module, but without Pin: only a real
    # microcontroller port has machine.Pin.
    try:
        import machine
        if hasattr(machine, 'Pin') and sys.platform not in ('linux', 'darwin', 'win32'):
            return 'rp2'
    except ImportError:
        pass
    return 'sim'


def load_tables(path):
    """The profile at path as the running board reads it (pinmap.tables). ProfileError says
    what is wrong."""
    import pinmap
    try:
        open(path).close()
    except OSError:
        # No profile file: a UF2 carries its profile frozen in; a file overrides it.
        try:
            from default_profile import JSON
            return pinmap.tables(pinmap.loads(JSON))
        except ImportError:
            pass
    return pinmap.tables(pinmap.load(path))


def open_board(profile, **kw):
    """profile: a pinmap.Profile or a path to its JSON. Returns a board with .profile,
    .keys (keys.Keys API), .pixels (pixels.Pixels API) and .ticks_ms()."""
    if isinstance(profile, str):
        profile = load_tables(profile)
    name = backend_name()
    if name == 'rp2':
        import hw_rp2 as backend
    elif name == 'circuitpython':
        import hw_circuitpython as backend
    else:
        import hw_sim as backend
    return backend.open_board(profile, **kw)


def open_journal(root, board_id):
    """The board's journal. On CircuitPython the game in progress lives in microcontroller.nvm
    (journal_nvm.py: its FAT rewrites whole flash blocks in place, so a cut there can take
    earlier moves); everywhere else in cur.jnl."""
    if backend_name() == 'circuitpython':
        from journal_nvm import NvmJournal
        return NvmJournal(root, board_id)
    from journal import Journal
    return Journal(root, board_id)
