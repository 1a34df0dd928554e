"""The experiment registry: every reproduced table or figure is an `Experiment`
registered under the id ``"<paper>/<experiment>"``.

An experiment module (``experiments/<paper>.py``) declares::

    @experiment("lpb/fig1_lambda", artifact="Figure 1", summary="...", keys=("attribute", "rho1"))
    def fig1_lambda(cfg, ctx) -> pandas.DataFrame: ...

    @figure("lpb/fig1_lambda")
    def fig1_lambda_plot(df) -> matplotlib.figure.Figure: ...

    @claims("lpb/fig1_lambda")
    def fig1_lambda_claims(df, cfg) -> list[Claim]: ...

The experiment function turns a resolved config into a tidy DataFrame (one row per
measured point); figure functions turn that DataFrame into figures; the claims
function compares the paper's printed numbers and statements with the result.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ._validation import PrivlabError

PAPERS = {
    "bucketization": "Wang, Wang, Fu, Wong - Inferential or Differential: Privacy Laws Dictate (F-privacy bucketing)",
    "multilevel": "Xiao, Tao, Chen - Optimal Random Perturbation at Multiple Privacy Levels",
    "isolation": "Chawla, Dwork, McSherry, Smith, Wee - Toward Privacy in Public Databases",
    "lpb": "Ouyang, Yin, Liu - Limiting Privacy Breaches in Differential Privacy",
    "cae": "Alfalayleh, Brankovic - Quantifying Privacy: An Entropy-Based Measure of Disclosure Risk",
}


@dataclass(frozen=True)
class Tolerance:
    """How far a regenerated column may drift from its reference.

    ``rtol``/``atol`` bound ``|new - ref| <= atol + rtol * |ref|``. ``se`` names a
    column holding each row's standard error: then the bound gains ``k * se``, the
    natural tolerance of a Monte Carlo estimate. A column without a declared
    tolerance is deterministic and compared exactly (to 1e-9 relative, which only
    absorbs CSV round-tripping).
    """

    rtol: float = 0.0
    atol: float = 0.0
    se: str | None = None
    k: float = 5.0
    ignore: bool = False  # e.g. wall-clock timings: never comparable across runs

    def describe(self) -> str:
        if self.ignore:
            return "not compared"
        parts = []
        if self.atol:
            parts.append(f"atol {self.atol:g}")
        if self.rtol:
            parts.append(f"rtol {self.rtol:g}")
        if self.se:
            parts.append(f"{self.k:g}*{self.se}")
        return " + ".join(parts) if parts else "exact"


EXACT = Tolerance(rtol=1e-9, atol=1e-12)
IGNORE = Tolerance(ignore=True)


@dataclass(frozen=True)
class Claim:
    """One printed number or stated claim of a paper, checked against the reproduction."""

    claim: str
    paper: str
    reproduced: str
    agree: bool
    note: str = ""


@dataclass
class Experiment:
    id: str
    run: Callable
    artifact: str
    summary: str
    keys: tuple[str, ...] = ()
    tolerances: Mapping[str, Tolerance] = field(default_factory=dict)
    data: str = ""
    figures: dict[str, Callable] = field(default_factory=dict)
    claims: Callable | None = None

    @property
    def paper(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.id.split("/", 1)[1]

    def tolerance(self, column: str) -> Tolerance:
        return self.tolerances.get(column, EXACT)


_REGISTRY: dict[str, Experiment] = {}


def experiment(id: str, *, artifact: str, summary: str, keys=(), tolerances=None, data: str = ""):
    """Register the decorated function ``(cfg, ctx) -> DataFrame`` as experiment ``id``."""
    paper, sep, name = id.partition("/")
    if not sep or paper not in PAPERS or not name:
        raise ValueError(f"experiment id must be '<paper>/<name>' with paper in {sorted(PAPERS)}, got {id!r}")

    def register(fn):
        if id in _REGISTRY and _REGISTRY[id].run is not fn:
            raise ValueError(f"experiment {id!r} registered twice")
        _REGISTRY[id] = Experiment(
            id=id,
            run=fn,
            artifact=artifact,
            summary=summary,
            keys=tuple(keys),
            tolerances=dict(tolerances or {}),
            data=data,
        )
        return fn

    return register


def figure(id: str, name: str | None = None):
    """Register the decorated ``DataFrame -> Figure`` function as a figure of ``id``."""

    def register(fn):
        _REGISTRY[id].figures[name or fn.__name__] = fn
        return fn

    return register


def claims(id: str):
    """Register the decorated ``(DataFrame, cfg) -> list[Claim]`` function for ``id``."""

    def register(fn):
        _REGISTRY[id].claims = fn
        return fn

    return register


@functools.cache
def _import_experiments() -> None:
    import experiments

    for info in pkgutil.iter_modules(experiments.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"experiments.{info.name}")


def all_experiments() -> list[Experiment]:
    """Every registered experiment, sorted by id."""
    _import_experiments()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def get(id: str) -> Experiment:
    """The experiment registered as ``id``; a PrivlabError listing the known ids otherwise."""
    _import_experiments()
    if id not in _REGISTRY:
        known = ", ".join(sorted(_REGISTRY)) or "(none)"
        raise PrivlabError(f"unknown experiment {id!r}; known experiments: {known}")
    return _REGISTRY[id]


def select(ids=(), paper: str | None = None) -> list[Experiment]:
    """Experiments by id list and/or paper key (all when both are empty)."""
    if paper is not None and paper not in PAPERS:
        raise PrivlabError(f"--paper must be one of {', '.join(sorted(PAPERS))}; got {paper!r}")
    chosen = [get(i) for i in ids] if ids else all_experiments()
    return [e for e in chosen if paper is None or e.paper == paper]
