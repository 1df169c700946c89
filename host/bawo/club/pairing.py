"""A tournament's pairings and standings, pure Python (no club, no database): round robin by
the Berger tables, Swiss by the main rules of the FIDE Dutch system (Handbook C.04.3).

South is the first side, as White is in chess: "colour" below is South or North.

Round robin: FIDE's Berger tables (C.05 Annex 1), made by their rule: round 1 pairs 1-n,
2-(n-1), ...; each next round adds n/2 to every number but n (modulo n-1), and player n
alternates sides on the first table. An odd field adds a bye as player n+1.

Swiss, the rules implemented (the names are the Handbook's):
* Pairing numbers: the seeds' order (rating, then name, as the caller gives them).
* A bye (C.2): to the lowest-ranked player (lowest score, then highest pairing number) who has
  not had one and without whom the others can all be paired; it scores a win.
* Absolute criteria: no two players meet twice (C.1); two players who both have an absolute
  colour preference for one side do not meet (C.3: colour difference beyond +-1, or the same
  side in the last two games).
* Score groups, paired from the top: a bracket is the group with the players floated down to
  it first; as many pairs as possible (C.5/C.6, fewest downfloaters), no pairing that leaves
  the players below unpairable (completion, C.4), fewest colour preferences not granted (C.10);
  among equals the first in the Dutch order: S1 (top half) against S2 (bottom half), then S2's
  transpositions, then exchanges between S1 and S2 (the smallest difference of numbers first).
* Colours (E.1-E.5): both preferences; else the stronger (absolute, strong, mild); else
  alternate from the last round where the two had different sides; else the higher-ranked
  player's preference; with no preference at all, the higher-ranked player takes South when
  his pairing number is odd (the initial colour is South).
Not implemented: the float rules (C.14-C.21), the topscorers' exception to C.3 in the last
round, accelerated pairings.

Standings: points (a win 1, a draw 1/2, a bye 1), then the tie-breaks. Buchholz: the sum of
the points of the opponents played. Sonneborn-Berger: the points of the opponents beaten, half
those of the opponents drawn. Direct encounter: among the players equal on everything before
it, the points scored against each other, when all of them met. Swiss ranks by points,
Buchholz, Sonneborn-Berger, direct encounter; round robin by points, direct encounter,
Sonneborn-Berger (its Buchholz is the same for all).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

SOUTH, NORTH = "S", "N"
WIN, DRAW = 1.0, 0.5
RESULTS = ("S", "N", "D")  # South won, North won, a draw
BYE = "bye"
MAX_TRIES = 20000  # candidate pairings looked at in one bracket, at most


class PairingError(ValueError):
    """No pairing keeps the rules (e.g. more rounds than the field allows)."""


# -- round robin ----------------------------------------------------------------------------
def berger(n: int) -> list[list[tuple[int, int | None]]]:
    """The rounds of a round robin of players 1..n: [[(south, north), ...] a round], table 1
    first. With an odd n a player's pair with the bye is (player, None)."""
    if n < 2:
        raise PairingError("a round robin needs 2 players or more")
    m = n + n % 2
    half = m // 2
    pairs = list(zip(range(1, half + 1), range(m, half, -1)))
    rounds = []
    for r in range(m - 1):
        rnd = []
        for k, (a, b) in enumerate(pairs):
            if k == 0 and r % 2 == 1:
                a, b = b, a  # player m: North in odd rounds, South in even ones
            if a > n:
                a, b = b, None
            elif b > n:
                b = None
            rnd.append((a, b))
        rounds.append(rnd)
        pairs = [
            tuple(p if p == m else (p - 1 + half) % (m - 1) + 1 for p in pair) for pair in pairs
        ]
    return rounds


# -- the players' state from the rounds played ------------------------------------------------
class State:
    """A player's state before a round: rank (pairing number), points, opponents, sides."""

    def __init__(self, rank: int) -> None:
        self.rank = rank
        self.points = 0.0
        self.opponents = set()
        self.colours = []  # the sides of the games played, in order
        self.had_bye = False

    def preference(self) -> tuple[str | None, int]:
        """(side, strength): strength 3 absolute, 2 strong, 1 mild, 0 none."""
        c = self.colours
        if not c:
            return None, 0
        cd = c.count(SOUTH) - c.count(NORTH)
        twice = c[-2:] if len(c) >= 2 and c[-1] == c[-2] else None
        if cd > 1 or twice == [SOUTH, SOUTH]:
            return NORTH, 3
        if cd < -1 or twice == [NORTH, NORTH]:
            return SOUTH, 3
        if cd:
            return (NORTH if cd > 0 else SOUTH), 2
        return (NORTH if c[-1] == SOUTH else SOUTH), 1


def points_of(result: str, side: str) -> float:
    """What a result ('S', 'N', 'D') gives the player on side ('S' or 'N')."""
    if result == "D":
        return DRAW
    return WIN if result == side else 0.0


def states(
    seeds: Sequence[str], rounds: list[list[tuple[str, str | None, str | None]]]
) -> dict[str, State]:
    """{player: State} after rounds: [[(south, north or None, result), ...] a round]; a game
    without a result yet counts as played, for no points."""
    st = {p: State(i + 1) for i, p in enumerate(seeds)}
    for rnd in rounds:
        for south, north, result in rnd:
            if north is None:
                st[south].had_bye = True
                st[south].points += WIN
                continue
            for me, other, side in ((south, north, SOUTH), (north, south, NORTH)):
                st[me].opponents.add(other)
                st[me].colours.append(side)
                if result in RESULTS:
                    st[me].points += points_of(result, side)
    return st


# -- Swiss ----------------------------------------------------------------------------------
def higher(st: dict[str, State], a: str, b: str) -> bool:
    """True when a ranks above b (more points, then the smaller pairing number)."""
    return (-st[a].points, st[a].rank) < (-st[b].points, st[b].rank)


def compatible(st: dict[str, State], a: str, b: str) -> bool:
    """The absolute criteria: not met before (C.1), not both absolute for one side (C.3)."""
    if b in st[a].opponents:
        return False
    pa, sa = st[a].preference()
    pb, sb = st[b].preference()
    return not (sa == 3 and sb == 3 and pa == pb)


def sides(st: dict[str, State], a: str, b: str) -> tuple[str, str]:
    """(south, north) of a pair by the colour rules E.1-E.5."""
    if not higher(st, a, b):
        a, b = b, a  # a: the higher-ranked
    pa, sa = st[a].preference()
    pb, sb = st[b].preference()
    if pa is None and pb is None:  # E.5: the initial colour (South) by pairing number
        return (a, b) if st[a].rank % 2 else (b, a)
    if pa is None or pb is None or pa != pb:  # E.1: both get theirs (or the one there is)
        side_a = pa if pa is not None else (NORTH if pb == SOUTH else SOUTH)
    elif sa != sb:  # E.2: the stronger preference
        side_a = pa if sa > sb else (NORTH if pa == SOUTH else SOUTH)
    else:
        side_a = None
        ca, cb = st[a].colours, st[b].colours
        for k in range(1, min(len(ca), len(cb)) + 1):  # E.3: alternate to the last difference
            if ca[-k] != cb[-k]:
                side_a = NORTH if ca[-k] == SOUTH else SOUTH
                break
        side_a = side_a or pa  # E.4: the higher-ranked player's preference
    return (a, b) if side_a == SOUTH else (b, a)


def unhappy(st: dict[str, State], a: str, b: str) -> int:
    """How many of the two do not get the side they prefer (C.10)."""
    south, north = sides(st, a, b)
    return sum(
        1
        for p, side in ((south, SOUTH), (north, NORTH))
        if st[p].preference()[0] not in (None, side)
    )


class Matcher:
    """Whether a set of players can all be paired under the absolute criteria (memoised)."""

    def __init__(self, st: dict[str, State]) -> None:
        self.st = st
        self.memo = {}

    def pairable(self, players: Iterable[str]) -> bool:
        key = frozenset(players)
        if key not in self.memo:
            self.memo[key] = (
                self.one_matching(sorted(key, key=lambda p: self.st[p].rank)) is not None
            )
        return self.memo[key]

    def one_matching(self, players: list[str]) -> list[tuple[str, str]] | None:
        """A pairing of all of players (in order), or None."""
        if not players:
            return []
        if len(players) % 2:
            return None
        first, rest = players[0], players[1:]
        for i, b in enumerate(rest):
            if compatible(self.st, first, b):
                key = frozenset(rest[:i] + rest[i + 1 :])
                if self.memo.get(key) is False:
                    continue
                sub = self.one_matching(rest[:i] + rest[i + 1 :])
                self.memo[key] = sub is not None
                if sub is not None:
                    return [(first, b)] + sub
        return None


def dutch_candidates(
    bracket: list[str], p: int
) -> Iterator[tuple[list[tuple[str, str]], list[str]]]:
    """(pairs, floaters) of a bracket with p pairs, in the Dutch order: S1 = its top p, S2 the
    others; S2's transpositions; then one exchange between S1 and S2, the closest first."""
    splits = [(bracket[:p], bracket[p:])]
    n1 = list(range(p))
    n2 = list(range(p, len(bracket)))
    swaps = sorted(itertools.product(n1, n2), key=lambda ij: (ij[1] - ij[0], -ij[0]))
    for i, j in swaps:
        b = list(bracket)
        b[i], b[j] = b[j], b[i]
        s1 = sorted(b[:p], key=bracket.index)
        s2 = sorted(b[p:], key=bracket.index)
        splits.append((s1, s2))
    for s1, s2 in splits:
        for perm in itertools.permutations(s2):
            yield list(zip(s1, perm[:p])), list(perm[p:])


def valid_candidates(
    st: dict[str, State],
    matcher: Matcher,
    bracket: list[str],
    below: list[str],
    p: int,
    limit: int = MAX_TRIES,
) -> Iterator[tuple[list[tuple[str, str]], list[str]]]:
    """The bracket's candidates with p pairs that keep the absolute criteria and leave the
    players below pairable (C.4), in the Dutch order."""
    tries = 0
    for pairs, floaters in dutch_candidates(bracket, p):
        tries += 1
        if tries > limit:
            return
        if all(compatible(st, a, b) for a, b in pairs) and matcher.pairable(floaters + below):
            yield pairs, floaters


def most_pairs(st: dict[str, State], matcher: Matcher, bracket: list[str], below: list[str]) -> int:
    """How many pairs a bracket can make (C.7 looks one bracket ahead with it)."""
    for p in range(len(bracket) // 2, 0, -1):
        if next(valid_candidates(st, matcher, bracket, below, p, MAX_TRIES // 10), None):
            return p
    return 0


def pair_bracket(
    st: dict[str, State],
    matcher: Matcher,
    bracket: list[str],
    below: list[str],
    last: bool,
    next_group: Sequence[str] = (),
) -> tuple[list[tuple[str, str]], list[str]]:
    """(pairs, floaters) of one bracket; below: the players of the lower groups, next_group
    the first of them. Among the candidates with the most pairs (C.5), the best by: the
    downfloaters' scores, highest first, as low as can be (C.6); then the most pairs in the
    next bracket (C.7); then the fewest colour preferences not granted (C.10); then the Dutch
    order."""
    ahead = {}

    def key(pairs, floaters):
        fl = frozenset(floaters)
        if fl not in ahead:
            nxt = sorted(floaters, key=lambda q: (-st[q].points, st[q].rank)) + list(next_group)
            rest = [q for q in below if q not in next_group]
            ahead[fl] = most_pairs(st, matcher, nxt, rest) if floaters else 0
        return (
            sorted((st[q].points for q in floaters), reverse=True),
            -ahead[fl],
            sum(unhappy(st, a, b) for a, b in pairs),
        )

    for p in range(len(bracket) // 2, -1, -1):
        if last and 2 * p < len(bracket):
            break
        best = None
        for pairs, floaters in valid_candidates(st, matcher, bracket, below, p):
            k = key(pairs, floaters)
            if best is None or k < best[0]:
                best = (k, pairs, floaters)
                if not floaters and k[2] == 0:
                    break  # nothing can be better: the first such in the Dutch order
        if best is not None:
            return best[1], sorted(best[2], key=lambda q: (-st[q].points, st[q].rank))
    # Outside the Dutch order (a bracket bigger than MAX_TRIES allows): any pairing that completes.
    pairs = matcher.one_matching(bracket + below) if last else None
    if pairs is None:
        raise PairingError("no pairing of this round keeps the rules")
    return pairs, []


def swiss_round(
    seeds: Sequence[str], rounds: list[list[tuple[str, str | None, str | None]]]
) -> list[tuple[str, str | None]]:
    """The next round of a Swiss: [(south, north), ...] table 1 first, then (bye, None) if the
    field is odd. seeds: the players in pairing-number order; rounds: as states() reads them."""
    st = states(seeds, rounds)
    matcher = Matcher(st)
    order = sorted(seeds, key=lambda p: (-st[p].points, st[p].rank))
    bye = None
    if len(order) % 2:
        for p in sorted(order, key=lambda p: (st[p].points, -st[p].rank)):
            if not st[p].had_bye and matcher.pairable([q for q in order if q != p]):
                bye = p
                break
        if bye is None:
            raise PairingError("no player can take the bye without breaking the rules")
        order.remove(bye)
    if not matcher.pairable(order):
        raise PairingError("these players cannot all be paired again without a repeat")
    groups = [list(g) for _, g in itertools.groupby(order, key=lambda p: st[p].points)]
    pairs, floaters = [], []
    for i, group in enumerate(groups):
        below = [p for g in groups[i + 1 :] for p in g]
        got, floaters = pair_bracket(
            st,
            matcher,
            floaters + group,
            below,
            i == len(groups) - 1,
            groups[i + 1] if i + 1 < len(groups) else (),
        )
        pairs += got
    tables = [sides(st, a, b) for a, b in pairs]
    tables.sort(
        key=lambda t: (
            -max(st[t[0]].points, st[t[1]].points),
            -(st[t[0]].points + st[t[1]].points),
            min(st[t[0]].rank, st[t[1]].rank),
        )
    )
    return tables + ([(bye, None)] if bye is not None else [])


# -- standings ------------------------------------------------------------------------------
def standings(
    seeds: Sequence[str],
    rounds: list[list[tuple[str, str | None, str | None]]],
    system: str = "swiss",
) -> list[dict[str, Any]]:
    """[{player, rank, points, buchholz, sb, de, place}] best first. Games without a result are
    not counted."""
    st = states(seeds, rounds)
    pts = {p: st[p].points for p in seeds}
    met = {p: [] for p in seeds}  # (opponent, points scored) of the games with a result
    for rnd in rounds:
        for south, north, result in rnd:
            if north is not None and result in RESULTS:
                met[south].append((north, points_of(result, SOUTH)))
                met[north].append((south, points_of(result, NORTH)))
    rows = {
        p: {
            "player": p,
            "rank": st[p].rank,
            "points": pts[p],
            "buchholz": sum(pts[o] for o, _ in met[p]),
            "sb": sum(pts[o] * s for o, s in met[p]),
            "de": 0.0,
        }
        for p in seeds
    }
    before_de = ("points", "buchholz", "sb") if system == "swiss" else ("points",)
    for _, tied in itertools.groupby(
        sorted(seeds, key=lambda p: [-rows[p][k] for k in before_de]),
        key=lambda p: [rows[p][k] for k in before_de],
    ):
        tied = list(tied)
        if len(tied) > 1 and all(o in {x for x, _ in met[p]} for p in tied for o in tied if o != p):
            for p in tied:
                rows[p]["de"] = sum(s for o, s in met[p] if o in tied)
    keys = ("points", "buchholz", "sb", "de") if system == "swiss" else ("points", "de", "sb")
    out = sorted(rows.values(), key=lambda r: [-r[k] for k in keys] + [r["rank"]])
    for i, r in enumerate(out):
        same = i and all(r[k] == out[i - 1][k] for k in keys)
        r["place"] = out[i - 1]["place"] if same else i + 1
    return out
