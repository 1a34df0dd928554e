"""The claims of the bucketization experiments: what each compares with the paper, from its result
table and the config blocks it needs (``printed:``, ``claims:`` and a few settings).

One public function per experiment (a real-data twin shares its original's), named after it;
each returns a list of `privlab.claims.Claim` built through the `privlab.claims` helpers only.
The ``printed`` and ``limits`` blocks may be OmegaConf nodes or plain mappings. The experiments
on the CENSUS-like tables also take:

``labels``
    each mechanism's config name -> the label the table prints (``two_size`` -> ``TwoSize``): a
    claim about a mechanism the run left out is skipped;
``columns``
    a real-data twin's mapping of the paper's attributes to its columns (None for CENSUS): a twin
    compares the paper's words with other data, so its claims carry no ledger id;
``kind``
    the data: "synthetic" (the CENSUS-like generator), "paper" (a real CENSUS extract) or
    "other" (the ACS twins); a claim the data cannot check is shown for reading with the note
    ``printed.notes[kind]``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from omegaconf import DictConfig, OmegaConf

from privlab import claims as cl
from privlab._validation import PrivlabError, check_choice, check_table
from privlab.bucketization.anatomy import max_eligible_l
from privlab.bucketization.examples import table1, uniform_sizes
from privlab.claims import Claim
from privlab.formulas import table_rows

__all__ = [
    "diffinf",
    "corruption",
    "fig2_sa_frequencies",
    "table5_attributes",
    "fig3_l_vs_theta",
    "fig4_mse",
    "fig5_re",
    "fig7a_runtime_n",
    "fig7b_runtime_scaleup",
    "table1_example1",
    "table2_example35",
    "remark312_count",
    "example420_partition",
    "example523_pair_list",
    "example532_three_sizes",
    "formulas",
    "DATA_KINDS",
]

#: the data a census experiment ran on (see the module's docstring)
DATA_KINDS = ("synthetic", "paper", "other")
#: the three pruning modes of TwoSizeBucketing (Figure 7), by config name
PRUNINGS = {"two_size_none", "two_size_loss", "two_size_full"}


# -- arguments ---------------------------------------------------------------------------------
def _node(name: str, block: object) -> Any:
    """A config block as an OmegaConf node (attribute access), from a node or a plain mapping."""
    if isinstance(block, DictConfig):
        return block
    if not isinstance(block, Mapping):
        raise PrivlabError(f"{name} must be the config's {name} block (a mapping), got {type(block).__name__}")
    return OmegaConf.create(dict(block))


def _printed(printed: object, columns: Mapping[str, str] | None = None) -> Any:
    """The printed entries the claims compare with; a twin's without their ledger ids (the ledger
    counts checks of what the paper printed about its own data)."""
    p = _node("printed", printed)
    if columns is None:
        return p

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k != "ledger"}
        return [strip(v) for v in node] if isinstance(node, list) else node

    return OmegaConf.create(strip(OmegaConf.to_container(p)))


def _labels(labels: object) -> Mapping[str, str]:
    if not isinstance(labels, Mapping):
        raise PrivlabError(f"labels must map mechanism names to table labels, got {type(labels).__name__}")
    return labels


# -- shared pieces -----------------------------------------------------------------------------
def _mapping(printed: Any, columns: Mapping[str, str] | None) -> list[Claim]:
    """The real-data twin's mapping of the paper's attributes to its columns, as an info row."""
    if columns is None or "mapping" not in printed:
        return []
    return [cl.info(printed.mapping, ", ".join(f"{a} -> {c}" for a, c in columns.items()))]


def _on_data(kind: str, notes: Any, claim: Claim, item: Any, shown: Any, checked_on=("paper",)) -> Claim:
    """``claim`` where the data can check it; elsewhere ``item`` shown for reading, with the note
    saying why the data cannot check it."""
    return claim if kind in checked_on else cl.info(item, shown, note=notes[kind])


def _wide(df: pd.DataFrame, labels: Mapping[str, str], values: str, index=("table", "theta")) -> pd.DataFrame:
    """Column ``values`` by ``index``, one column per mechanism name."""
    names = {label: name for name, label in labels.items()}
    return df.pivot_table(index=list(index), columns="method", values=values).rename(columns=names)


def _solver_errors(df: pd.DataFrame, labels: Mapping[str, str], name: str, keys=("table", "theta")) -> str:
    """Where mechanism ``name`` (an ILP) failed to solve: "" or "table=OCC theta=8, ..."."""
    mechanism = labels.get(name)
    bad = df[(df.method == mechanism) & (df.status == "solver error")] if mechanism else df.iloc[:0]
    return ", ".join(" ".join(f"{k}={r[k]}" for k in keys) for _, r in bad.iterrows())


def _undecided(notes: Any, item: Any, failed: str, shown: str = "not decided") -> Claim:
    """A claim that needs the values of an ILP that failed to solve at ``failed``: not decided."""
    return cl.info(item, shown, note=notes.solver_error.format(failed))


def _slightly_above(item: Any, w: pd.DataFrame, hi: str, lo: str, reading: float, tol: float) -> Claim:
    """``hi`` at most slightly above ``lo``: 0 <= (hi - lo) / lo < ``reading`` (the declared reading of
    "slightly", a fraction of the lower value) wherever both are known. The excess farthest outside
    [0, reading] decides."""
    d = (w[hi] - w[lo]).dropna()
    rel = (d / w[lo].loc[d.index]).to_numpy(float)
    shown = f"{hi} - {lo} = {d.min():.4f}..{d.max():.4f}, {100 * rel.min():.1f}%..{100 * rel.max():.1f}% of {lo}"
    shown += f" ({len(d)} of {len(w)} known)"
    worst = float(rel.min()) if rel.min() < -tol else float(rel.max())
    return cl.between(item, worst, -tol, reading, reproduced=shown)


def _statuses(rows: pd.DataFrame) -> str:
    return ", ".join(f"{r.table} theta={r.theta}: {r.status}" for r in rows.itertuples())


def _trend(item: Any, s: pd.Series, way: str, limits: Any, factor: float | None = None) -> Claim:
    """How the seconds ``s`` (indexed by the swept x) grow: the fitted exponent of s ~ x^b on at least
    ``limits.min_points`` points (`privlab.claims.trend`). A ``factor`` reading ("nearly flat": at most
    3x over the grid) becomes the exponent margin log(factor) / log(x_max / x_min)."""
    s = s.dropna()
    x = np.asarray(s.index, dtype=float)
    margin = 0.0
    if factor is not None and x.size >= 2 and x.max() > x.min():
        margin = float(np.log(factor) / np.log(x.max() / x.min()))
    shown = f"{s.iloc[0]:.3f} s -> {s.iloc[-1]:.3f} s over {len(s)} point(s)" if len(s) else "no time"
    return cl.trend(
        item,
        x,
        s.to_numpy(float),
        way=way,
        margin=margin,
        min_points=int(limits.min_points),
        decide_with=str(limits.decide_with),
        reproduced=shown,
    )


# -- Section 2.1 and Section 6 -----------------------------------------------------------------
def diffinf(df: pd.DataFrame, printed: Any, limits: Any, large_a1: float) -> list[Claim]:
    """Section 2.1: the printed factors approx_mean / ratio, the median close to a2/a1 and the
    trimmed mean within its standard errors of the delta-method mean for a1 >= ``large_a1``,
    and Pr[a1~ <= 0] against its exact value.

    Parameters
    ----------
    df : DataFrame
        The result of `ratio_grid`.
    printed, limits
        The config's ``printed`` (factors, close, trimmed, nonpositive) and ``claims``
        (close_rel, z_trimmed, z_max) blocks.
    large_a1 : float
        The smallest a1 of the "large counts" the approximation is claimed for.
    """
    cols = ("a1", "ratio", "epsilon", "median", "trimmed_mean", "approx_mean", "trimmed_se", "factor")
    df = check_table(df, (*cols, "p_nonpos", "p_nonpos_exact", "p_nonpos_se"))
    p, c = _node("printed", printed), _node("limits", limits)
    f, out = p.factors, []
    for a1, value in f["values"].items():
        row = df[(df.a1 == float(a1)) & np.isclose(df.epsilon, f.epsilon)]
        if len(row):
            out.append(cl.printed_value(cl.each(f, f"a1 = {a1}", value), row.factor.iloc[0]))
    if len(big := df[df.a1 >= large_a1]):
        rel = float(((big["median"] - big.ratio).abs() / big.ratio).max())
        shown = f"a1 >= {large_a1:g}: max |median - a2/a1| / (a2/a1) = {rel:.4f}"
        out.append(cl.at_most(p.close, rel, c.close_rel, strict=True, reproduced=shown))
        out.append(cl.within_se(p.trimmed, big.trimmed_mean, big.approx_mean, big.trimmed_se, k=c.z_trimmed))
    return [*out, cl.within_se(p.nonpositive, df.p_nonpos, df.p_nonpos_exact, df.p_nonpos_se, k=c.z_max)]


def corruption(df: pd.DataFrame, printed: Any, z_max: float) -> list[Claim]:
    """Section 6: the attack's success against its exact rate, the bucket sizes l and l+1 (in
    the run and in every small l-eligible table, `uniform_sizes`), the success with the last
    record uncorrupted against 1 / (1 + k), and the relative error growing with the fakes k.

    Parameters
    ----------
    df : DataFrame
        The result of `corruption_table`.
    printed : mapping
        The config's ``printed`` block (success, sizes, sizes_all, last, cost).
    z_max : float
        The agreement limit in standard errors.
    """
    df = check_table(df, ("l", "setting", "fakes", "corrupted", "success", "exact", "success_se", "re"))
    p, z = _node("printed", printed), z_max
    out = [cl.within_se(p.success, df.success, df.exact, df.success_se, k=z, printed=p.success.value)]
    by_l = {int(l): df[df.l == l] for l in sorted(df.l.unique())}
    sizes = {l: {int(x) for x in re.findall(r"\((\d+), \d+\)", g.setting.iloc[0])} for l, g in by_l.items()}
    shown = "; ".join(f"l = {l}: sizes {sorted(v)}" for l, v in sizes.items())
    holds = all(v <= {l, l + 1} for l, v in sizes.items())
    out.append(cl.statement(p.sizes, holds, reproduced=shown, rule="every bucket size is l or l + 1"))
    found = {l: uniform_sizes(l, l * l) for l in sizes}  # tables too small for sizes l, l+1 alone
    shown = "; ".join(f"l = {l}: {f[0]} distinct values -> {f[1]}" if f else f"l = {l}: none" for l, f in found.items())
    rule = "no l-eligible table of n <= l^2 records gets another size"
    out.append(cl.statement(p.sizes_all, all(f is None for f in found.values()), reproduced=shown, rule=rule))
    for l, g in by_l.items():
        last, errors = g[g.corrupted == l - 1], g.groupby("fakes").re.first()
        shown = ", ".join(f"k={r.fakes}: {r.success:.3f}" for r in last.itertuples())
        item = cl.each(p.last, f"l = {l}", p.last.value)
        out.append(
            cl.within_se(item, last.success, 1 / (1 + last.fakes), last.success_se, k=z, printed=None, detail=shown)
        )
        shown = ", ".join(f"k={k}: {v:.3f}" for k, v in errors.items())
        out.append(cl.monotone(cl.each(p.cost, f"l = {l}", p.cost.value), errors.to_numpy(), reproduced=shown))
    return out


# -- the CENSUS-like tables and their real-data twins ------------------------------------------
def fig2_sa_frequencies(
    df: pd.DataFrame, printed: Any, limits: Any, kind: str, columns: Mapping[str, str] | None = None
) -> list[Claim]:
    """Figure 2: each table's smallest and largest frequency against the printed ones, the skew
    (max / min frequency at least ``limits.skew_ratio``) and the largest eligible l.

    Parameters
    ----------
    df : DataFrame
        The result of `frequency_tables`.
    printed, limits
        The config's ``printed`` (one entry per table, notes) and ``claims`` blocks.
    kind, columns
        The data (see the module's docstring).
    """
    df = check_table(df, ("table", "frequency", "count"))
    kind = check_choice("kind", kind, DATA_KINDS)
    raw, entries, c = _node("printed", printed), _printed(printed, columns), _node("limits", limits)
    out = _mapping(entries, columns)
    for table, g in df.groupby("table", sort=False):
        if (p := entries.get(table)) is None:
            continue
        f = (g.frequency.min(), g.frequency.max())
        for which, v, x in zip(("min", "max"), p.frequencies.value, f):
            item = cl.each(p.frequencies, which, v)
            out.append(_on_data(kind, raw.notes, cl.printed_value(item, x), item, f"{x:.4f}"))
        shown = f"max / min frequency = {f[1] / f[0]:.1f} over {len(g)} values of {int(g['count'].sum()):,} records"
        skew = cl.at_least(p.skewed, f[1] / f[0], c.skew_ratio, reproduced=shown)
        out.append(_on_data(kind, raw.notes, skew, p.skewed, shown, checked_on=("paper", "other")))
        if "max_l" in p:  # Section 1.2: the largest eligible l is floor(1 / f_max)
            out.append(cl.info(p.max_l, f"l = {max_eligible_l(f[1])}"))
    return out


def table5_attributes(
    df: pd.DataFrame, printed: Any, kind: str, columns: Mapping[str, str] | None = None
) -> list[Claim]:
    """Table 5: every attribute's domain size, the number of attributes and of records against
    the printed ones (checked on the paper's data only).

    Parameters
    ----------
    df : DataFrame
        The result of `attribute_table`.
    printed : mapping
        The config's ``printed`` block (domains, attributes, records, notes).
    kind, columns
        The data (see the module's docstring).
    """
    df = check_table(df, ("attribute", "domain", "records"))
    kind = check_choice("kind", kind, DATA_KINDS)
    raw, p = _node("printed", printed), _printed(printed, columns)
    out = _mapping(p, columns)
    pairs = [(cl.each(p.domains, str(a), p.domains["values"].get(a, "-")), d) for a, d in zip(df.attribute, df.domain)]
    for item, x in [*pairs, (p.attributes, len(df)), (p.records, int(df.records.iloc[0]))]:
        out.append(_on_data(kind, raw.notes, cl.equal(item, x), item, x))
    return out


def fig3_l_vs_theta(df: pd.DataFrame, printed: Any, kind: str, columns: Mapping[str, str] | None = None) -> list[Claim]:
    """Figure 3: each table's frequencies (on the paper's data) and the thetas where
    l-diversity is eligible, against the printed ones.

    Parameters
    ----------
    df : DataFrame
        The result of `l_needed_table`.
    printed : mapping
        The config's ``printed`` block (one entry per table, notes).
    kind, columns
        The data (see the module's docstring).
    """
    df = check_table(df, ("table", "theta", "f_min", "f_max", "eligible"))
    kind = check_choice("kind", kind, DATA_KINDS)
    raw, entries = _node("printed", printed), _printed(printed, columns)
    out = _mapping(entries, columns)
    for table, g in df.groupby("table", sort=False):
        p, f = entries.get(table), (g.f_min.iloc[0], g.f_max.iloc[0])
        if p is None:
            continue
        if kind != "paper":
            out.append(cl.info(p.frequencies, f"{f[0]:.4f} / {f[1]:.4f}", note=raw.notes[kind]))
        else:
            pairs = zip(("min", "max"), p.frequencies.value, f)
            out += [cl.printed_value(cl.each(p.frequencies, which, v), x) for which, v, x in pairs]
        out.append(cl.equal(p.eligible, sorted(g[g.eligible].theta.tolist())))
    return out


def fig4_mse(
    df: pd.DataFrame, printed: Any, limits: Any, labels: Mapping[str, str], columns: Mapping[str, str] | None = None
) -> list[Claim]:
    """Figure 4: Anatomy's MSE above the others', TwoSize slightly above MultiSize and MultiSize
    slightly above the optimum, the ILP's solves and every release passing the checker.

    Parameters
    ----------
    df : DataFrame
        The result of `mse_table`.
    printed, limits
        The config's ``printed`` and ``claims`` (slightly, significantly: the declared readings of
        the paper's words as fractions of the lower curve; float_tol) blocks.
    labels, columns
        The mechanisms run and the data (see the module's docstring).
    """
    df = check_table(df, ("table", "theta", "method", "mse", "status", "checker"))
    raw, p, c, labels = _node("printed", printed), _printed(printed, columns), _node("limits", limits), _labels(labels)
    w, out = _wide(df, labels, "mse"), _mapping(p, columns)
    failed = _solver_errors(df, labels, "optimal_multi_size")
    if {"anatomy", "two_size", "multi_size"} <= set(w):
        ratio = w.anatomy / w[["two_size", "multi_size"]].max(axis=1)
        shown = f"Anatomy / max(TwoSize, MultiSize) = {ratio.min():.2f}..{ratio.max():.2f}"
        worst = w.index[int(np.argmin(ratio.to_numpy(float)))]
        shown += f": least excess {100 * (ratio.min() - 1):.1f}% at {', '.join(map(str, np.atleast_1d(worst)))}"
        excess = float(ratio.min() - 1)  # "significantly": the excess over the larger other, shown above the reading
        out.append(cl.at_least(p.anatomy_higher, excess, c.significantly, strict=True, reproduced=shown))
    if {"two_size", "multi_size"} <= set(w):
        out.append(_slightly_above(p.two_multi, w, "two_size", "multi_size", c.slightly, c.float_tol))
    if failed and labels.get("multi_size"):
        out.append(_undecided(raw.notes, p.multi_opt, failed))
    elif {"multi_size", "optimal_multi_size"} <= set(w):
        out.append(_slightly_above(p.multi_opt, w, "multi_size", "optimal_multi_size", c.slightly, c.float_tol))
    if ilp_label := labels.get("optimal_multi_size"):
        # the statement covers the paper's small domains: the tables it names (all when unnamed)
        ilp = df[(df.method == ilp_label) & df.table.isin(p.optimal_solves.get("tables") or df.table.unique())]
        timed = ilp[ilp.status != "optimal"]
        shown = _statuses(timed) or "all solved"
        if failed:
            out.append(_undecided(raw.notes, p.optimal_solves, failed, shown))
        else:
            rule = "every solve proves optimality"
            out.append(cl.statement(p.optimal_solves, timed.empty, reproduced=shown, rule=rule))
        if len(ilp) < len(df[df.method == ilp_label]):
            out.append(cl.info(p.optimal_large, _statuses(df[(df.method == ilp_label) & ~df.index.isin(ilp.index)])))
    # every release's checker verdict must read "passed": any other word (FAILED, an error, empty) counts against
    released = df[df.checker != "not released"]  # Anatomy where no l-diverse grouping exists releases nothing
    passed = int((released.checker == "passed").sum())
    shown = f"{passed} of {len(released)} releases passed ({len(df) - len(released)} rows released nothing)"
    return [*out, cl.at_least(p.checker, passed, len(released), reproduced=shown)]


def fig5_re(
    df: pd.DataFrame, printed: Any, limits: Any, labels: Mapping[str, str], columns: Mapping[str, str] | None = None
) -> list[Claim]:
    """Figure 5: most relative errors of TwoSize and MultiSize below the printed bound, and the
    three two-size-like mechanisms close to one another on every table.

    Parameters
    ----------
    df : DataFrame
        The result of `re_table`.
    printed, limits
        The config's ``printed`` and ``claims`` (most, re_gap) blocks.
    labels, columns
        The mechanisms run and the data (see the module's docstring).
    """
    df = check_table(df, ("table", "theta", "method", "re", "status"))
    raw, p, c, labels = _node("printed", printed), _printed(printed, columns), _node("limits", limits), _labels(labels)
    w, out = _wide(df, labels, "re"), _mapping(p, columns)
    if cols := [n for n in ("two_size", "multi_size") if n in w]:
        bound, frac = p.re_below.bound, float((w[cols] <= p.re_below.bound).mean().mean())
        shown = f"{frac:.0%} of (table, theta, method) cells <= {bound:.0%}; max {w.max().max():.3f}"
        out.append(cl.at_least(p.re_below, frac, c.most, reproduced=shown))
    if len(cols) < 2:
        return out
    for table, g in w.groupby(level="table"):
        item = cl.each(p.close, str(table), p.close["values"].get(table, "-"))
        if failed := _solver_errors(df[df.table == table], labels, "optimal_multi_size"):
            out.append(_undecided(raw.notes, item, failed))
            continue
        d1 = (g.two_size - g.multi_size).mean()
        d2 = (g.multi_size - g.optimal_multi_size).mean() if "optimal_multi_size" in g else np.nan
        largest = float(np.nanmax([abs(d1), abs(d2)]))
        shown = f"mean TwoSize-MultiSize = {d1:+.3f}, MultiSize-Optimal = {d2:+.3f}"
        rule = f"larger |mean difference| < {c.re_gap:g}"
        out.append(cl.at_most(item, largest, c.re_gap, strict=True, reproduced=shown, rule=rule))
    return out


# -- Figure 7 ------------------------------------------------------------------------------------
def _runtime(df: pd.DataFrame, p: Any, labels: Mapping[str, str], timings: bool, x: str) -> tuple[list, pd.DataFrame]:
    """The claims both runtime figures make (one optimum; Full-pruning fastest), and the seconds
    by ``x``, one column per mechanism name."""
    w = _wide(df, labels, "seconds", index=(x,))
    solved = df[df.status == "optimal"].groupby(x).loss.nunique()
    shown = f"distinct optimal losses per {x}: {sorted(set(solved))}"
    most = float(solved.max()) if len(solved) else 0.0
    out = [cl.at_most(p.same_optimum, most, 1, reproduced=shown, rule=f"at most one distinct optimal loss per {x}")]
    if not timings:  # no seconds: the claims about them are left out
        out.append(cl.info(p.no_timings, "not measured (timings=false)"))
    if PRUNINGS <= set(w):
        lo, hi = _spread(df, labels, x, w)
        full, ratio = w.two_size_full, w.two_size_none / w.two_size_full
        others = ["two_size_none", "two_size_loss"]
        shown = f"Full {full.max() * 1e3:.1f} ms max; No-pruning / Full = {ratio.min():.0f}x..{ratio.max():.0f}x"
        out.append(
            cl.below_everywhere(
                p.full_fastest,
                lo.two_size_full,
                hi.two_size_full,
                lo[others].min(axis=1),
                hi[others].min(axis=1),
                at=[f"{x} = {v}" for v in w.index],
                decide_with="more repeats",
                reproduced=shown,
            )
        )
    return out, w


def _spread(df: pd.DataFrame, labels: Mapping[str, str], x: str, w: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The fastest and the slowest of each point's repeated runs, by ``x`` (one column per mechanism
    name); a table of single runs is its own spread."""
    if "seconds_low" not in df:
        return w, w
    return _wide(df, labels, "seconds_low", index=(x,)), _wide(df, labels, "seconds_high", index=(x,))


def fig7a_runtime_n(
    df: pd.DataFrame, printed: Any, limits: Any, labels: Mapping[str, str], timings: bool
) -> list[Claim]:
    """Figure 7 (cardinality): Full-pruning fastest and nearly flat in n, Loss-pruning growing,
    No-pruning slowest of the three, the ILP faster than No-pruning.

    Parameters
    ----------
    df : DataFrame
        The result of `runtime_vs_n`.
    printed, limits
        The config's ``printed`` and ``claims`` (flat_factor) blocks.
    labels : mapping
        The mechanisms run (see the module's docstring).
    timings : bool
        Whether the seconds were measured.
    """
    df = check_table(df, ("n", "method", "seconds", "status", "loss"))
    p, c, labels = _node("printed", printed), _node("limits", limits), _labels(labels)
    out, w = _runtime(df, p, labels, timings, "n")
    if "two_size_full" in w and timings:
        out.append(_trend(p.full_flat, w.two_size_full, "flat", c, factor=c.flat_factor))
    if "two_size_loss" in w and timings:
        out.append(_trend(p.loss_grows, w.two_size_loss, "up", c))
    lo, hi = _spread(df, labels, "n", w)
    at = [f"n = {v:,}" for v in w.index]
    if PRUNINGS <= set(w):
        pruned = ["two_size_loss", "two_size_full"]
        ratio = w.two_size_none / w[pruned].max(axis=1)
        shown = f"No-pruning / the slower of Loss- and Full-pruning = {ratio.min():.1f}x..{ratio.max():.1f}x"
        out.append(
            cl.below_everywhere(
                p.none_most,
                lo[pruned].max(axis=1),
                hi[pruned].max(axis=1),
                lo.two_size_none,
                hi.two_size_none,
                at=at,
                decide_with="more repeats",
                reproduced=shown,
            )
        )
    if (failed := _solver_errors(df, labels, "optimal_two_size", ("n",))) and timings and "two_size_none" in w:
        out.append(_undecided(p.notes, p.ilp_faster, failed))
    elif {"optimal_two_size", "two_size_none"} <= set(w):
        ilp, none = w.optimal_two_size, w.two_size_none
        shown = f"ILP {ilp.min():.1f}..{ilp.max():.1f} s vs No-pruning {none.min():.2f}..{none.max():.2f} s"
        out.append(
            cl.below_everywhere(
                p.ilp_faster,
                lo.optimal_two_size,
                hi.optimal_two_size,
                lo.two_size_none,
                hi.two_size_none,
                at=at,
                reproduced=shown,
            )
        )
    return out


def fig7b_runtime_scaleup(
    df: pd.DataFrame, printed: Any, limits: Any, labels: Mapping[str, str], timings: bool
) -> list[Claim]:
    """Figure 7 (domain size): the ILP growing quickly with gamma, No-pruning getting faster,
    Loss- and Full-pruning growing little, and where the ILP stops being feasible.

    Parameters
    ----------
    df : DataFrame
        The result of `runtime_vs_scaleup`.
    printed, limits
        The config's ``printed`` and ``claims`` (grows_factor, little_factor) blocks.
    labels : mapping
        The mechanisms run (see the module's docstring).
    timings : bool
        Whether the seconds were measured.
    """
    df = check_table(df, ("gamma", "method", "seconds", "status", "loss"))
    p, c, labels = _node("printed", printed), _node("limits", limits), _labels(labels)
    (out, w), k = _runtime(df, p, labels, timings, "gamma"), c.grows_factor
    ilp = df[df.method == labels.get("optimal_two_size")].set_index("gamma")
    failed = _solver_errors(df, labels, "optimal_two_size", ("gamma",))
    if len(ilp) and timings and failed:
        out.append(_undecided(p.notes, p.ilp_grows, failed))
    elif len(ilp) and timings and (timed_out := bool((ilp.status == "timed out").any())):  # growth enough
        shown = ", ".join(f"gamma={g}: {r.seconds:.1f} s ({r.status})" for g, r in ilp.iterrows())
        out.append(cl.statement(p.ilp_grows, timed_out, reproduced=shown, rule="a time-out in the grid"))
    elif len(ilp) and timings:
        out.append(_trend(p.ilp_grows, ilp.seconds, "up", c, factor=k))
    if "two_size_none" in w and timings:
        out.append(_trend(p.none_faster, w.two_size_none, "down", c))
    if timings and {"two_size_loss", "two_size_full"} <= set(w):
        # "increases little": both pruned scans' exponents shown below the little_factor reading
        worst = max(("two_size_loss", "two_size_full"), key=lambda m: float(w[m].iloc[-1] / w[m].iloc[0]))
        out.append(_trend(p.others_little, w[worst], "little", c, factor=c.little_factor))
    if len(ilp):
        first = ilp.index[ilp.status == "timed out"]
        shown = f"first time-out at gamma = {first[0]}" if len(first) else "never in this grid"
        out.append(cl.info(p.ilp_limit, shown + (f"; solver error at {failed}" if failed else "")))
    return out


# -- the worked examples and the formulas ----------------------------------------------------------
def table1_example1(df: pd.DataFrame, printed: Any) -> list[Claim]:
    """Example 1: the target matches a visible record; the answers x, y of q1, q2 shown.

    Parameters
    ----------
    df : DataFrame
        The result of `example1_table`.
    printed : mapping
        The config's ``printed`` block (alice, answers).
    """
    df = check_table(df, ("q1", "q2"))
    p, x, y = _node("printed", printed), int(df.q1.sum()), int(df.q2.sum())
    shown = f"{x} visible record(s) match the target's QI"
    out = [cl.statement(p.alice, x >= 1, reproduced=shown, rule="at least one record matches")]
    estimate = f"{y / x:g}" if x else "undefined"
    return [*out, cl.info(p.answers, f"x = {x}, y = {y} on the visible rows: y/x = {estimate}")]


def table2_example35(df: pd.DataFrame, printed: Any) -> list[Claim]:
    """Table 2 and Example 3.5: the QIT's rows, the target's bucket's values and their Pr.

    Parameters
    ----------
    df : DataFrame
        The result of `example35_table`.
    printed : mapping
        The config's ``printed`` block (qit, bucket_values, pr).
    """
    df = check_table(df, ("BID", "Disease", "Count", "pr_target"))
    p, t = _node("printed", printed), table1()
    ours = [f"{g} {z} {row[2]}" for g, z, row in zip(t.Gender, t.Zipcode, p.qit.value)]
    out = [cl.equal(p.qit, ours, printed=[" ".join(map(str, row)) for row in p.qit.value])]
    target = df[df.pr_target.notna()]
    out.append(cl.equal(p.bucket_values, {r.Disease: int(r.Count) for r in target.itertuples()}))
    shown = ", ".join(f"Pr({r.Disease}) = {r.pr_target:g} in bucket {r.BID}" for r in target.itertuples())
    return [*out, cl.info(p.pr, shown)]


def remark312_count(df: pd.DataFrame, printed: Any, search_high: int) -> list[Claim]:
    """Remark 3.12: some (n, size range) of the grid gives the printed count; the count grows
    with n for every range; the default setting's count shown.

    Parameters
    ----------
    df : DataFrame
        The result of `setting_count_table`.
    printed : mapping
        The config's ``printed`` block (count, larger, default).
    search_high : int
        The largest size the search scanned.
    """
    df = check_table(df, ("kind", "n", "low", "high", "count", "diff"))
    p, near, cand = _node("printed", printed), df[df.kind == "nearest"], df[df.kind == "candidate"]
    best = near.iloc[0]
    shown = f"nearest: n = {best.n:,}, sizes {best.low}..{best.high}: {best['count']:,} ({best['diff']:+,})"
    grid = f"n in {sorted(set(near.n))}, 1 <= low < high <= {search_high}"
    found = bool((near["diff"] == 0).any())
    out = [cl.statement(p.count, found, reproduced=shown, rule=f"some (n, range) with {grid}")]
    for (lo, hi), g in cand.groupby(["low", "high"], sort=False):
        item = cl.each(p.larger, f"sizes {lo}..{hi}, n = {', '.join(f'{n:,}' for n in g.n)}", p.larger.value)
        out.append(cl.monotone(item, g["count"].to_numpy()))
    d = p.default
    hit = cand[(cand.n == d.n) & (cand.low == d.low) & (cand.high == d.high)]
    return [*out, *(cl.info(d, f"{int(c):,}") for c in hit["count"])]


def example420_partition(df: pd.DataFrame, printed: Any) -> list[Claim]:
    """Example 4.20: the records, T_1's start, the capacity and the records moved against the
    printed ones; the partition valid (PC, FC, CC), the same as `record_partition`'s, and the
    assignment passing the checker.

    Parameters
    ----------
    df : DataFrame
        The result of `example420_table`.
    printed : mapping
        The config's ``printed`` block.
    """
    cols = ("value", "o", "u1", "u2", "l1", "l2", "t1_initial", "moved", "t1", "t1_algorithm")
    df = check_table(df, (*cols, "S1", "b1", "S2", "b2", "checker", "bucket_sizes"))
    p, r = _node("printed", printed), df.iloc[0]
    n, cap1, cap2 = int(df.o.sum()), int(r.S1 * r.b1), int(r.S2 * r.b2)
    rules = {"PC": bool((df.o <= df.u1 + df.u2).all()), "FC": bool(df.l1.sum() >= cap1 and df.l2.sum() >= cap2)}
    rules["CC"] = n == cap1 + cap2
    moved = ", ".join(f"{v}: {m}" for v, m in zip(df.value, df.moved) if m)
    out = [cl.equal(p.records, n), cl.equal(p.t1_initial, int(df.t1_initial.sum())), cl.equal(p.capacity, cap1)]
    out.append(cl.equal(p.moved, int(df.moved.sum())))
    out.append(cl.statement(p.one_each, bool(df.moved.max() == 1), reproduced=moved, rule="one record per value moves"))
    shown = ", ".join(f"{k} {'holds' if v else 'fails'}" for k, v in rules.items())
    out.append(cl.statement(p.valid, all(rules.values()), reproduced=shown, rule="PC, FC and CC hold"))
    shown = f"T1 per value: the paper's steps {df.t1.tolist()}, record_partition {df.t1_algorithm.tolist()}"
    out.append(cl.statement(p.algorithm, bool((df.t1 == df.t1_algorithm).all()), reproduced=shown, rule="equal"))
    shown = f"checker {'passed' if r.checker else 'FAILED'}; buckets: {r.bucket_sizes}"
    return [*out, cl.statement(p.rra, bool(r.checker), reproduced=shown, rule="F-privacy holds in every bucket")]


def example523_pair_list(df: pd.DataFrame, printed: Any) -> list[Claim]:
    """Example 5.23: the list L from its closed form and by enumeration against the printed
    one, and the loss growing along it.

    Parameters
    ----------
    df : DataFrame
        The result of `pair_list_table`.
    printed : mapping
        The config's ``printed`` block (list, enumerated, loss_grows).
    """
    df = check_table(df, ("b1", "b2", "enumerated", "loss"))
    p = _node("printed", printed)
    out = [cl.equal(p.list, [f"({a}, {b})" for a, b in zip(df.b1, df.b2)])]
    out.append(cl.equal(p.enumerated, [e for e in df.enumerated if e], printed=p.list.value))
    return [*out, cl.monotone(p.loss_grows, df.loss.to_numpy())]


def example532_three_sizes(df: pd.DataFrame, printed: Any) -> list[Claim]:
    """Example 5.32: the values and the stranded records against the printed ones; the per-size
    conditions hold yet no valid assignment exists.

    Parameters
    ----------
    df : DataFrame
        The result of `capacity_table`.
    printed : mapping
        The config's ``printed`` block (n_values, stranded, extended, invalid).
    """
    df = check_table(df, ("setting", "stranded", "capacity", "stranded_values", "naive", "exact"))
    p, r = _node("printed", printed), df.iloc[0]
    out = [cl.equal(p.n_values, len(df)), cl.equal(p.stranded, [int(r.stranded), int(r.capacity)])]
    shown = f"{r.setting}: the per-size PC, FC and CC {'hold' if r.naive else 'fail'}"
    out.append(cl.statement(p.extended, bool(r.naive), reproduced=shown, rule="all hold"))
    shown = f"exact check (cut conditions): {'valid' if r.exact else 'no valid assignment'}; "
    shown += f"{r.stranded_values} fit only the largest size"
    return [*out, cl.statement(p.invalid, not bool(r.exact), reproduced=shown, rule="no valid assignment exists")]


def formulas(df: pd.DataFrame, printed: Any) -> list[Claim]:
    """Every displayed formula: the same as its independent derivation.

    Parameters
    ----------
    df : DataFrame
        The result of `formula_table`.
    printed : mapping
        The config's ``printed`` block (``formulas``: one entry per case).
    """
    rows = table_rows(df)
    p, out = _node("printed", printed), []
    for r in rows:
        shown, rule = f"{r.derived}; {r.instance}", f"the same formula ({r.detail})"
        out.append(cl.statement(p.formulas[r.key], bool(r.match), reproduced=shown, rule=rule))
    return out
