# Runs ON an emulated Pico (tests/test_pico.py): the board's own move choice as South at level 5
# in Bawo from the opening (firmware/opponent.py's with_book around the level-5 Player; the book
# read from the Pico's flash by firmware/book.py) in every South position of south.bin (33-byte
# position keys). Prints the moves in hex and the counts; the host replays them against every
# North reply at every North turn (bawo.proofcheck).
from shared_rules import game
from shared_rules.bawo import Position
import opponent

g = game('bawo')
opp = opponent.with_book(opponent.make_opponent(g, 5, 1), 'bawo', {'game': 'bawo', 'level': 5}, 0)
out = bytearray()
key = bytearray(33)
with open('south.bin', 'rb') as f:
    while f.readinto(key) == 33:
        out.append(opp.choose(Position(bytearray(key[:32]), key[32])))
print('MOVES', ''.join(['%02x' % m for m in out]))
print('COUNTS', type(opp).__name__, opp.book_moves, opp.ai_moves)
