"""What the bucketization experiments share: parameter contracts, the tables they run on, and
the few helpers their claims have in common (a mechanism's label, a wide table by mechanism,
the notes of claims the data or a failed solve cannot decide)."""

from __future__ import annotations

import pandas as pd
from omegaconf import OmegaConf

from privlab import PrivlabError
from privlab import bucketization as bk
from privlab import claims as cl
from privlab.datasets import is_synthetic
from privlab.datasets.census import SIZES
from privlab.params import Bool, Int, List, MapOf, Optional, Real, Str
from privlab.registry import IGNORE

POS = Real(0, low_open=True)
CENSUS = {
    "sa_columns": MapOf(Str()),
    "columns": Optional(MapOf(Str())),
    "offset": Real(0),
    "max_size": Int(1, 1000, limit="size pairs scanned"),
}
GRID = {**CENSUS, "tables": List(Str(), unique=True), "thetas": List(POS)}
POOL = {"n_queries": Int(1, 10**6, limit="queries held in memory"), "selectivity": Real(0, 1, low_open=True)}
RUNTIME = {**CENSUS, "table": Str(), "theta": POS, "repeats": Int(1, 1000, limit="runs per point"), "timings": Bool()}
# wall-clock; whether the ILP proves optimality within its time limit depends on the machine's load
RUNTIME_TOL = {"seconds": IGNORE, "status": IGNORE, "loss": IGNORE}
# smoke runs leave the two-size ILP out: a solve takes 5-20 s at any n
SMOKE_PRUNINGS = ("timings=false", "mechanism=[two_size_none,two_size_loss,two_size_full]")


def call(task):
    """ctx.map hands a worker one item: (library function, its arguments)."""
    fn, args = task
    return fn(*args)


def table_of(cfg, ctx, table: str, dataset=None) -> bk.Table:
    """Table ``table`` (a key of sa_columns) of the configured data set (or of ``dataset``):
    CENSUS's coded columns as they are, or the ``columns`` a real-data twin maps, recoded."""
    if table not in cfg.sa_columns:
        raise PrivlabError(f"table must be one of {', '.join(cfg.sa_columns)}; got {table!r}")
    frame = ctx.dataset(cfg.dataset if dataset is None else dataset)
    frame, domains = (frame, SIZES) if cfg.columns is None else bk.recode(frame, cfg.columns)
    return bk.split_table(frame, cfg.sa_columns[table], domains)


def data_kind(cfg) -> str:
    """ "synthetic" (the CENSUS-like generator), "paper" (a real CENSUS extract) or "other"
    (real data that is not the paper's: the ACS twins)."""
    if is_synthetic(**cfg.dataset):
        return "synthetic"
    return "paper" if cfg.dataset.name == "census" else "other"


def on_data(cfg, claim: cl.Claim, item, shown, checked_on=("paper",)) -> cl.Claim:
    """``claim`` where the data can check it; elsewhere ``item`` shown for reading, with the note
    (``printed.notes``) saying why the data cannot check it."""
    kind = data_kind(cfg)
    return claim if kind in checked_on else cl.info(item, shown, note=cfg.printed.notes[kind])


def printed(cfg):
    """The printed entries the claims compare with. A real-data twin compares the paper's words
    with other data: its claims carry no ledger id (the ledger counts checks of what the paper
    printed about its own data; the twins are set beside them in the report's Synthetic vs real)."""
    if cfg.columns is None:
        return cfg.printed

    def strip(node):
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k != "ledger"}
        return [strip(v) for v in node] if isinstance(node, list) else node

    return OmegaConf.create(strip(OmegaConf.to_container(cfg.printed)))


def mapping(cfg) -> list:
    """The real-data twin's mapping of the paper's attributes to its columns, as an info row."""
    if cfg.columns is None or "mapping" not in cfg.printed:
        return []
    return [cl.info(cfg.printed.mapping, ", ".join(f"{a} -> {c}" for a, c in cfg.columns.items()))]


def label(cfg, name: str) -> str | None:
    spec = cfg.mechanism.get(name)
    return None if spec is None else spec.get("label", name)


def wide(df, cfg, values: str, index=("table", "theta")) -> pd.DataFrame:
    """Column ``values`` by ``index``, one column per mechanism name."""
    names = {label(cfg, name): name for name in cfg.mechanism}
    return df.pivot_table(index=list(index), columns="method", values=values).rename(columns=names)


def solver_errors(df, cfg, name: str, keys=("table", "theta")) -> str:
    """Where mechanism ``name`` (an ILP) failed to solve: "" or "table=OCC theta=8, ..."."""
    mechanism = label(cfg, name)
    bad = df[(df.method == mechanism) & (df.status == "solver error")] if mechanism else df.iloc[:0]
    return ", ".join(" ".join(f"{k}={r[k]}" for k in keys) for _, r in bad.iterrows())


def undecided(cfg, item, failed: str, shown: str = "not decided") -> cl.Claim:
    """A claim that needs the values of an ILP that failed to solve at ``failed``: not decided."""
    return cl.info(item, shown, note=cfg.printed.notes.solver_error.format(failed))
