# Power-on: build the board from profile.json first (its tables need the empty heap), then the
# app (power_on.py: it resumes the journaled game or opens the menu), then its loop.
import hw
from pinmap import ProfileError
try:
    board = hw.open_board('profile.json')
except ProfileError as e:
    print('bawo: cannot start: %s (file profile.json)' % e)
    raise SystemExit(2)
import power_on
app = power_on.start(board)
del power_on
from compat import forget
forget('power_on')   # its code leaves the heap to the game
app.run()
