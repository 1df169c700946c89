# Viper versions of the search's Bagh-Chal loops (MicroPython only; CPython and CircuitPython
# never import this file): baghchal.BaghChal.legal_moves' generation, _tigers_blocked,
# evaluate.bagh_chal (the same arguments) and the table's hash. Identical results to the
# bytecode in baghchal.py and evaluate.py (tests/mp/check_baghchal_viper.py).
import micropython
from shared_rules.baghchal import ADJ, JUMPS


def _tables():
    # For each point, up to 16 (target, over) pairs sorted by target, 255 after the last:
    # over is 254 for a step to a neighbour, else the point jumped. Sorted, so moves come out
    # in the order legal_moves sorts them into.
    to = bytearray(b"\xff" * 400)
    over = bytearray(b"\xff" * 400)
    for p in range(25):
        pairs = [(q, 254) for q in ADJ[p]] + [(r, q) for q, r in JUMPS[p]]
        pairs.sort()
        for i in range(len(pairs)):
            to[p * 16 + i] = pairs[i][0]
            over[p * 16 + i] = pairs[i][1]
    return bytes(to), bytes(over)


TO, OVER = _tables()


@micropython.viper
def gen(b, turn: int, hand: int, out) -> int:
    # BaghChal.legal_moves into out (16 bits a move), ascending; returns how many.
    s = ptr8(b)
    t = ptr8(TO)
    v = ptr8(OVER)
    o = ptr16(out)
    k = 0
    if turn:
        for p in range(25):
            if s[p] != 2:
                continue
            i = p * 16
            while i < p * 16 + 16:
                q = int(t[i])
                if q == 255:
                    break
                m = int(v[i])
                if s[q] == 0 and (m == 254 or s[m] == 1):
                    o[k] = 25 + p * 25 + q
                    k += 1
                i += 1
    elif hand:
        for p in range(25):
            if s[p] == 0:
                o[k] = p
                k += 1
    else:
        for p in range(25):
            if s[p] != 1:
                continue
            i = p * 16
            while i < p * 16 + 16:
                q = int(t[i])
                if q == 255:
                    break
                if int(v[i]) == 254 and s[q] == 0:
                    o[k] = 25 + p * 25 + q
                    k += 1
                i += 1
    return k


@micropython.viper
def blocked(b) -> int:
    # baghchal._tigers_blocked: 1 if no tiger can step or jump.
    s = ptr8(b)
    t = ptr8(TO)
    v = ptr8(OVER)
    for p in range(25):
        if s[p] != 2:
            continue
        i = p * 16
        while i < p * 16 + 16:
            q = int(t[i])
            if q == 255:
                break
            m = int(v[i])
            if s[q] == 0 and (m == 254 or s[m] == 1):
                return 0
            i += 1
    return 1


@micropython.viper
def value(g, pos) -> int:
    # evaluate.bagh_chal: from the goats' side, then negated for tigers.
    s = ptr8(pos.board)
    t = ptr8(TO)
    v = ptr8(OVER)
    moves = 0
    trapped = 0
    threats = 0
    for p in range(25):
        if s[p] != 2:
            continue
        m = 0
        i = p * 16
        while i < p * 16 + 16:
            q = int(t[i])
            if q == 255:
                break
            if s[q] == 0:
                x = int(v[i])
                if x == 254:
                    m += 1
                elif s[x] == 1:
                    m += 1
                    threats += 1
            i += 1
        if m == 0:
            trapped += 1
        moves += m
    r = -120 * int(pos.captured) + 30 * trapped - 3 * moves
    if int(pos.turn):
        r -= 10 * threats
        if threats:
            r -= 60
        return -r
    return r - 10 * threats


@micropython.viper
def slot(pos, size: int, inv: int) -> int:
    # shared_rules.ai's table slot and check key, as from evaluate.key_hash's long int
    # h = int.from_bytes(board + (hand, captured, turn), "little"): slot = h % size, check =
    # (h // size) % 65521, without making that int. size < 16384, prime to 65521; inv =
    # size's inverse modulo 65521. Returns slot | check << 14 (a small int on a 32-bit port).
    s = ptr8(pos.board)
    w = int(pos.turn)
    r = w % size
    m = w
    k = 26
    while k >= 0:
        if k == 26:
            w = int(pos.captured)
        elif k == 25:
            w = int(pos.hand)
        else:
            w = int(s[k])
        r = ((r << 8) | w) % size
        m = ((m << 8) | w) % 65521
        k -= 1
    d = m - r
    if d < 0:
        d += 65521
    c = (((d * (inv >> 8)) % 65521) * 256 + d * (inv & 255)) % 65521
    return r | (c << 14)
