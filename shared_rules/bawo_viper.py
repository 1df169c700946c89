# Viper versions of the search's Bawo loops (MicroPython only; CPython and CircuitPython never
# import this file): bawo.Bawo.legal_moves' generation, evaluate.bawo_board and bawo_leaf_board. Identical
# results to the bytecode in bawo.py and evaluate.py (tests/mp/check_bawo_viper.py).
import micropython
from micropython import const


@micropython.viper
def gen(b, o: int, p: int, maxl: int, after, out) -> int:
    # bawo._gen: the legal actions, ascending, into `out`; each one's board into after[action].
    s = ptr8(b)
    res = ptr8(out)
    # Captures are compulsory: does any start's first sowing capture (bawo._captures)?
    cap = 0
    i = 0
    while i < 16 and not cap:
        n = int(s[o + i])
        if n >= 2:
            for d in range(2):
                last = (i + n * (1 + 14 * d)) & 15
                if last < 8 and s[p + 7 - last]:
                    before = (n - 1) >> 4
                    if last != i:
                        before += int(s[o + last])
                    if before > 0:
                        cap = 1
        i += 1
    k = 0
    for i in range(16):
        n0 = int(s[o + i])
        if n0 < 2:
            continue
        for d in range(2):
            step = 1 + 14 * d
            c = 0
            last = (i + n0 * step) & 15
            if last < 8 and s[p + 7 - last]:
                before = (n0 - 1) >> 4
                if last != i:
                    before += int(s[o + last])
                if before > 0:
                    c = 1
            if cap and not c:
                continue
            a = (i << 1) | d
            t = ptr8(after[a])
            for j in range(32):
                t[j] = s[j]
            if sow(after[a], o, p, i, step, c, maxl):
                res[k] = a
                k += 1
    return k


_WIN = const(30000)  # evaluate.WIN


@micropython.viper
def value(b, o: int, p: int, leaf: int, ply: int) -> int:
    # leaf 0: evaluate.bawo_board (material, front row, starts, a tempo for a capturing turn);
    # leaf 1: evaluate.bawo_leaf_board (first a lost or won game, from the front rows and
    # whether any start is left; then the same).
    s = ptr8(b)
    if leaf:
        mine = 0
        theirs = 0
        for k in range(8):
            mine |= int(s[o + k])
            theirs |= int(s[p + k])
        if not mine:
            return ply - _WIN
        if not theirs:
            return _WIN - ply
        k = o
        while k < o + 16 and int(s[k]) < 2:
            k += 1
        if k == o + 16:
            return ply - _WIN
    v = 0
    for k in range(8):
        x = int(s[o + k])
        y = int(s[p + k])
        v += 6 * (x - y)
        if not x:
            v -= 5
        if not y:
            v += 5
        if x >= 2:
            v += 2
        if y >= 2:
            v -= 2
    for k in range(8, 16):
        x = int(s[o + k])
        y = int(s[p + k])
        v += 4 * (x - y)
        if x >= 2:
            v += 2
        if y >= 2:
            v -= 2
    i = 0
    while i < 16:
        n = int(s[o + i])
        if n >= 2:
            for d in range(2):
                last = (i + n * (1 + 14 * d)) & 15
                if last < 8 and s[p + 7 - last]:
                    before = (n - 1) >> 4
                    if last != i:
                        before += int(s[o + last])
                    if before > 0:
                        return v + 12
        i += 1
    return v


@micropython.viper
def sow(b, o: int, p: int, i: int, step: int, cap: int, maxl: int) -> int:
    # Bawo._sow without events: a whole turn on board b in place; 0 if it is endless.
    t = ptr8(b)
    n = int(t[o + i])
    t[o + i] = 0
    pos = i
    laps = 0
    while laps < maxl:
        laps += 1
        if n >= 16:
            q = n >> 4
            n = n & 15
            for j in range(o, o + 16):
                t[j] = t[j] + q
        while n > 0:
            pos = (pos + step) & 15
            t[o + pos] = t[o + pos] + 1
            n -= 1
        c = int(t[o + pos])
        if c == 1:
            return 1
        f = p + 7 - pos
        if cap and pos < 8 and t[f]:
            n = int(t[f])
            t[f] = 0
            if pos <= 1:
                step = 1
                e = 0
            elif pos >= 6:
                step = 15
                e = 7
            elif step == 1:
                e = 0
            else:
                e = 7
            pos = (e - step) & 15
        else:
            n = c
            t[o + pos] = 0
    return 0


@micropython.viper
def slot(pos, size: int, inv: int) -> int:
    # shared_rules.ai's table slot and check key of a position, as from evaluate.key_hash's
    # long int h = board * 2 + turn: slot = h % size, check = (h // size) % 65521, without
    # making that int. size < 16384, prime to 65521; inv = size's inverse modulo 65521.
    # Returns slot | check << 14 (a small int on a 32-bit port).
    s = ptr8(pos.board)
    turn = int(pos.turn)
    r = 0
    m = 0
    k = 30
    while k >= 0:
        w = (int(s[k + 1]) << 8) | int(s[k])
        r = ((r << 16) | w) % size
        m = (m * 15 + w) % 65521  # 65536 = 15 (mod 65521)
        k -= 2
    r = (r * 2 + turn) % size
    m = (m * 2 + turn) % 65521
    d = m - r
    if d < 0:
        d += 65521
    c = (((d * (inv >> 8)) % 65521) * 256 + d * (inv & 255)) % 65521
    return r | (c << 14)
