"""What the isolation experiments share: the parameter contract pieces and the row helpers."""

from __future__ import annotations

from privlab import isolation as iso
from privlab.params import Int, Real
from privlab.registry import Tolerance

N = Int(2, 10**6, limit="points of RDB held in memory")
M = Int(1, 10**6, limit="adversary outputs held in memory")
T_ = Int(1, 10**6, limit="a crowd of at most the points held")
C, DIM = Real(1), Int(1, 1000, limit="coordinates per point")
POS, PROB = Real(0, low_open=True), Real(0, 1)
ATTACK = {"n": N, "T": T_, "c": C, "m": M}  # the RDB size, the privacy parameters and the targets
RATE_TOL = {
    "rate": Tolerance(atol=0.003, se="rate_se", k=5),
    "rate_any": Tolerance(atol=0.003, se="rate_any_se", k=5),
    "successes": Tolerance(ignore=True),
    "successes_any": Tolerance(ignore=True),
    "wilson_upper": Tolerance(atol=0.003, rtol=0.5),
    "noise_ratio_mean": Tolerance(se="noise_ratio_se", k=5),
}


def _sanitizers(cfg, ctx) -> list[tuple[str, iso.Sanitizer]]:
    """The configured sanitizers as (label, sanitizer), in config order."""
    return [(m.label, m.impl) for m in ctx.mechanisms(cfg.mechanism, kind="sanitizer").values()]


def _seeds(ctx, sanitizers, *key) -> dict:
    return {name: ctx.seed_sequence(*key, name) for name in iso.seed_names(s for _, s in sanitizers)}


def _rows(task) -> list[dict]:
    """The worker of every experiment: a library engine's rows, with the cell's labels around them."""
    engine, head, kw, tail = task
    return [{**head, **r, **tail} for r in engine(**kw)]


def _about(subject, entry) -> dict:
    """A printed entry about one subject (a sanitizer's label, or a printed row of the talk's
    table, whose where and value it inherits): the subject's name in front of its claim."""
    base = {"claim": subject} if isinstance(subject, str) else dict(subject)
    return {**base, **entry, "claim": f"{base['claim']}: {entry.claim}"}
