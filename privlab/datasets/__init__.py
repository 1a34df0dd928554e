"""Data sets of privlab: ``load(name, **params)`` returns a pandas DataFrame.

========  ==============================================================  ===========
name      what                                                            params
========  ==============================================================  ===========
adult     the real UCI Adult, 48,842 rows (shipped, checksum-verified)    path, split
acs       NIST's ACS Data Excerpts: real 2019/2018 ACS person records     state, year, path
          of MA and TX (16,910 rows in 2019; shipped, checksum-verified)
census    CENSUS-like generator (SYNTHETIC) or a real 8-column extract    n, seed, path
pums      PUMS-like generator (SYNTHETIC) or a real ACS PUMS person file  n, seed, path, acs_year
========  ==============================================================  ===========

Simulations that draw fresh points per trial use the generators of
`privlab.datasets.simulated` (``GENERATED`` names: ``uniform_cube``, ``gaussian_mixture``,
``discrete_law``):
arrays drawn from a seed, not loaded, but labelled by ``describe`` like the others
(``ctx.describe_data({"name": "uniform_cube", "n": ..., "d": ...})``).

Generated data sets are marked: ``is_synthetic(name, **params)`` is True for them, the
frame's ``attrs["synthetic"]`` too, and ``describe`` says "synthetic", so that no report
passes a CENSUS-like figure off as the paper's data. ``load(**cfg)`` accepts a Hydra
``conf/dataset/*.yaml`` group as is (``name`` plus the parameters).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import pandas as pd

from privlab._validation import PrivlabError, check_choice
from privlab.datasets import acs, adult, census, pums, simulated

NAMES = ("adult", "acs", "census", "pums")
_LOADERS: dict[str, Callable[..., pd.DataFrame]] = {
    "adult": adult.load,
    "acs": acs.load,
    "census": census.load,
    "pums": pums.load,
}
# Whether the data set is generated when no ``path`` is given.
SYNTHETIC = {"adult": False, "acs": False, "census": True, "pums": True}
# Generated point clouds a simulation draws itself per trial (always synthetic): describe only.
GENERATED = tuple(simulated.GENERATORS)
_DESCRIPTIONS = {
    "adult": "UCI Adult (Census Income, 1994 CPS; Kohavi and Becker 1996, CC BY 4.0): "
    "48,842 real records, 15 attributes, income <=50K/>50K",
    "acs": "NIST ACS Data Excerpts (real American Community Survey person records of Massachusetts and Texas "
    "PUMAs; National Institute of Standards and Technology, SDNist; NIST notice kept)",
    "census": "CENSUS-like data, synthetic: seeded latent-class generator with the 8 "
    "attributes and domain sizes of the IPUMS CENSUS table (seed 000, Table 5), "
    "occupation 7.5%..0.18%, education 27.3%..0.44%",
    "pums": "PUMS-like data, synthetic: seeded log-normal wage model with the 7 attributes "
    "and domains of the 2006 Illinois ACS PUMS sample (seed 004, Table 2), salary "
    "10..250K confidential",
}
_REAL = {
    "census": "CENSUS extract read from {path}: real records, 8 attributes (seed 000, Table 5)",
    "pums": "ACS PUMS person file read from {path}, preprocessed to the 7 attributes of "
    "seed 004, Table 2 (real records)",
}


def _check_name(name) -> str:
    return check_choice("dataset", name, NAMES)


def parameters(name) -> tuple[str, ...]:
    """The parameter names ``load(name, ...)`` accepts."""
    return tuple(inspect.signature(_LOADERS[_check_name(name)]).parameters)


def _check_params(name: str, params: dict) -> None:
    allowed = parameters(name)
    for key in params:
        if key not in allowed:
            raise PrivlabError(f"{key!r} is not a parameter of dataset {name}; allowed: {', '.join(allowed)}")


def load(name, **params) -> pd.DataFrame:
    """Load data set ``name`` (adult, census or pums) with its ``params``.

    Parameters
    ----------
    name : {"adult", "census", "pums"}
    **params
        adult: ``path=None, split="all"``; census: ``n=None (300000), seed=0, path=None``;
        pums: ``n=None (2500), seed=0, path=None, acs_year=2006``. See the modules
        ``privlab.datasets.adult``, ``.census`` and ``.pums``.

    Returns
    -------
    pandas.DataFrame
        A fresh frame (safe to modify); ``attrs`` holds ``dataset`` and ``synthetic``.

    Raises
    ------
    PrivlabError
        Unknown name or parameter, a bad parameter value, or a bad file (naming the
        file, line and column).
    """
    name = _check_name(name)
    _check_params(name, params)
    return _LOADERS[name](**params)


def check_spec(spec, *, name: str = "dataset") -> None:
    """Check a ``dataset`` config block (``name`` plus the loader's parameters) before loading."""
    if not isinstance(spec, dict) or "name" not in spec:
        raise PrivlabError(f"{name} must be a mapping with a name: one of {', '.join(NAMES)}")
    params = {k: v for k, v in spec.items() if k != "name"}
    data = check_choice(f"{name}.name", spec["name"], NAMES)
    allowed = parameters(data)
    for key in params:
        if key not in allowed:
            raise PrivlabError(f"unknown parameter {name}.{key} of dataset {data}; allowed: {', '.join(allowed)}")


def is_synthetic(name, **params) -> bool:
    """True when ``load(name, **params)`` returns generated data (census/pums without path),
    and for the ``GENERATED`` point clouds."""
    if name in GENERATED:
        simulated.describe(name, **params)
        return True
    name = _check_name(name)
    _check_params(name, params)
    return SYNTHETIC[name] and params.get("path") is None


def describe(name, **params) -> str:
    """One line saying what ``load(name, **params)`` returns, or what a ``GENERATED`` generator
    draws; generated data says "synthetic"."""
    if name in GENERATED:
        return simulated.describe(name, **params)
    check_choice("dataset", name, NAMES + GENERATED)
    _check_params(name, params)
    if name == "acs":
        state, year = params.get("state", "both"), params.get("year", 2019)
        where = {"ma": "Massachusetts", "tx": "Texas", "both": "Massachusetts and Texas"}.get(state, state)
        rows = sum(acs.ROWS.get((s, year), 0) for s in (("ma", "tx") if state == "both" else (state,)))
        source = f"read from {params['path']}" if params.get("path") else f"{rows:,} real records"
        return (
            f"NIST ACS Data Excerpts: {year} American Community Survey person records, {where} PUMAs "
            f"({source}; National Institute of Standards and Technology, SDNist; NIST notice kept)"
        )
    if params.get("path") is not None and name in _REAL:
        return _REAL[name].format(path=params["path"])
    if params.get("path") is not None:
        return _DESCRIPTIONS[name] + f", read from {params['path']}"
    return _DESCRIPTIONS[name]


__all__ = [
    "NAMES",
    "GENERATED",
    "SYNTHETIC",
    "check_spec",
    "describe",
    "is_synthetic",
    "load",
    "parameters",
    "PrivlabError",
]
