# Power-on: build the board from profile.json first (its tables need the empty heap),
# then the app, which resumes the journaled game or opens the menu.
import hw
from pinmap import ProfileError
try:
    board = hw.open_board('profile.json')
except ProfileError as e:
    print('bawo: cannot start: %s (file profile.json)' % e)
    raise SystemExit(2)
import app
app.main(board)
