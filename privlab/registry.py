"""The registry: papers and their experiments, declared once, in the papers' own modules.

A paper is a module (or package) that declares itself and its experiments::

    PAPER = Paper("Ouyang, Yin, Liu - Limiting Privacy Breaches in Differential Privacy",
                  seed="003_bcd9c4aebb45eb59.txt")

    @experiment(artifact="Figure 1", summary="...", keys=("attribute", "rho1"),
                params={"rho2": Real(0, 1, low_open=True, high_open=True), ...})
    def fig1_lambda(cfg, ctx) -> pandas.DataFrame: ...

    fig1_lambda.judged_by(verdicts.fig1_lambda, panels="panels")   # claims: privlab.lpb.verdicts

The experiment's id is ``<paper>/<function name>`` (here ``lpb/fig1_lambda``) and its config
lives at ``experiment/<paper>/<name>.yaml`` of the paper's config directory. Papers come
from three places (`sources`):

* privlab's own: the subpackages of `privlab.experiments` (``privlab/experiments/<paper>/``),
  their configs in ``privlab/conf/``, references in ``privlab/reference/``, ledgers at
  ``privlab/experiments/<paper>.ledger.yaml``;
* a *paper root* on ``PRIVLAB_PATH`` (directories separated by ``os.pathsep``): a directory
  holding ``experiments/<paper>.py`` (or a package ``experiments/<paper>/``),
  ``conf/experiment/<paper>/``, optionally ``results/reference/<paper>/`` and
  ``experiments/<paper>.ledger.yaml``. The root joins ``sys.path`` (so a paper's own library
  beside its experiments imports by name, in worker processes too) and its module is
  imported as ``experiments.<paper>`` (``experiments`` is a namespace package spanning every
  root, so a root's ``experiments/`` folder has no ``__init__.py``);
* an installed package that names its paper module in the entry-point group
  ``privlab.papers`` (``toy = "toy_paper"``): configs in ``conf/``, references in
  ``reference/`` and the ledger ``<paper>.ledger.yaml`` beside that module.

A paper module may also contribute a subcommand of ``privlab`` with `command` (LPB's
``privlab epsilon``), through the same import that registers its experiments.
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
from .claims import Claim, on_other_data

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
    "command",
    "commands",
    "paper_of",
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
    infinite: bool = False  # +-inf is a value of this column (equal only to the same infinity); else it is drift

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
    """A paper privlab reproduces: declared as ``PAPER = Paper(...)`` in its module; the registry
    fills in where it was found and where its configs, references and ledger live."""

    title: str
    seed: str = ""  # the seed text the reproduction works from
    key: str = ""  # its key (the experiments' id prefix)
    source: str = ""  # where it was found: "privlab", "PRIVLAB_PATH <root>" or "entry point <name>"
    module: str = ""  # the module that declares it
    conf_dir: Path | None = None  # holds experiment/<key>/<name>.yaml
    reference_dir: Path | None = None  # holds <key>/<name>/ (quick) and paper/<key>/<name>/ (paper profile)
    ledger_path: Path | None = None  # <key>.ledger.yaml (absent: the paper has no ledger)
    root: Path | None = None  # the directory a ledger's ``test:tests/...`` references resolve against


class PaperScoped:
    """Something whose ``id`` is ``<paper>/<name>`` (an experiment, a study, a report entry)."""

    id: str

    @property
    def paper(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.id.split("/", 1)[1]


@dataclass(eq=False)
class Experiment(PaperScoped):
    """One reproduced table or figure: a function ``(cfg, ctx) -> DataFrame`` and what goes with it."""

    id: str
    run: Callable[..., Any]
    artifact: str
    summary: str
    keys: tuple[str, ...] = ()
    tolerances: Mapping[str, Tolerance] = field(default_factory=dict)
    params: Mapping[str, Any] = field(default_factory=dict)
    relations: tuple[Any, ...] = ()  # contracts between parameters (privlab.relations)
    smoke: tuple[str, ...] = ()
    mechanism_kind: str | None = None
    one_mechanism: bool = False
    twin_of: str | None = None  # the experiment this one repeats on other data (e.g. real ACS records)
    figures: dict[str, Callable[..., Any]] = field(default_factory=dict)
    claims_fn: Callable[..., list[Claim]] | None = None

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
            relations=self.relations,
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
        if self.twin_of is not None:  # the same claims on other data: a disagreement says so
            claims = on_other_data(claims, f"the twin of {self.twin_of}, on other data than the paper's")
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
_PREFIXES: dict[str, str] = {}  # module prefix -> paper key, for papers from entry points
BUILTIN = "privlab.experiments"  # privlab's own papers: its subpackages
ROOTS = "experiments"  # papers of PRIVLAB_PATH roots: the namespace package of their experiments/ folders
ENTRY_POINTS = "privlab.papers"  # the entry-point group of papers in installed packages
PACKAGE_DIR = Path(__file__).resolve().parent


def _paper_key(module: str) -> str:
    """The paper of a module that declares experiments: ``privlab.experiments.<paper>[...]``,
    ``experiments.<paper>[...]`` of a PRIVLAB_PATH root, or a module under an entry point's."""
    for prefix in (BUILTIN, ROOTS):
        if module.startswith(prefix + "."):
            return module[len(prefix) + 1 :].split(".")[0]
    for prefix, key in _PREFIXES.items():
        if module == prefix or module.startswith(prefix + "."):
            return key
    raise ValueError(
        f"experiments are declared in a paper module (privlab.experiments.<paper>, experiments/<paper>.py of a "
        f"PRIVLAB_PATH root, or an entry point of group {ENTRY_POINTS}); {module} is not one"
    )


def experiment(
    *,
    artifact: str,
    summary: str,
    keys: Sequence[str] = (),
    tolerances: Mapping[str, Tolerance] | None = None,
    params: Mapping[str, Any] | None = None,
    relations: Sequence[Any] = (),
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
    relations : sequence, optional
        Contracts between parameters (`privlab.relations`: ``Ordered``, ``Subset``, ``Product``, ...),
        checked at compose time after the single parameters, for every job of a sweep.
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
            relations=tuple(relations),
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
_LOADING: list[str] = []  # the paper whose module is being imported (commands it registers are its)


@dataclass(frozen=True)
class _Found:
    """A paper module found by one of the sources, before it is imported."""

    key: str
    module: str
    where: str  # for messages: the file or entry point
    source: str
    conf_dir: Path | None
    reference_dir: Path | None
    ledger_path: Path | None
    root: Path | None


def path_roots() -> list[Path]:
    """The directories on ``PRIVLAB_PATH``; an entry that is not a paper root is one line naming it."""
    import os

    out: list[Path] = []
    for entry in os.environ.get("PRIVLAB_PATH", "").split(os.pathsep):
        if not entry.strip():
            continue
        path = Path(entry).expanduser()
        what = (
            "does not exist"
            if not path.exists()
            else "is not a directory"
            if not path.is_dir()
            else "has no experiments/ folder"
            if not (path / "experiments").is_dir()
            else "holds experiments/__init__.py (a paper root's experiments/ folder is not a package; remove it)"
            if (path / "experiments" / "__init__.py").exists()
            else ""
        )
        if what:
            raise PrivlabError(
                f"PRIVLAB_PATH entry {entry!r} {what}; PRIVLAB_PATH lists paper roots (directories holding "
                f"experiments/<paper>.py and conf/experiment/<paper>/), separated by {os.pathsep!r}"
            )
        if path.resolve() not in out:
            out.append(path.resolve())
    return out


def _builtin() -> list[_Found]:
    from . import experiments

    return [
        _Found(
            key=info.name,
            module=f"{BUILTIN}.{info.name}",
            where=f"{PACKAGE_DIR / 'experiments' / info.name}",
            source="privlab",
            conf_dir=PACKAGE_DIR / "conf",
            reference_dir=PACKAGE_DIR / "reference",
            ledger_path=PACKAGE_DIR / "experiments" / f"{info.name}.ledger.yaml",
            root=PACKAGE_DIR.parent,
        )
        for info in pkgutil.iter_modules(experiments.__path__)
        if info.ispkg and not info.name.startswith("_")
    ]


def _from_roots() -> list[_Found]:
    import sys

    found = []
    for root in path_roots():
        if str(root) not in sys.path:  # the root's own modules import by name, in workers too
            sys.path.append(str(root))
        folder = root / "experiments"
        for path in sorted(folder.iterdir()):
            key = path.stem if path.suffix == ".py" else path.name if (path / "__init__.py").is_file() else ""
            if not key or key.startswith("_") or not key.isidentifier():
                continue
            found.append(
                _Found(
                    key=key,
                    module=f"{ROOTS}.{key}",
                    where=str(path),
                    source=f"PRIVLAB_PATH {root}",
                    conf_dir=root / "conf",
                    reference_dir=root / "results" / "reference",
                    ledger_path=folder / f"{key}.ledger.yaml",
                    root=root,
                )
            )
    return found


def _from_entry_points() -> list[_Found]:
    import importlib.util
    from importlib.metadata import entry_points

    found = []
    for ep in entry_points(group=ENTRY_POINTS):
        spec = importlib.util.find_spec(ep.module.split(".")[0])
        origin = None
        try:
            origin = importlib.util.find_spec(ep.module)
        except ModuleNotFoundError:
            pass
        if spec is None or origin is None or origin.origin is None:
            _BROKEN[ep.name] = f"entry point {ep.name} = {ep.value} of group {ENTRY_POINTS}: no module {ep.module}"
            continue
        folder = Path(origin.origin).resolve().parent
        found.append(
            _Found(
                key=ep.name,
                module=ep.module,
                where=f"entry point {ep.name} = {ep.value}",
                source=f"entry point {ep.name}",
                conf_dir=folder / "conf",
                reference_dir=folder / "reference",
                ledger_path=folder / f"{ep.name}.ledger.yaml",
                root=folder.parent,
            )
        )
    return found


def sources() -> list[str]:
    """Where the registry looks for papers, in words (said when it finds none)."""
    import os

    return [
        f"privlab's own papers ({PACKAGE_DIR / 'experiments'})",
        f"PRIVLAB_PATH ({os.environ.get('PRIVLAB_PATH') or 'not set'})",
        f"installed packages with entry points of group {ENTRY_POINTS}",
    ]


@functools.cache
def _load_papers() -> None:
    """Import every paper module; one that fails to import is recorded, not fatal to the others."""
    seen: dict[str, str] = {}
    for found in [*_builtin(), *_from_roots(), *_from_entry_points()]:
        if found.key in seen:
            raise PrivlabError(f"paper {found.key!r} is defined twice: in {seen[found.key]} and {found.where}")
        seen[found.key] = found.where
        if found.source.startswith("entry point"):
            _PREFIXES[found.module] = found.key
        _LOADING.append(found.key)
        try:
            module = importlib.import_module(found.module)
        except Exception as exc:  # a broken paper must not take the others down
            _BROKEN[found.key] = f"{found.where} failed to import: {type(exc).__name__}: {exc}".splitlines()[0]
            for key in [k for k in _REGISTRY if k.startswith(f"{found.key}/")]:
                del _REGISTRY[key]
            for name in [n for n, c in _COMMANDS.items() if c.paper == found.key]:
                del _COMMANDS[name]
            continue
        finally:
            _LOADING.pop()
        paper = getattr(module, "PAPER", None)
        if not isinstance(paper, Paper):
            _BROKEN[found.key] = f"{found.where} declares no PAPER = Paper(...)"
            continue
        _PAPERS[found.key] = Paper(
            title=paper.title,
            seed=paper.seed,
            key=found.key,
            source=found.source,
            module=found.module,
            conf_dir=found.conf_dir,
            reference_dir=found.reference_dir,
            ledger_path=found.ledger_path,
            root=found.root,
        )


def reload() -> None:
    """Forget every paper from outside privlab and look again (``PRIVLAB_PATH`` or the installed
    entry points changed, e.g. in a test); privlab's own papers stay registered."""
    import sys

    for key, paper in list(_PAPERS.items()):
        if paper.source != "privlab":
            del _PAPERS[key]
    keep = set(_PAPERS)
    for exp_id in [k for k in _REGISTRY if k.split("/")[0] not in keep]:
        del _REGISTRY[exp_id]
    for name in [n for n, c in _COMMANDS.items() if c.paper and c.paper not in keep]:
        del _COMMANDS[name]
    external = (ROOTS, *_PREFIXES)
    for module in [m for m in sys.modules if m in external or m.startswith(tuple(f"{e}." for e in external))]:
        del sys.modules[module]
    _PREFIXES.clear()
    _BROKEN.clear()
    _load_papers.cache_clear()


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
        known = ", ".join(sorted(_REGISTRY)) or f"(none; looked in {'; '.join(sources())})"
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


def paper_of(exp: Experiment) -> Paper:
    """The paper that declares ``exp`` (its configs, references and ledger)."""
    return papers()[exp.paper]


# ---------------------------------------------------------------------------------------
# subcommands contributed by papers
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Command:
    """A ``privlab <name>`` subcommand: ``configure`` adds its arguments to an argparse parser,
    ``run`` takes the parsed arguments and returns the exit status."""

    name: str
    help: str
    run: Callable[[Any], int]
    configure: Callable[[Any], None]
    description: str = ""
    paper: str = ""  # the paper that contributes it ("" for privlab's core commands)


_COMMANDS: dict[str, Command] = {}


def command(
    name: str, *, help: str, configure: Callable[[Any], None], description: str = ""
) -> Callable[[Callable[[Any], int]], Callable[[Any], int]]:
    """Register the decorated ``args -> exit status`` function as ``privlab <name>``.

    A paper module registers its commands at import, beside its experiments (``privlab epsilon``
    is LPB's); the command line builds its parser from every registered command.
    """

    def register(fn: Callable[[Any], int]) -> Callable[[Any], int]:
        paper = _LOADING[-1] if _LOADING else ""
        if name in _COMMANDS and _COMMANDS[name].run.__code__ is not fn.__code__:
            raise ValueError(f"command {name!r} registered twice")
        _COMMANDS[name] = Command(name, help, fn, configure, description, paper)
        return fn

    return register


def commands() -> dict[str, Command]:
    """Every command the papers contribute, by name."""
    _load_papers()
    return dict(sorted(_COMMANDS.items()))
