"""The CAE experiments end to end: the worked example's table and verdicts, worker independence,
mechanism swaps and the parameter contract."""

import pandas as pd
import pytest

from privlab import PrivlabError, registry
from privlab.runner import compose, make_context, run_table


def _run(exp_id, overrides=(), tmp_path=None):
    exp = registry.get(exp_id)
    cfg = compose(exp_id, [*overrides, "cache=false"])
    return exp, cfg, run_table(exp, cfg, make_context(cfg, results_dir=tmp_path, log=lambda m: None))


def test_example_experiment_end_to_end():
    exp, cfg, df = _run("cae/example")
    assert df.H.tolist() == pytest.approx(
        [1.319035, 1.054016, 0.811278, 0.811278, 0.811278, 0.811278, 0.609840, 0.286397, 0.0], abs=1e-6
    )
    verdicts = {c.claim.split(" (")[0]: c.verdict for c in exp.check_claims(df, cfg)}
    assert verdicts.pop("H(eps) is maximised over all coverings") == "disagree"  # the problem statement's typo
    assert verdicts.pop("area A under H(eps)") == "info"  # not printed
    assert set(verdicts.values()) == {"agree"}


@pytest.mark.slow
def test_sdc_experiment_independent_of_workers(tmp_path):
    exp = registry.get("cae/fig2_query_restriction")
    tables = [_run(exp.id, [*exp.smoke, f"n_jobs={jobs}"], tmp_path)[2] for jobs in (1, 2)]
    pd.testing.assert_frame_equal(tables[0], tables[1])
    assert list(dict.fromkeys(tables[0].technique)) == ["query_restriction", "sampling"]
    assert (tables[0].artifact_violation == 0).all()
    assert tables[0].data.iloc[0] == "pums (SYNTHETIC, n=all, confidential=salary)"


def test_swapping_and_tuning_the_technique(tmp_path):
    exp, cfg, df = _run(
        "cae/fig2_noise",
        [
            "repetitions=2",
            "sk_sizes=[0,1]",
            "~datasets.adult",
            "mechanism=[sdc_sampling]",
            "mechanism.sdc_sampling.levels=[10,50]",
        ],
        tmp_path,
    )
    assert set(df.technique) == {"sampling"} and sorted(set(df.param)) == [10.0, 50.0]
    claims = exp.check_claims(df, cfg)
    assert any(c.claim.startswith("sampling H0: CAE rises") for c in claims)


@pytest.mark.parametrize(
    "overrides, message",
    [
        (["datasets.pums.dataset.name=nope"], "name must be one of"),
        (["+datasets.pums.dataset.rows=3"], "unknown parameter datasets.pums.dataset.rows"),
        (["repetitions=0"], "repetitions must be"),
        (["mechanism.sdc_query_restriction.levels=[3]"], "even"),
        (["+mechanism=lpb"], "sdc_technique"),
    ],
)
def test_bad_config_fails_in_one_line(overrides, message):
    with pytest.raises(PrivlabError, match=message):
        exp = registry.get("cae/fig2_query_restriction")
        cfg = compose(exp.id, overrides)
        make_context(cfg, log=lambda m: None).mechanisms(cfg.mechanism, kind="sdc_technique")
