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
# A remote game (docs/protocol.md, PEER): the host's side is away when no PEER came for this
# long (the bridge sends one at least every 3 s); the simulator may lower it (BAWO_PEER_MS).
PEER_TIMEOUT_MS = 10000
# The board's own offers in a host game (docs/visual-language.md): MENU held this long is a
# resign offer, BACK held this long a draw offer (or the acceptance of the opponent's).
HOLD_MS = 2000
