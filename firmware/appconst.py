# Values the app's parts share (app, session, menu, settings, render): one place, imported by
# each of them and importing none of them.
MENU = 0   # the app's modes
PLAY = 1
OVER = 2
NONE = 255   # a key that is no cell of the game
BOARD_MOVE_MS = 500   # pause before the board's own move, so the player sees it
# Who plays which side: the menu's choices, the board on both sides (a demonstration, set by
# the simulator), and games a host started over the link (`bawo play --board`), where the
# host sends its side's moves and the board refuses presses for that side.
BOARD_SIDES = {'board-first': 0, 'board-second': 1, 'board-both': 2}
# The menu's opponents, in its order: both sides pressed by people; the board plays the
# second side; the first.
OPPONENTS = ('people', 'board-second', 'board-first')
HOST_SIDES = {'host-first': 0, 'host-second': 1}
