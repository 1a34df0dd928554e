"""The library pieces the CAE experiments check Section 6's trends and the worked examples with:
`privlab.cae.trends`, `privlab.cae.examples` (`integer_steps`, `salary_table`) and
`privlab.cae.data.count_values`."""

import math

import numpy as np
import pandas as pd
import pytest

from privlab import cae
from privlab._validation import PrivlabError
from privlab.cae import trends
from privlab.cae.data import count_values
from privlab.cae.examples import integer_steps, salary_table
from privlab.stats import family_z


def _table(values, se=0.0, sk=(0,)):
    rows = [
        {"dataset": "d", "sk_size": s, "param": q, "H0": v, "H0_se": se, "area": v, "area_se": se}
        for s in sk
        for q, v in values.items()
    ]
    return pd.DataFrame(rows)


def test_drop_rounds_and_never_gives_minus_zero():
    s = pd.Series({0: 1.0000004, 2: 0.25})
    assert trends.drop(s, 0, 2, 6) == 0.75
    assert math.copysign(1.0, trends.drop(pd.Series({0: 0.1, 1: 0.1 + 1e-12}), 0, 1, 6)) == 1.0
    with pytest.raises(PrivlabError, match="decimals"):
        trends.drop(s, 0, 2, -1)


def test_rises_with_utility_flags_a_rise_beyond_the_family_limit():
    # sampling: utility grows with the fraction, so the measure must fall as the fraction grows
    good = _table({10: 3.0, 50: 2.0, 100: 1.0}, se=0.01)
    bad, k = trends.rises_with_utility(good, "H0", 1, alpha=0.01, float_tol=1e-9)
    assert bad == [] and k == pytest.approx(family_z(0.01, 2))
    wrong = _table({10: 1.0, 50: 2.0, 100: 3.0}, se=0.01)
    assert trends.rises_with_utility(wrong, "H0", 1, alpha=0.01, float_tol=1e-9)[0] == ["d SK=0"]
    # noise: utility falls with the amount, so the same table is now in order
    assert trends.rises_with_utility(wrong, "H0", -1, alpha=0.01, float_tol=1e-9)[0] == []
    # a tie within the family-wise limit passes
    tie = _table({10: 1.0, 50: 1.0 + 0.01, 100: 0.5}, se=0.01)
    assert trends.rises_with_utility(tie, "area", 1, alpha=0.01, float_tol=0.0)[0] == []
    with pytest.raises(PrivlabError, match="utility_sign"):
        trends.rises_with_utility(good, "H0", 0, alpha=0.01, float_tol=0.0)
    with pytest.raises(PrivlabError, match="missing"):
        trends.rises_with_utility(good.drop(columns="H0_se"), "H0", 1, alpha=0.01, float_tol=0.0)


def test_declines_with_sk():
    rows = [{"param": 1, "sk_size": s, "H0": h, "H0_se": 0.1} for s, h in enumerate([3.0, 2.0, 2.15, 1.0])]
    t = pd.DataFrame(rows)
    assert trends.declines_with_sk(t, k=2, float_tol=0.0)  # a step back of 0.15 <= 2 * 0.1
    assert not trends.declines_with_sk(t, k=1, float_tol=0.0)
    with pytest.raises(PrivlabError, match="k"):
        trends.declines_with_sk(t, k=-1, float_tol=0.0)


def test_difference_z():
    z, gap = trends.difference_z(10.0, 8.0, 0.3, 0.4)
    assert z == pytest.approx(4.0) and gap == pytest.approx(0.2)
    assert trends.difference_z(1.0, 2.0, 0.0, 0.0)[0] == -math.inf
    assert trends.difference_z(2.0, 2.0, 0.0, 0.0) == (0.0, 0.0)
    with pytest.raises(PrivlabError, match="se_a"):
        trends.difference_z(1.0, 2.0, -0.1, 0.0)


def test_integer_steps_of_the_appendix_example():
    x, p = [1, 3, 8, 9], [0.15, 0.10, 0.70, 0.05]
    t = integer_steps(x, p)
    assert list(t.columns) == ["eps", "H", "H_curve", "breakpoint", "H0", "area"]
    assert list(t.eps) == list(range(9))
    printed = {0: 1.319, 1: 1.054, 2: 0.811, 5: 0.811, 6: 0.61, 7: 0.286, 8: 0.0}  # the appendix
    for e, v in printed.items():
        assert t.H[e] == pytest.approx(v, abs=5e-3)
    assert np.allclose(t.H, t.H_curve)
    assert set(t.eps[t.breakpoint]) == {0, 1, 2, 5, 6, 7, 8}  # 0 and the pairwise differences of x
    H0, area = cae.cae(x, p)
    assert (t.H0 == H0).all() and (t.area == area).all()


def test_integer_steps_shows_the_printed_values_beside_the_dp():
    printed = {0: "1.319", 2: 0.811}
    t = integer_steps([1, 3, 8, 9], [0.15, 0.10, 0.70, 0.05], printed=printed)
    assert list(t.columns) == ["eps", "H", "H_curve", "breakpoint", "printed_H", "H0", "area"]
    assert t.printed_H[0] == 1.319 and t.printed_H[2] == 0.811 and t.printed_H.isna().sum() == len(t) - 2
    with pytest.raises(PrivlabError, match="printed must be a mapping"):
        integer_steps([1, 3], [0.5, 0.5], printed=[1.0])


def test_salary_table_is_salary_pair_of_each_example_per_breakpoint():
    examples = {"a": {"label": "A", "group": "g1", "maximum": 107_000, "average": 78_500}}
    examples["b"] = {"label": "B", "group": "g2", "maximum": 120_000, "average": 110_000}
    t = salary_table(examples, unit=1000)
    assert list(t.columns[:9]) == ["example", "label", "group", "eps", "H", "low", "high", "maximum", "average"]
    for ex, e in examples.items():
        r = cae.salary_pair(e["maximum"], e["average"], unit=1000)
        rows = t[t.example == ex]
        assert list(rows.eps) == list(r["eps"]) and list(rows.H) == list(r["H"])
        assert (rows.area == r["area"]).all() and (rows.other == r["other"]).all()
        assert (rows.maximum == e["maximum"] / 1000).all() and (rows.low == min(r["candidates"])).all()
    assert t[t.example == "a"].other.iloc[0] == 50.0  # 2 * 78.5 - 107
    with pytest.raises(PrivlabError, match="missing"):
        salary_table({"a": {"label": "A", "maximum": 1, "average": 1}})
    with pytest.raises(PrivlabError, match="unit must be in"):
        salary_table(examples, unit=0)


def test_count_values_is_table_2s_rule():
    assert count_values(10, 250, 10) == 25  # salary
    assert count_values(16, 84) == 69  # age
    assert count_values(1, 177, None) == 177  # travel time
    with pytest.raises(PrivlabError, match="rounding"):
        count_values(1, 2, 0)
    with pytest.raises(PrivlabError, match="high"):
        count_values(5, 1)
