"""Warner (1965): the experiment unit. privlab finds it through the entry point ``warner`` of group
``privlab.papers`` (``pyproject.toml``); the experiments' ids are ``warner/<function name>``.

Beside this module: ``verdicts.py`` (what each claim compares), ``figures.py`` (the figure specs),
``conf/experiment/warner/`` (the parameters and what the paper prints), ``conf/study/warner/``,
``ledger.yaml`` and the committed references ``reference/{quick,paper,studies}``.
"""

from __future__ import annotations

import pandas as pd

from privlab.params import Int, List, Real
from privlab.registry import Paper, Tolerance, experiment
from privlab_warner import randomized_response as rr

from . import figures, verdicts

PAPER = Paper(
    "Warner - Randomized response: a survey technique for eliminating evasive answer bias",
    text="S. L. Warner, JASA 60(309):63-69, 1965, doi:10.1080/01621459.1965.10480775",
)

P = Real(0, 1, exclude=(0.5,))  # at p = 1/2 the answers say nothing of pi: the estimator divides by 2p - 1


@experiment(
    artifact="Variance of the estimate",
    summary="Warner's variance of pi_hat against the exact law of the yes answers, as p nears 1/2",
    keys=("n", "p"),
    params={
        "pi": Real(0, 1),
        "ns": List(Int(1, 10**5, limit="terms of the Binomial sums"), unique=True),
        "ps": List(P, min_len=2, unique=True),
        "claims": {"rtol": Real(0, 1e-3), "floor": Real(0, 0.25, low_open=True)},
    },
    smoke=("ns=[10]", "ps=[0.2,0.4,0.6,0.8]"),
)
def variance_exact(cfg, ctx):
    rows = []
    for n in cfg.ns:
        for p in cfg.ps:
            mean, exact = rr.exact_variance(cfg.pi, n, p)
            rows.append(
                {
                    "n": n,
                    "p": p,
                    "variance": rr.variance(cfg.pi, n, p),
                    "exact_variance": exact,
                    "exact_mean": mean,
                    "direct_variance": rr.variance(cfg.pi, n, 1.0),  # p = 1: the question asked directly
                }
            )
    return pd.DataFrame(rows)


variance_exact.judged_by(verdicts.variance_exact, pi="pi", limits="claims")


@experiment(
    artifact="Variance of the estimate (simulated surveys)",
    summary="Monte Carlo of whole surveys: the variance of pi_hat against p, beside Warner's",
    keys=("p",),
    tolerances={
        "mc_mean": Tolerance(se="mc_mean_se"),
        "mc_mean_se": Tolerance(rtol=0.2),
        "mc_variance": Tolerance(se="mc_variance_se"),
        "mc_variance_se": Tolerance(rtol=0.5),
    },
    params={
        "pi": Real(0, 1),
        "n": Int(1, 10**9),
        "ps": List(P, min_len=2, unique=True),
        "surveys": Int(4, 10**7, limit="estimates held in memory per p"),
        "claims": {"k": Real(0, low_open=True)},
    },
    figures={"variance_vs_p": figures.variance_vs_p},
    smoke=("surveys=400", "ps=[0.2,0.4,0.6,0.8]"),
)
def survey_mc(cfg, ctx):
    items = [(cfg.pi, cfg.n, p, cfg.surveys, ctx.seed_sequence("survey", p)) for p in cfg.ps]
    return pd.DataFrame(ctx.map(rr.survey_summary, items))


survey_mc.judged_by(verdicts.survey_mc, pi="pi", limits="claims")

__all__ = ["PAPER", "survey_mc", "variance_exact"]
