"""The registry: papers and their experiments, declared once, in the papers' own modules.

A paper is a module ``experiments/<paper>.py`` under a paper root (see
`privlab.papers`). It declares itself and its experiments::

    PAPER = Paper("Ouyang, Yin, Liu - Limiting Privacy Breaches in Differential Privacy",
                  seed="003_bcd9c4aebb45eb59.txt")

    @experiment(artifact="Figure 1", summary="...", keys=("attribute", "rho1"),
                params={"rho2": Real(0, 1, low_open=True, high_open=True), ...})
    def fig1_lambda(cfg, ctx) -> pandas.DataFrame: ...

    @fig1_lambda.figure("fig1_lambda")
    def _(df) -> matplotlib.figure.Figure: ...

    @fig1_lambda.claims
    def _(df, cfg) -> list[Claim]: ...

The experiment's id is ``<paper>/<function name>`` (here ``lpb/fig1_lambda``): the
module name gives the paper, the function name the experiment, and its config lives at
``conf/experiment/<paper>/<name>.yaml`` of the same root. Nothing else names it.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from ._validation import PrivlabError
from .claims import Claim

__all__ = [
    "Claim",
    "Experiment",
    "Paper",
    "Tolerance",
    "EXACT",
    "IGNORE",
    "experiment",
    "papers",
    "get",
    "all_experiments",
    "select",
]


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
class Paper:
    """A paper privlab reproduces: declared as ``PAPER = Paper(...)`` in its experiments module."""

    title: str
    seed: str = ""  # the seed text the reproduction works from
    key: str = ""  # the module name, filled in by the registry
    root: Path | None = None  # the paper root it was found under


@dataclass(eq=False)
class Experiment:
    """One reproduced table or figure: a function ``(cfg, ctx) -> DataFrame`` and what goes with it."""

    id: str
    run: Callable[..., Any]
    artifact: str
    summary: str
    keys: tuple[str, ...] = ()
    tolerances: Mapping[str, Tolerance] = field(default_factory=dict)
    params: Mapping[str, Any] = field(default_factory=dict)
    smoke: tuple[str, ...] = ()
    mechanism_kind: str | None = None
    one_mechanism: bool = False
    twin_of: str | None = None  # the experiment this one repeats on other data (e.g. real ACS records)
    figures: dict[str, Callable[..., Any]] = field(default_factory=dict)
    claims_fn: Callable[..., list[Claim]] | None = None

    @property
    def paper(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.id.split("/", 1)[1]

    def tolerance(self, column: str) -> Tolerance:
        return self.tolerances.get(column, EXACT)

    def __call__(self, cfg: Any, ctx: Any) -> Any:
        return self.run(cfg, ctx)

    def figure(self, name: str | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Register the decorated ``DataFrame -> Figure`` function as a figure named ``name``."""

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.figures[name or fn.__name__] = fn
            return fn

        return register

    def claims(self, fn: Callable[..., list[Claim]]) -> Callable[..., list[Claim]]:
        """Register the decorated ``(DataFrame, cfg) -> list[Claim]`` function."""
        self.claims_fn = fn
        return fn

    def judged_by(self, verdict: Callable[..., list[Claim]], **read: str | Callable[[Any], Any]) -> Experiment:
        """Register as the claims ``verdict(table, printed=cfg.printed, <name>=<value> ...)``: the
        comparisons live in the paper's library (``privlab.<paper>.verdicts``), the experiment only
        says which config values they read. Each ``name=key`` of ``read`` passes the config value
        at ``key`` (a dotted path, e.g. ``limits="claims"``); ``name=reader`` passes ``reader(cfg)``.
        Returns the experiment, so a twin can follow: ``exp.judged_by(...).twin(...)``."""
        self.claims_fn = functools.partial(_judge, verdict, dict(read))
        return self

    def twin(self, name: str, *, summary: str | None = None, smoke: Sequence[str] | None = None) -> Experiment:
        """Register this experiment again as ``<paper>/<name>``, with its own config
        (``conf/experiment/<paper>/<name>.yaml``, typically the original's config with another
        data set): the same code, figures and claims, so the report can set the two side by side.
        ``smoke`` replaces the original's tiny overrides where they do not fit the twin's data. A
        twin's claims do not count as checks of the paper's ledger items (they test other data)."""
        exp_id = f"{self.paper}/{name}"
        twin = Experiment(
            id=exp_id,
            run=self.run,
            artifact=self.artifact,
            summary=summary or self.summary,
            keys=self.keys,
            tolerances=self.tolerances,
            params=self.params,
            smoke=self.smoke if smoke is None else tuple(smoke),
            mechanism_kind=self.mechanism_kind,
            one_mechanism=self.one_mechanism,
            twin_of=self.id,
            figures=self.figures,
        )
        _REGISTRY[exp_id] = twin
        return twin

    def check_claims(self, table: Any, cfg: Any) -> list[Claim]:
        fn = self.claims_fn or (_REGISTRY[self.twin_of].claims_fn if self.twin_of in _REGISTRY else None)
        claims = list(fn(table, cfg)) if fn else []
        for c in claims:
            if not isinstance(c, Claim):
                raise TypeError(f"{self.id}: claims must be Claim objects (privlab.claims helpers), got {c!r}")
        return claims


_ABSENT = object()


def _judge(verdict: Callable[..., list[Claim]], read: dict[str, Any], table: Any, cfg: Any) -> list[Claim]:
    values = {}
    for name, reader in read.items():
        values[name] = reader(cfg) if callable(reader) else OmegaConf.select(cfg, reader, default=_ABSENT)
        if values[name] is _ABSENT:
            raise KeyError(f"{verdict.__name__} reads {name} from the config key {reader!r}, which is not there")
    return verdict(table, printed=cfg.printed, **values)


_REGISTRY: dict[str, Experiment] = {}
_PAPERS: dict[str, Paper] = {}


def _paper_key(module: str) -> str:
    """The paper of an experiments module: ``experiments/<paper>.py``, or any module of the package
    ``experiments/<paper>/`` (a paper with many experiments may group them by artifact)."""
    prefix = "privlab.papers."
    if not module.startswith(prefix):
        raise ValueError(f"experiments are declared in experiments/<paper>.py of a paper root; {module} is not one")
    return module[len(prefix) :].split(".")[0]


def experiment(
    *,
    artifact: str,
    summary: str,
    keys: Sequence[str] = (),
    tolerances: Mapping[str, Tolerance] | None = None,
    params: Mapping[str, Any] | None = None,
    smoke: Sequence[str] = (),
    figures: Mapping[str, Callable[..., Any]] | None = None,
    mechanism_kind: str | None = None,
    one_mechanism: bool = False,
) -> Callable[[Callable[..., Any]], Experiment]:
    """Register the decorated ``(cfg, ctx) -> DataFrame`` function as experiment ``<paper>/<name>``.

    Parameters
    ----------
    artifact : str
        What of the paper it reproduces ("Figure 1", "Table II").
    summary : str
        One sentence for ``privlab list`` and the report.
    keys : sequence of str
        Columns that identify a row of the result table.
    tolerances : mapping, optional
        Column -> `Tolerance` for ``privlab check``; undeclared columns compare exactly.
    params : mapping, optional
        The parameter contract: config key -> `privlab.params` spec (or a nested mapping).
        A key in the config that is not declared here is refused at compose time.
    smoke : sequence of str
        Overrides that make the experiment tiny, for the conformance test.
    figures : mapping, optional
        Figure file name -> ``DataFrame -> Figure`` function (more with `Experiment.figure`).
    mechanism_kind : str, optional
        The kind of mechanism the experiment compares (``conf/mechanism/*.yaml``'s ``kind``):
        a mechanism of another kind is refused at compose time.
    one_mechanism : bool
        The experiment runs exactly one mechanism (sweep over several with ``--multirun``).
    """

    def register(fn: Callable[..., Any]) -> Experiment:
        exp_id = f"{_paper_key(fn.__module__)}/{fn.__name__}"
        if exp_id in _REGISTRY and _REGISTRY[exp_id].run.__code__ is not fn.__code__:
            raise ValueError(f"experiment {exp_id!r} registered twice")
        exp = Experiment(
            id=exp_id,
            run=fn,
            artifact=artifact,
            summary=summary,
            keys=tuple(keys),
            tolerances=dict(tolerances or {}),
            params=dict(params or {}),
            smoke=tuple(smoke),
            figures=dict(figures or {}),
            mechanism_kind=mechanism_kind,
            one_mechanism=one_mechanism,
        )
        functools.update_wrapper(exp, fn)
        _REGISTRY[exp_id] = exp
        return exp

    return register


_BROKEN: dict[str, str] = {}  # paper -> why its module failed to load


@functools.cache
def _load_papers() -> None:
    """Import every paper module; one that fails to import is recorded, not fatal to the others."""
    from . import papers as pkg

    pkg.refresh_path()
    seen: dict[str, str] = {}
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("_"):
            continue
        where = getattr(info.module_finder, "path", "?")
        if info.name in seen:
            raise PrivlabError(f"paper {info.name!r} is defined twice: in {seen[info.name]} and {where}")
        seen[info.name] = where
        try:
            module = importlib.import_module(f"privlab.papers.{info.name}")
        except Exception as exc:  # a broken paper must not take the others down
            _BROKEN[info.name] = f"{where}/{info.name}.py failed to import: {type(exc).__name__}: {exc}".splitlines()[0]
            for key in [k for k in _REGISTRY if k.startswith(f"{info.name}/")]:
                del _REGISTRY[key]
            continue
        paper = getattr(module, "PAPER", None)
        if not isinstance(paper, Paper):
            _BROKEN[info.name] = f"{module.__file__} declares no PAPER = Paper(...)"
            continue
        where_file = Path(module.__file__ or ".").resolve()
        root = where_file.parents[2] if where_file.name == "__init__.py" else where_file.parents[1]
        _PAPERS[info.name] = Paper(title=paper.title, seed=paper.seed, key=info.name, root=root)


def broken() -> dict[str, str]:
    """Papers whose module failed to load, with the reason (shown by ``privlab list``)."""
    _load_papers()
    return dict(_BROKEN)


def papers() -> dict[str, Paper]:
    """Every paper found under the paper roots, by key."""
    _load_papers()
    return dict(sorted(_PAPERS.items()))


def all_experiments() -> list[Experiment]:
    """Every registered experiment, sorted by id."""
    _load_papers()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def get(id: str) -> Experiment:
    """The experiment registered as ``id``; a PrivlabError listing the known ids otherwise."""
    _load_papers()
    if id not in _REGISTRY and id.partition("/")[0] in _BROKEN:
        raise PrivlabError(f"experiment {id!r} is unavailable: {_BROKEN[id.partition('/')[0]]}")
    if id not in _REGISTRY:
        known = ", ".join(sorted(_REGISTRY)) or "(none)"
        raise PrivlabError(f"unknown experiment {id!r}; known experiments: {known}")
    return _REGISTRY[id]


def select(ids: Sequence[str] = (), paper: str | None = None) -> list[Experiment]:
    """Experiments by id list and/or paper key (all when both are empty)."""
    known = papers()
    if paper is not None and paper in _BROKEN:
        raise PrivlabError(f"paper {paper} is unavailable: {_BROKEN[paper]}")
    if paper is not None and paper not in known:
        raise PrivlabError(f"--paper must be one of {', '.join(known)}; got {paper!r}")
    chosen = [get(i) for i in ids] if ids else all_experiments()
    return [e for e in chosen if paper is None or e.paper == paper]


def root_of(exp: Experiment) -> Path:
    """The paper root holding ``exp``'s module, config and reference."""
    root = papers()[exp.paper].root
    assert root is not None
    return root
