# The simulated board's power-on, for firmware_sim/board_sim.py: the environment read, the
# simulated hardware, the journal and the App built, the link attached, the boot.
import os
import gc
from compat import ticks_ms
import hw
import hw_sim
from journal import Journal
# Nothing made here may keep a function of this module: it would keep the module's globals, so
# all of its bytecode (the frames' pipe and the journal's log are board_sim's).


def env(name, default=None):
    v = os.getenv(name)
    return default if v is None or v == '' else v


def start(sim):
    path = env('BAWO_PROFILE', 'profile.json')
    from pinmap import ProfileError
    try:
        prof = hw.load_tables(path)
    except ProfileError as e:
        msg = 'bawo: cannot start: %s (file %s)' % (e, path)
        print(msg)
        sim.emit('M', msg)
        raise SystemExit(2)
    start = 0
    if sim.fake:
        # Start close to the ticks wrap so every run crosses it.
        start = (1 << 30) - 3000
    sim.clock = hw_sim.SimClock(start)
    frames = sim.frames_pipe() if env('BAWO_FRAMES') == '1' else None
    sim.board = hw_sim.Board(prof, clock=sim.clock, seed=int(env('BAWO_SEED', '1')),
                              out=frames, bounce_ms=int(env('BAWO_BOUNCE', '5')))
    if not sim.fake:
        sim.clock.set(ticks_ms())
    gc.collect()
    import app
    root = env('BAWO_DATA', 'data')
    if env('BAWO_LFS'):
        image, kb = env('BAWO_LFS').rsplit(':', 1)
        from sim_flash import mount_flash
        mount_flash(image, int(kb), '/flash')
        root = '/flash/games'
    # The journal first: it sets aside a damaged board_id before it is read.
    j = Journal(root, '', min_free=int(env('BAWO_MIN_FREE', '16384')),
                capacity=int(env('BAWO_FLASH', '0')),
                log=sim.journal_log)
    j.board_id = bid = env('BAWO_BOARD_ID') or _read_id(root)
    settings = {}
    if env('BAWO_GAME'):
        settings['game'] = env('BAWO_GAME')
    if env('BAWO_SPEED'):
        settings['speed'] = int(env('BAWO_SPEED'))
    if env('BAWO_OPPONENT'):
        settings['opponent'] = env('BAWO_OPPONENT')
    if env('BAWO_LEVEL'):
        settings['level'] = int(env('BAWO_LEVEL'))
    sim.app = a = app.App(sim.board, j, bid, hook=sim.hook, settings=settings)
    if env('BAWO_TIME'):   # the PC's clock, as a host's TIME would set it
        a.set_time(int(env('BAWO_TIME')))
    if env('BAWO_PEER_MS'):   # a remote game's away timeout, lowered by the tests
        a.peer_timeout = int(env('BAWO_PEER_MS'))
    # The link before the replay, as on a Pico (power_on.start).
    if env('BAWO_LINK', '1') == '1':
        try:
            import link
            r, w = link.stdio()
            a.attach_link(r, w)
        except (ImportError, OSError):
            pass
    a.boot()
    sim.emit('M', 'firmware %s' % getattr(app, '__file__', 'app'))
    a.step(sim.clock.now)
    sim.emit('B', sim.status())


def _read_id(root):
    p = root + '/board_id'
    try:
        with open(p) as f:
            t = f.read().strip()
        if t:
            return t
    except OSError:
        pass
    from binascii import hexlify
    t = 'sim-' + hexlify(os.urandom(3)).decode()
    try:
        os.mkdir(root)
    except OSError:
        pass
    try:
        with open(p, 'w') as f:
            f.write(t + '\n')
    except OSError as e:  # kept for this run only: the board goes on
        print('bawo: board id not saved (%s)' % e)
    return t
