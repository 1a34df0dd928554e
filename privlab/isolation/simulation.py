"""Monte Carlo engines of the isolation experiments: sanitize, attack, count isolations.

`attack` runs every sanitizer's adversaries against one real database and tabulates how
often their outputs (c, T)-isolate the targets (one target per adversary output, drawn
uniformly from the database), beside how often they isolate *anyone*. `cube_attack`
draws the database from the uniform cube first (the talk's setting), `holdout_attack`
splits a real data set into the database and draws from D for the aux-only baseline, and
`bad_sanitizer_rows` sweeps the bad sanitizer over the number of disguised attributes.

Every random stream comes from ``seeds``, one SeedSequence per name (`seed_names`), so a
cell's rows do not depend on which other cells run or in what order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .._validation import PrivlabError, check_array, check_int, check_real
from ..datasets.simulated import uniform_cube
from .mechanisms import BadSanitizer, Sanitizer, Seeds
from .metric import distance_index, isolation_mask, isolation_masks
from .rates import BEST, rate_columns

__all__ = ["SEED_NAMES", "seed_names", "attack", "cube_attack", "holdout_attack", "bad_sanitizer_rows"]

# the streams of the engines themselves: the database, draws from D, the targets, and (for
# the utility engine) its k-means and boxes; each sanitizer adds its own
SEED_NAMES = ("db", "aux", "targets", "hist_adv", "perturb", "hp", "hp_adv")


def seed_names(sanitizers: Iterable[Sanitizer]) -> tuple[str, ...]:
    """Every stream name the engines and ``sanitizers`` draw from, each once."""
    return tuple(dict.fromkeys([*SEED_NAMES, *(name for s in sanitizers for name in s.seed_names)]))


def attack(
    db: Any,
    T: int,
    cs: Sequence[float],
    m: int,
    seeds: Seeds,
    sanitizers: Sequence[tuple[str, Sanitizer]],
    *,
    aux: Any = None,
    low: float = -1.0,
    high: float = 1.0,
    m_any: int | None = None,
) -> list[dict[str, Any]]:
    """Rows of isolation rates for every sanitizer and adversary on one real database.

    Parameters
    ----------
    db : array (n, d) inside [low, high]^d
        The real database RDB.
    T : int
        Privacy parameter of the sanitizers and of the isolation test.
    cs : sequence of float >= 1
        Ball factors; the adversaries' outputs do not depend on c, so every c reuses them.
    m : int >= 1
        Targets (uniform rows of db, stream ``targets``), one adversary output each.
    seeds : mapping
        ``targets`` and each sanitizer's streams.
    sanitizers : sequence of (label, Sanitizer)
        Labels become the ``sanitizer`` column.
    aux : array or None
        Draws from the data distribution, for sanitizers with ``needs_aux``.
    low, high : float
        The box of the data.
    m_any : int or None
        Ask the natural adversaries whether they isolate *anyone* for their first ``m_any``
        outputs only (a nearest neighbour scans all of db; the targeted test rarely does);
        the rows then carry ``trials_any``. None: every output, no ``trials_any`` column.

    Returns
    -------
    list of dict
        Per c: a row per (sanitizer, adversary) with `rate_columns` (the natural adversaries
        also with the rate of isolating anyone) and the sanitizer's extra columns; then a
        ``best_of_above`` row per sanitizer with several adversaries (a target counts when
        any of them isolates it).
    """
    db = check_array("db", db, ndim=2)
    m = check_int("m", m, low=1)
    cs = [check_real("c", c, low=1) for c in cs]
    if m_any is not None:
        m_any = check_int("m_any", m_any, low=1)
    targets = np.random.default_rng(seeds["targets"]).integers(db.shape[0], size=m)
    index = distance_index(db)  # prepared once for the sanitizers, every adversary and c
    setting = {"T": T, "low": low, "high": high, "aux": aux, "index": index}
    # one sanitizer's outputs held at a time: each is asked at every c, and only its masks are kept
    runs = []  # (label, per c: [(adversary, mask, any_mask)], extra columns)
    for label, san in sanitizers:
        run = san.with_setting(**setting).attack(db, targets, seeds)
        per_c = []
        for c in cs:
            found = []
            for out in run.outputs:
                mask, any_mask = isolation_masks(
                    out.queries, targets, db, c, T, anyone=out.natural, m_any=m_any, index=index
                )
                assert mask is not None
                found.append((out.name, mask, any_mask))
            per_c.append(found)
        runs.append((label, per_c, run.extra))
    rows = []
    for k, c in enumerate(cs):
        for label, per_c, extra in runs:
            for name, mask, any_mask in per_c[k]:
                cols = rate_columns(mask, any_mask, trials_any=m_any is not None)
                rows.append({"c": float(c), "sanitizer": label, "adversary": name, **cols, **extra})
        for label, per_c, extra in runs:
            if len(per_c[k]) > 1:  # a target counts when any of the sanitizer's adversaries isolates it
                best = np.logical_or.reduce([mask for _, mask, _ in per_c[k]])
                cols = rate_columns(best, trials_any=m_any is not None)
                rows.append({"c": float(c), "sanitizer": label, "adversary": BEST, **cols, **extra})
    return rows


def cube_attack(
    n: int,
    d: int,
    T: int,
    cs: Sequence[float],
    m: int,
    seeds: Seeds,
    sanitizers: Sequence[tuple[str, Sanitizer]],
    *,
    m_any: int | None = None,
) -> list[dict[str, Any]]:
    """`attack` on ``n`` fresh points of the uniform cube [-1, 1]^d (stream ``db``), the aux-only
    baseline drawing ``m`` more (stream ``aux``). Sanitizers that cannot release at this T
    (``min_T``: a histogram cannot bring cells below one point) are left out."""
    usable = [(label, s) for label, s in sanitizers if T >= s.min_T]
    db = uniform_cube(n, d, seeds["db"])
    aux = uniform_cube(m, d, seeds["aux"]) if any(s.needs_aux for _, s in usable) else None
    return attack(db, T, cs, m, seeds, usable, aux=aux, m_any=m_any)


def holdout_attack(
    X: Any, T: int, c: float, m: int, seeds: Seeds, sanitizers: Sequence[tuple[str, Sanitizer]]
) -> list[dict[str, Any]]:
    """`attack` on a real data set in [-1, 1]^d: a random ``m`` rows (stream ``db``) are held out
    as the aux-only adversary's draws from D (records not in RDB), the rest is RDB.

    Returns
    -------
    list of dict, each starting with ``n`` (the rows of RDB) and ``d``.
    """
    X = check_array("X", X, ndim=2)
    m = check_int("m", m, low=1, high=X.shape[0] - 2)
    perm = np.random.default_rng(seeds["db"]).permutation(X.shape[0])
    n_db = X.shape[0] - m
    db, holdout = X[perm[:n_db]], X[perm[n_db:]]
    rows = attack(db, T, [c], m, seeds, sanitizers, aux=holdout)
    return [{"n": n_db, "d": X.shape[1], **r} for r in rows]


def bad_sanitizer_rows(
    n: int, d: int, T: int, c: float, m: int, stretch: float, disclosed: int, seeds: Seeds
) -> list[dict[str, Any]]:
    """The bad sanitizer with ``disclosed`` attributes exact and the other ``d - disclosed``
    disguised, on the uniform cube with the disguised attributes multiplied by ``stretch``
    (how much they dominate distances: "disguise one attribute extremely well").

    Returns
    -------
    list of dict: per adversary (released row, column midpoint) its `rate_columns` at (c, T)
    and the exact-column check.
    """
    d = check_int("d", d, low=1)
    disclosed = check_int("disclosed", disclosed, low=0, high=d - 1)
    stretch = check_real("stretch", stretch, low=0, low_open=True)
    db = uniform_cube(n, d, seeds["db"])
    db[:, disclosed:] *= stretch
    targets = np.random.default_rng(seeds["targets"]).integers(n, size=check_int("m", m, low=1))
    run = BadSanitizer(disguised=d - disclosed, T=T).attack(db, targets, seeds)
    rows = []
    for out in run.outputs:
        if out.queries.shape[0] != targets.size:
            raise PrivlabError(f"adversary {out.name} must output one point per target")
        mask = isolation_mask(out.queries, targets, db, c, T)
        head = {"stretch": stretch, "disclosed": disclosed, "fraction_disclosed": disclosed / d, "adversary": out.name}
        rows.append({**head, **rate_columns(mask), **run.extra})
    return rows
