"""Figures 2 and 4: sampling, query restriction and noise addition vs the intruder's SK on PUMS-like data
and Adult, their twins on ACS records (``<experiment>_acs``, ``conf/experiment/cae/_acs.yaml``), their
shared contract (a data set's coding, the SDC parameters, tolerances); Table 2 and the data."""

from typing import Any

from privlab import datasets, mechanisms
from privlab.cae.data import code_datasets, domain_table
from privlab.cae.engine import run_series
from privlab.params import Bool, Constraint, Int, List, MapOf, Optional, Real, Str, validate
from privlab.registry import Tolerance, experiment

from . import figures, verdicts


class DatasetBlock(Constraint):
    """A nested ``dataset`` block (a name and its loader's parameters, or ``path=``)."""

    def describe(self) -> str:
        return "a dataset block: a name and its loader's parameters"

    def check(self, name: str, value: Any) -> Any:
        datasets.check_spec(value, name=name)
        return value


POS = Real(0, low_open=True)
CODING = {  # how CAE codes one data set (`privlab.cae.prepare`)
    "dataset": DatasetBlock(),
    "role": Str(),  # the paper's data set these records stand for; claims are named by it
    "confidential": Str(),
    "sk": List(Str(), unique=True),
    "round_to": Optional(Int(1)),  # null: no rounding (0 is refused: it would silently mean none)
    "unit": Optional(POS),
    "top_code": Optional(Int(1)),
    "drop_missing": Bool(),
    "n_records": Optional(Int(1, 10**6, limit="records per data set")),
    "subsample_seed": Int(0),
}


class Coding(Constraint):
    """A data set's coding block, or null: the data set is switched off (a twin on other data)."""

    def describe(self) -> str:
        return "null (switched off) or a data set's coding block"

    def check(self, name: str, value: Any) -> Any:
        return None if value is None else validate(CODING, value, prefix=f"{name}.")


CLAIMS = {
    "se_k": POS,
    "alpha_family": Real(0, 1, low_open=True, high_open=True),
    "float_tol": Real(0),
    "p_min": Real(0, 1),
    "exact_tol": Real(0),
    "violation_max": Real(0),
    "drop_decimals": Int(0, 15),
    "sharp_bits": Real(0),
}
SDC: dict[str, Any] = {
    "repetitions": Int(1, 10_000, limit="released artifacts per level and data set"),
    "sk_sizes": List(Int(0, 64), unique=True),
    "max_sets": Optional(Int(1)),
    "lp_check_records": Int(0, 10_000, limit="pairs of linear programs per shuffle"),
    "datasets": MapOf(Coding()),
    "claims": CLAIMS,
}
SMOKE = ("repetitions=2", "sk_sizes=[0,1]", "datasets.adult=null")
SE_ATOL = {"H0": 0.05, "area": 5.0, "H0_unique": 0.05, "area_unique": 5.0}
MC_TOL = {  # Monte Carlo means within 5 s.e. of the reference; their s.e. loosely; exact s.e. exactly
    **{m: Tolerance(se=f"{m}_se", k=5, atol=1e-9) for m in SE_ATOL},
    **{f"{m}_se": Tolerance(rtol=1.0, atol=a) for m, a in SE_ATOL.items()},
    **{f"{m}_unique_exact_se": Tolerance(rtol=1e-9, atol=1e-12) for m in ("H0", "area")},
    "artifact_violation": Tolerance(atol=1e-6),
}


def _sdc(artifact, summary, draw, verdict, **kw):
    """Register an SDC experiment: shared keys, tolerances, contract, smoke (``kw`` replaces them), figure, verdict."""
    shared = {"keys": ("dataset", "technique", "param", "sk_size"), "tolerances": MC_TOL, "params": SDC, "smoke": SMOKE}

    def register(fn):
        exp = experiment(artifact=artifact, summary=summary, figures={fn.__name__: draw}, **{**shared, **kw})(fn)
        read = {"limits": "claims", "datasets": "datasets", "lp_check_records": "lp_check_records"}
        return exp.judged_by(verdict, **read, techniques=_techniques)

    return register


def _techniques(cfg) -> dict:
    """The table's technique labels -> their `privlab.cae.SDCTechnique`."""
    return {m.label: m.impl for m in mechanisms.build(cfg.mechanism, kind="sdc_technique").values()}


def _run_sdc(cfg, ctx):
    techniques = list(_techniques(cfg).items())  # the same labels the claims read
    found = code_datasets(cfg.datasets, ctx.dataset, sk_sizes=list(cfg.sk_sizes), max_sets=cfg.max_sets)
    return run_series(
        {ds: data for ds, (data, _, _) in found.items()},
        techniques,
        cfg.repetitions,
        seed_sequence=ctx.seed_sequence,
        map_fn=lambda fn, items: ctx.map(fn, items, desc="CAE per repetition"),
        lp_check_records=cfg.lp_check_records,
        labels={ds: label for ds, (_, _, label) in found.items()},
    )


FIG2 = figures.sdc_vs_sk("Figure 2")


@_sdc("Figure 2 (sampling)", "H0 and Area vs SK size, one line per sampling fraction", FIG2, verdicts.fig2_sampling)
def fig2_sampling(cfg, ctx):
    return _run_sdc(cfg, ctx)


@_sdc(
    "Figure 2 (query restriction)",
    "H0 and Area vs SK size, one line per query-set size, with the sampling fraction the paper compares it "
    "with as a reference",
    FIG2,
    verdicts.fig2_query_restriction,
    params={**SDC, "claims": {**SDC["claims"], "similar_rel": Real(0, 1), "flat_rel": Real(0, 1)}},
    smoke=(*SMOKE, "mechanism.sdc_query_restriction.levels=[8,32]", "lp_check_records=1"),
)
def fig2_query_restriction(cfg, ctx):
    return _run_sdc(cfg, ctx)


@_sdc("Figure 2 (noise addition)", "H0 and Area vs SK size, one line per noise level", FIG2, verdicts.sdc)
def fig2_noise(cfg, ctx):
    return _run_sdc(cfg, ctx)


@_sdc(
    "Figure 4",
    "Noise addition: H0 and Area vs SK size and vs noise amount (finer noise grid)",
    figures.noise_vs_sk_and_amount,
    verdicts.fig4_noise,
    smoke=(*SMOKE, "mechanism.sdc_noise_fine.levels=[0,50]"),
)
def fig4_noise(cfg, ctx):
    return _run_sdc(cfg, ctx)


@experiment(
    artifact="Table 2, Appendix (PUMS data set)",
    summary="Table 2's attribute domains: each row's number of values from its min, max and rounding; "
    "the synthetic PUMS stand-in and the real ACS records (as the ACS twins code them) beside it",
    keys=("attribute",),
    params={
        "datasets": MapOf(Coding()),
        "table2": MapOf({"pums": Str(), "acs": Optional(Str()), "acs_exclude": List(Int(), min_len=0)}),
    },
)
def table2_data(cfg, ctx):
    found = code_datasets(cfg.datasets, ctx.dataset, sk_sizes=[0])
    return domain_table(cfg.table2, cfg.printed.table2["values"], found)


table2_data.judged_by(verdicts.table2_data)


ON_ACS = "; on real ACS records (PINCP binned like Salary; AGEP, SEX, EDU, INDP_CAT known)"
for _original in (fig2_sampling, fig2_query_restriction, fig2_noise, fig4_noise):
    _original.twin(f"{_original.name}_acs", summary=_original.summary + ON_ACS)
