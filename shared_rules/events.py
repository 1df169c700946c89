"""Event codes returned by Game.play(); the board animates them in order.

An event is a tuple (code, a, b). Bawo/Oware pockets are global indices
(Bawo: side * 16 + loop index; Oware: 0..11); Bagh-Chal points are 0..24.
"""
try:
    from micropython import const
except ImportError:
    def const(x):
        return x

PICKUP = const(1)     # (PICKUP, pocket, seeds taken)
DROP = const(2)       # (DROP, pocket, count after the drop)
LAP_END = const(3)    # (LAP_END, pocket, count there)
CAPTURE = const(4)    # (CAPTURE, opponent pocket, seeds taken)
RELAY = const(5)      # (RELAY, pocket, seeds taken)
DIRECTION = const(6)  # (DIRECTION, +1 or -1, pocket where sowing resumes)
TURN_END = const(7)   # (TURN_END, pocket where the last seed fell, 0)
STORE = const(8)      # (STORE, side, seeds added to that side's store)  Oware
PLACE = const(9)      # (PLACE, point, 0)                                 Bagh-Chal
STEP = const(10)      # (STEP, from, to)
JUMP = const(11)      # (JUMP, from, to)
TAKE = const(12)      # (TAKE, point of the captured goat, 0)
SWEEP = const(13)     # (SWEEP, side, seeds taken from that side's pits, now all empty)  Oware's
                      # end of game; the STORE that follows says whose store gets them
