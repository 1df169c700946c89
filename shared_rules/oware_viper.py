# Viper versions of the search's Oware loops (MicroPython only; CPython and CircuitPython never
# import this file): oware.Oware._sow without events, legal_moves' feeding rule,
# evaluate.oware, oware_capture and oware_captures (the same arguments), and the table's hash.
# Identical results to the bytecode in oware.py and evaluate.py (tests/mp/check_oware_viper.py).
import micropython


@micropython.viper
def sow(p, st, o: int, m: int) -> int:
    # Sow pit o+m of pits p and capture, in place, the seeds taken added to stores st.
    # Returns the seeds taken, | 256 when the opponent's row is left empty.
    t = ptr8(p)
    i = o + m
    n = int(t[i])
    t[i] = 0
    j = i
    if n < 12:
        # Less than a lap: straight runs.
        j = i + n
        k = i + 1
        if j < 12:
            while k <= j:
                t[k] = t[k] + 1
                k += 1
        else:
            j -= 12
            while k < 12:
                t[k] = t[k] + 1
                k += 1
            k = 0
            while k <= j:
                t[k] = t[k] + 1
                k += 1
    else:
        while n > 0:
            j += 1
            if j == 12:
                j = 0
            if j != i:  # 12 or more seeds skip the pit they came from
                t[j] = t[j] + 1
                n -= 1
    got = 0
    opp = 6 - o
    while opp <= j and j < opp + 6:
        c = int(t[j])
        if c != 2 and c != 3:
            break
        got += c
        t[j] = 0
        j -= 1
    if got:
        s = ptr8(st)
        side = 1 if o else 0
        s[side] = s[side] + got
    k = opp
    while k < opp + 6:
        if t[k]:
            return got
        k += 1
    return got | 256


@micropython.viper
def legal(p, o: int, scratch, sst) -> int:
    # Oware.legal_moves as a mask of the mover's pits (bit m: pit o+m): the non-empty pits
    # whose move leaves the opponent a seed, or every non-empty pit if none does. scratch
    # (12 bytes) and sst (2) take the trial sowings.
    t = ptr8(p)
    sc = ptr8(scratch)
    opp = 6 - o
    fed = 0
    k = opp
    while k < opp + 6:
        if t[k]:
            fed = 1
        k += 1
    feed = 0
    starve = 0
    for m in range(6):
        n = int(t[o + m])
        if not n:
            continue
        starves = 0
        sown = 0  # the move must be sown to know
        if n < 12:
            j = o + m + n
            if j >= 12:
                j -= 12
            if fed:
                # Only a capture ending in the last seeded pits of the row can empty it.
                if opp <= j and j < opp + 6 and 1 <= int(t[j]) and int(t[j]) <= 2:
                    sown = 1
                    k = j + 1
                    while k < opp + 6:
                        if t[k]:
                            sown = 0
                        k += 1
            elif n < 6 - m:
                starves = 1
        else:
            sown = 1
        if sown:
            for k in range(12):
                sc[k] = t[k]
            if int(sow(scratch, sst, o, m)) & 256:
                starves = 1
        if starves:
            starve |= 1 << m
        else:
            feed |= 1 << m
    if feed:
        return feed
    return starve


@micropython.viper
def value(g, pos) -> int:
    # evaluate.oware: the side to move's view.
    a = ptr8(pos.pits)
    s = ptr8(pos.stores)
    turn = int(pos.turn)
    v = 16 * (int(s[turn]) - int(s[1 - turn]))
    o = 6 if turn else 0
    q = 6 - o
    for k in range(6):
        x = int(a[o + k])
        y = int(a[q + k])
        v += x - y
        if x == 1 or x == 2:
            v -= 3
        if y == 1 or y == 2:
            v += 3
    return v


@micropython.viper
def capture(g, pos, m: int) -> int:
    # evaluate.oware_capture: the seeds a sowing of under 12 from pit m takes at once.
    return int(_capture(pos.pits, 6 if int(pos.turn) else 0, m))


@micropython.viper
def _capture(p, o: int, m: int) -> int:
    a = ptr8(p)
    i = o + m
    n = int(a[i])
    if n == 0 or n >= 12:
        return 0
    j = i + n
    if j >= 12:
        j -= 12
    opp = 6 - o
    got = 0
    while opp <= j and j < opp + 6:
        c = int(a[j]) + 1
        if c != 2 and c != 3:
            break
        got += c
        j -= 1
    return got


@micropython.viper
def captures(g, pos) -> int:
    # evaluate.oware_captures: the mover's moves that capture at once, as a mask.
    p = pos.pits
    o = 6 if int(pos.turn) else 0
    mask = 0
    for m in range(6):
        if int(_capture(p, o, m)):
            mask |= 1 << m
    return mask


@micropython.viper
def slot(pos, size: int, inv: int) -> int:
    # shared_rules.ai's table slot and check key of a position, as from evaluate.key_hash's
    # long int h = int.from_bytes(pits + stores + turn, "little"): slot = h % size, check =
    # (h // size) % 65521, without making that int. size < 16384, prime to 65521; inv =
    # size's inverse modulo 65521. Returns slot | check << 14 (a small int on a 32-bit port).
    a = ptr8(pos.pits)
    s = ptr8(pos.stores)
    w = int(pos.turn)
    r = w % size
    m = w
    k = 13
    while k >= 0:
        if k >= 12:
            w = int(s[k - 12])
        else:
            w = int(a[k])
        r = ((r << 8) | w) % size
        m = ((m << 8) | w) % 65521
        k -= 1
    d = m - r
    if d < 0:
        d += 65521
    c = (((d * (inv >> 8)) % 65521) * 256 + d * (inv & 255)) % 65521
    return r | (c << 14)
