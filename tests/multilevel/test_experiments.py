"""The multilevel experiments: the parameter contract, mechanisms from config, claims on small runs."""

from __future__ import annotations

import pytest

from privlab import PrivlabError, registry, runner


def run(exp_id, overrides, tmp_path):
    exp = registry.get(exp_id)
    cfg = runner.compose(exp_id, [*exp.smoke, *overrides, "cache=false"])
    table = runner.run_table(exp, cfg, runner.make_context(cfg, tmp_path, log=lambda m: None))
    return table, Verdicts((c.claim, c.verdict) for c in exp.check_claims(table, cfg))


class Verdicts(dict):
    """Claim text -> verdict, looked up by the claim's beginning (its "(where)" suffix left out)."""

    def __getitem__(self, start):
        (found,) = [v for k, v in self.items() if k.startswith(start)]
        return found

    def __contains__(self, start):
        return any(k.startswith(start) for k in self)


@pytest.mark.parametrize(
    "exp_id, override, word",
    [
        ("multilevel/agreement", "domain_size=200", "domain_size must be at most 107 (F holds s^4 int64 cells"),
        ("multilevel/fig5_collusion", "mc.trials=0", "mc.trials must be an integer in [1,"),
        ("multilevel/fig5_collusion", "mc.chunk=5000000000", "mc.chunk must be at most 100,000,000"),
        ("multilevel/fig5_collusion", "mc.kernel=naive", "mc.kernel must be one of multinomial, stratified, perturber"),
        ("multilevel/fig6_equivalence", "retention.b=1.5", "retention.b must be in (0, 1]"),
        ("multilevel/fig6_equivalence", "equivalence.uniform.recipient=Eve", "must be one of Alice, Bob, Charlie"),
        ("multilevel/fig5_collusion", "distributions.gaussian.sd=0", "distributions.gaussian.sd must be"),
        ("multilevel/fig7_independent", "pooled_ps=[0.3,1.0]", "pooled_ps[1] must be in (0, 1)"),
        ("multilevel/fig7_independent", "mc.chunk=10000000", "mc.chunk must be at most 1,000,000"),
        ("multilevel/fig8_overhead", "table_sizes=[1000000000]", "table_sizes[0] must be at most 100,000,000"),
        ("multilevel/formulas", "grid.domain_sizes=[20]", "grid.domain_sizes[0] must be at most 12"),
        ("multilevel/example", "domain_size=5000", "domain_size must be at most 100 (s^3 outcomes enumerated"),
        ("multilevel/priors", "distributions.salary.kind=zipf", "distributions.salary.kind must be one of"),
        ("multilevel/fig5_collusion_acs", "distributions.occupation.domain_size=1", "occupation.domain_size must be"),
    ],
)
def test_contract_refuses_at_compose_time(exp_id, override, word):
    with pytest.raises(PrivlabError) as info:
        runner.compose(exp_id, [override])
    assert word in str(info.value)
    assert "\n" not in str(info.value)


def test_shared_blocks_are_one_config():
    a, b = (runner.compose(f"multilevel/{e}") for e in ("fig5_collusion", "agreement"))
    for key in ("domain_size", "retention", "distributions", "mc"):
        assert a[key] == b[key]
    assert runner.compose("multilevel/fig5_collusion", profile="paper").mc.trials == 10**10


@pytest.mark.slow
def test_fig7_compares_the_configured_mechanisms(tmp_path):
    table, verdicts = run("multilevel/fig7_independent", [], tmp_path)
    assert list(dict.fromkeys(table.scheme)) == ["independent", "multi-pert"]
    assert verdicts["pooling independent copies raises the adversary's confidence beyond the best copy"] == "agree"
    assert verdicts["with multi-pert the confidence is that of the best copy for every k"] == "info"
    assert verdicts["MC confidence matches the exact expected posterior"] == "agree"
    # swapped: only multi-pert, same rows as in the comparison except the random stream
    alone, verdicts = run("multilevel/fig7_independent", ["mechanism=[multi_pert]"], tmp_path / "alone")
    assert set(alone.scheme) == {"multi-pert"}
    assert "pooling independent copies raises the adversary's confidence beyond the best copy" not in verdicts
    # relabelled: the statements follow the mechanism, not its label
    relabelled, verdicts = run("multilevel/fig7_independent", ["mechanism.uni_pert.label=naive"], tmp_path / "r")
    assert list(dict.fromkeys(relabelled.scheme)) == ["naive", "multi-pert"]
    assert verdicts["pooling independent copies raises the adversary's confidence beyond the best copy"] == "agree"


def test_fig8_claims_on_a_small_run(tmp_path):
    table, verdicts = run("multilevel/fig8_overhead", [], tmp_path)
    assert table.history_ms_per_release.isna().all()  # timings=false in the smoke overrides
    assert verdicts["Lemma 2: expected change points per tuple < ln(1/c)"] == "agree"
    assert verdicts["time per release O(n + log m): grows with n, not with m"] == "info"


@pytest.mark.slow
def test_mc_experiments_share_one_checkpoint(tmp_path):
    fig6, _ = run("multilevel/fig6_equivalence", ["~distributions.occupation"], tmp_path)
    before = sorted(p.name for p in (tmp_path / ".scratch").iterdir())
    assert len(before) == 3  # one per distribution
    fig5, verdicts = run("multilevel/fig5_collusion", ["~distributions.occupation"], tmp_path)
    assert sorted(p.name for p in (tmp_path / ".scratch").iterdir()) == before
    assert set(fig5.trials) == set(fig6.trials) == {200_000}
    assert verdicts["Theorem 1 (exact): Pr[X | Y_a, Y_b, Y_c] = Pr[X | Y_c] at the cells of Figure 5"] == "agree"


def test_acs_twins_use_the_real_laws():
    for name in ("fig5_collusion", "fig6_equivalence", "agreement", "priors"):
        assert registry.get(f"multilevel/{name}_acs").twin_of == f"multilevel/{name}"
    cfg = runner.compose("multilevel/fig5_collusion_acs")
    laws = cfg.distributions
    assert laws.uniform is None and laws.gaussian is None
    assert laws.salary.kind == "binned" and laws.salary.column == "PINCP" and "median" not in laws.salary
    assert laws.occupation.column == "INDP_CAT" and laws.occupation.domain_size == 20 and laws.occupation.missing == 19
    assert list(cfg.cells.occupation) == [6, 19, 16]  # [adapted] to s = 20
    assert runner.compose("multilevel/fig6_equivalence_acs").equivalence.occupation.x == 2
    assert runner.compose("multilevel/fig5_collusion").distributions.salary.kind == "lognormal"  # the original


@pytest.mark.slow
def test_fig6_twin_runs_on_the_real_laws(tmp_path):
    table, verdicts = run("multilevel/fig6_equivalence_acs", [], tmp_path)
    occupation = table[table.distribution == "occupation"]
    assert len(occupation) == 20 and set(occupation.x) == {2}
    assert verdicts["ACS twin"] == "info"
    assert verdicts["approximated Pr[Y=y|X=x] matches the theoretical values, occupation"] == "agree"


def test_priors_and_their_twin(tmp_path):
    table, verdicts = run("multilevel/priors", [], tmp_path)
    assert list(dict.fromkeys(table.distribution)) == ["uniform", "gaussian", "salary", "occupation"]
    assert verdicts["the laws of the sensitive value X"] == "info"  # the config's own panel list: true by construction
    assert verdicts["the values Figures 5-6 print for this law lie in its domain 1..s, gaussian"] == "agree"
    table, verdicts = run("multilevel/priors_acs", [], tmp_path)
    assert table.groupby("distribution").s.first().to_dict() == {"salary": 50, "occupation": 20}
    assert verdicts["the values Figures 5-6 print for this law lie in its domain 1..s, occupation"] == "info"
