"""Glicko-2, as Mark Glickman's "Example of the Glicko-2 system" (2013) gives it, step by step.

Why Glicko-2 and not OpenSkill: our games are all two-player, Glicko-2 is a page of arithmetic
with a published worked example to test against (tests/test_club_ratings.py), and a rating's
deviation (RD) says how sure it is, which is what marks a rating provisional. No dependency.
"""

from __future__ import annotations

import math

SCALE = 173.7178
TAU = 0.5  # the system constant: how fast volatility may change
EPSILON = 0.000001  # the convergence tolerance of step 5


class Rating:
    __slots__ = ("r", "rd", "sigma")

    def __init__(self, r: float = 1500.0, rd: float = 350.0, sigma: float = 0.06) -> None:
        self.r, self.rd, self.sigma = r, rd, sigma

    def __repr__(self) -> str:
        return "Rating(%.2f, %.2f, %.5f)" % (self.r, self.rd, self.sigma)


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(player: Rating, games: list[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The player's Rating after one rating period. games: [(opponent Rating, score)] with
    score 1 a win, 0.5 a draw, 0 a loss; the opponents' ratings are as before the period."""
    mu = (player.r - 1500.0) / SCALE
    phi = player.rd / SCALE
    sigma = player.sigma
    if not games:
        # Step 6 alone: a player who did not play becomes less certain.
        return Rating(player.r, SCALE * math.sqrt(phi * phi + sigma * sigma), sigma)
    v_inv = 0.0
    total = 0.0
    for opp, score in games:
        mu_j = (opp.r - 1500.0) / SCALE
        phi_j = opp.rd / SCALE
        g = _g(phi_j)
        e = _e(mu, mu_j, phi_j)
        v_inv += g * g * e * (1.0 - e)
        total += g * (score - e)
    v = 1.0 / v_inv
    delta = v * total
    # Step 5: the new volatility, by the Illinois algorithm.
    a = math.log(sigma * sigma)

    def f(x):
        ex = math.exp(x)
        d = phi * phi + v + ex
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)

    A = a
    if delta * delta > phi * phi + v:
        B = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        B = a - k * tau
    fa, fb = f(A), f(B)
    while abs(B - A) > EPSILON:
        C = A + (A - B) * fa / (fb - fa)
        fc = f(C)
        if fc * fb <= 0:
            A, fa = B, fb
        else:
            fa /= 2.0
        B, fb = C, fc
    sigma2 = math.exp(A / 2.0)
    phi_star = math.sqrt(phi * phi + sigma2 * sigma2)
    phi2 = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu2 = mu + phi2 * phi2 * total
    return Rating(SCALE * mu2 + 1500.0, SCALE * phi2, sigma2)
