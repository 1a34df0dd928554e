"""The installed PuLP's bundled CBC runs (issue 12, item 7).

pyproject allows a range of PuLP versions; this test is what makes "the bundled CBC is known
to run" true of the one installed: CBC solves a tiny ILP called directly and through
privlab's own solver setup (bucketization.ilp). Skipped, with a message, where PuLP bundles
no CBC (PuLP 4 drops it); failing here means the ILP baselines would report "solver error".
"""

from __future__ import annotations

import os

import numpy as np
import pytest

pulp = pytest.importorskip("pulp")


def _bundled_cbc() -> str | None:
    from pulp.apis import coin_api

    path = getattr(coin_api, "pulp_cbc_path", None)
    return path if path and os.path.isfile(path) else None


@pytest.fixture(scope="module")
def cbc_path() -> str:
    path = _bundled_cbc()
    if path is None:
        pytest.skip(
            f"PuLP {pulp.__version__} bundles no CBC binary (PuLP 4 dropped it): "
            "the ILP baselines need a cbc executable (pip install 'pulp[cbc]')"
        )
    return path


def test_bundled_cbc_solves_a_tiny_ilp(cbc_path):
    prob = pulp.LpProblem("tiny", pulp.LpMinimize)
    new = getattr(prob, "add_variable", None) or pulp.LpVariable  # PuLP 3.3 deprecates LpVariable(...)
    x = new("x", lowBound=0, upBound=10, cat="Integer")
    y = new("y", lowBound=0, upBound=10, cat="Integer")
    prob += x + 2 * y
    prob += 3 * x + 5 * y >= 17
    where = f"PuLP {pulp.__version__}, CBC at {cbc_path}"
    assert os.access(cbc_path, os.X_OK), f"{where}: the binary is not executable"
    try:
        prob.solve(pulp.COIN_CMD(path=cbc_path, msg=False, timeLimit=30))
    except (pulp.PulpSolverError, OSError) as exc:
        pytest.fail(f"{where} does not run: {exc}")
    assert pulp.LpStatus[prob.status] == "Optimal", where
    assert pulp.value(prob.objective) == 6, where  # (4, 1) or (6, 0)
    assert 3 * pulp.value(x) + 5 * pulp.value(y) >= 17, where


def test_privlabs_solver_setup_uses_it(cbc_path):
    from privlab.bucketization import fprivacy, optimal

    o = np.array([6, 4, 2])
    res = optimal(o, fprivacy(o / o.sum(), 2), 6, time_limit=30)
    assert res.status == "optimal", f"PuLP {pulp.__version__}: {res.status} {res.message}"
    assert res.loss == 12 - res.setting.n_buckets
