"""The laws of X on 1..s that the experiments simulate (codes 0..s-1 here).

Each prior is named by a config block ``{kind: ..., params}``:

==========  ===========================================================================
kind        parameters
==========  ===========================================================================
uniform     (none)
gaussian    ``mean``, ``sd``: a normal law discretised to the integers 1..s
lognormal   ``median``, ``sigma``, ``bin_width``: value v holds [(v-1) w, v w), top bin open
marginal    ``dataset`` (a data-set block), ``column``: the column's value frequencies;
            optional ``missing``: the value a missing entry counts as (default: dropped)
binned      ``dataset``, ``column``, ``bin_width``: a numeric column's records binned like
            ``lognormal``: v holds [(v-1) w, v w), values below 0 in the first bin, the
            top bin open; missing entries dropped (e.g. PINCP in 5,000-dollar bins)
==========  ===========================================================================

Every kind takes an optional ``domain_size``: the law's own domain 1..s, where it differs
from the experiment's (a real attribute with fewer values than the paper's domain).

`PRIOR` is the block's parameter contract (`privlab.params`), checked at compose time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from .. import params
from .._lazy import lazy
from .._validation import PrivlabError, _fmt, check_array, check_distribution, check_mapping, check_real
from ..datasets import check_spec
from ._checks import MAX_CELLS, check_cells, check_s

stats = lazy("scipy.stats")

__all__ = [
    "PRIOR_KINDS",
    "PriorSpec",
    "PRIOR",
    "gaussian_prior",
    "lognormal_prior",
    "marginal_prior",
    "binned_prior",
    "prior_domain",
    "make_prior",
    "make_priors",
    "describe_prior",
    "prior_table",
]

_POS = params.Real(0, low_open=True)
_SCHEMAS: dict[str, dict[str, Any]] = {
    "uniform": {},
    "gaussian": {"mean": params.Real(), "sd": _POS},
    "lognormal": {"median": _POS, "sigma": _POS, "bin_width": _POS},
    "marginal": {"column": params.Str(), "dataset": params.Free()},
    "binned": {"column": params.Str(), "dataset": params.Free(), "bin_width": _POS},
}
_DOMAIN = params.Int(2, MAX_CELLS, limit="values of a law held in memory")
_OPTIONAL: dict[str, dict[str, Any]] = {  # keys a block may leave out
    **{kind: {"domain_size": _DOMAIN} for kind in _SCHEMAS},
    "marginal": {"domain_size": _DOMAIN, "missing": params.Free()},
}
PRIOR_KINDS = tuple(_SCHEMAS)


class PriorSpec(params.Constraint):
    """Contract of one prior block: a ``kind`` and exactly that kind's parameters."""

    def describe(self) -> str:
        return "a mapping with kind: one of " + ", ".join(PRIOR_KINDS) + " and that kind's parameters"

    def check(self, name: str, value: Any) -> dict[str, Any]:
        if not isinstance(value, Mapping) or "kind" not in value:
            raise PrivlabError(f"{name} must be {self.describe()}, got {_fmt(value)}")
        kind = params.Choice(*PRIOR_KINDS).check(f"{name}.kind", value["kind"])
        optional = _OPTIONAL[kind]
        rest = {k: v for k, v in value.items() if k != "kind" and k not in optional}
        out = params.validate(_SCHEMAS[kind], rest, prefix=f"{name}.")
        for key, spec in optional.items():
            if key in value:
                out[key] = spec.check(f"{name}.{key}", value[key])
        if kind in ("marginal", "binned"):
            check_spec(
                dict(out["dataset"]) if isinstance(out["dataset"], Mapping) else out["dataset"], name=f"{name}.dataset"
            )
        return {"kind": kind, **out}


PRIOR = PriorSpec()


def _values(s: int) -> np.ndarray:
    check_cells(f"a law on domain_size {s:,} values", s)
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


def binned_prior(values: Any, domain_size: int, bin_width: float) -> np.ndarray:
    """The frequencies of a numeric column binned to 1..s like `lognormal_prior`.

    Value v holds [(v-1) w, v w); values below 0 count in the first bin (bottom-coded), values
    of (s-1) w and above in the last (top bin open). Missing (NaN) entries are dropped.

    Parameters
    ----------
    values : array of float
        The column, in the unit of ``bin_width`` (e.g. dollars).
    domain_size : int
        s >= 2.
    bin_width : float
        w > 0.
    """
    s = check_s(domain_size)
    check_cells(f"a law on domain_size {s:,} values", s)
    width = check_real("bin_width", bin_width, low=0, low_open=True)
    raw = np.asarray(values, dtype=float).ravel()
    kept = check_array("values", raw[~np.isnan(raw)], dtype=float)
    bins = np.clip(np.floor(kept / width), 0, s - 1).astype(np.int64)
    p = np.bincount(bins, minlength=s).astype(float)
    return p / p.sum()


def prior_domain(spec: Mapping[str, Any], domain_size: int) -> int:
    """The domain size of the law a block names: its own ``domain_size`` or ``domain_size``."""
    own = spec.get("domain_size") if isinstance(spec, Mapping) else None
    return check_s(domain_size if own is None else own)


def make_prior(spec: Mapping[str, Any], domain_size: int, *, dataset: Callable[[Any], Any] | None = None) -> np.ndarray:
    """The prior a config block names (see the module's table).

    Parameters
    ----------
    spec : mapping
        ``kind`` and that kind's parameters.
    domain_size : int
        s >= 2; the block's own ``domain_size`` replaces it.
    dataset : callable, optional
        Loads a ``dataset`` block into a DataFrame (``ctx.dataset``); needed by ``marginal``
        and ``binned``.

    Returns
    -------
    ndarray, shape (s,)
    """
    block = PRIOR.check("prior", spec)
    kind, s = block.pop("kind"), prior_domain(block, domain_size)
    block.pop("domain_size", None)
    missing = block.pop("missing", None)
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
    column = frame[block["column"]]
    if kind == "binned":
        return binned_prior(column.astype(float).to_numpy(), s, block["bin_width"])
    column = column.dropna() if missing is None else column.astype(object).where(column.notna(), missing)
    return marginal_prior(column.to_numpy(), s)


def describe_prior(prior: Any) -> dict[str, float]:
    """Summary of a law on 1..s: mean, standard deviation, skewness, mode and largest probability.

    Parameters
    ----------
    prior : array of float
        The law on the values 1..s (codes 0..s-1).
    """
    law = check_distribution("prior", prior)
    v = np.arange(1, law.size + 1, dtype=float)
    mean = float((v * law).sum())
    sd = float(np.sqrt((law * (v - mean) ** 2).sum()))
    skew = float((law * (v - mean) ** 3).sum() / sd**3) if sd > 0 else 0.0
    return {"mean": mean, "sd": sd, "skewness": skew, "mode": int(np.argmax(law)) + 1, "top": float(law.max())}


def make_priors(
    specs: Mapping[str, Any], domain_size: int, *, dataset: Callable[[Any], Any] | None = None
) -> dict[str, np.ndarray]:
    """The switched-on laws of X of a ``distributions:`` block, each on its own domain.

    Parameters
    ----------
    specs : mapping
        Law name -> its block (see `make_prior`), or None: switched off (left out).
    domain_size : int
        s >= 2, for the blocks without their own ``domain_size``.
    dataset : callable, optional
        Loads a ``dataset`` block (``ctx.dataset``), as in `make_prior`.

    Returns
    -------
    dict
        Law name -> its prior (length s), in the block's order.
    """
    check_mapping("distributions", specs)
    return {n: make_prior(spec, domain_size, dataset=dataset) for n, spec in specs.items() if spec is not None}


def prior_table(priors: Mapping[str, Any], specs: Mapping[str, Any]) -> pd.DataFrame:
    """The laws of X as one tidy table, with each law's summary (`describe_prior`).

    Parameters
    ----------
    priors : mapping
        Law name -> its prior (e.g. `make_priors`), in the table's order.
    specs : mapping
        Law name -> the block it came from (its ``kind`` and, for real data, ``dataset.name``).

    Returns
    -------
    DataFrame
        One row per (distribution, x): ``kind``, ``data`` (the data set's name, or "-"), the
        prior, the domain size ``s`` and the law's mean, sd, skewness, mode and top.
    """
    check_mapping("priors", priors)
    check_mapping("specs", specs, tuple(priors))
    frames = []
    for name, prior in priors.items():
        spec = check_mapping(f"specs[{name!r}]", specs[name], ("kind",))
        law = check_distribution(f"priors[{name!r}]", prior)
        source = spec["dataset"]["name"] if "dataset" in spec else "-"
        x = np.arange(1, law.size + 1)
        frame = pd.DataFrame({"distribution": name, "kind": spec["kind"], "data": source, "x": x, "prior": law})
        frames.append(frame.assign(s=law.size, **describe_prior(law)))
    return pd.concat(frames, ignore_index=True)
