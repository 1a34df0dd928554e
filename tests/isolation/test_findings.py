"""Slide 17's Case 1 (experiments/isolation/ledger.yaml, s17.case1_*), recomputed here by
simulation, independently of privlab's derivations: its distance argument needs a large enough c (the
talk's own condition), and its count argument depends on the split symbol the extraction lost."""

from __future__ import annotations

import math

import numpy as np

from privlab import ledger

ITEMS = {i.id: i for i in ledger.load("isolation") or []}


def needed_c(d: int, at_centre: bool, rng: np.random.Generator, n: int = 20_000) -> float:
    """The c with c E||q - x|| = diam(parent) = 2 sqrt(d); x uniform in a unit cell, q uniform or at its centre."""
    x = rng.uniform(0, 1, (n, d))
    q = np.full((n, d), 0.5) if at_centre else rng.uniform(0, 1, (n, d))
    return 2 * math.sqrt(d) / float(np.linalg.norm(q - x, axis=1).mean())


def test_case1_distance_holds_for_a_large_enough_c():
    # E||q - x|| <= sqrt(E||q - x||^2) = s sqrt(d/6) (q uniform) or s sqrt(d/12) (q at the centre), with equality
    # as d grows: Case 1 needs c > 2 sqrt(6) = 4.899, or 4 sqrt(3) = 6.928 for q at the centre. The talk asks
    # for "a large enough constant" c (slides 14, 18): such a c exists; slide 7's example c = 4 is too small
    rng = np.random.default_rng(17)
    for d in (10, 50, 200):
        uniform, centre = needed_c(d, False, rng), needed_c(d, True, rng)
        assert 2 * math.sqrt(6) - 0.01 < uniform < 2 * math.sqrt(6) * (1 + 0.5 / d) + 0.02
        assert 4 * math.sqrt(3) - 0.01 < centre < 4 * math.sqrt(3) * (1 + 0.5 / d) + 0.02
        assert uniform > 4 and centre > 4
    assert not ITEMS["s17.case1_distance"].finding  # not an error of the talk


def split_parents(points: np.ndarray, T: int, split_at_T: bool) -> list[int]:
    """The number of points in every cell that a recursive histogram of [-1, 1]^d splits, with the split
    rule 'split while >= T' (split_at_T) or 'split while > T'."""
    found = []

    def recurse(pts: np.ndarray, low: np.ndarray, side: float) -> None:
        if not (len(pts) >= T if split_at_T else len(pts) > T):
            return
        found.append(len(pts))
        half = side / 2
        upper = pts >= low + half
        for code in {tuple(row) for row in upper}:
            inside = np.all(upper == code, axis=1)
            recurse(pts[inside], low + half * np.array(code), half)

    recurse(points, np.full(points.shape[1], -1.0), 2.0)
    return found


def test_case1_count_depends_on_the_lost_split_symbol():
    # Case 1: a ball covering the parent of x's cell holds the parent's points, x among them. Slide 7 isolates
    # x when the ball holds fewer than T points other than x. With 'split while >= T' (privlab's reading of the
    # lost symbol) a split parent may hold exactly T points, T - 1 others: x isolated. With '> T' it holds at
    # least T + 1, so at least T others: x not isolated, as the slide concludes
    rng = np.random.default_rng(12)
    T = 3
    fewest = {True: [], False: []}
    for _ in range(200):
        pts = rng.uniform(-1, 1, (int(rng.integers(3, 12)), 2))
        for rule in (True, False):
            fewest[rule] += split_parents(pts, T, rule)
    assert min(fewest[True]) - 1 == T - 1 < T  # others in the ball: x can be isolated
    assert min(fewest[False]) - 1 >= T  # x never isolated
    assert ITEMS["s17.case1_count"].finding_kind == "unreproducible"
