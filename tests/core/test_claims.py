"""privlab.claims: every helper decides its verdict by its own comparison, both ways."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privlab import claims as cl


def test_printed_value_uses_the_printed_precision():
    assert cl.printed_value("x", 0.00201, printed="0.0020").verdict == "agree"  # 4 decimals kept by the string
    assert cl.printed_value("x", 0.00251, printed="0.0020").verdict == "disagree"
    assert cl.printed_value("x", 0.0031, printed=0.0020).verdict == "disagree"  # a float drops the trailing zero
    assert cl.decimals_of("0.0020") == 4 and cl.decimals_of("2.25") == 2 and cl.decimals_of("1e-3") == 3


@given(st.floats(-1e6, 1e6, allow_nan=False), st.integers(0, 6))
def test_printed_value_agrees_with_its_own_rounding(x, d):
    printed = f"{x:.{d}f}"
    assert cl.printed_value("x", x, printed=printed).verdict == "agree"
    assert cl.printed_value("x", x + 1.5 * 10.0 ** (-d), printed=printed).verdict == "disagree"


def test_item_from_a_printed_entry():
    item = {"claim": "sensitivity", "where": "Table II", "value": "2.25", "if_disagree": "a typo"}
    ok, bad = cl.printed_value(item, 2.251), cl.printed_value(item, 2.3)
    assert ok.claim == "sensitivity (Table II)" and ok.printed == "2.25" and ok.note == ""
    assert bad.verdict == "disagree" and bad.note == "a typo"
    one = cl.each({"claim": "noise", "values": ["1.0", "2.0"]}, "value 2", "2.0")
    assert cl.printed_value(one, 2.0).claim == "noise, value 2"


def test_within_se_and_deterministic_entries():
    est, exact, se = np.array([1.0, 2.1, 3.0]), np.array([1.0, 2.0, 3.0]), np.array([0.1, 0.1, 0.0])
    assert cl.within_se("mc", est, exact, se, k=2).verdict == "agree"
    assert cl.within_se("mc", est, exact, se, k=0.5).verdict == "disagree"
    assert cl.within_se("mc", [3.1], [3.0], [0.0], k=5).verdict == "disagree"  # se 0 demands equality
    assert cl.within_se("mc", [np.nan], [3.0], [1.0], k=5).verdict == "disagree"


def test_comparisons_go_both_ways():
    assert cl.at_most("a", 1.0, 1.0).verdict == "agree" and cl.at_most("a", 1.0, 1.0, strict=True).verdict == "disagree"
    assert cl.at_least("a", 2.0, 1.0).verdict == "agree" and cl.at_least("a", 0.5, 1.0).verdict == "disagree"
    assert cl.between("a", 0.5, 0, 1).verdict == "agree" and cl.between("a", 1.5, 0, 1).verdict == "disagree"
    assert cl.gof("a", 0.2, alpha=0.01).verdict == "agree" and cl.gof("a", 0.001, alpha=0.01).verdict == "disagree"
    assert cl.monotone("a", [1, 2, 3]).verdict == "agree" and cl.monotone("a", [1, 3, 2]).verdict == "disagree"
    assert cl.monotone("a", [1, 3, 2.9], tol=0.2).verdict == "agree"
    assert cl.monotone("a", [3, 2, 1], increasing=False).verdict == "agree"
    assert cl.equal("a", [1, 2], printed=[1, 2]).verdict == "agree"
    assert cl.equal("a", [1, 2], printed=[2, 1]).verdict == "disagree"


def test_statement_needs_a_computed_bool_and_info_a_reason():
    assert cl.statement("s", np.bool_(True), reproduced="yes", rule="r").verdict == "agree"
    with pytest.raises(TypeError):
        cl.statement("s", 1, reproduced="yes", rule="r")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="note"):
        cl.info("i", "42")
    assert cl.info("i", "42", note="not printed").verdict == "info"
    with pytest.raises(ValueError, match="verdict"):
        cl.Claim("c", "p", "r", "maybe")


def test_counts():
    claims = [cl.at_most("a", 1, 2), cl.at_most("b", 3, 2), cl.info("c", 1, note="n")]
    assert cl.counts(claims) == {"agree": 1, "disagree": 1, "inconclusive": 0, "info": 1}


def test_equivalence_decides_three_ways():
    from privlab.stats import equivalence, trials_to_decide

    # interval 0.01 +- 1.645 * 0.01 = [-0.006, 0.026] inside +-0.05: equivalent (TOST)
    assert equivalence(0.01, 0.01, 0.05).decision == "equivalent"
    # [0.084, 0.116] wholly beyond 0.05: a difference larger than the margin is shown
    assert equivalence(0.1, 0.01, 0.05).decision == "different"
    assert equivalence(-0.1, 0.01, 0.05).decision == "different"
    # [-0.154, 0.175]: straddles the margin, whatever the point estimate says
    assert equivalence(0.01, 0.1, 0.05).decision == "undecided"
    # deterministic values are their own interval
    assert equivalence(0.05, 0.0, 0.05).decision == "equivalent"
    assert equivalence(0.0500001, 0.0, 0.05).decision == "different"
    # room 0.04 for an interval of half-width 1.645 * 0.1: (1.645 * 0.1 / 0.04)^2 = 16.9 times the trials
    assert abs(trials_to_decide(0.01, 0.1, 0.05, 100) - 100 * (1.6448536 * 0.1 / 0.04) ** 2) < 1e-3


def test_coincide_is_inconclusive_until_its_interval_fits_the_margin():
    few = cl.coincide(
        "bars", [0.14, 0.3], [0.015, 0.3], [0.09, 0.01], margin=0.05, trials=17, decide_with="--profile paper"
    )
    assert few.verdict == "inconclusive"
    assert "needs >= " in few.note and "--profile paper" in few.note
    assert cl.coincide("bars", [0.31, 0.3], [0.3, 0.3], [0.005, 0.005], margin=0.05).verdict == "agree"
    assert cl.coincide("bars", [0.5, 0.3], [0.3, 0.3], [0.005, 0.005], margin=0.05).verdict == "disagree"
    # the exposed rule decides as the claim did, and flips at margin -+ z se
    c = cl.coincide("bars", [0.31], [0.3], [0.005], margin=0.05)
    assert c.comparison.decide(c.comparison.value) == "agree"
    assert c.comparison.decide(0.05) == "inconclusive" and c.comparison.decide(0.07) == "disagree"


def test_coincide_disagrees_only_beyond_the_margin_at_the_family_wise_level():
    """One of 50 values 2.3 s.e. past the margin is what chance gives among 50 (Figure 5's cells
    with 21 trials): beyond the margin at alpha, not at alpha / 50, so inconclusive; alone, or far
    enough past it, it disagrees."""
    se = np.full(50, 0.1)
    ref = np.full(50, 0.02)
    est = ref.copy()
    est[7] += 0.05 + 2.3 * 0.1  # z(0.05) = 1.64 < 2.3 < z(0.001) = 3.09
    many = cl.coincide("bars", est, ref, se, margin=0.05)
    assert many.verdict == "inconclusive" and "alpha/50" in many.rule
    assert cl.coincide("bars", est[7:8], ref[7:8], se[7:8], margin=0.05).verdict == "disagree"
    est[7] = ref[7] + 0.05 + 3.2 * 0.1
    assert cl.coincide("bars", est, ref, se, margin=0.05).verdict == "disagree"
    # the exposed flip points: agree below margin - z se, disagree above margin + z(alpha/50) se
    c = cl.coincide("bars", np.full(50, 0.02), ref, se / 100, margin=0.05)
    low, high = c.comparison.flips_at
    assert low == pytest.approx(0.05 - 1.6448536 * 0.001) and high == pytest.approx(0.05 + 3.0902323 * 0.001)


def test_differ_needs_its_interval_past_the_margin():
    assert cl.differ("higher", 0.2, 0.01, margin=0.1).verdict == "agree"
    assert cl.differ("higher", 0.05, 0.01, margin=0.1).verdict == "disagree"
    low = cl.differ("higher", 0.11, 0.05, margin=0.1, trials=1000)
    assert low.verdict == "inconclusive" and "1,000" not in low.note and "trials" in low.note
    assert cl.differ("higher", 0.11, 0.0, margin=0.1).verdict == "agree"  # deterministic


def test_inconclusive_says_what_would_decide_it():
    c = cl.inconclusive("grows", "2 points", why="2 values of n", needs=">= 3 values of n", rule="fitted slope")
    assert c.verdict == "inconclusive" and "needs >= 3 values of n" in c.note
    with pytest.raises(ValueError, match="decide"):
        cl.Claim("c", "p", "r", "inconclusive")


def test_fits_shows_a_table_close_to_its_law_or_says_it_needs_trials():
    dof, margin = 2499, 0.02
    near = cl.fits("follows", 2450.0, dof, 10**7, margin=margin, alpha=0.001, difference_alpha=1e-4)
    assert near.verdict == "agree" and "w <= " in near.reproduced
    few = cl.fits("follows", 2450.0, dof, 10**5, margin=margin, alpha=0.001, difference_alpha=1e-4, decide_with="mc")
    assert few.verdict == "inconclusive" and "needs >= " in few.note and ": mc" in few.note
    far = cl.fits("follows", 4000.0, dof, 10**7, margin=margin, alpha=0.001, difference_alpha=1e-4)
    assert far.verdict == "disagree"
    g = cl.fits("follows", 2450.0, dof, 10**7, margin=margin, alpha=0.001, difference_alpha=1e-4, other_p=1e-6)
    assert g.verdict == "disagree"
    # the exposed rule: the statistic flips to inconclusive at Wellek's bound, to disagree at the test's
    close_below, rejects_at = near.comparison.flips_at
    assert close_below > rejects_at  # at 10^7 trials the margin is wide: the difference test decides first
    assert near.comparison.decide(rejects_at * 1.001) == "disagree"
    assert few.comparison.decide(few.comparison.flips_at[0] * 0.999) == "agree"


def test_below_everywhere_needs_ranges_apart():
    at = ["n = 1", "n = 2"]
    assert cl.below_everywhere("faster", [1, 1], [2, 2], [3, 3], [4, 4], at=at).verdict == "agree"
    overlap = cl.below_everywhere("faster", [1, 1], [2, 3.5], [3, 3], [4, 4], at=at, decide_with="more repeats")
    assert overlap.verdict == "inconclusive" and "n = 2" in overlap.note and "more repeats" in overlap.note
    assert cl.below_everywhere("faster", [1, 5], [2, 6], [3, 3], [4, 4], at=at).verdict == "disagree"
    # single runs are their own ranges
    assert cl.below_everywhere("faster", [1, 2], [1, 2], [3, 3], [3, 3], at=at).verdict == "agree"
    c = cl.below_everywhere("faster", [1, 1], [2, 2], [3, 3], [4, 4], at=at).comparison
    assert c.value == -1.0 and c.decide(0.5) == "inconclusive" and c.decide(-0.5) == "agree"
