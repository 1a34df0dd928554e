"""What the bucketization experiments share: parameter contracts, the tables they run on, the
mechanisms they compare, and the config blocks their claims read."""

from __future__ import annotations

from dataclasses import replace

from privlab.bucketization.mechanisms import BucketingMechanism, OptimalBucketing
from privlab.bucketization.tables import Table, census_table
from privlab.datasets import is_synthetic
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
RUNTIME_TOL = {"seconds": IGNORE, "seconds_low": IGNORE, "seconds_high": IGNORE, "status": IGNORE, "loss": IGNORE}
# smoke runs leave the two-size ILP out: a solve takes 5-20 s at any n
SMOKE_PRUNINGS = ("timings=false", "mechanism=[two_size_none,two_size_loss,two_size_full]")


def table_of(cfg, ctx, table: str, dataset=None) -> Table:
    """Table ``table`` (a key of sa_columns) of the configured data set (or of ``dataset``)."""
    frame = ctx.dataset(cfg.dataset if dataset is None else dataset)
    return census_table(frame, table, cfg.sa_columns, cfg.columns)


def tables_of(cfg, ctx) -> dict[str, Table]:
    return {table: table_of(cfg, ctx, table) for table in cfg.tables}


def mechanisms(cfg, ctx, memo: bool = False) -> dict[str, BucketingMechanism]:
    """The configured mechanisms, by the label the table prints; with ``memo`` an ILP solves each
    instance once on the run's cache (Figures 4 and 5 and their twins release the same settings;
    Figure 7 times its solves and leaves it off)."""
    impls = {m.label: m.impl for m in ctx.mechanisms(cfg.mechanism, kind="bucketing").values()}
    if not memo:
        return impls
    return {k: replace(m, memo=ctx.memo) if isinstance(m, OptimalBucketing) else m for k, m in impls.items()}


def labels(cfg) -> dict[str, str]:
    """Each configured mechanism's name -> its label (the claims skip mechanisms left out)."""
    return {name: spec.get("label", name) for name, spec in cfg.mechanism.items()}


def data_kind(cfg) -> str:
    """ "synthetic" (the CENSUS-like generator), "paper" (a real CENSUS extract) or "other"
    (real data that is not the paper's: the ACS twins)."""
    if is_synthetic(**cfg.dataset):
        return "synthetic"
    return "paper" if cfg.dataset.name == "census" else "other"
