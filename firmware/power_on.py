# The Pico's power-on: the board built from its profile, the journal under the board's own
# id, the App, the host link on USB, the journaled game resumed, then the loop. The
# simulator's power-on is firmware_sim/sim_boot.py.
from app import App


def board_id():
    """'pico-' and the last 8 hex digits of the flash chip's unique id; None off a board."""
    from binascii import hexlify
    try:
        import machine
        return 'pico-' + hexlify(machine.unique_id()).decode()[-8:]
    except (ImportError, AttributeError):
        pass
    try:  # CircuitPython has no machine module: the same flash chip id, from microcontroller
        import microcontroller
        return 'pico-' + hexlify(microcontroller.cpu.uid).decode()[-8:]
    except (ImportError, AttributeError):
        return None


def start(board, root='/games'):
    """The App on `board`, its link attached, booted (its game resumed or its menu open)."""
    from hw import open_journal
    j = open_journal(root, board_id() or 'board')
    app = App(board, j, j.board_id)
    # The link before the journaled game's replay: on the power-on's empty heap it always
    # finds room. A replay that finds none keeps its game on flash (BACK tries again); a
    # board that found no room for its link could never be synced (the fuzz's restarted
    # board died importing protocol.py, then making the link's frame buffer).
    try:
        import link
        r, w = link.stdio()
        app.attach_link(r, w)
    except ImportError:
        pass
    app.boot()
    return app


def main():
    """Build the board from profile.json (or the image's own profile), then run the App."""
    import hw
    from pinmap import ProfileError
    try:
        board = hw.open_board('profile.json')
    except ProfileError as e:
        print('bawo: cannot start: %s (file profile.json)' % e)
        raise SystemExit(2)
    start(board).run()
