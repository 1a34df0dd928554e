"""Experiment.judged_by: an experiment's claims are a verdict function of the paper's library,
called with the config values the experiment names."""

from __future__ import annotations

import pytest
from omegaconf import OmegaConf

from privlab import claims as cl
from privlab.registry import Experiment

CFG = OmegaConf.create(
    {
        "printed": {"mean": {"claim": "the mean is one half", "where": "Table 1", "value": "0.5"}},
        "claims": {"z_max": 4.0},
        "dataset": {"name": "adult"},
        "columns": None,
    }
)


def _experiment() -> Experiment:
    return Experiment(id="toy/coins", run=lambda cfg, ctx: None, artifact="Table 1", summary="coins")


def test_judged_by_passes_printed_and_the_named_config_values():
    seen = {}

    def verdict(table, *, printed, limits, data, columns, n_rows):
        seen.update(limits=limits, data=data, columns=columns, n_rows=n_rows)
        return [cl.printed_value(printed.mean, table)]

    exp = _experiment()
    assert exp.judged_by(verdict, limits="claims", data="dataset.name", columns="columns", n_rows=len) is exp
    agree, disagree = exp.check_claims(0.5, CFG), exp.check_claims(0.7, CFG)
    assert [c.verdict for c in agree + disagree] == ["agree", "disagree"]
    assert seen == {"limits": CFG.claims, "data": "adult", "columns": None, "n_rows": len(CFG)}


def test_judged_by_names_a_config_key_that_is_not_there():
    exp = _experiment().judged_by(lambda table, **kw: [], limits="claim")
    with pytest.raises(KeyError, match="limits from the config key 'claim'"):
        exp.check_claims(0.5, CFG)
