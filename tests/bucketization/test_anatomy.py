"""Anatomy, the paper's baseline: its groups, its eligibility and the l needed for each theta."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


def anatomy_sizes_fault(sa, groups, l):
    """An independent checker of Anatomy's groups (plain Python, no privlab code): every record
    in one of floor(n/l) groups of distinct values, of l or l+1 records, or, where r = n mod l
    exceeds g = floor(n/l) (g groups of at most l+1 cannot hold n), of floor(n/g) or ceil(n/g)
    records. Returns what is wrong, or "" when nothing is."""
    n, g = len(sa), len(sa) // l
    members = {}
    for value, group in zip(sa.tolist(), groups.tolist()):
        members.setdefault(group, []).append(value)
    if sorted(members) != list(range(g)):
        return f"groups {sorted(members)} are not 0..{g - 1}"
    for group, values in members.items():
        if len(set(values)) != len(values):
            return f"group {group} repeats a value: {values}"
    allowed = {l, l + 1} if n % l <= g else {n // g, -(-n // g)}
    sizes = sorted({len(values) for values in members.values()})
    return "" if set(sizes) <= allowed else f"sizes {sizes}, allowed {sorted(allowed)}"


@st.composite
def eligible_tables(draw):
    counts = draw(st.lists(st.integers(0, 9), min_size=1, max_size=12).filter(lambda c: sum(c) > 0))
    n = sum(counts)
    l = draw(st.integers(1, n // max(counts)))  # eligible: every count <= n / l
    sa = np.repeat(np.arange(len(counts)), counts)
    return sa, l, draw(st.integers(0, 2**16))


@settings(max_examples=120, deadline=None)
@given(eligible_tables())
def test_anatomy_groups_hold_l_or_l_plus_1_records(table):
    # the residue of the last step goes one record per group, each to a group lacking its value
    sa, l, seed = table
    res = anatomy(sa, l, seed=seed)
    assert res.eligible and res.loss == sa.size - sa.size // l
    assert anatomy_sizes_fault(sa, res.groups, l) == ""


def test_anatomy_moves_records_when_no_free_group_lacks_a_residue():
    # counts 2, 2, 2, 1, 1 with l = 3: the greedy may group {0, 1, 2} and {2, 3, 4}, leaving 0 and 1,
    # which only the second group lacks; a record must move for two groups of 4
    sa = np.array([0, 0, 1, 1, 2, 2, 3, 4])
    for seed in range(20):
        groups = anatomy(sa, 3, seed=seed).groups
        assert anatomy_sizes_fault(sa, groups, 3) == "" and sorted(np.bincount(groups)) == [4, 4]


def test_anatomy_groups_where_l_or_l_plus_1_is_impossible():
    # n = 37, l = 10: g = 3 groups and r = 7 > g residues; 3 groups of <= 11 cannot hold 37 records,
    # so they hold 12 or 13 (as even as possible), each of distinct values
    sa = np.repeat(np.arange(13), [3] * 12 + [1])
    res = anatomy(sa, 10, seed=3)
    assert sorted(np.bincount(res.groups)) == [12, 12, 13]
    assert anatomy_sizes_fault(sa, res.groups, 10) == ""
    # one group of all 9 records for n = 9, l = 5
    assert np.bincount(anatomy(np.arange(9), 5).groups).tolist() == [9]


def test_anatomy_sizes_checker_catches_faults():
    sa = np.array([0, 1, 2, 0, 1, 2, 3])
    assert anatomy_sizes_fault(sa, np.array([0, 0, 0, 1, 1, 1, 1]), 3) == ""
    assert "sizes" in anatomy_sizes_fault(np.arange(7), np.array([0, 0, 0, 1, 1, 0, 0]), 3)
    assert "repeats" in anatomy_sizes_fault(sa, np.array([0, 0, 0, 0, 1, 1, 1]), 3)
    assert "not 0..1" in anatomy_sizes_fault(sa, np.array([0, 0, 0, 2, 2, 2, 2]), 3)
