"""The sanitizers as mechanisms (privlab.isolation.mechanisms) and their adversaries."""

from __future__ import annotations

import numpy as np
import pytest

from privlab import isolation as iso
from privlab._validation import PrivlabError

SEEDS = {name: np.random.SeedSequence(7, spawn_key=(i,)) for i, name in enumerate(iso.SEED_NAMES)}


def _db(n=600, d=3, seed=1):
    return iso.uniform_cube(n, d, seed)


def test_cell_adversaries_stay_in_cell():
    low = np.array([[0.0, 0.5], [-1.0, -1.0]])
    side = np.array([0.5, 1.0])
    q = iso.adversary_cell_uniform(np.repeat(low, 500, axis=0), np.repeat(side, 500), seed=1)
    lo = np.repeat(low, 500, axis=0)
    assert np.all((q >= lo) & (q <= lo + np.repeat(side, 500)[:, None]))
    np.testing.assert_allclose(iso.adversary_cell_centre(low, side), [[0.25, 0.75], [-0.5, -0.5]])
    with pytest.raises(PrivlabError, match="cell_side must hold one side per cell"):
        iso.adversary_cell_centre(low, [1.0])


def test_column_midpoint_by_hand():
    rows = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    q = iso.adversary_column_midpoint(rows, [2], [10.0], [20.0])
    np.testing.assert_array_equal(q, [[1.0, 2.0, 15.0], [4.0, 5.0, 15.0]])
    assert rows[0, 2] == 3.0  # the input is not modified
    with pytest.raises(PrivlabError, match="hidden must be column indices"):
        iso.adversary_column_midpoint(rows, [3], [0.0], [1.0])


def test_aux_only_queries_uses_the_distribution():
    q = iso.aux_only_queries(lambda m, rng: rng.uniform(-1, 1, size=(m, 2)), 50, seed=3)
    assert q.shape == (50, 2) and np.all(np.abs(q) <= 1)


def test_aux_only_outputs_the_draws_and_needs_them():
    db, targets = _db(), np.arange(10)
    aux = iso.uniform_cube(20, 3, 9)
    run = iso.AuxOnly(T=5, aux=aux).attack(db, targets, SEEDS)
    (out,) = run.outputs
    assert out.name == "distribution_draw" and out.natural
    np.testing.assert_array_equal(out.queries, aux[:10])
    with pytest.raises(PrivlabError, match="aux must hold at least 10 draws"):
        iso.AuxOnly(T=5, aux=aux[:5]).attack(db, targets, SEEDS)
    with pytest.raises(PrivlabError, match="releases nothing"):
        iso.AuxOnly(T=5).utility(db, SEEDS)


def test_histogram_adversaries_sit_in_the_targets_leaf():
    db, targets = _db(), np.arange(0, 600, 7)
    run = iso.RecursiveHistogram(T=10).attack(db, targets, SEEDS)
    uniform, centre = run.outputs
    assert (uniform.name, uniform.natural, centre.name, centre.natural) == ("cell_uniform", True, "cell_centre", False)
    hist = iso.build_histogram(db, 10)
    low, side = hist.leaf_low[hist.point_leaf[targets]], hist.leaf_side[hist.point_leaf[targets]]
    for q in (uniform.queries, centre.queries):
        assert np.all((q >= low) & (q <= low + side[:, None]))
    np.testing.assert_allclose(centre.queries, low + side[:, None] / 2)
    assert run.extra == {"leaves": hist.leaf_count.size, "release_checked": 1.0}


def test_perturbation_attack_reports_its_noise_law():
    db = iso.uniform_cube(3000, 4, 2)
    targets = np.arange(400)
    san = iso.Perturbation(scale=2.0, n_checked=400, T=10)
    run = san.attack(db, targets, SEEDS)
    (out,) = run.outputs
    np.testing.assert_array_equal(out.queries, iso.perturb(db, 10, 2.0, SEEDS["perturb"], indices=targets))
    extra = run.extra
    assert extra["noise_ratio_exact"] == pytest.approx(iso.expected_noise_length_ratio(4, 2.0))
    assert abs(extra["noise_ratio_mean"] - extra["noise_ratio_exact"]) < 5 * extra["noise_ratio_se"]
    with pytest.raises(PrivlabError, match="scale must be in"):
        iso.Perturbation(scale=-1)


def test_perturbation_utility_is_every_point_perturbed():
    db = _db()
    view = iso.Perturbation(scale=1.0, T=5).utility(db, SEEDS)
    released, sd = iso.perturb_release(db, 5, 1.0, SEEDS["perturb"])
    np.testing.assert_array_equal(view.points, released)
    np.testing.assert_array_equal(sd, 1.0 * iso.t_radius(db, 5) / np.sqrt(3))
    assert view.noise_rms == iso.noise_mean_error(released, db, sd)
    assert view.box_fraction(np.full(3, -10.0), np.full(3, 10.0)) == 1.0  # perturbed points may leave the cube


def test_hist_perturb_side_length_is_the_diameter_scaled_down():
    db = _db(801, 4)
    side = iso.HistogramPlusPerturbation(scale=2.0, noise_length="side", T=10).utility(db, SEEDS)
    rel = iso.histogram_plus_perturbation(db, 10, SEEDS["hp"], scale=2.0 / np.sqrt(4))
    np.testing.assert_array_equal(side.points[-rel.perturbed.shape[0] :], rel.perturbed)
    assert side.weights.sum() == 801
    assert side.box_fraction(np.full(4, -50.0), np.full(4, 50.0)) == pytest.approx(
        1.0
    )  # the perturbed half may leave the cube
    with pytest.raises(PrivlabError, match="noise_length must be one of diameter, side"):
        iso.HistogramPlusPerturbation(noise_length="radius")


def test_hist_perturb_adversary_uses_cell_or_perturbed_point():
    db, targets = _db(801, 3), np.arange(801)
    run = iso.HistogramPlusPerturbation(T=10).attack(db, targets, SEEDS)
    natural, centre = run.outputs
    rel = iso.histogram_plus_perturbation(db, 10, SEEDS["hp"])
    pert = np.isin(targets, rel.perturbed_index)
    np.testing.assert_array_equal(natural.queries[pert], rel.perturbed)
    np.testing.assert_array_equal(centre.queries[pert], rel.perturbed)
    h = rel.histogram
    leaf = h.point_leaf[np.searchsorted(rel.hist_index, targets[~pert])]
    np.testing.assert_allclose(centre.queries[~pert], h.leaf_centre[leaf])


def test_bad_sanitizer_discloses_all_but_the_disguised():
    db, targets = _db(300, 5), np.arange(0, 300, 3)
    run = iso.BadSanitizer(disguised=2, T=5).attack(db, targets, SEEDS)
    row, mid = run.outputs
    assert run.extra == {"exact_columns": 3, "exact_columns_expected": 3}
    np.testing.assert_array_equal(row.queries[:, :3], db[targets, :3])
    np.testing.assert_allclose(mid.queries[:, 3:], np.broadcast_to((db[:, 3:].min(0) + db[:, 3:].max(0)) / 2, (100, 2)))
    assert iso.BadSanitizer(disguised=0, T=5).attack(db, targets, SEEDS).extra["exact_columns"] == 5
    with pytest.raises(PrivlabError, match="disguised must be at most d = 5"):
        iso.BadSanitizer(disguised=6, T=5).attack(db, targets, SEEDS)


def test_seed_names_cover_every_sanitizer():
    names = iso.seed_names([iso.RecursiveHistogram(), iso.HistogramPlusPerturbation(), iso.BadSanitizer()])
    assert names == iso.SEED_NAMES and len(set(names)) == len(names)

    class Mine(iso.Sanitizer):
        seed_names = ("mine",)

    assert iso.seed_names([Mine()])[-1] == "mine"


def test_the_setting_is_set_in_the_constructor_and_checked():
    """T, the box, aux and the index are the sanitizer's setting; the call takes the data."""
    db, targets = _db(), np.arange(0, 600, 7)
    san = iso.RecursiveHistogram()
    with pytest.raises(PrivlabError, match="RecursiveHistogram needs T"):
        san.attack(db, targets, SEEDS)
    at10 = san.with_setting(T=10)
    assert (at10.T, at10.low, at10.high, san.T) == (10, -1.0, 1.0, None)  # a copy: the configured one is unchanged
    a, b = at10.attack(db, targets, SEEDS), iso.RecursiveHistogram(T=10).attack(db, targets, SEEDS)
    np.testing.assert_array_equal(a.outputs[0].queries, b.outputs[0].queries)
    # another box gives other cells (side 3/2^j, not 2/2^j): the setting reaches the release
    wide = san.with_setting(T=10, low=-1.5, high=1.5).attack(db, targets, SEEDS)
    assert not np.isin(wide.outputs[1].queries, a.outputs[1].queries).all()
    with pytest.raises(PrivlabError, match="T must be"):
        iso.RecursiveHistogram(T=1)  # a histogram needs T >= 2
    with pytest.raises(PrivlabError, match="low must be below high"):
        iso.Perturbation(low=1.0, high=-1.0)
    with pytest.raises(PrivlabError, match="with_setting takes T, low, high, aux and index; got scale"):
        san.with_setting(scale=2.0)
