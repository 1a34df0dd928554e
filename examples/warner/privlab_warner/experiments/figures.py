"""Warner's figure: the variance of the estimate against the design probability p."""

from __future__ import annotations

from typing import Any

import pandas as pd

from privlab.figures import Axis, FigureSpec, Interval, Layer, Panel, Reference, figure, style_map

SIDES = ("simulated, p < 1/2", "simulated, p > 1/2")  # two series: no line crosses p = 1/2, where Var is infinite


@figure(ledger=("stmt.unbounded", "eq.variance"), about="privlab's figure of the variance (Warner prints none)")
def variance_vs_p(table: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """The simulated variance of pi_hat (points, ±2 s.e.) and Warner's (dotted) against p, each side
    of p = 1/2 a series of its own, beside the variance of the direct question."""
    panel = Panel(
        table.assign(series=[SIDES[p > 0.5] for p in table.p]),
        "p",
        Axis("probability p that the device shows 'I am a member of A'"),
        Axis("variance of the estimate π̂", scale="log"),
        (
            Layer("mc_variance", kind="points", interval=Interval("se", se="mc_variance_se", k=2)),
            Layer("variance", name="Warner: π(1 − π)/n + p(1 − p)/(n(2p − 1)²)", linestyle=":", marker=""),
        ),
        references=(
            Reference("direct question: π(1 − π)/n", y=float(table.direct_variance.iloc[0]), linestyle="--"),
            Reference("p = 1/2: no information", x=0.5, vertical=True, color="0.55", linestyle="-."),
        ),
    )
    n = "" if cfg is None else f", n = {cfg.n}, π = {cfg.pi:g}"
    title = f"Randomized response: the price of privacy{n}"
    return FigureSpec(title, (panel,), style_map(SIDES), notes=("points: simulated surveys, ±2 s.e.",))
