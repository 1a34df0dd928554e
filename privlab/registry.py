"""The registry: papers and their experiments, declared once, in the papers' own modules.

Every paper takes one road. A distribution names the paper's *experiment unit* in the
entry-point group ``privlab.papers`` (privlab's own five in its ``pyproject.toml``:
``lpb = "privlab.experiments.lpb"``; an installed paper ``warner = "privlab_warner.experiments"``).
The unit is a package that declares the paper and imports its experiments::

    PAPER = Paper("Ouyang, Yin, Liu - Limiting Privacy Breaches in Differential Privacy",
                  text="003_bcd9c4aebb45eb59.txt")

    @experiment(artifact="Figure 1", summary="...", keys=("attribute", "rho1"),
                params={"rho2": Real(0, 1, low_open=True, high_open=True), ...})
    def fig1_lambda(cfg, ctx) -> pandas.DataFrame: ...

    fig1_lambda.judged_by(verdicts.fig1_lambda, panels="panels")   # the unit's verdicts.py

and its folder holds what goes with them: ``conf/experiment/<paper>/<name>.yaml`` (and
``conf/study/<paper>/``), ``reference/quick/<name>/result.csv``, ``reference/paper/<name>/``,
``reference/studies/<name>.csv``, ``ledger.yaml`` and ``audit.yaml``. The experiment's id is
``<paper>/<function name>`` (here ``lpb/fig1_lambda``), the paper being the entry point's name.

A directory on ``PRIVLAB_PATH`` (separated by ``os.pathsep``) is such a distribution before it is
installed, for work in progress: its ``pyproject.toml`` declares the same entry points, and the
directory (and its ``src/``, if any) joins ``sys.path``.

A unit may also contribute a subcommand of ``privlab`` with `command` (LPB's ``privlab epsilon``),
through the same import that registers its experiments.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

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
    """A paper privlab reproduces, declared as ``PAPER = Paper(title, text=...)`` in its experiment
    unit; the registry fills in its key and where its unit, configs, references and ledger are."""

    title: str
    text: str = ""  # the paper's text the reproduction works from (a file name, a DOI, a citation)
    key: str = ""  # its key: the entry point's name, the experiments' id prefix
    found_in: str = ""  # where it was found: "entry point <name> of <distribution>" or "PRIVLAB_PATH <root>"
    module: str = ""  # the experiment unit: the module that declares it
    folder: Path | None = None  # the unit's folder: conf/, reference/, ledger.yaml, audit.yaml
    root: Path | None = None  # the project the unit's package lives in (``test:tests/...`` references)
    distribution: str = ""  # the distribution that declares it ("" for a PRIVLAB_PATH root not installed)
    version: str = ""  # its version

    @property
    def conf_dir(self) -> Path | None:
        """Holds ``experiment/<key>/<name>.yaml`` and ``study/<key>/<name>.yaml``."""
        return self.folder / "conf" if self.folder else None

    @property
    def reference_dir(self) -> Path | None:
        """Holds ``quick/<name>/``, ``paper/<name>/`` and ``studies/<name>.csv``."""
        return self.folder / "reference" if self.folder else None

    @property
    def ledger_path(self) -> Path | None:
        """``ledger.yaml`` (absent: the paper has no ledger)."""
        return self.folder / "ledger.yaml" if self.folder else None

    @property
    def audit_path(self) -> Path | None:
        """``audit.yaml`` (absent: the paper has no prose audit)."""
        return self.folder / "audit.yaml" if self.folder else None


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

    @property
    def reads_printed(self) -> bool:
        """Do its claims read the config's ``printed:`` block (a verdict registered by `judged_by`)?"""
        fn = self.claims_fn or (_REGISTRY[self.twin_of].claims_fn if self.twin_of in _REGISTRY else None)
        return isinstance(fn, functools.partial) and fn.func is _judge

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
ENTRY_POINTS = "privlab.papers"  # the entry-point group that names every paper's experiment unit
PACKAGE_DIR = Path(__file__).resolve().parent


def _paper_key(module: str) -> str:
    """The paper of a module that declares experiments: the entry point whose unit holds it.

    Read from the declarations alone (entry points and PRIVLAB_PATH roots' pyproject.toml), without
    importing any paper, so that a unit imports the same way in a fresh interpreter, a notebook, its
    own tests and a worker process as in ``privlab``'s own."""
    for found in _declared():
        if module == found.module or module.startswith(found.module + "."):
            return found.key
    raise ValueError(
        f"experiments are declared in a paper's experiment unit, the package an entry point of group "
        f"{ENTRY_POINTS} names (or a PRIVLAB_PATH root's pyproject.toml declares); {module} is in none"
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
_DECLARED_MODULES: set[str] = set()  # every unit module ever declared (what `reload` forgets)
_LOADING: list[str] = []  # the paper whose module is being imported (commands it registers are its)


@dataclass(frozen=True)
class _Declared:
    """A paper as a distribution declares it (entry point name and module), before it is imported."""

    key: str
    module: str
    where: str  # for messages: the entry point
    found_in: str
    distribution: str = ""
    version: str = ""
    root: Path | None = None  # a PRIVLAB_PATH root


def _root_problem(path: Path) -> str:
    if not path.exists():
        return "does not exist"
    if not path.is_dir():
        return "is not a directory"
    if not (path / "pyproject.toml").is_file():
        return "has no pyproject.toml"
    return ""


def path_roots() -> list[Path]:
    """The directories on ``PRIVLAB_PATH``; an entry that is not a paper root is one line naming it."""
    out: list[Path] = []
    for entry in os.environ.get("PRIVLAB_PATH", "").split(os.pathsep):
        if not entry.strip():
            continue
        path = Path(entry).expanduser()
        what = _root_problem(path)
        if what:
            raise PrivlabError(
                f"PRIVLAB_PATH entry {entry!r} {what}; PRIVLAB_PATH lists paper projects (directories whose "
                f'pyproject.toml names their papers in [project.entry-points."{ENTRY_POINTS}"]), separated by '
                f"{os.pathsep!r}"
            )
        if path.resolve() not in out:
            out.append(path.resolve())
    return out


def _import_dirs(root: Path) -> list[Path]:
    """Where a root's packages import from: the root itself, or its ``src/`` layout."""
    return [root / "src"] if (root / "src").is_dir() else [root]


_ADDED_TO_PATH: set[str] = set()  # the folders add_roots_to_path put on sys.path


def add_roots_to_path() -> None:
    """Put every PRIVLAB_PATH root's packages on ``sys.path`` (at import of the registry, so that a
    worker process imports a root's modules by name as its parent does); bad entries are left to
    `path_roots` to report."""
    wanted: list[str] = []
    for entry in os.environ.get("PRIVLAB_PATH", "").split(os.pathsep):
        path = Path(entry.strip()).expanduser() if entry.strip() else None
        if path is None or _root_problem(path):
            continue
        wanted += [str(folder) for folder in _import_dirs(path.resolve())]
    # a root taken off PRIVLAB_PATH leaves sys.path too: its metadata (an egg-info left by
    # `pip install -e`) would otherwise still declare its paper as installed
    for folder in _ADDED_TO_PATH - set(wanted):
        while folder in sys.path:
            sys.path.remove(folder)
        _ADDED_TO_PATH.discard(folder)
    for folder in wanted:
        if folder not in sys.path:
            sys.path.insert(0, folder)
            _ADDED_TO_PATH.add(folder)


def _root_entry_points(root: Path) -> dict[str, str]:
    """``[project.entry-points."privlab.papers"]`` of a root's pyproject.toml (name -> module)."""
    path = root / "pyproject.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PrivlabError(f"PRIVLAB_PATH root {root}: {path.name} cannot be read ({exc})") from None
    group = data.get("project", {}).get("entry-points", {}).get(ENTRY_POINTS, {})
    if not isinstance(group, dict) or not group:
        raise PrivlabError(
            f'PRIVLAB_PATH root {root}: {path.name} declares no paper; add [project.entry-points."{ENTRY_POINTS}"] '
            f'with <paper> = "<its experiment package>"'
        )
    return {str(k): str(v).split(":")[0].strip() for k, v in group.items()}


@functools.cache
def _declared() -> tuple[_Declared, ...]:
    """Every paper declared: PRIVLAB_PATH roots first, then installed entry points (privlab's own
    among them). A root that is also installed (``pip install -e``) is declared once."""
    out: dict[str, _Declared] = {}
    for root in path_roots():
        for key, module in _root_entry_points(root).items():
            out.setdefault(
                key,
                _Declared(
                    key, module, f"{key} = {module} in {root / 'pyproject.toml'}", f"PRIVLAB_PATH {root}", root=root
                ),
            )
    for ep in entry_points(group=ENTRY_POINTS):
        dist = getattr(ep, "dist", None)
        name, version = (dist.metadata["Name"], dist.version) if dist is not None else ("", "")
        module = ep.value.split(":")[0].strip()
        found = _Declared(
            ep.name, module, f"entry point {ep.name} = {ep.value}", f"entry point {ep.name} of {name}", name, version
        )
        if ep.name in out and out[ep.name].module != module:
            _BROKEN[ep.name] = (
                f"paper {ep.name!r} is declared twice: {out[ep.name].where} and {found.where} (of {name}); remove one"
            )
        elif ep.name in out:  # the same unit, installed and on PRIVLAB_PATH: the distribution names its version
            out[ep.name] = _Declared(
                ep.name, module, out[ep.name].where, out[ep.name].found_in, name, version, out[ep.name].root
            )
        else:
            out[ep.name] = found
    _DECLARED_MODULES.update(d.module for d in out.values())
    return tuple(out.values())


def _unit_folder(module: Any) -> Path:
    """The folder of an experiment unit: its package's folder (or, for a plain module, the folder holding it)."""
    file = Path(module.__file__ or "").resolve()
    return file.parent


def _project_root(module_name: str) -> Path | None:
    """The directory holding the unit's top-level package (where ``tests/`` of its project are)."""
    top = sys.modules.get(module_name.split(".")[0])
    path = getattr(top, "__file__", None)
    if path is None:
        return None
    file = Path(path).resolve()
    return file.parent.parent if file.name == "__init__.py" else file.parent


def sources() -> list[str]:
    """Where the registry looks for papers, in words (said when it finds none)."""
    return [
        f"entry points of group {ENTRY_POINTS} of the installed distributions (privlab's own five among them)",
        f"PRIVLAB_PATH ({os.environ.get('PRIVLAB_PATH') or 'not set'})",
    ]


@functools.cache
def _load_papers() -> None:
    """Import every paper's unit; one that fails to import is recorded, not fatal to the others."""
    for found in _declared():
        if found.key in _BROKEN:
            continue
        if not found.key.isidentifier():
            _BROKEN[found.key] = f"{found.where}: a paper's key is a Python identifier; got {found.key!r}"
            continue
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
            _BROKEN[found.key] = f"{found.where}: module {found.module} declares no PAPER = Paper(...)"
            continue
        _PAPERS[found.key] = Paper(
            title=paper.title,
            text=paper.text,
            key=found.key,
            found_in=found.found_in,
            module=found.module,
            folder=_unit_folder(module),
            root=found.root or _project_root(found.module),
            distribution=found.distribution,
            version=found.version,
        )


def reload() -> None:
    """Forget every paper from outside privlab and look again (``PRIVLAB_PATH`` or the installed
    entry points changed, e.g. in a test); privlab's own papers stay registered."""
    add_roots_to_path()
    keep = {k for k, p in _PAPERS.items() if p.distribution == "privlab" and not p.found_in.startswith("PRIVLAB")}
    external = [p.module for k, p in _PAPERS.items() if k not in keep] + sorted(_DECLARED_MODULES)
    for key in [k for k in _PAPERS if k not in keep]:
        del _PAPERS[key]
    for exp_id in [k for k in _REGISTRY if k.split("/")[0] not in keep]:
        del _REGISTRY[exp_id]
    for name in [n for n, c in _COMMANDS.items() if c.paper and c.paper not in keep]:
        del _COMMANDS[name]
    tops = {m.split(".")[0] for m in external} - {"privlab"}
    for module in [m for m in sys.modules if m.split(".")[0] in tops]:
        del sys.modules[module]
    _BROKEN.clear()
    _declared.cache_clear()
    _load_papers.cache_clear()
    importlib.invalidate_caches()


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


add_roots_to_path()
