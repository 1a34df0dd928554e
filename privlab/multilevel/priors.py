"""The laws of X on 1..s that the experiments simulate (codes 0..s-1 here).

Each prior is named by a config block ``{kind: ..., params}``:

==========  ===========================================================================
kind        parameters
==========  ===========================================================================
uniform     (none)
gaussian    ``mean``, ``sd``: a normal law discretised to the integers 1..s
lognormal   ``median``, ``sigma``, ``bin_width``: value v holds [(v-1) w, v w), top bin open
marginal    ``dataset`` (a data-set block), ``column``: the column's value frequencies
==========  ===========================================================================

`PRIOR` is the block's parameter contract (`privlab.params`), checked at compose time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from scipy import stats

from .. import params
from .._validation import PrivlabError, _fmt, check_real
from ._checks import check_s

__all__ = ["PRIOR_KINDS", "PriorSpec", "PRIOR", "gaussian_prior", "lognormal_prior", "marginal_prior", "make_prior"]

_POS = params.Real(0, low_open=True)
_SCHEMAS: dict[str, dict[str, Any]] = {
    "uniform": {},
    "gaussian": {"mean": params.Real(), "sd": _POS},
    "lognormal": {"median": _POS, "sigma": _POS, "bin_width": _POS},
    "marginal": {"column": params.Str(), "dataset": params.Free()},
}
PRIOR_KINDS = tuple(_SCHEMAS)


class PriorSpec(params.Spec):
    """Contract of one prior block: a ``kind`` and exactly that kind's parameters."""

    def allowed(self) -> str:
        return "a mapping with kind: one of " + ", ".join(PRIOR_KINDS) + " and that kind's parameters"

    def check(self, name: str, value: Any) -> dict[str, Any]:
        if not isinstance(value, Mapping) or "kind" not in value:
            raise PrivlabError(f"{name} must be {self.allowed()}, got {_fmt(value)}")
        kind = params.Choice(*PRIOR_KINDS).check(f"{name}.kind", value["kind"])
        rest = {k: v for k, v in value.items() if k != "kind"}
        out = params.validate(_SCHEMAS[kind], rest, prefix=f"{name}.")
        if kind == "marginal":
            from ..datasets import check_spec

            check_spec(
                dict(out["dataset"]) if isinstance(out["dataset"], Mapping) else out["dataset"], name=f"{name}.dataset"
            )
        return {"kind": kind, **out}


PRIOR = PriorSpec()


def _values(s: int) -> np.ndarray:
    return np.arange(1, s + 1, dtype=float)


def gaussian_prior(domain_size: int, mean: float, sd: float) -> np.ndarray:
    """N(mean, sd) discretised to 1..s: value v gets the mass of [v - 1/2, v + 1/2), renormalised.

    Parameters
    ----------
    domain_size : int
        s >= 2.
    mean : float
        On the paper's 1..s scale.
    sd : float
        > 0.
    """
    v = _values(check_s(domain_size))
    mean, sd = check_real("mean", mean), check_real("sd", sd, low=0, low_open=True)
    p = stats.norm.cdf(v + 0.5, mean, sd) - stats.norm.cdf(v - 0.5, mean, sd)
    return p / p.sum()


def lognormal_prior(domain_size: int, median: float, sigma: float, bin_width: float) -> np.ndarray:
    """A log-normal law (e.g. a salary) binned to 1..s: v holds [(v-1) w, v w), the top bin open.

    Parameters
    ----------
    domain_size : int
        s >= 2.
    median, sigma : float
        The log-normal's median (its scale) and shape, both > 0.
    bin_width : float
        w > 0, in the median's unit.
    """
    v = _values(check_s(domain_size))
    width = check_real("bin_width", bin_width, low=0, low_open=True)
    dist = stats.lognorm(
        s=check_real("sigma", sigma, low=0, low_open=True), scale=check_real("median", median, low=0, low_open=True)
    )
    edges = np.append((v - 1) * width, np.inf)
    p = np.diff(dist.cdf(edges))
    return p / p.sum()


def marginal_prior(values: Any, domain_size: int) -> np.ndarray:
    """The frequencies of a column's distinct values, in sorted order of the values.

    Parameters
    ----------
    values : array
        The column (any sortable values); it must hold exactly s distinct values.
    domain_size : int
        s >= 2.
    """
    s = check_s(domain_size)
    codes, counts = np.unique(np.asarray(values), return_counts=True)
    if codes.size != s:
        raise PrivlabError(f"the column has {codes.size} distinct values, domain_size is {s}")
    p = counts.astype(float)
    return p / p.sum()


def make_prior(spec: Mapping[str, Any], domain_size: int, *, dataset: Callable[[Any], Any] | None = None) -> np.ndarray:
    """The prior a config block names (see the module's table).

    Parameters
    ----------
    spec : mapping
        ``kind`` and that kind's parameters.
    domain_size : int
        s >= 2.
    dataset : callable, optional
        Loads a ``dataset`` block into a DataFrame (``ctx.dataset``); needed by ``marginal``.

    Returns
    -------
    ndarray, shape (s,)
    """
    block = PRIOR.check("prior", spec)
    kind, s = block.pop("kind"), check_s(domain_size)
    if kind == "uniform":
        p = np.ones(s)
        return p / p.sum()
    if kind == "gaussian":
        return gaussian_prior(s, **block)
    if kind == "lognormal":
        return lognormal_prior(s, **block)
    if dataset is None:
        raise PrivlabError("a marginal prior needs a dataset loader (ctx.dataset)")
    frame = dataset(block["dataset"])
    if block["column"] not in frame.columns:
        raise PrivlabError(f"prior column must be a column of the data set; got {block['column']!r}")
    return marginal_prior(frame[block["column"]].to_numpy(), s)
