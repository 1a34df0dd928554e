"""The paper's worked examples and in-text counts (seed 000), recomputed.

=======================  ================================================================
function                 what
=======================  ================================================================
`table1`                 Table 1's visible records (Gender, Zipcode, Disease)
`count_query`            Example 1's count queries q1, q2 on a table
`bucket_tables`          Table 2: QIT (QI + bucket id) and ST (bucket id + SA multiset)
`target_inference`       Pr(x | t) = o(x, B) / |B| for a target's bucket (Example 3.5)
`example_4_20`           Example 4.20's instance (rebuilt: the seed lost its numbers)
`partition_steps`        Section 4.3's record partition, step by step
`example_5_32`           Example 5.32's instance (rebuilt)
`stranded_records`       records that only some sizes can take, against their capacity
`capacity_table`         Example 5.32: what each size can take of each value, and both validity checks
`pair_list_table`        Example 5.23: the list L from its closed form, beside the enumerated list
`count_settings`         Remark 3.12: feasible two-size bucket settings for n and sizes
`search_setting_count`   which (n, size range) of a grid give a printed count
`frequency_table`        Figure 2: the frequency of every sensitive value, by rank
`uniform_sizes`          Section 6: the smallest table where one F = 1/l gives sizes beyond l, l+1
=======================  ================================================================

A rebuilt instance has every number that survives in the seed (n = 50, T_1 starting with
42 records against b_1 S_1 = 36, six records moved one per value, for Example 4.20; 11
values, 50 records that only the largest size can take against its capacity of 30, for
Example 5.32); the rest is privlab's choice, said so wherever it is shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from privlab._validation import PrivlabError, check_int

from .assign import bucketize, record_partition
from .checkers import check_bucketization
from .settings import MAX_SIZE, BucketSetting, SeedLike, caps, check_codes, check_setting, prepare
from .tables import Table, check_tables
from .two_size import pair_list, two_size
from .validity import is_valid, naive_check, upper_bounds

__all__ = [
    "table1",
    "count_query",
    "bucket_tables",
    "target_inference",
    "example_4_20",
    "partition_steps",
    "example_5_32",
    "stranded_records",
    "count_settings",
    "search_setting_count",
    "frequency_table",
    "frequency_tables",
    "uniform_sizes",
    "example1_table",
    "example35_table",
    "setting_count_table",
    "example420_table",
]

#: Table 1 as the seed prints it (the rows after "..." are not shown)
TABLE1_ROWS = (
    ("M", "54321", "Brain Tumor"),
    ("M", "54322", "Indigestion"),
    ("F", "61234", "Cancer"),
    ("F", "61434", "HIV"),
)


def table1() -> pd.DataFrame:
    """Table 1's visible records: Gender and Zipcode (QI), Disease (the sensitive attribute)."""
    return pd.DataFrame(TABLE1_ROWS, columns=["Gender", "Zipcode", "Disease"])


def _frame(frame: Any) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame) or frame.empty:
        raise PrivlabError(f"frame must be a non-empty pandas DataFrame, got {type(frame).__name__}")
    return frame


def count_query(frame: pd.DataFrame, where: Mapping[str, Any]) -> int:
    """SELECT COUNT(*) FROM frame WHERE column = value AND ... (Example 1's q1 and q2)."""
    frame = _frame(frame)
    if not isinstance(where, Mapping) or not where:
        raise PrivlabError("where must map at least one column to the value it must equal")
    mask = np.ones(len(frame), dtype=bool)
    for column, value in where.items():
        if column not in frame.columns:
            raise PrivlabError(f"where names {column!r}, which is not a column of the table")
        mask &= (frame[column].astype(str) == str(value)).to_numpy()
    return int(mask.sum())


def bucket_tables(frame: pd.DataFrame, sa: str, bucket_ids: Sequence[int]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A bucketization published as two tables (Section 3.1): QIT (the QI columns and the
    bucket id, BID) and ST (BID, each SA value and its count in the bucket)."""
    frame = _frame(frame)
    if sa not in frame.columns:
        raise PrivlabError(f"sa must be a column of the table, got {sa!r}")
    bid = check_codes("bucket_ids", bucket_ids)
    if bid.size != len(frame):
        raise PrivlabError(f"bucket_ids must give one bucket per record ({len(frame)}), got {bid.size}")
    qit = frame.drop(columns=[sa]).assign(BID=bid)
    st = frame.assign(BID=bid).groupby(["BID", sa], sort=True).size().rename("Count").reset_index()
    return qit, st


def target_inference(qit: pd.DataFrame, st: pd.DataFrame, target: Mapping[str, Any]) -> pd.DataFrame:
    """Pr(x | t) = o(x, B) / |B| for every SA value x of the bucket B holding the target t,
    located by its QI values in the QIT (Example 3.5). One row per value: BID, value, Pr."""
    qit, st = _frame(qit), _frame(st)
    match = np.ones(len(qit), dtype=bool)
    for column, value in target.items():
        if column not in qit.columns:
            raise PrivlabError(f"target names {column!r}, which is not a QI column of the QIT")
        match &= (qit[column].astype(str) == str(value)).to_numpy()
    buckets = sorted(set(qit.BID[match]))
    if len(buckets) != 1:
        raise PrivlabError(f"target must match records of exactly one bucket, matches {len(buckets)}")
    rows = st[st.BID == buckets[0]]
    sa = [c for c in st.columns if c not in ("BID", "Count")][0]
    size = int(rows.Count.sum())
    return pd.DataFrame({"BID": buckets[0], "value": rows[sa], "pr": rows.Count / size}).reset_index(drop=True)


def example_4_20() -> tuple[np.ndarray, np.ndarray, BucketSetting]:
    """Example 4.20's instance, rebuilt (the seed lost its numbers): counts o_i, thresholds
    F_i and the setting {(3, 12), (7, 2)}.

    Three groups of values: x1..x6 with o = 1, F = 1/2; x7..x12 with o = 2, F = 2/5;
    x13..x14 with o = 16, F = 1/3; n = 50. T_1 starts with min(o_i, u_i1) = 42 records
    against b_1 S_1 = 36, so 6 records move, one for each of x1..x6 (the surviving numbers).
    """
    o = np.array([1] * 6 + [2] * 6 + [16] * 2)
    F = np.array([1 / 2] * 6 + [2 / 5] * 6 + [1 / 3] * 2)
    return o, F, BucketSetting([3, 7], [12, 2])


def partition_steps(counts: ArrayLike, F: ArrayLike, setting: BucketSetting) -> pd.DataFrame:
    """Section 4.3's record partition for a two-size setting, value by value.

    T_1 starts with min(o_i, u_i1) records of x_i and T_2 with the rest; while |T_1| > b_1 S_1,
    a record of a value with fewer than u_i2 records in T_2 moves from T_1 to T_2 (values
    taken in index order, each as far as its room allows). Written from the paper's text,
    apart from `record_partition`, which the experiment compares it with.

    Returns
    -------
    DataFrame, one row per value: value, o, F, u1, u2, l1, l2, t1_initial, moved, t1, t2.
    """
    o, F = prepare(counts, F)
    setting = check_setting(setting)
    if len(setting.sizes) != 2 or setting.n != int(o.sum()):
        raise PrivlabError(f"setting must have two sizes holding the {int(o.sum())} records, got {setting}")
    u = upper_bounds(o, F, setting)
    t1 = np.minimum(o, u[:, 0])
    moved = np.zeros_like(o)
    excess = int(t1.sum()) - setting.sizes[0] * setting.counts[0]
    for i in range(o.size):
        while excess > 0 and (o[i] - t1[i] + moved[i]) < u[i, 1] and moved[i] < t1[i]:
            moved[i] += 1
            excess -= 1
    return pd.DataFrame(
        {
            "value": [f"x{i + 1}" for i in range(o.size)],
            "o": o,
            "F": F,
            "u1": u[:, 0],
            "u2": u[:, 1],
            "l1": np.minimum(u[:, 0], o),
            "l2": np.minimum(u[:, 1], o),
            "t1_initial": t1,
            "moved": moved,
            "t1": t1 - moved,
            "t2": o - t1 + moved,
        }
    )


def example_5_32() -> tuple[np.ndarray, np.ndarray, BucketSetting]:
    """Example 5.32's instance, rebuilt (the seed lost its numbers): 11 values; x1..x10 with
    5 records each and F = 1/6, so floor(F S) = 0 below size 6 and only the size-30 bucket
    can take them (50 records against its capacity of 30); x11 with 20 records and F = 1;
    setting {(2, 10), (4, 5), (30, 1)}, n = 70."""
    o = np.array([5] * 10 + [20])
    F = np.array([1 / 6] * 10 + [1.0])
    return o, F, BucketSetting([2, 4, 30], [10, 5, 1])


def stranded_records(counts: ArrayLike, F: ArrayLike, setting: BucketSetting) -> tuple[int, int, str]:
    """Records whose values fit in the largest size only (floor(F_i S_j) = 0 for every other
    size), against the capacity b S of that size: (records, capacity, the values)."""
    o, F = prepare(counts, F)
    setting = check_setting(setting)
    c = caps(F, setting.sizes)
    only_last = (c[:, :-1].sum(axis=1) == 0) & (o > 0)
    values = ", ".join(f"x{i + 1}" for i in np.flatnonzero(only_last))
    return int(o[only_last].sum()), setting.sizes[-1] * setting.counts[-1], values


def capacity_table(counts: ArrayLike, F: ArrayLike, setting: BucketSetting) -> pd.DataFrame:
    """Example 5.32's view of a setting: how many records of each value the buckets of each size
    can take, the records stranded in the largest size, and the naive per-size check against
    the exact one.

    Returns
    -------
    DataFrame, one row per value: value, o, F, u1..uk (u_ij = floor(F_i S_j) b_j), then the
    same for every row: setting, stranded, capacity, stranded_values (`stranded_records`),
    naive (`naive_check`) and exact (`is_valid`).
    """
    o, F = prepare(counts, F)
    setting = check_setting(setting)
    df = pd.DataFrame({"value": [f"x{i + 1}" for i in range(o.size)], "o": o, "F": F})
    df[[f"u{j + 1}" for j in range(len(setting.sizes))]] = caps(F, setting.sizes) * np.asarray(setting.counts)
    stranded, capacity, values = stranded_records(o, F, setting)
    checks = {"naive": naive_check(o, F, setting), "exact": is_valid(o, F, setting)}
    return df.assign(setting=str(setting), stranded=stranded, capacity=capacity, stranded_values=values, **checks)


def pair_list_table(n: int, s1: int, s2: int) -> pd.DataFrame:
    """Example 5.23: the list L of feasible (b1, b2) (b1 S1 + b2 S2 = n) for sizes s1 < s2, from
    its closed form (`pair_list`), beside the list found by trying every b1 (an independent
    enumeration, largest b1 first).

    Returns
    -------
    DataFrame, one row per pair k of L: k, b1, b2, loss (n - b1 - b2), enumerated (the k-th
    enumerated pair as "(b1, b2)", "" past the enumeration's end; rows without b1, b2 where
    the enumeration finds more pairs than the closed form).
    """
    head = pair_list(n, s1, s2)
    b1, b2, K, step1, step2 = head if head is not None else (0, 0, -1, 0, 0)
    df = pd.DataFrame({"k": range(K + 1), "b1": [b1 - k * step1 for k in range(K + 1)]})
    df["b2"] = [b2 + k * step2 for k in range(K + 1)]
    listed = [f"({a}, {(n - a * s1) // s2})" for a in range(n // s1, -1, -1) if (n - a * s1) % s2 == 0]
    if len(listed) > len(df):
        df = df.reindex(range(len(listed))).assign(k=range(len(listed)))
    return df.assign(loss=n - df.b1 - df.b2, enumerated=listed + [""] * (len(df) - len(listed)))


def _pairs(n: int, hi: int) -> np.ndarray:
    """Number of feasible (b1, b2) (b_j >= 0, b1 S1 + b2 S2 = n) for each 1 <= S1 < S2 <= hi."""
    out = np.zeros((hi + 1, hi + 1), dtype=np.int64)
    for s1 in range(1, hi + 1):
        for s2 in range(s1 + 1, hi + 1):
            head = pair_list(n, s1, s2)
            if head is not None:
                out[s1, s2] = head[2] + 1
    return out


def count_settings(n: int, low: int, high: int) -> int:
    """Remark 3.12: the number of feasible two-size bucket settings {(S1, b1), (S2, b2)},
    low <= S1 < S2 <= high, b_j >= 0 integers with b1 S1 + b2 S2 = n (the list L of
    every size pair, Section 5.1.1)."""
    n = check_int("n", n, low=1, high=10**9)
    high = check_int("high", high, low=2, high=1000)
    low = check_int("low", low, low=1, high=high - 1)
    return int(_pairs(n, high)[low:, low:].sum())


def search_setting_count(target: int, ns: Sequence[int], max_high: int) -> pd.DataFrame:
    """Every (n, low, high) with n in ``ns`` and 1 <= low < high <= ``max_high`` whose
    `count_settings` is closest to ``target``: the exact matches, or the nearest when none.

    Returns
    -------
    DataFrame: n, low, high, count, diff (count - target), sorted by |diff|; all rows with
    the smallest |diff| found, at most 10.
    """
    target = check_int("target", target, low=0)
    max_high = check_int("max_high", max_high, low=2, high=300)
    rows = []
    for n in ns:
        counts = _pairs(check_int("ns", n, low=1, high=10**9), max_high)
        # sum over low <= S1 < S2 <= high of every (low, high): 2-d suffix/prefix sums
        cum = np.cumsum(np.cumsum(counts[::-1, :], axis=0)[::-1, :], axis=1)
        lows, highs = np.meshgrid(np.arange(1, max_high + 1), np.arange(1, max_high + 1), indexing="ij")
        total = cum[1:, 1:]
        ok = highs > lows
        diff = np.abs(total - target)
        best = int(diff[ok].min())
        for lo, hi in zip(*np.nonzero(ok & (diff == best))):
            rows.append({"n": int(n), "low": int(lo) + 1, "high": int(hi) + 1, "count": int(total[lo, hi])})
    out = pd.DataFrame(rows)
    out["diff"] = out["count"] - target
    return out.reindex(out["diff"].abs().sort_values(kind="stable").index)[:10].reset_index(drop=True)


def uniform_sizes(l: int, max_n: int) -> tuple[int, BucketSetting] | None:
    """Section 6 says that with one F = 1/l for every value TwoSize returns buckets of size l or
    l+1. The smallest table (n distinct values, n <= max_n: l-eligible) whose optimal
    two-size setting uses another size, with that setting; None if there is none up to max_n.

    Such a table has n records that no sum of l's and (l+1)'s makes (n < l(l-1)).
    """
    l = check_int("l", l, low=2, high=1000)
    max_n = check_int("max_n", max_n, low=l, high=10_000)
    for n in range(l, max_n + 1):
        if any((n - a * l) % (l + 1) == 0 for a in range(n // l + 1)):
            continue  # n = a l + b (l+1): sizes l and l+1 fit
        setting = two_size(np.ones(n), np.full(n, 1.0 / l), min(n, MAX_SIZE))
        if setting is not None and not set(setting.sizes) <= {l, l + 1}:
            return n, setting
    return None


def frequency_table(sa_codes: ArrayLike, labels: Sequence[Any] | None = None) -> pd.DataFrame:
    """Figure 2: each sensitive value's count and frequency, most frequent first.

    Returns
    -------
    DataFrame: rank (1 = most frequent), value (its label, or code), count, frequency.
    """
    sa = check_codes("sa_codes", sa_codes)
    counts = np.bincount(sa)
    present = np.flatnonzero(counts)
    order = present[np.argsort(-counts[present], kind="stable")]
    names = [str(labels[i]) if labels is not None else str(i) for i in order]
    return pd.DataFrame(
        {
            "rank": np.arange(1, order.size + 1),
            "value": names,
            "count": counts[order],
            "frequency": counts[order] / sa.size,
        }
    )


def frequency_tables(tables: Mapping[str, Table]) -> pd.DataFrame:
    """Figure 2: `frequency_table` of every table's sensitive attribute.

    Parameters
    ----------
    tables : mapping of str to Table
        Table name (OCC, EDU) -> its records (`census_table`), in the figure's order.

    Returns
    -------
    DataFrame: table, rank, value, count, frequency.
    """
    tables = check_tables(tables)
    frames = [frequency_table(t.sa).assign(table=name) for name, t in tables.items()]
    return pd.concat(frames, ignore_index=True)[["table", "rank", "value", "count", "frequency"]]


def example1_table(target: Mapping[str, Any], sensitive: Mapping[str, Any]) -> pd.DataFrame:
    """Table 1's records with Example 1's count queries on each: q1 (the target's QI values)
    and q2 (those and the target's sensitive value).

    Parameters
    ----------
    target : mapping
        The target's QI values (e.g. Gender: M, Zipcode: 54321).
    sensitive : mapping
        Its sensitive value (e.g. Disease: Brain Tumor).

    Returns
    -------
    DataFrame: row (1..), Table 1's columns, q1 and q2 (1 where the record matches).
    """
    if not isinstance(sensitive, Mapping) or not sensitive:
        raise PrivlabError("sensitive must map the sensitive column to the target's value")
    t = table1()
    queries = {"q1": dict(target), "q2": {**target, **sensitive}}
    rows = t.assign(row=np.arange(1, len(t) + 1))
    for name, where in queries.items():
        rows[name] = [count_query(t.iloc[[i]], where) for i in range(len(t))]
    return rows[["row", *t.columns, *queries]]


def example35_table(bucket_ids: Sequence[int], target: Mapping[str, Any]) -> pd.DataFrame:
    """Table 2 (Example 3.5): Table 1 bucketized by ``bucket_ids``, its ST with the target's
    inference Pr(x | t) beside every value of the target's bucket.

    Parameters
    ----------
    bucket_ids : sequence of int
        The bucket of each of Table 1's records (the printed QIT's BID column).
    target : mapping
        The target's QI values.

    Returns
    -------
    DataFrame, one row per (BID, Disease) of the ST: BID, Disease, Count, pr_target (Pr of
    the value for the target, NaN outside its bucket), qit (the bucket's QI values shown).
    """
    if not isinstance(target, Mapping) or not target:
        raise PrivlabError("target must map QI columns to the target's values")
    qit, st = bucket_tables(table1(), "Disease", bucket_ids)
    pr = target_inference(qit, st, dict(target)).rename(columns={"value": "Disease", "pr": "pr_target"})
    shown = {b: "; ".join(f"{r.Gender} {r.Zipcode}" for r in g.itertuples()) for b, g in qit.groupby("BID")}
    out = st.merge(pr, on=["BID", "Disease"], how="left")
    return out.assign(qit=out.BID.map(shown))


def setting_count_table(
    ns: Sequence[int], ranges: Sequence[Sequence[int]], target: int, search_high: int
) -> pd.DataFrame:
    """Remark 3.12: `count_settings` of every (n, size range), and the (n, range) whose count is
    nearest ``target`` (`search_setting_count`).

    Parameters
    ----------
    ns : sequence of int
        The cardinalities.
    ranges : sequence of (low, high)
        The size ranges.
    target : int
        The printed count.
    search_high : int
        The largest size the search scans.

    Returns
    -------
    DataFrame: kind ("candidate" or "nearest"), n, low, high, count, diff (count - target).
    """
    target = check_int("target", target, low=0)
    for r in ranges:
        if isinstance(r, (str, bytes)) or not isinstance(r, Sequence) or len(r) != 2:
            raise PrivlabError(f"ranges must hold (low, high) pairs, got {r!r}")
    rows = [{"n": n, "low": lo, "high": hi, "count": count_settings(n, lo, hi)} for n in ns for lo, hi in ranges]
    near = search_setting_count(target, ns, search_high).drop(columns="diff").assign(kind="nearest")
    out = pd.concat([pd.DataFrame(rows).assign(kind="candidate"), near], ignore_index=True)
    return out[["kind", "n", "low", "high", "count"]].assign(diff=out["count"] - target)


def example420_table(counts: ArrayLike, F: ArrayLike, setting: BucketSetting, seed: SeedLike = 0) -> pd.DataFrame:
    """Example 4.20: `partition_steps` beside `record_partition` (the algorithm the experiments
    use), and the records assigned (`bucketize`) and checked (`check_bucketization`).

    Parameters
    ----------
    counts, F, setting
        The instance (two sizes).
    seed : int, SeedSequence or Generator
        Randomness of the assignment.

    Returns
    -------
    DataFrame: `partition_steps`' columns, t1_algorithm (T_1 by `record_partition`), S1, b1,
    S2, b2, checker (the checker's verdict) and bucket_sizes ("count x size; ...").
    """
    o, F = prepare(counts, F)
    s = check_setting(setting)
    steps = partition_steps(o, F, s)
    x = record_partition(o, F, s)
    sa = np.repeat(np.arange(o.size), o)
    report = check_bucketization(sa, bucketize(sa, F, s, seed=seed), F)
    sizes = "; ".join(f"{v} x {k}" for k, v in report.size_histogram.items())
    shape = dict(S1=s.sizes[0], b1=s.counts[0], S2=s.sizes[1], b2=s.counts[1])
    return steps.assign(t1_algorithm=x[:, 0], **shape, checker=report.ok, bucket_sizes=sizes)
