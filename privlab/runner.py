"""The runner: composes configs, runs experiments and owns every file they produce.

A run of experiment ``<paper>/<name>`` writes, atomically, the directory
``<results>/<paper>/<name>/`` holding ``result.csv``, ``config.yaml`` (resolved),
``provenance.json``, ``claims.csv`` (if the experiment checks claims) and each
figure as PNG and PDF. The files are written into a staging directory which then
replaces the old one in a single rename, so an interrupted run leaves either the
previous complete result or the new complete result, never a mixture.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import platform
import subprocess
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd
import yaml
from hydra import compose as hydra_compose
from hydra import initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.core.hydra_config import HydraConfig
from hydra.errors import HydraException
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from . import datasets, mechanisms, params, registry, relations, store
from . import figures as figures_mod
from . import overrides as overrides_mod
from ._validation import PrivlabError
from .claims import COLUMNS
from .context import RunContext

PACKAGE_DIR = Path(__file__).resolve().parent
# the source checkout privlab runs from, if any (its git commit goes into provenance); None when installed
CHECKOUT = PACKAGE_DIR.parent if (PACKAGE_DIR.parent / "pyproject.toml").is_file() else None
PROFILES = ("quick", "paper")
BACKENDS = ("loky", "threading", "multiprocessing", "dask", "ray")
# keys that say how to run, not what to compute: results never depend on them
RUNTIME_KEYS = ("workers", "cache", "joblib_backend", "joblib_address", "results_dir", "sweep_figures")


def conf_dir() -> Path:
    """The Hydra config directory: privlab's shared config groups (the checkout's ``conf/``, installed
    as the package ``privlab.conf``), or PRIVLAB_CONF."""
    path = Path(os.environ.get("PRIVLAB_CONF") or _shared_conf())
    if not (path / "config.yaml").is_file():
        raise PrivlabError(f"config directory {path} has no config.yaml; unset PRIVLAB_CONF or point it at one")
    return path


def default_results_dir() -> Path:
    """``results/`` under the working directory, or PRIVLAB_RESULTS."""
    given = os.environ.get("PRIVLAB_RESULTS")
    if given is not None and not given.strip():
        raise PrivlabError("PRIVLAB_RESULTS is empty; set it to a directory or unset it (default: ./results)")
    return Path(given) if given else Path.cwd() / "results"


@functools.cache
def _shared_conf() -> Path:
    spec = importlib.util.find_spec("privlab.conf")
    if spec is None or not spec.submodule_search_locations:
        raise PrivlabError("privlab's config groups (the package privlab.conf) are not installed; reinstall privlab")
    return Path(list(spec.submodule_search_locations)[0])


def given_reference_dir() -> Path | None:
    """``PRIVLAB_REFERENCE``: a directory laid out as a results directory (``<paper>/<name>/result.csv``)
    that ``privlab check`` compares with instead of each paper's committed references; None if unset."""
    given = os.environ.get("PRIVLAB_REFERENCE")
    if given is not None and not given.strip():
        raise PrivlabError(
            "PRIVLAB_REFERENCE is empty; set it to a directory or unset it (default: each paper's committed references)"
        )
    return Path(given) if given else None


# ---------------------------------------------------------------------------------------
# configuration
# ---------------------------------------------------------------------------------------
def _by_profile(quick, paper, *, _root_):
    """``${by_profile:QUICK,PAPER}``: a value that differs between the two profiles."""
    profile = _root_.get("profile", "quick")
    if profile not in PROFILES:
        raise PrivlabError(f"profile must be one of {', '.join(PROFILES)}; got {profile!r}")
    return quick if profile == "quick" else paper


def register_resolvers() -> None:
    if not OmegaConf.has_resolver("by_profile"):
        OmegaConf.register_new_resolver("by_profile", _by_profile)
    if not OmegaConf.has_resolver("privlab_results"):
        OmegaConf.register_new_resolver("privlab_results", lambda: str(default_results_dir()))


register_resolvers()


def hydra_error_line(exc: BaseException, exp_id: str | None = None) -> str:
    """`privlab.overrides.hydra_error_line`, an unknown option of a config group said with the options
    of privlab's and every paper's config directory."""
    return overrides_mod.hydra_error_line(exc, exp_id, group_options=_group_options)


def _group_options(group: str) -> list[str]:
    """The options of config group ``group`` in privlab's and every paper's config directory."""
    roots = [conf_dir(), *(p.conf_dir for p in registry.papers().values() if p.conf_dir is not None)]
    return sorted({f.stem for root in roots for f in Path(root, group).glob("*.yaml") if not f.stem.startswith("_")})


def quote_override_value(value: str) -> str:
    """``value`` as a quoted string of Hydra's override grammar (any path: spaces, non-ASCII, quotes)."""
    return overrides_mod.quote(value)


def searchpath_override() -> list[str]:
    """The Hydra override that adds every paper's config directory (its unit's ``conf/``)."""
    dirs = []
    for paper in registry.papers().values():
        conf = paper.conf_dir
        if conf is not None and conf.is_dir() and conf not in dirs:
            dirs.append(conf)
    items = ",".join(quote_override_value(f"file://{d}") for d in dirs)
    return [f"hydra.searchpath=[{items}]"] if dirs else []


def _workers_spec() -> params.Spec:
    cores = os.cpu_count() or 1
    return params.Int(-cores, 4 * cores, nonzero=True, limit=f"4 workers per core of this {cores}-core machine")


def global_schema() -> dict:
    """The contract of the keys every config has (conf/config.yaml)."""
    return {
        "id": params.Str(),
        "profile": params.Choice(*PROFILES),
        "seed": params.Int(0, 2**63 - 1),
        "workers": _workers_spec(),
        "cache": params.Bool(),
        "joblib_backend": params.Optional(params.Choice(*BACKENDS)),
        "joblib_address": params.Optional(params.Str()),
        "results_dir": params.Str(),
        "sweep_figures": params.Bool(),
    }


def validate_config(exp: registry.Experiment, cfg: DictConfig | dict) -> None:
    """Check every key of a composed config (resolved; or its plain dict) against the global contract,
    the experiment's declared parameters, its data set's loader and its mechanisms (one line on the
    first fault)."""
    data = cfg if isinstance(cfg, dict) else OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(data, dict)
    schema: dict = {**global_schema(), **exp.params}
    if "dataset" in data:
        schema["dataset"] = params.Free()
    if "mechanism" in data:
        schema["mechanism"] = params.MapOf(params.Free(), min_len=0)
    if "printed" in data or exp.reads_printed:
        schema["printed"] = params.Printed()
    if not exp.params:  # an experiment that declares nothing gets its keys' presence only
        schema.update({k: params.Free() for k in data if k not in schema})
    checked = params.validate(schema, data, where=f" of {exp.id}")
    relations.check_relations(exp.relations, checked, where=f" of {exp.id}")
    if data["id"] != exp.id:
        raise PrivlabError(f"id is fixed by the experiment's config path ({exp.id}); it cannot be overridden")
    if isinstance(data.get("dataset"), dict):
        datasets.check_spec(data["dataset"], name="dataset")
    if exp.mechanism_kind is not None or "mechanism" in data:
        built = mechanisms.build(data.get("mechanism"), kind=exp.mechanism_kind)
        if exp.one_mechanism and len(built) != 1:
            raise PrivlabError(
                f"mechanism must name exactly one {exp.mechanism_kind} mechanism for {exp.id}, got "
                f"{', '.join(built) or 'none'} (compare several with 'mechanism=[a],[b] --multirun')"
            )


class MissingConfig(PrivlabError):
    """A declared experiment whose config file is not there: its own fault, not the others'."""


def config_path(exp: registry.Experiment) -> Path | None:
    """Where ``exp``'s config lives: ``conf/experiment/<paper>/<name>.yaml`` of its paper's unit."""
    conf = registry.paper_of(exp).conf_dir
    return conf / "experiment" / exp.paper / f"{exp.name}.yaml" if conf is not None else None


def compose(exp_id: str, overrides=(), profile: str | None = None, *, hydra_node: bool = False) -> DictConfig:
    """The resolved and validated config of experiment ``exp_id`` with Hydra ``overrides`` applied.

    ``hydra_node=True`` keeps Hydra's own node (launcher, sweep and run directories), unresolved.
    """
    exp = registry.get(exp_id)  # a clear error for unknown ids before Hydra's
    path = config_path(exp)
    if path is None or not path.is_file():  # before Hydra's multi-line "Could not find": name the file
        raise MissingConfig(f"{exp_id} is declared but has no config: {path} is missing")
    for item in overrides:
        if not item.partition("=")[0].lstrip("+~"):
            raise PrivlabError(f"override {item!r} names no parameter; write NAME=VALUE (e.g. rho2=0.3)")
    overrides = overrides_mod.normalize(overrides)  # plain values quoted; key={} empties the mapping
    overrides = [f"experiment={exp_id}", *searchpath_override(), *overrides]
    if profile is not None:
        if profile not in PROFILES:
            raise PrivlabError(f"--profile must be one of {', '.join(PROFILES)}; got {profile!r}")
        overrides.append(f"profile={profile}")
    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=str(conf_dir()), version_base="1.3"):
            full = hydra_compose(config_name="config", overrides=overrides, return_hydra_config=True)
            HydraConfig.instance().set_config(full)  # for ${hydra:...} (the id comes from the config path)
            if hydra_node:
                return full
            app = app_part(full)
    except (HydraException, OmegaConfBaseException, ValueError, OSError, yaml.YAMLError) as exc:  # parser, files
        if isinstance(exc, PrivlabError):
            raise
        raise PrivlabError(hydra_error_line(exc, exp_id)) from None
    finally:
        GlobalHydra.instance().clear()
    return resolve_app(exp, app, full)


def app_part(full: DictConfig) -> DictConfig:
    """The experiment's part of Hydra's composed config ``full`` (its ``hydra`` node dropped), unresolved."""
    data = OmegaConf.to_container(full, resolve=False)
    assert isinstance(data, dict)
    data.pop("hydra", None)
    app = OmegaConf.create(data)
    OmegaConf.set_struct(app, True)
    return app


def resolve_app(exp: registry.Experiment, app: DictConfig, full: DictConfig | None) -> DictConfig:
    """``app`` (see `app_part`) resolved, ``${hydra:...}`` against ``full`` (None: against the Hydra
    config set already), and validated (`validate_config`)."""
    cfg = OmegaConf.create(resolved_container(exp, app, full))
    OmegaConf.set_struct(cfg, True)
    return cfg


def resolved_container(exp: registry.Experiment, app: DictConfig, full: DictConfig | None) -> dict:
    """`resolve_app` as a plain dict."""
    if full is not None:
        HydraConfig.instance().set_config(full)
    try:
        # a container rather than OmegaConf.resolve(), which cannot put a list or dict
        # returned by ${by_profile:...} into a scalar node
        data = OmegaConf.to_container(app, resolve=True)
    except OmegaConfBaseException as exc:
        if isinstance(exc, PrivlabError):
            raise
        raise PrivlabError(hydra_error_line(exc, exp.id)) from None
    assert isinstance(data, dict)
    if data.get("profile") not in PROFILES:
        raise PrivlabError(f"profile must be one of {', '.join(PROFILES)}; got {data.get('profile')!r}")
    validate_config(exp, data)
    return data


# ---------------------------------------------------------------------------------------
# provenance
# ---------------------------------------------------------------------------------------
_PACKAGES = ("numpy", "pandas", "scipy", "matplotlib", "hydra-core", "omegaconf", "pulp", "joblib", "tqdm")


_GIT_SEEN: dict[Path | None, tuple[float, str | None]] = {}  # checkout -> (when, commit) of the last look


def _git_commit(where: Path | None = None) -> str | None:
    """The commit of the checkout at ``where`` (privlab's own by default), looked up at most once a
    minute per checkout: a sweep's jobs share it."""
    where = CHECKOUT if where is None else where
    now = time.monotonic()
    seen = _GIT_SEEN.get(where)
    if seen is None or now - seen[0] > 60:
        _GIT_SEEN[where] = seen = (now, _git_lookup(where))
    return seen[1]


def _git_lookup(where: Path | None) -> str | None:
    """The commit of the git checkout holding ``where`` (``+dirty`` with uncommitted changes); None
    outside one (an installed package)."""
    if where is None or not Path(where).is_dir():
        return None
    try:
        out = subprocess.run(["git", "-C", str(where), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(
            ["git", "-C", str(where), "status", "--porcelain", "--untracked-files=no", "--", "."],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def paper_provenance(exp: registry.Experiment) -> dict:
    """Which paper made a result: its key, the distribution that declares it, its version and, where
    the paper's project is a git checkout, its commit."""
    paper = registry.paper_of(exp)
    return {
        "key": paper.key,
        "title": paper.title,
        "distribution": paper.distribution or None,
        "version": paper.version or None,
        "found_in": paper.found_in,
        "commit": _git_commit(paper.root) if paper.root is not None else None,
    }


@functools.cache
def _package_versions() -> dict[str, str | None]:
    """The installed versions of privlab and the packages it runs on (once per process)."""
    versions: dict[str, str | None] = {}
    for pkg in ("privlab", *_PACKAGES):
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = None
    return versions


def provenance(cfg: DictConfig, wall_time: float, ctx: RunContext) -> dict:
    versions = dict(_package_versions())
    return {
        "experiment": cfg.get("id"),
        "profile": cfg.get("profile"),
        "seed": int(cfg.get("seed", 0)),
        "git_commit": _git_commit(),
        "paper": paper_provenance(registry.get(str(cfg.get("id")))),
        "python": platform.python_version(),
        "packages": versions,
        "wall_time_s": round(wall_time, 3),
        "host_cores": os.cpu_count(),
        "workers": ctx.workers,
        "cache_hits": ctx.cache_hits,
        "data": list(ctx.data_used),
        "code_version": code_version(registry.get(str(cfg.get("id")))),
        "finished_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


# ---------------------------------------------------------------------------------------
# running
# ---------------------------------------------------------------------------------------
def atomic_write_text(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` through a temporary file and a rename: readers see the old
    file or the new one, never half of it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)  # a full disk leaves no half-written file
        raise
    return path


def table_to_csv(df: pd.DataFrame) -> str:
    """The canonical CSV text of a result table (byte-stable for equal tables)."""
    return df.to_csv(index=False, lineterminator="\n")


def claims_to_csv(claims: list) -> str:
    """``claims.csv``: claim, printed, reproduced, verdict (agree / disagree / info), rule, note."""
    return pd.DataFrame([c.row() for c in claims], columns=list(COLUMNS)).to_csv(index=False, lineterminator="\n")


def _validate_table(exp: registry.Experiment, df) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"experiment {exp.id} returned {type(df).__name__}, expected a pandas DataFrame")
    missing = [k for k in exp.keys if k not in df.columns]
    if missing:
        raise TypeError(f"experiment {exp.id}: key columns {missing} missing from its table")
    if exp.keys and df.duplicated(list(exp.keys)).any():
        raise TypeError(f"experiment {exp.id}: key columns {list(exp.keys)} do not identify rows uniquely")
    return df.reset_index(drop=True)


def make_context(cfg: DictConfig, results_dir: Path | None = None, log=print) -> RunContext:
    results_dir = Path(results_dir) if results_dir else default_results_dir()
    cache = cfg.get("cache", True)
    return RunContext(
        seed=int(cfg.get("seed", 0)),
        workers=cfg.get("workers", 1),
        cache_dir=(results_dir / ".cache") if cache else None,
        scratch_dir=results_dir / ".scratch",
        log=log,
        backend=cfg.get("joblib_backend"),
        backend_address=cfg.get("joblib_address"),
    )


def run_table(exp: registry.Experiment, cfg: DictConfig, ctx: RunContext) -> pd.DataFrame:
    """Run the experiment function and return its validated table."""
    return _validate_table(exp, exp.run(cfg, ctx))


@dataclass
class RunOutcome:
    out_dir: Path
    table: pd.DataFrame
    claims: list
    wall_time: float


def _write_figure(fig, stem: Path, *, drawn: bool = False) -> None:
    """Save ``fig`` as PNG and PDF, cropped to what it draws. ``drawn``: its canvas is drawn already
    (the audit read it back). The layout that drawing made is the one both files keep: its layout
    engine is set aside and the crop computed once, so each file is drawn once, not laid out again
    (a constrained layout is most of a draw's time)."""
    # matplotlib: about 0.3 s to import, loaded only to draw
    import matplotlib.pyplot as plt

    if not drawn:
        fig.canvas.draw()
    if fig.get_layout_engine() is not None:
        # no engine: the axes stay where the layout put them, and savefig does not draw the
        # figure once more before each file, as it does for any engine (a placeholder included)
        fig.set_layout_engine(None)
        if fig.get_layout_engine() is not None:  # rcParams ask for a layout engine by default
            fig.set_layout_engine("none")
    crop = fig.get_tightbbox(fig.canvas.get_renderer()).padded(plt.rcParams["savefig.pad_inches"])
    fig.savefig(stem.with_suffix(".png"), dpi=130, bbox_inches=crop)
    # fixed metadata so that equal figures give equal PDF bytes
    fig.savefig(stem.with_suffix(".pdf"), bbox_inches=crop, metadata={"CreationDate": None})
    plt.close(fig)


def write_outputs(
    exp: registry.Experiment,
    cfg: DictConfig,
    table: pd.DataFrame,
    out_dir: Path,
    prov: dict,
    extra_files: dict | None = None,
    figures: bool = True,
    durable: bool = True,
    log=print,
    claims: list | None = None,
) -> list:
    """Write every output of a finished run into ``out_dir``, atomically (see `privlab.store`);
    ``figures=False`` leaves the experiment's figures out (a sweep's jobs, unless ``sweep_figures``).
    Each declared figure is drawn, then read back against its spec and table (`privlab.figures.audit`):
    the verdict goes into ``provenance.json`` (``figure_audit``: per figure, ``faithful`` and the
    problems found), and each problem is logged. ``claims``: the run's claims, judged already
    (`judge`); by default judged here."""
    # matplotlib: about 0.3 s to import, loaded only to draw
    import matplotlib

    matplotlib.use("Agg")
    if claims is None:
        claims = judge(exp, table, cfg)  # before anything is written: a failing claim writes nothing

    def fill(staging: Path) -> None:
        (staging / "result.csv").write_text(table_to_csv(table))
        (staging / "config.yaml").write_text(OmegaConf.to_yaml(cfg, resolve=True))
        if claims:
            (staging / "claims.csv").write_text(claims_to_csv(claims))
        audits: dict[str, dict] = {}
        for name, fn in exp.figures.items() if figures else ():
            fig, problems = figures_mod.draw_audited(fn, table, cfg)  # a figure reads the run's config
            _write_figure(fig, staging / name, drawn=problems is not None)
            if problems is not None:  # read back against its spec and table: the verdict goes with the result
                audits[name] = {"faithful": not problems, "problems": problems}
                for line in problems:
                    log(f"{exp.id}: figure {name} is not faithful to its table: {line}")
        for name, text in (extra_files or {}).items():
            (staging / name).write_text(text)
        record = {**prov, "figure_audit": audits} if audits else prov
        (staging / "provenance.json").write_text(json.dumps(record, indent=2) + "\n")

    store.write_result(Path(out_dir), fill, rows=len(table), durable=durable)
    return claims


def judge(exp: registry.Experiment, table: pd.DataFrame, cfg: DictConfig) -> list:
    """``exp``'s claims on ``table``; a verdict that fails on a printed value the user overrode with one
    of another kind (a word where the paper prints a number) is that value's one-line error."""
    try:
        return exp.check_claims(table, cfg)
    except (ValueError, TypeError, ArithmeticError, KeyError) as exc:
        if isinstance(exc, PrivlabError) or "printed" not in cfg:
            raise
        given = OmegaConf.to_container(cfg.printed, resolve=True)
        default = _default_printed(exp, str(cfg.get("profile", "quick")))
        fault = next(_printed_faults(default, given, "printed"), None)
        if fault is None:
            raise
        raise PrivlabError(fault) from None


def _default_printed(exp: registry.Experiment, profile: str) -> Any:
    """The ``printed:`` block of ``exp``'s own config (composed aside: a running Hydra job's state is kept)."""
    hydra_state = GlobalHydra.instance().hydra if GlobalHydra.instance().is_initialized() else None
    job_config = HydraConfig.instance().cfg
    try:
        composed = OmegaConf.to_container(compose(exp.id, [], profile=profile), resolve=True)
        return composed.get("printed") if isinstance(composed, dict) else None
    finally:
        GlobalHydra.instance().clear()
        if hydra_state is not None:
            GlobalHydra.instance().initialize(hydra_state)
        HydraConfig.instance().cfg = job_config


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    try:
        Fraction(str(value).strip())
    except (ValueError, ZeroDivisionError):
        return False
    return True


def _printed_faults(default: Any, given: Any, path: str):
    """One line for each printed value of ``given`` whose kind differs from the config's own (``default``)."""
    if isinstance(default, dict) and isinstance(given, dict):
        for key, value in given.items():
            if key in default:
                yield from _printed_faults(default[key], value, f"{path}.{key}")
    elif isinstance(default, list) and isinstance(given, list):
        for i, (d, g) in enumerate(zip(default, given)):
            yield from _printed_faults(d, g, f"{path}[{i}]")
    elif isinstance(default, (dict, list)) != isinstance(given, (dict, list)):
        kind = "a mapping" if isinstance(default, dict) else "a list" if isinstance(default, list) else "one value"
        yield f"{path} must be {kind} as in the experiment's config, got {given!r}"
    elif _is_number(default) and not _is_number(given):
        yield f"{path} must be a number as the paper prints it (e.g. {str(default)!r}), got {given!r}"


def computed_config(cfg: DictConfig) -> dict:
    """The part of a resolved config that determines the results (runtime keys dropped)."""
    data = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(data, dict)
    return {k: v for k, v in data.items() if k not in RUNTIME_KEYS and k != "hydra"}


def is_complete(out_dir: Path, cfg: DictConfig, exp: registry.Experiment | None = None) -> bool:
    """Does ``out_dir`` hold a complete run of exactly this config (and code version)?

    Complete: its manifest checks out (every file present with its size and checksum,
    the table with the row count it was written with). Same: its config computes the same
    thing and, when ``exp`` is given, it was made by the same code version.
    """
    out_dir = Path(out_dir)
    ok, _ = store.verify(out_dir)
    if not ok:
        return False
    try:
        stored = yaml.safe_load((out_dir / "config.yaml").read_text())
        rows = len(pd.read_csv(out_dir / "result.csv"))
        prov = json.loads((out_dir / "provenance.json").read_text())
    except Exception:  # any unreadable file means: not valid, recompute
        return False
    if rows != store.manifest_rows(out_dir):
        return False
    if exp is not None and prov.get("code_version") != code_version(exp):
        return False
    stored = {k: v for k, v in (stored or {}).items() if k not in RUNTIME_KEYS}
    return stored == computed_config(cfg)


def code_version(exp: registry.Experiment) -> str:
    """A digest of the code that computes ``exp``: every module of the top-level package that holds
    the paper's experiment unit (privlab's core, its data sets and the paper's library for privlab's
    own papers; the whole package of an installed paper or a PRIVLAB_PATH root) and of the unit's
    folder. Another paper's library or unit in the same package is left out, so that editing one
    paper leaves the others' results valid; a result made by other code is never reused."""
    paper = registry.paper_of(exp)
    others = tuple(sorted(str(p.folder) for k, p in registry.papers().items() if k != paper.key and p.folder))
    return _code_digest(paper.key, paper.module, str(paper.folder), others)


@functools.cache
def _code_digest(key: str, module: str, folder: str, others: tuple[str, ...]) -> str:
    top = importlib.util.find_spec(module.split(".")[0])
    roots = [Path(p) for p in (top.submodule_search_locations or []) if top is not None] if top else []
    if top is not None and not roots and top.origin:  # a top-level module, not a package
        roots = [Path(top.origin)]
    roots = [r.resolve() for r in roots]
    skip = [Path(o).resolve() for o in others]
    for root in roots:  # sibling papers' libraries in the same package: privlab/<other paper>/
        skip += [root / Path(o).name for o in others if (root / Path(o).name).is_dir() and Path(o).name != key]
    files: set[Path] = set()
    for where in [*roots, Path(folder).resolve()]:
        found = [where] if where.is_file() else where.rglob("*.py")
        files.update(p for p in found if not any(p.is_relative_to(s) for s in skip))
    digest = hashlib.sha256()
    base = [*roots, Path(folder).resolve()]
    for path in sorted(files):
        rel = next((path.relative_to(b.parent) for b in base if path.is_relative_to(b.parent)), Path(path.name))
        digest.update(rel.as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def error_line(exc: BaseException) -> str:
    """One line saying what went wrong (a user error's message as is; else its type too)."""
    text = (str(exc).strip().splitlines() or [""])[0]
    if isinstance(exc, PrivlabError):
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def error_log(results_dir: Path, exp: registry.Experiment) -> Path:
    return Path(results_dir) / "errors" / exp.paper / f"{exp.name}.log"


def traceback_text(exp: registry.Experiment, exc: BaseException) -> str:
    """The first line says which experiment failed and why; the traceback follows."""
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return f"{exp.id}: {error_line(exc)}\n\n{text}"


def record_error(results_dir: Path, exp: registry.Experiment, exc: BaseException) -> Path:
    """Write the traceback of ``exp``'s failure beside the report (results/errors/<paper>/<name>.log);
    where even that cannot be written (a full disk), the failure is one line saying so."""
    try:
        return atomic_write_text(error_log(results_dir, exp), traceback_text(exp, exc))
    except OSError as err:
        why = f"{exp.id}: {error_line(exc)}; its traceback cannot be written either ({err.strerror or err})"
        raise PrivlabError(why) from None


def clear_error(results_dir: Path, exp: registry.Experiment) -> None:
    error_log(results_dir, exp).unlink(missing_ok=True)


def execute(
    exp_id: str,
    cfg: DictConfig,
    out_dir: Path | None = None,
    *,
    results_dir: Path | None = None,
    log=print,
    extra_files: dict | None = None,
    figures: bool = True,
    durable: bool = True,
    writer: Callable[..., None] | None = None,
) -> RunOutcome:
    """Run experiment ``exp_id`` with resolved config ``cfg`` and write its outputs (``figures=False``:
    without the experiment's figures; ``durable=False``: without fsync, see `privlab.store.write_result`).

    ``writer``: called with `write_outputs`' arguments (the claims judged here) instead of writing
    before returning (`privlab.reproduce_pool.run_one` hands them to a `DeferredWriter`: drawn and
    written by another process while the caller goes on)."""
    exp = registry.get(exp_id)
    # one rule: cache and scratch live under the results directory the run was given
    results_dir = Path(results_dir or cfg.get("results_dir") or default_results_dir())
    out_dir = Path(out_dir) if out_dir else results_dir / exp.paper / exp.name
    ctx = make_context(cfg, results_dir, log)
    start = time.perf_counter()
    table = run_table(exp, cfg, ctx)
    wall = time.perf_counter() - start
    prov = provenance(cfg, wall, ctx)
    if writer is None:
        claims = write_outputs(exp, cfg, table, out_dir, prov, extra_files, figures, durable, log)
    else:
        claims = judge(exp, table, cfg)  # a failing claim is this run's fault, raised here: nothing is written
        writer(exp.id, cfg, table, out_dir, prov, claims, extra_files, figures, durable)
    return RunOutcome(out_dir=out_dir, table=table, claims=claims, wall_time=wall)
