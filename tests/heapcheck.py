# Runs ON an emulated Pico: the firmware's app, built the way main.py builds it (board first, on
# the empty heap), plays the board against itself at level 5 with the journal the board uses
# there (hw.open_journal: cur.jnl on MicroPython, nvm on CircuitPython). MicroPython
# (tests/test_pico.py): copied as heapcheck.py, imported by mpremote after a soft reset, so the
# heap starts empty as at power-on. CircuitPython (tests/test_circuitpython.py): it is code.py.
# gc.mem_free() is sampled at every loop pass and every poll of the search (every 16 nodes): as
# it is (garbage counts as used until a collection, so this touches 0 whenever the heap fills
# and the runtime collects), and after a gc.collect() at every poll (what the search keeps
# alive: the real margin).
import gc
import hw
board = hw.open_board('profile.json')
import app
from compat import ticks_ms
PLIES = %(plies)d
low = [gc.mem_free(), gc.mem_free()]   # as it is; after a collection
j = hw.open_journal('/games', 'heap')
a = app.App(board, j, 'heap', settings={'speed': 8, 'level': 5})
a.boot()
a.new_game('%(game)s', None, 'board-both')
inner = a._think_poll   # the board's AI is made at its first move and polls through this


def poll():
    m = gc.mem_free()
    if m < low[0]:
        low[0] = m
    gc.collect()
    m = gc.mem_free()
    if m < low[1]:
        low[1] = m
    return inner()


a._think_poll = poll
while a.session.s.outcome() is None and a.session.s.ply < PLIES:
    a.step(ticks_ms())
    m = gc.mem_free()
    if m < low[0]:
        low[0] = m
print('HEAP', low[1], low[0], a.session.s.ply, a.thinks, a.think_ms, a.think_max, a.session.s.outcome() is not None)
