"""Anatomy, the paper's baseline: its groups, its eligibility and the l needed for each theta."""

from __future__ import annotations

import numpy as np
import pytest

from privlab._validation import PrivlabError
from privlab.bucketization import anatomy, check_bucketization, fprivacy, l_diversity_eligible, l_needed, required_l


def test_anatomy_eligible_groups():
    rng = np.random.default_rng(2)
    sa = rng.choice(10, 997)
    res = anatomy(sa, 4, seed=1)
    assert res.eligible
    sizes = np.bincount(res.groups)
    assert set(sizes) <= {4, 5} and sizes.size == 997 // 4
    assert check_bucketization(sa, res.groups, np.full(10, 1 / 4)).ok
    assert res.loss == 997 - 997 // 4


def test_anatomy_ineligible_reports_size_loss():
    sa = np.array([0] * 60 + list(range(1, 41)))
    res = anatomy(sa, 3)
    assert not res.eligible and res.groups is None and res.loss == 100 - 33
    assert required_l([0.5, 0.3, 0.07]) == 15


def test_l_diversity_eligibility():
    # Remark 3.8: l-diversity needs every f_i <= 1/l
    assert l_diversity_eligible([0.5, 0.3, 0.2], 2)
    assert not l_diversity_eligible([0.5, 0.3, 0.2], 3)
    with pytest.raises(PrivlabError, match="l must be"):
        l_diversity_eligible([0.5, 0.5], 0)


def test_l_needed_by_hand():
    # F = min(1, theta f + b): theta = 1 gives min F = 0.12 -> l = 9; theta = 4 gives 0.42 -> l = 3;
    # neither is eligible (f_max = 0.6 > 1/3)
    rows = l_needed([0.6, 0.3, 0.1], [1, 4], offset=0.02)
    assert [r["l"] for r in rows] == [9, 3] and not any(r["eligible"] for r in rows)
    assert rows[0]["F_min"] == pytest.approx(0.12) and rows[1]["f_max"] == pytest.approx(0.6)
    # uniform frequencies 1/4 with F = 1/2: l = 2, eligible
    (row,) = l_needed([0.25] * 4, [2], offset=0.0)
    assert row["l"] == 2 and row["eligible"]
    assert row["F_min"] == fprivacy([0.25] * 4, 2, 0.0).min()


def test_l_needed_matches_the_published_census_statements():
    # Section 7.1 with the published frequency ranges (OCC 0.18%..7.5%, EDU 0.44%..27.3%) and b = 0.02:
    # l-diversity is eligible on OCC only at theta = 32, on EDU never
    for lo, hi, eligible in ((0.0018, 0.075, [32]), (0.0044, 0.273, [])):
        f = np.array([hi, lo] + [(1 - hi - lo) / 48] * 48)  # the rest spread between lo and hi
        rows = l_needed(f, [2, 4, 8, 16, 32], offset=0.02)
        assert [r["theta"] for r in rows if r["eligible"]] == eligible
