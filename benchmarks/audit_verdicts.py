"""How far each verdict stands from flipping: claims re-decided on perturbed tables (issue 26's audit).

Not a speed benchmark: the robustness audit that issue 26 ran by hand, kept runnable. For every
experiment, its claims are decided on the committed reference read back as ``check`` reads it, then
decided again after moving one thing they read: each numeric column that is not a key (one at a
time), and each numeric printed value of the config. The moves, smallest first:

    x(1 +- 1%), x(1 +- 5%), a 1% and a 5% multiplicative jitter per row (fixed seed),
    x0.8 / x1.25, x0.5 / x2, +-3 and +-10 s.e. (where a column <c>_se or se_<c> gives one)

Each agree claim is counted by the smallest move that changes its verdict (to disagree or
inconclusive): "within 5%" (the 1% and 5% moves and jitters), "within x0.5/x2" (x0.8 ... x2),
"only by +-3/+-10 s.e.", or "never". Beside it, the same buckets for the nearest value at which the
claim's own exposed rule leaves agree (its `Comparison.reaching`, as the verdict mutation test moves it), and the
smaller of the two ("either"). A claim that never flips either way is a strong result, a statement
read from text (a formula, a set of names) that no numeric move reaches, or a rule that cannot fail:
the printed examples say which.

    python benchmarks/audit_verdicts.py                   # every experiment, quick references
    python benchmarks/audit_verdicts.py --profile paper --only bucketization --examples 20
"""

from __future__ import annotations

import argparse
import collections
import copy
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from omegaconf import OmegaConf  # noqa: E402

from privlab import check, registry, runner  # noqa: E402

BUCKETS = ("within 5%", "within x0.5/x2", "only by +-3/+-10 s.e.", "never")


def _moves(values: np.ndarray, se: np.ndarray | None, rng: np.random.Generator):
    """(bucket, moved values) pairs, smallest moves first."""
    for f in (1.01, 0.99, 1.05, 0.95):
        yield BUCKETS[0], values * f
    for width in (0.01, 0.05):
        yield BUCKETS[0], values * (1 + rng.uniform(-width, width, values.size))
    for f in (1.25, 0.8, 2.0, 0.5):
        yield BUCKETS[1], values * f
    if se is not None:
        for k in (3, -3, 10, -10):
            yield BUCKETS[2], values + k * se


def _se_column(table: pd.DataFrame, col: str) -> np.ndarray | None:
    for name in (f"{col}_se", f"se_{col}", f"{col}_stderr"):
        if name in table.columns and pd.api.types.is_numeric_dtype(table[name]):
            return table[name].to_numpy(dtype=float)
    return None


def _judged(exp, table, cfg) -> list | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return exp.check_claims(table, cfg)
    except Exception:  # noqa: BLE001 - a move the rules cannot read (a count made fractional) decides nothing
        return None


def _decide(exp, table, cfg) -> dict[str, str] | None:
    judged = _judged(exp, table, cfg)
    return None if judged is None else {f"{i}:{c.claim}": c.verdict for i, c in enumerate(judged)}


def _exposed_bucket(claim) -> str | None:
    """The bucket of the nearest value at which the claim's exposed rule leaves agree (the value the
    verdict mutation test moves it to); None: no value exposed."""
    cmp = claim.comparison
    if cmp is None:
        return None
    at = cmp.reaching(["disagree", "inconclusive"])
    if at is None:
        return "never"
    rel = abs(at - cmp.value) / max(abs(cmp.value), abs(cmp.reference), 1e-300)
    return BUCKETS[0] if rel <= 0.05 else BUCKETS[1] if rel <= 1 else "only beyond x2"


def _printed_paths(node, path=()):
    """Paths of the numeric ``value`` entries under ``printed``."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "value" and isinstance(v, (int, float)) and not isinstance(v, bool):
                yield (*path, k)
            else:
                yield from _printed_paths(v, (*path, k))


def audit(exp, profile: str):
    cfg = runner.compose(exp.id, [], profile=profile)
    path = check.reference_path(exp, profile)
    if not path.is_file():
        return None
    table = check.read_reference(exp, path)
    judged = _judged(exp, table, cfg)
    if judged is None:
        return None
    base = {f"{i}:{c.claim}": c.verdict for i, c in enumerate(judged)}
    exposed = {f"{i}:{c.claim}": _exposed_bucket(c) for i, c in enumerate(judged)}
    first: dict[str, str] = {}  # claim -> smallest bucket that flips it
    rng = np.random.default_rng(0)
    keys = set(exp.keys)
    for col in table.columns:
        if col in keys or not pd.api.types.is_numeric_dtype(table[col]) or table[col].dtype == bool:
            continue
        values = table[col].to_numpy(dtype=float)
        for bucket, moved in _moves(values, _se_column(table, col), rng):
            if all(BUCKETS.index(first.get(k, "never")) <= BUCKETS.index(bucket) for k in base):
                break  # every claim already flipped at a smaller move
            t = table.copy()
            # a count stays a count (a rule may refuse a fractional one)
            t[col] = np.round(moved).astype(table[col].dtype) if table[col].dtype.kind in "iu" else moved
            now = _decide(exp, t, cfg)
            _record(base, now, bucket, first)
    container = OmegaConf.to_container(cfg, resolve=True)
    for p in _printed_paths(container.get("printed", {}), ("printed",)):
        value = float(_get(container, p))
        for bucket, moved in _moves(np.array([value]), None, rng):
            c = copy.deepcopy(container)
            _set(c, p, float(moved[0]))
            now = _decide(exp, table, OmegaConf.create(c))
            _record(base, now, bucket, first)
    return base, first, exposed


def _get(d, path):
    for k in path:
        d = d[k]
    return d


def _set(d, path, value):
    for k in path[:-1]:
        d = d[k]
    d[path[-1]] = value


def _record(base, now, bucket, first):
    if now is None:
        return
    for k, v in base.items():
        if now.get(k, v) != v and BUCKETS.index(bucket) < BUCKETS.index(first.get(k, "never")):
            first[k] = bucket


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="quick", choices=runner.PROFILES)
    ap.add_argument("--only", nargs="*", default=None, help="experiment ids or paper keys")
    ap.add_argument("--examples", type=int, default=5, help="claims printed per bucket")
    args = ap.parse_args(argv)
    counts: collections.Counter = collections.Counter()
    verdicts: collections.Counter = collections.Counter()
    examples = collections.defaultdict(list)
    chosen = [
        e
        for item in args.only or [""]
        for e in (registry.select([item]) if "/" in item else registry.select(paper=item or None))
    ]
    for exp in chosen:
        got = audit(exp, args.profile)
        if got is None:
            print(f"{exp.id}: no reference or its claims fail to decide; skipped")
            continue
        base, first, exposed = got
        for k, v in base.items():
            verdicts[v] += 1
            if v != "agree":
                continue
            table_move = first.get(k, "never")
            counts["table", table_move] += 1
            rule = exposed[k]
            counts["rule", rule or "no value exposed"] += 1
            both = min((b for b in (table_move, rule) if b in BUCKETS), key=BUCKETS.index, default="never")
            if both == "never" and rule == "only beyond x2":
                both = rule
            counts["either", both] += 1
            if len(examples[both]) < args.examples:
                examples[both].append(f"{exp.id}: {k.split(':', 1)[1][:100]}")
    print(f"{args.profile} references: " + ", ".join(f"{n} {v}" for v, n in verdicts.most_common()))
    print(f"agree claims by the smallest move that flips them ({verdicts['agree']}):")
    print("   table  rule  either")
    for b in (*BUCKETS[:3], "only beyond x2", "no value exposed", "never"):
        line = f"{counts['table', b]:8d}{counts['rule', b]:6d}{counts['either', b]:8d}  {b}"
        print(line.replace(f"{0:8d}", " " * 7 + "-", 1) if b == "no value exposed" else line)
        for e in examples[b]:
            print(f"         {e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
