"""What the CAE experiments share: the coding of a data set, the parameter contract of the SDC
experiments (Figures 2 and 4), their tolerances, and small helpers for their claims."""

from __future__ import annotations

from typing import Any

from privlab import PrivlabError, cae, datasets
from privlab.params import Bool, Int, List, MapOf, Optional, Real, Spec, Str, validate
from privlab.registry import Tolerance


class DatasetBlock(Spec):
    """A nested ``dataset`` block (a name and its loader's parameters, or ``path=``)."""

    def allowed(self) -> str:
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


class Coding(Spec):
    """A data set's coding block, or null: the data set is switched off (a twin on other data)."""

    def allowed(self) -> str:
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
}
SDC = {
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
KEYS = ("dataset", "technique", "param", "sk_size")


def about(entry: Any, prefix: str, technique: str = "") -> dict:
    """A shared ``printed:`` entry, its claim prefixed with what it is about; a ``ledger`` given per
    technique (a mapping) resolved for ``technique``."""
    out = {**entry, "claim": f"{prefix}: {entry['claim']}"}
    if not isinstance(out.get("ledger", ""), str):
        out["ledger"] = out["ledger"].get(technique, "")
    return out


def role(cfg, ds: str) -> str:
    """The paper's data set the table's data set ``ds`` stands for (a twin's real records: PUMS)."""
    return str(cfg.datasets[ds].role)


def coded(cfg, ctx, **prepare) -> dict:
    """Each data set switched on (a null block is off): its records coded by `privlab.cae.prepare`,
    the raw frame, and the table's short data label."""
    found = {}
    for ds, spec in cfg.datasets.items():
        if spec is None:
            continue
        coding = {k: v for k, v in spec.items() if k not in ("dataset", "role")}  # confidential, sk, ...
        frame = ctx.dataset(spec.dataset)
        found[ds] = (cae.prepare(frame, **prepare, **coding), frame, _tag(spec, frame))
    if not found:
        raise PrivlabError("datasets must switch on at least one data set (a block that is not null)")
    return found


def _tag(spec, frame) -> str:
    """The table's short data label: name, whether generated (`privlab.datasets.is_synthetic`), size
    (and, where records without a confidential value are dropped, how many have one)."""
    kind = "SYNTHETIC" if datasets.is_synthetic(**spec.dataset) else "real"
    n = f"n={spec.n_records or 'all'}"
    if spec.drop_missing:
        n += f" of {int(frame[spec.confidential].notna().sum())} with {spec.confidential}"
    return f"{spec.dataset.name} ({kind}, {n}, confidential={spec.confidential})"
