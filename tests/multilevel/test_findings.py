"""The findings of multilevel's ledger (experiments/multilevel/ledger.yaml), recomputed here
by enumerating the joint law of the chain X -> Y_b -> Y_a, independently of privlab's derivations."""

from __future__ import annotations

import numpy as np
import pytest

from privlab import ledger

ITEMS = {i.id: i for i in ledger.load("multilevel") or []}
PA, PB, S = 0.4, 0.8, 10  # the derivation slide's p_a, p_b and a domain of s = 10 values


def uni_pert(p: float, s: int = S) -> np.ndarray:
    """Pr[Y = y | X = x] of uni-pert with retention p: an s x s matrix, rows x."""
    return p * np.eye(s) + (1 - p) / s


def joint() -> np.ndarray:
    """Pr[Y_b = y_b, Y_a = y_a | X = 0]: Y_b = uni-pert(X, p_b), Y_a = uni-pert(Y_b, p_a/p_b) (Lemma 1)."""
    return uni_pert(PB)[0][:, None] * uni_pert(PA / PB)


def printed_conditional(ya: int, yb: int, x: int = 0) -> float:
    """The slide's five cases of Pr[Y_b = y_b | Y_a = y_a, X = x], as printed."""
    q, s = PA / PB, S
    if ya == yb == x:
        return (PB + (1 - PB) / s) * (q + (1 - q) / s) / (PA + (1 - PA) / s)
    if ya == x != yb:
        return (1 - PB) * (1 - q) / (s**2 * (PA + (1 - PA) / s))
    if ya == yb != x:
        return (1 - PB) / (1 - PA) * (q + (1 - PA) / s)  # the third case as the seed prints it
    if x == yb != ya:
        return (1 - q) / (1 - PA) * (PB + (1 - PB) / s)
    return (1 - PB) * (1 - q) / (s * (1 - PA))


def test_the_third_case_and_its_consequences():
    j = joint()
    exact = j / j.sum(axis=0, keepdims=True)  # Pr[Y_b = y_b | Y_a = y_a, X = 0], columns y_a
    printed = np.array([[printed_conditional(ya, yb) for ya in range(S)] for yb in range(S)])
    wrong = np.abs(printed - exact) > 1e-12
    # only the third case (y_a = y_b != x) differs: 0.18667 printed, 0.18333 by Bayes' rule
    assert np.argwhere(wrong).tolist() == [[k, k] for k in range(1, S)]
    assert (round(printed[1, 1], 5), round(exact[1, 1], 5)) == (0.18667, 0.18333)
    # with it the cases given y_a != x sum to 1 + p_a (1 - p_b)^2 / (p_b s (1 - p_a)) = 1.00333, not 1
    assert printed[:, 1].sum() == pytest.approx(1 + PA * (1 - PB) ** 2 / (PB * S * (1 - PA)))
    assert round(printed[:, 1].sum(), 5) == 1.00333 and printed[:, 0].sum() == pytest.approx(1)
    # and Y_b is not uni-pert: Pr[Y_b = y | X = x] = sum over y_a of the conditional times Pr[Y_a = y_a | X = x]
    ya_given_x = uni_pert(PA)[0]
    assert round(printed[1] @ ya_given_x, 4) == 0.0202 and exact[1] @ ya_given_x == pytest.approx((1 - PB) / S)
    for key, text in (("der.cond_ab_not_x", "1-p_a/p_b"), ("der.cond_total", "1.00333")):
        assert text in ITEMS[key].corrected + ITEMS[key].printed


def test_alice_s_copy_is_averaged_over_in_the_hiv_example():
    # s = 10, Alice at 40%, Bob at 20% keeps Alice's value with 50%: Pr[Bob = HIV | X = HIV] = 0.28 is an
    # average over Alice's copy (HIV with 0.46); given her copy is HIV, Bob's is HIV with 0.55
    alice = uni_pert(0.4)[0]  # X = HIV = value 0
    bob_given_alice = uni_pert(0.5)
    assert alice[0] == pytest.approx(0.46) and bob_given_alice[0, 0] == pytest.approx(0.55)
    assert alice @ bob_given_alice[:, 0] == pytest.approx(0.28) == pytest.approx(uni_pert(0.2)[0, 0])
    assert "0.55" in ITEMS["ex.retained"].finding
