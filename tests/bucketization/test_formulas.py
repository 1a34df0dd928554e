"""The displayed formulas re-derived (privlab.bucketization.derivations): every case agrees with
the formula the config prints, and a deliberately altered formula (an operator flipped, a term
or factor dropped, sizes swapped) is caught as a mismatch."""

from __future__ import annotations

from functools import cache

import pytest

from privlab import PrivlabError
from privlab.bucketization import FORMULA_CASES, check_formula
from privlab.runner import compose


@cache
def printed() -> dict[str, str]:
    """The formulas as conf/experiment/bucketization/formulas.yaml prints them."""
    return {case: str(entry.value) for case, entry in compose("bucketization/formulas").printed.formulas.items()}


# one deliberate alteration per case
ALTERED = {
    "laplace_mean": "b",  # a term that is not there
    "laplace_variance": "b**2",  # factor 2 dropped
    "theorem1_dp": "exp(epsilon/2)",  # a bound the mechanism breaks
    "theorem2_mean": "(a2/a1)*(1 + b**2/a1**2)",  # factor 2 dropped
    "theorem2_variance": "(2*b**2/a1**2)*(1 - a2**2/a1**2)",  # operator flipped
    "theorem2_mean_exists": "finite",  # what the paper presumes: wrong
    "corollary24_mean": "2*a2/a1",
    "corollary24_variance": "b/a2",
    "mse_bucket": "s",  # the -1 dropped
    "mse_one_bucket": "1 + 1/n",  # operator flipped
    "loss_setting": "b1*S1 + b2*S2",  # the -1 terms dropped
    "lemma37": "f < F",  # strict instead of <=
    "lemma413_cond3": "ceiling(o/b) < F*S",
    "lemma413_cond4": "o <= b*ceiling(F*S)",  # ceiling for floor
    "smallest_size": "floor(1/F)",
    "remark38_l": "floor(1/F)",
    "eq8_step_b1": "lcm(S1, S2)/S2",  # sizes swapped
    "eq8_step_b2": "lcm(S1, S2)/S1",
    "eq9_last": "ceiling(b10*S1/lcm(S1, S2))",
    "list_length": "n/(S1*S2) + 1",  # gcd dropped
    "lemma524_loss_step": "(S1 - S2)/g",  # sign flipped
    "eq11_cutoff": "ceiling((L - loss0)/((S2 - S1)/gcd(S1, S2)))",  # the -1 dropped
    "lemma526_fc": "FC1 anti-monotone, FC2 monotone",  # directions swapped
    "lemma528_pc": "PC_u1 monotone, PC_u2 anti-monotone",
    "eq16_pc_step": "S2*floor(F*S1) >= S1*floor(F*S2)",  # sides swapped
    "sec6_fake_share": "k/(l + c + k)",  # operator flipped
    "sec6_certainty": "1/(2 + k)",
}


# where the paper is wrong: the printed formula must NOT match, the correction must
CORRECTED = {"theorem2_mean_exists": "infinite"}


def test_every_case_is_printed_in_config_and_altered_here():
    assert set(printed()) == set(FORMULA_CASES) == set(ALTERED)


@pytest.mark.parametrize("case", sorted(FORMULA_CASES))
def test_derivation_matches_the_printed_formula(case):
    found = check_formula(case, printed()[case])
    if case in CORRECTED:  # a finding: the paper's formula is wrong, privlab's correction holds
        assert not found.match and check_formula(case, CORRECTED[case]).match
        return
    assert found.match, f"{case}: printed {found.printed}, derived {found.derived}; {found.instance}"
    assert found.key == case and found.detail and found.derived


@pytest.mark.parametrize("case", sorted(FORMULA_CASES))
def test_an_altered_formula_is_caught(case):
    found = check_formula(case, ALTERED[case])
    assert not found.match, f"{case}: the altered formula {ALTERED[case]!r} passed"


def test_grid_cases_say_how_many_cases_they_tried_and_show_the_first_mismatch():
    found = check_formula("smallest_size", "floor(1/F)")
    assert found.instance.startswith("first mismatch: F = ") and found.detail.startswith("exhaustive grid (")
    assert check_formula("smallest_size", printed()["smallest_size"]).printed_value == 4.0  # ceil(1/0.3)


def test_equivalent_forms_still_match():
    # the comparison is symbolic, not textual
    assert check_formula("theorem2_mean", "a2*(a1**2 + 2*b**2)/a1**3").match
    assert check_formula("lemma413_cond4", "b*floor(S*F) >= o").match


@pytest.mark.parametrize(
    "case, printed, message",
    [
        ("no_such_case", "0", "case must be one of"),
        ("laplace_mean", "", "printed formula must be a non-empty formula"),
        ("laplace_mean", "2*(b", "sympy can read"),
        ("laplace_mean", "q*b", "unknown symbol\\(s\\) q"),
        ("lemma526_fc", "FC1 increasing", "printed must read like"),
        ("lemma526_fc", "FC3 monotone", "known here"),
    ],
)
def test_bad_cases_fail_in_one_line(case, printed, message):
    with pytest.raises(PrivlabError, match=message):
        check_formula(case, printed)
