"""The formula audit of seed 001 (privlab.multilevel.derivations, privlab.multilevel.examples): every
derivation against the printed formula, every checker catching a deliberately altered formula, the
worked HIV example by enumeration, and the tests the claims ledger (experiments/multilevel/ledger.yaml)
names."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privlab import PrivlabError, ledger, registry
from privlab import multilevel as ml
from privlab.multilevel import derivations as dv
from privlab.runner import compose, make_context, run_table

UNI = {"same": "p + (1 - p)/s", "other": "(1 - p)/s"}
COND = {  # the derivation slide, as printed
    "same": "(pb + (1 - pb)/s)*(pa/pb + (1 - pa/pb)/s)/(pa + (1 - pa)/s)",
    "a_is_x": "(1 - pb)*(1 - pa/pb)/(s**2*(pa + (1 - pa)/s))",
    "ab_not_x": "(1 - pb)/(1 - pa)*(pa/pb + (1 - pa)/s)",
    "b_is_x": "(1 - pa/pb)/(1 - pa)*(pb + (1 - pb)/s)",
    "other": "(1 - pb)*(1 - pa/pb)/(s*(1 - pa))",
}
UV = {
    "keep": "p/pl",
    "u_eq": "p/pl",
    "v_eq": "(1 - p/pl)*(1 - (1 - pr/p)/((s - 1)*pr/pl + 1))",
    "u_ne": "(p - pr)/(pl - pr)",
    "v_ne": "pr*(pl - p)/(p*(pl - pr))",
}
LAWS = {**UNI, "step_same": "p_i/p_prev + (1 - p_i/p_prev)/s", "step_other": "(1 - p_i/p_prev)/s", "bound": "log(1/c)"}
GRID = dv.grid([4, 2, 3], [[0.3, 0.1, 0.5], [0.2, 0.45, 0.7], [0.9, 0.6, 0.25]], 2, 4, seed=1)
NEAR = dv.neighbour_points(GRID)
PAIRS = [{"pa": 0.4, "pb": 0.8, "s": 10.0}] + [{"pa": q["pr"], "pb": q["p"], "s": q["s"]} for q in NEAR]
UV_POINTS = [{"p": 0.3, "pl": 0.5, "pr": 0.1, "s": 50.0}, *NEAR]


def _match(cases):
    return {c.key: c.match for c in cases}


def test_uni_pert_law_and_an_altered_one_is_caught():
    points = [{"p": 0.3, "s": 10.0}, {"p": 0.7, "s": 3.0}]
    assert set(_match(dv.uni_pert_cases(UNI, points)).values()) == {True}
    wrong = _match(dv.uni_pert_cases({"same": "p + (1 - p)/s", "other": "(1 + p)/s"}, points))  # sign flipped
    assert wrong == {"uni_pert_same": True, "uni_pert_other": False, "uni_pert_extremes": False}
    assert not _match(dv.uni_pert_cases({"same": "p", "other": "(1 - p)/s"}, points))["uni_pert_same"]  # term dropped


def test_chain_kernel_is_lemma1s_transition():
    same, other = dv.chain_kernel()
    s = dv.symbols()
    at = {s["pa"]: 0.3, s["pb"]: 0.6, s["s"]: 7}
    assert float(same.subs(at)) == pytest.approx(0.5 + 0.5 / 7)
    assert float(other.subs(at)) == pytest.approx(0.5 / 7)


@pytest.mark.slow
def test_conditional_cases_find_the_third_case():
    cases = {c.key: c for c in dv.conditional_cases(COND, PAIRS)}
    wrong = {"conditional_ab_not_x", "conditional_total", "conditional_requirements"}
    assert {k for k, c in cases.items() if not c.match} == wrong
    third = cases["conditional_ab_not_x"]  # p_a = 0.4, p_b = 0.8, s = 10
    assert (third.printed_value, third.derived_value) == pytest.approx((0.186667, 0.183333), abs=1e-6)
    assert cases["conditional_total"].printed_value == pytest.approx(1 + 0.4 * 0.2**2 / (0.8 * 10 * 0.6))
    fixed = {**COND, "ab_not_x": "(1 - pb)/(1 - pa)*(pa/pb + (1 - pa/pb)/s)"}  # the derived case
    assert set(_match(dv.conditional_cases(fixed, PAIRS)).values()) == {True}
    altered = {**COND, "other": "(1 - pb)*(1 - pa/pb)/(s*(1 + pa))"}  # an operator flipped
    assert not _match(dv.conditional_cases(altered, PAIRS))["conditional_other"]
    with pytest.raises(PrivlabError, match=r"^printed lacks the key\(s\) "):
        dv.conditional_cases({"same": COND["same"]}, PAIRS)


@pytest.mark.slow
def test_uv_solved_and_altered_formulas_are_caught():
    assert set(_match(dv.uv_cases(UV, UV_POINTS)).values()) == {True}
    assert not _match(dv.uv_cases({**UV, "u_ne": "(p - pr)/(pl + pr)"}, UV_POINTS))["uv_u_ne"]
    assert not _match(dv.uv_cases({**UV, "v_ne": "pr*(pl - p)/(pl*(pl - pr))"}, UV_POINTS))["uv_v_ne"]
    altered_v = {**UV, "v_eq": "(1 - p/pl)*(1 - (1 - pr/p)/((s + 1)*pr/pl + 1))"}  # (s - 1) -> (s + 1)
    assert not _match(dv.uv_cases(altered_v, UV_POINTS))["uv_sum_eq"]
    assert not _match(dv.uv_cases({**UV, "keep": "pl/p"}, UV_POINTS))["uv_keep"]
    # another split of the same u1 + v1 is as good; a split with v1 < 0 is not a law
    total = "(p/pl) + (1 - p/pl)*(1 - (1 - pr/p)/((s - 1)*pr/pl + 1))"
    other = _match(dv.uv_cases({**UV, "u_eq": "0", "v_eq": total}, UV_POINTS))
    assert other["uv_sum_eq"] and other["uv_split_eq"]
    assert not _match(dv.uv_cases({**UV, "u_eq": "1", "v_eq": f"{total} - 1"}, UV_POINTS))["uv_split_eq"]

    def wrong_uv(p, p_l, p_r, s):  # privlab's uv with v2 dropped
        u1, v1, u2, _ = ml.uv(p, p_l, p_r, s)
        return u1, v1, u2, 0.0

    assert not _match(dv.uv_cases(UV, UV_POINTS, uv=wrong_uv))["uv_privlab"]


def test_algorithm_joint_follows_the_text_and_matches_the_chain_law():
    prior = np.array([0.1, 0.2, 0.3, 0.4])
    for ps in ([0.3, 0.1, 0.5], [0.5, 0.3, 0.3, 1.0], [0.2, 0.9, 0.6, 0.4]):
        np.testing.assert_allclose(dv.algorithm_joint(prior, ps, 4), ml.exact_joint(prior, ps, 4), atol=1e-14)
    printed = dv.printed_uv(UV)
    np.testing.assert_allclose(
        dv.algorithm_joint(prior, [0.3, 0.1, 0.5], 4, printed), ml.exact_joint(prior, [0.3, 0.1, 0.5], 4), atol=1e-14
    )


def test_chain_checks_hold_and_catch_an_altered_uv():
    assert set(_match(dv.chain_cases(LAWS, GRID)).values()) == {True}

    def swapped(p, p_l, p_r, s):  # u2 and v2 exchanged: y_l and y_r swapped when they differ
        u1, v1, u2, v2 = ml.uv(p, p_l, p_r, s)
        return u1, v1, v2, u2

    found = _match(dv.chain_cases(LAWS, GRID, uv=swapped))
    assert not found["theorem1"] and not found["theorem2"] and not found["orders"]
    step = {**LAWS, "step_same": "p_i/p_prev + (1 - p_i/p_prev)/(s - 1)"}  # Lemma 1 altered
    assert not _match(dv.chain_cases(step, GRID))["lemma1_transition"]


def test_lemma2_bound_and_an_altered_bound():
    cases = {c.key: c for c in dv.lemma2_cases(LAWS, GRID, [0.1, 0.5], [2, 50, 500])}
    assert cases["lemma2_step"].match and cases["lemma2_bound"].match
    assert not {c.key: c.match for c in dv.lemma2_cases({**LAWS, "bound": "(1 - c)/2"}, GRID, [0.1], [100])}[
        "lemma2_bound"
    ]
    wrong = {**LAWS, "step_same": "p_i/p_prev"}  # the uniform draw's 1/s dropped
    assert not {c.key: c.match for c in dv.lemma2_cases(wrong, GRID, [0.1], [10])}["lemma2_step"]


def test_estimators_and_an_altered_one():
    assert set(_match(dv.estimator_cases(GRID)).values()) == {True}

    def biased(p, p_l, p_r, s):  # a copy drawn with a wrong u: the algorithm's law is no longer the chain's
        u1, v1, u2, v2 = ml.uv(p, p_l, p_r, s)
        return u1, v1, 0.5 * u2, v2

    assert not all(_match(dv.estimator_cases(GRID, uv=biased)).values())


def test_theorem2_index():
    symbols = {"n": "The cardinality of D", "m": "The size of H", "H": "The set of recipients"}
    case = dv.index_case("1 <= i <= n", "n", symbols)
    assert not case.match and case.derived == "1 <= i <= m"
    assert dv.index_case("1 <= i <= m", "m", symbols).match
    with pytest.raises(PrivlabError, match="exactly one symbol"):
        dv.index_case("1 <= i <= n", "n", {"n": "The cardinality of D"})


def test_printed_formulas_are_parsed_or_refused_in_one_line():
    with pytest.raises(PrivlabError, match="unknown symbol"):
        dv.uni_pert_cases({"same": "q + (1 - p)/s", "other": "(1 - p)/s"}, [{"p": 0.3, "s": 10.0}])
    with pytest.raises(PrivlabError, match="sympy can read"):
        dv.uni_pert_cases({"same": "p + (", "other": "(1 - p)/s"}, [{"p": 0.3, "s": 10.0}])
    with pytest.raises(PrivlabError, match="grid is empty"):
        dv.grid([], [], 0, 3)


def test_hiv_example_by_enumeration():
    found = ml.hiv_example(10, 0.4, 0.2)
    want = {"ratio": 0.5, "alice_hiv": 0.46, "case1": 0.23, "case2": 0.023, "case3": 0.027, "total": 0.28}
    assert found == pytest.approx({**want, "uni_pert": 0.28, "given_alice_hiv": 0.55})
    assert found["total"] == pytest.approx(ml.copy_given_x(np.full(10, 0.1), [0.4, 0.2], 10, 1)[0, 0])
    assert ml.hiv_requirement3(5, 0.4, 0.2, prior=[0.1, 0.2, 0.3, 0.2, 0.2]) == 0.0
    pair = ml.independent_pair(10, 0.4, 0.4)
    assert pair["both_given_not"] == pytest.approx(0.06**2)
    assert pair["posterior_both"] == pytest.approx(0.46**2 / (0.46**2 + 9 * 0.06**2))
    assert pair["multi_posterior_both"] == pytest.approx(pair["posterior_one"]) == pytest.approx(0.46)
    assert ml.arithmetic("(1 - 0.46) * 0.5 * 0.1") == pytest.approx(0.027)
    with pytest.raises(PrivlabError, match="arithmetic on numbers"):
        ml.arithmetic("0.46 * p")
    with pytest.raises(PrivlabError, match="must not have the higher p"):
        ml.hiv_example(10, 0.2, 0.4)


def _run(exp_id, overrides=()):
    exp = registry.get(exp_id)
    cfg = compose(exp_id, [*overrides, "cache=false"])
    df = run_table(exp, cfg, make_context(cfg, log=lambda m: None))
    return df, exp.check_claims(df, cfg)


@pytest.mark.slow
def test_formulas_experiment_finds_the_slides_errors():
    df, claims = _run("multilevel/formulas", registry.get("multilevel/formulas").smoke)
    wrong = {"conditional_ab_not_x", "conditional_total", "conditional_requirements", "theorem2_index"}
    assert set(df.key[~df.match]) == wrong
    by_ledger: dict[str, set[str]] = {}
    for c in claims:
        by_ledger.setdefault(c.ledger, set()).add(c.verdict)
    assert by_ledger["der.cond_ab_not_x"] == by_ledger["theorem2.index"] == {"disagree"}
    assert by_ledger["eq3.u"] == by_ledger["eq4.v"] == by_ledger["lemma1"] == by_ledger["theorem1"] == {"agree"}
    assert all(c.ledger for c in claims)


def test_example_experiment_recomputes_every_printed_number():
    df, claims = _run("multilevel/example")
    verdicts = {c.ledger: c.verdict for c in claims if c.ledger != "ex.case1"}
    assert verdicts.pop("ex.retained") == "disagree"  # 0.55 given Alice's copy is HIV, not 0.28
    assert set(verdicts.values()) == {"agree"}
    row = df.set_index("key")
    assert row.loc["case3", "printed"] == "0.027" and math.isclose(row.loc["case3", "enumerated"], 0.027)


@pytest.mark.slow
def test_every_ledger_item_is_well_formed_and_named_claims_exist():
    items = ledger.load("multilevel")
    assert items is not None and len(items) >= 60
    ids = {i.id for i in items}
    for exp in registry.select(paper="multilevel"):
        for lid in ledger.references(compose(exp.id)):
            assert lid in ids, f"{exp.id} points at {lid!r}, not in the ledger"
    root = registry.papers()["multilevel"].root
    for item in items:
        for ref in item.checked_by:
            if ref.startswith("test:"):
                assert ledger.test_exists(ref, root), ref
            else:
                assert ref in {e.id for e in registry.select(paper="multilevel")}, ref


def test_example_table_holds_every_printed_number_and_the_unprinted_values():
    numbers = {
        "ratio": {"expression": "0.2/0.4", "value": "0.50"},
        "case3": {"expression": "0.54*0.5*0.1", "value": "0.027"},
    }
    df = ml.example_table(numbers, 10, 0.4, 0.2, 10, [0.4, 0.4])
    row = df.set_index("key")
    assert list(df.key[:2]) == ["ratio", "case3"] and row.loc["case3", "slide_arithmetic"] == pytest.approx(0.027)
    assert row.loc["ratio", "enumerated"] == pytest.approx(0.5) and row.loc["requirement3", "printed"] == ""
    assert row.loc["both_given_not", "enumerated"] == pytest.approx(0.36 * 0.06 * 0.06 / 0.36)
    with pytest.raises(PrivlabError, match="numbers.typo must name an enumerated value"):
        ml.example_table({"typo": {"expression": "1", "value": "1"}}, 10, 0.4, 0.2, 10, [0.4, 0.4])


@pytest.mark.slow
def test_formula_table_audits_every_printed_formula():
    exp = registry.get("multilevel/formulas")
    cfg = compose(exp.id, list(exp.smoke))
    df = dv.formula_table(cfg.printed.formulas, cfg.instance, cfg.grid, cfg.lemma2, tol=cfg.claims.tol)
    assert list(df.columns[:2]) == ["key", "printed"] and df.key.is_unique
    assert set(df.key) <= set(cfg.printed) and "theorem2_index" in set(df.key[~df.match])
    altered = {**cfg.printed.formulas, "uni_pert": {**cfg.printed.formulas.uni_pert, "other": "(1 - p)/(s + 1)"}}
    again = dv.formula_table(altered, cfg.instance, cfg.grid, cfg.lemma2, tol=cfg.claims.tol).set_index("key")
    assert not again.loc["uni_pert_other", "match"]
