"""Comparing result tables: one code path for ``privlab check`` (a regenerated table against
its committed reference) and ``privlab compare`` (two result directories).

Columns are compared with the tolerances declared beside each experiment: deterministic
columns exactly (to 1e-9 relative, which only absorbs CSV round-tripping), Monte Carlo
columns within a multiple of their standard error or an absolute bound, wall-clock timings
not at all. NaN (an empty cell) compares equal only to NaN; +-inf (or an overflow such as 1e400)
only to the same infinity in a column that allows it, and is drift anywhere else. A reference
that cannot be read, or whose key columns are not finite and unique, is its experiment's row;
the others are still checked.
"""

from __future__ import annotations

import io
import os
import site
import sysconfig
import tempfile
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd
from jinja2 import Environment, PackageLoader

from . import ledger, registry, runner, store
from ._validation import PrivlabError
from .claims import CHECKED, counts, counts_text
from .errors import fail
from .registry import Experiment, Tolerance
from .runner import table_to_csv

STATUSES = ("same", "within tolerance", "drifted", "unreadable", "only in A", "only in B")


@dataclass
class Cell:
    """One compared cell that moved: where, both values, and what was allowed."""

    row: str
    column: str
    new: object
    ref: object
    allowed: str
    ratio: float  # |new - ref| / allowed (inf for text or NaN against a number)


@dataclass
class Drift:
    status: str  # "ok", "drift", "missing"
    detail: str
    worst: float = 0.0  # largest |new - ref| / allowed over compared cells (<= 1 is ok)
    identical: bool = False  # every compared cell equal (not merely within tolerance)
    cells: list[Cell] = field(default_factory=list)  # the worst moved cells, worst first


def canonical(df: pd.DataFrame) -> pd.DataFrame:
    """The table as it reads back from its CSV (types normalised the same way as a reference)."""
    return pd.read_csv(io.StringIO(table_to_csv(df)))


def _sorted_by(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Rows in the order of their key columns' text (the same order for a table and its reference)."""
    return df.assign(_k=df[keys].astype(str).agg("|".join, axis=1)).sort_values("_k").drop(columns="_k")


def _align(exp: Experiment, new: pd.DataFrame, ref: pd.DataFrame):
    if exp.keys:
        keys = list(exp.keys)
        new_keys = set(map(tuple, new[keys].astype(str).to_numpy()))
        ref_keys = set(map(tuple, ref[keys].astype(str).to_numpy()))
        if new_keys != ref_keys:
            extra, lost = sorted(new_keys - ref_keys)[:3], sorted(ref_keys - new_keys)[:3]
            return None, None, f"rows differ: new {extra}, missing {lost}"
        new, ref = _sorted_by(new, keys), _sorted_by(ref, keys)
    elif len(new) != len(ref):
        return None, None, f"{len(new)} rows, reference has {len(ref)}"
    return new.reset_index(drop=True), ref.reset_index(drop=True), ""


def _column_ratios(tol: Tolerance, a: pd.Series, b: pd.Series, ref: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per row: |new - ref| / allowed (0 where equal, inf where text differs or a non-finite value
    meets anything but itself), and the allowed deviation.

    NaN (an empty cell) equals only NaN. +-inf (an overflow such as 1e400 reads as one) equals only
    the same infinity, and only in a column whose tolerance allows it (``Tolerance(infinite=True)``);
    anywhere else it is drift, whatever the other side. A non-finite standard error or reference
    value allows no noise: it can never widen the tolerance."""
    if pd.api.types.is_numeric_dtype(a) and pd.api.types.is_numeric_dtype(b):
        x, y = a.to_numpy(float), b.to_numpy(float)
        with np.errstate(over="ignore", invalid="ignore"):
            allowed = tol.atol + tol.rtol * np.abs(y)
            if tol.se:
                allowed = allowed + tol.k * np.abs(ref[tol.se].to_numpy(float))
        allowed = np.where(np.isfinite(allowed), allowed, tol.atol)
        finite = np.isfinite(x) & np.isfinite(y)
        same = (finite & (x == y)) | (np.isnan(x) & np.isnan(y))
        if tol.infinite:
            same |= np.isinf(x) & (x == y)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            diff = np.where(finite, np.abs(x - y), np.inf)  # x - y may overflow: inf, drift
            ratio = np.where(same, 0.0, diff / np.maximum(allowed, 1e-300))
        return np.where(np.isnan(ratio), np.inf, ratio), allowed
    same_text = ((a.astype(str) == b.astype(str)) | (a.isna() & b.isna())).to_numpy()
    return np.where(same_text, 0.0, np.inf), np.zeros(len(a))


def compare(exp: Experiment, new: pd.DataFrame, ref: pd.DataFrame, *, n_cells: int = 5) -> Drift:
    """Compare a table with its reference under ``exp``'s tolerances.

    Returns the status (``ok`` or ``drift``), whether the tables are identical, the worst
    ratio and the ``n_cells`` worst moved cells.
    """
    new = canonical(new)
    if list(new.columns) != list(ref.columns):
        return Drift("drift", f"columns {list(new.columns)} != reference {list(ref.columns)}", np.inf)
    new, ref, why = _align(exp, new, ref)
    if new is None:
        return Drift("drift", why, np.inf)
    moved: list[Cell] = []
    identical = True
    worst, worst_col = 0.0, ""
    for col in ref.columns:
        tol = exp.tolerance(col)
        if tol.ignore:
            continue
        ratio, allowed = _column_ratios(tol, new[col], ref[col], ref)
        identical &= bool((ratio == 0).all())
        for i in np.flatnonzero(ratio > 0):
            row = ", ".join(f"{k}={ref.at[i, k]!s}" for k in exp.keys) if exp.keys else f"row {i + 1}"
            shown = "exact" if np.isinf(ratio[i]) or allowed[i] == 0 else f"+-{allowed[i]:.3g} ({tol.describe()})"
            moved.append(Cell(row, col, new.at[i, col], ref.at[i, col], shown, float(ratio[i])))
        col_worst = float(np.max(ratio)) if ratio.size else 0.0
        if col_worst > worst:
            worst, worst_col = col_worst, col
    moved.sort(key=lambda c: -c.ratio)
    cells = moved[:n_cells]
    if worst > 1.0:
        numeric = pd.api.types.is_numeric_dtype(new[worst_col]) and pd.api.types.is_numeric_dtype(ref[worst_col])
        tolerance = exp.tolerance(worst_col).describe()
        why = f"beyond tolerance ({tolerance})" if numeric else "differs (text, compared exactly)"
        return Drift("drift", f"column {worst_col!r} {why}", worst, False, cells)
    return Drift("ok", f"{len(ref)} rows, {len(ref.columns)} columns", worst, identical, cells)


def reference_path(exp: Experiment, profile: str = "quick", given: Path | None = None) -> Path:
    """The reference table ``exp`` is checked against: in ``given`` (or ``PRIVLAB_REFERENCE``), a
    directory laid out as a results directory (``<paper>/<name>/result.csv``); else the paper's own,
    committed in its experiment unit (``reference/<profile>/<name>/result.csv``)."""
    given = given if given is not None else runner.given_reference_dir()
    if given is not None:
        return Path(given) / exp.paper / exp.name / "result.csv"
    where = registry.paper_of(exp).reference_dir
    assert where is not None
    return where / profile / exp.name / "result.csv"


def installed_copy(folder: Path, distribution: str = "") -> bool:
    """Is ``folder`` inside an installed (non-editable) distribution: under site-packages, or a
    folder whose files ``distribution``'s RECORD lists (``pip install --target DIR`` installs
    anywhere)? An editable install records only its ``.pth`` and finder, not the source tree."""
    places = {*site.getsitepackages(), site.getusersitepackages(), *sysconfig.get_paths().values()}
    resolved = Path(folder).resolve()
    if any(resolved.is_relative_to(Path(p).resolve()) for p in places if p and "-packages" in Path(p).name) or any(
        part in ("site-packages", "dist-packages") for part in resolved.parts
    ):
        return True
    return bool(distribution) and any(_records(dist, resolved) for dist in metadata.distributions(name=distribution))


def _records(dist: metadata.Distribution, folder: Path) -> bool:
    """Does the installed ``dist`` (a dist-info with a RECORD: not a source tree's egg-info, whose
    SOURCES.txt lists the source tree itself) own a file inside ``folder``?"""
    if dist.read_text("RECORD") is None:
        return False
    base = Path(str(dist.locate_file(""))).resolve()
    return any(Path(os.path.normpath(base / f)).is_relative_to(folder) for f in dist.files or ())


def writable_references(exp: Experiment) -> None:
    """``check --update`` writes a paper's references into its source tree, never into an installed copy."""
    paper = registry.paper_of(exp)
    if paper.folder is not None and installed_copy(paper.folder, paper.distribution):
        raise PrivlabError(
            f"paper {paper.key} is an installed copy ({paper.folder}); check --update writes references into a "
            f"paper's source tree: install it editable (pip install -e <its project>) or put its project on "
            f"PRIVLAB_PATH, or write them elsewhere with --reference DIR"
        )


def read_reference(exp: Experiment, path: Path) -> pd.DataFrame:
    """A committed reference table, read strictly: an unreadable, empty or malformed file, or
    one whose key columns repeat, is one line naming the file (and line)."""
    try:
        ref = pd.read_csv(path)
    except pd.errors.EmptyDataError:
        raise PrivlabError(f"reference {path} is empty; regenerate it with 'privlab check {exp.id} --update'") from None
    except pd.errors.ParserError as exc:
        raise PrivlabError(f"reference {path} is not a valid CSV: {str(exc).strip().splitlines()[-1]}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PrivlabError(f"reference {path} cannot be read: {exc}") from None
    if ref.empty:
        raise PrivlabError(f"reference {path} has a header but no rows")
    missing = [k for k in exp.keys if k not in ref.columns]
    if missing:
        raise PrivlabError(f"reference {path} lacks the key column(s) {', '.join(missing)}")
    for key in exp.keys:
        column = ref[key]
        bad = column.isna().to_numpy()
        if pd.api.types.is_numeric_dtype(column):
            bad = bad | ~np.isfinite(column.to_numpy(float))
        if bad.any():
            lines = (np.flatnonzero(bad)[:4] + 2).tolist()  # +2: header line, 1-based
            raise PrivlabError(f"reference {path} has no finite value in key column {key} at lines {lines}")
    if exp.keys:
        dup = ref.duplicated(list(exp.keys), keep=False)
        if dup.any():
            lines = (np.flatnonzero(dup.to_numpy())[:4] + 2).tolist()  # +2: header line, 1-based
            raise PrivlabError(f"reference {path} repeats a row of key columns {', '.join(exp.keys)} at lines {lines}")
    return ref


def check_against_reference(exp: Experiment, table: pd.DataFrame, path: Path) -> Drift:
    """``table`` against the reference at ``path`` (`reference_path`)."""
    if not path.is_file():
        return Drift("missing", f"no reference at {path}; run 'privlab check {exp.id} --update'", np.inf)
    return compare(exp, table, read_reference(exp, path))


# ---------------------------------------------------------------------------------------
# privlab compare A B
# ---------------------------------------------------------------------------------------
@dataclass
class VerdictChange:
    claim: str
    a: str
    b: str

    @property
    def rank(self) -> int:
        """agree -> disagree first, then other moves away from agree, then the rest."""
        return 0 if (self.a, self.b) == ("agree", "disagree") else 1 if self.a == "agree" else 2


@dataclass
class Comparison:
    exp_id: str
    status: str  # one of STATUSES
    detail: str = ""
    cells: list[Cell] = field(default_factory=list)
    verdicts: list[VerdictChange] = field(default_factory=list)


def _runs(results: Path, experiments: list[Experiment]) -> tuple[dict[str, Path], dict[str, str]]:
    """The run directories of ``experiments`` under ``results``, and why each damaged one is (a file
    that is not what its manifest says: changed, cut short, not UTF-8 any more)."""
    found, damaged = {}, {}
    for exp in experiments:
        run = results / exp.paper / exp.name
        ok, why = store.verify(run, deep=True)  # every file's checksum: a change of the same size too
        if ok or (run / "result.csv").is_file() and not (run / "manifest.json").exists():
            found[exp.id] = run
        elif run.is_dir() and (run / "manifest.json").exists():
            found[exp.id], damaged[exp.id] = run, f"{run}: {why}"
    return found, damaged


def _claims(run: Path) -> dict[str, str]:
    path = run / "claims.csv"
    if not path.is_file():
        return {}
    frame = store.read_claims(path)
    return dict(zip(frame["claim"], frame["verdict"]))


def compare_dirs(a: Path, b: Path, experiments: list[Experiment]) -> list[Comparison]:
    """Compare the results in directories ``a`` and ``b`` experiment by experiment."""
    for path, name in ((a, "A"), (b, "B")):
        if not Path(path).is_dir():
            raise PrivlabError(f"{name} = {path} is not a results directory")
    (runs_a, damaged_a), (runs_b, damaged_b) = _runs(Path(a), experiments), _runs(Path(b), experiments)
    if not runs_a and not runs_b:
        raise PrivlabError(f"neither {a} nor {b} holds a result of a registered experiment")
    by_id = {e.id: e for e in experiments}
    out = []
    for exp_id in sorted(set(runs_a) | set(runs_b)):
        if exp_id not in runs_b:
            out.append(Comparison(exp_id, "only in A"))
            continue
        if exp_id not in runs_a:
            out.append(Comparison(exp_id, "only in B"))
            continue
        exp = by_id[exp_id]
        damaged = [d[exp_id] for d in (damaged_a, damaged_b) if exp_id in d]
        if damaged:  # a result that is not what it was written as is this experiment's row
            out.append(Comparison(exp_id, "unreadable", "; ".join(damaged)))
            continue
        try:  # a table or claims file that cannot be read is this experiment's row
            table_a = read_reference(exp, runs_a[exp_id] / "result.csv")
            drift = compare(exp, read_reference(exp, runs_b[exp_id] / "result.csv"), table_a)
            ca, cb = _claims(runs_a[exp_id]), _claims(runs_b[exp_id])
        except PrivlabError as exc:
            out.append(Comparison(exp_id, "unreadable", str(exc)))
            continue
        status = "drifted" if drift.status != "ok" else "same" if drift.identical else "within tolerance"
        changes = [
            VerdictChange(c, ca.get(c, "(absent)"), cb.get(c, "(absent)"))
            for c in dict.fromkeys([*ca, *cb])
            if ca.get(c) != cb.get(c)
        ]
        changes.sort(key=lambda v: v.rank)
        out.append(Comparison(exp_id, status, drift.detail, drift.cells, changes))
    return out


# ---------------------------------------------------------------------------------------
# privlab check
# ---------------------------------------------------------------------------------------
NOT_OK = {"drift": "drifted", "missing": "have no reference", "error": "have an unreadable reference"}


def run_check(ids: list[str], *, paper: str | None, profile: str, reference: str | None, update: bool) -> int:
    """``privlab check``: recompute each chosen experiment and compare it with its reference (or
    rewrite the reference with ``update``), one row per experiment as it finishes; 1 on any drift.
    A fault in one experiment is its row, not the end of the check."""

    exps = registry.select(ids, paper=paper)
    if profile not in runner.PROFILES:
        raise PrivlabError(f"--profile must be one of {', '.join(runner.PROFILES)}; got {profile!r}")
    given = Path(reference) if reference else runner.given_reference_dir()
    what = "--reference" if reference else "PRIVLAB_REFERENCE"
    if given is not None and update:
        store.probe_writable(given, what)
    elif given is not None and not given.is_dir():
        raise PrivlabError(f"{what} {given} is not a directory")
    elif update:
        for exp in exps:
            writable_references(exp)
    paper_scale = profile == "paper"
    configs = []
    outcomes: dict[str, int] = {}  # status -> experiments (every status but ok)
    width = max((len(e.id) for e in exps), default=10)
    missing = []
    for exp in exps:
        try:
            configs.append((exp, runner.compose(exp.id, [], profile=profile)))
        except runner.MissingConfig as exc:  # a declared experiment without its config: its own row
            missing.append(f"{exp.id:<{width}}  {'ERROR':<8}  {0:7.1f}  {str(exc).removeprefix(exp.id + ' ')}")
            outcomes["failed"] = outcomes.get("failed", 0) + 1
    print(f"{'experiment':<{width}}  {'status':<8}  {'seconds':>7}  detail", flush=True)
    for line in missing:
        print(line, flush=True)
    verdicts: dict[str, int] = {}  # the claims' verdicts over the checked tables
    with tempfile.TemporaryDirectory() as tmp:
        # quick: every table recomputed in a fresh directory; paper scale: into the results directory,
        # reusing a complete result of the same config, seed and code (privlab reproduce --profile paper)
        work = runner.default_results_dir() if paper_scale else Path(tmp)
        for exp, cfg in configs:  # rows stream out as experiments finish
            ref_path = reference_path(exp, profile, given)
            start = time.perf_counter()
            typos = ledger.unresolved(exp, cfg)  # a claim pointing at no ledger item is a fault, not a silent gap
            if typos:
                outcomes["failed"] = outcomes.get("failed", 0) + 1
                print(f"{exp.id:<{width}}  {'ERROR':<8}  {0:7.1f}  {typos[0].removeprefix(exp.id + ': ')}")
                continue
            try:
                table = _checked_table(exp, cfg, work, reuse=paper_scale)
            except KeyboardInterrupt:
                raise
            except Exception as exc:  # a fault in one experiment is its row, not the end of the check
                outcomes["failed"] = outcomes.get("failed", 0) + 1
                print(f"{exp.id:<{width}}  {'ERROR':<8}  {time.perf_counter() - start:7.1f}  {runner.error_line(exc)}")
                continue
            seconds = time.perf_counter() - start
            if update:
                target = runner.atomic_write_text(ref_path, runner.table_to_csv(table))
                status, detail = "updated", f"{len(table)} rows -> {target}"
            else:
                try:
                    drift = check_against_reference(exp, table, ref_path)
                except PrivlabError as exc:  # a broken reference is this experiment's row
                    drift = Drift("error", str(exc), np.inf)
                if drift.status != "ok":
                    named = NOT_OK[drift.status]
                    outcomes[named] = outcomes.get(named, 0) + 1
                status, detail = drift.status.upper(), drift.detail
            detail += _claims_tally(exp, table, cfg, verdicts)
            print(f"{exp.id:<{width}}  {status:<8}  {seconds:7.1f}  {detail}", flush=True)
    if verdicts:
        print(f"claims in all: {counts_text(verdicts)}")
    if outcomes:
        said = ", ".join(f"{n} {what}" for what, n in outcomes.items())
        fail(f"{sum(outcomes.values())} of {len(exps)} experiment(s) not OK: {said}", 1)
    return 0


def _claims_tally(exp: Experiment, table: pd.DataFrame, cfg, total: dict[str, int]) -> str:
    """``; claims: 4 agree, ...`` for the table as it reads back from its CSV, added into ``total``."""
    try:
        tally = counts(exp.check_claims(canonical(table), cfg))
    except Exception as exc:  # a claim that cannot be decided is said on its row, not the end of the check
        return f"; claims not decided: {type(exc).__name__}: {exc}"
    for verdict, n in tally.items():
        total[verdict] = total.get(verdict, 0) + n
    return f"; claims: {counts_text(tally)}" if sum(tally.values()) else ""


def _checked_table(exp: Experiment, cfg, work: Path, *, reuse: bool) -> pd.DataFrame:
    out_dir = work / exp.paper / exp.name
    if reuse and runner.is_complete(out_dir, cfg, exp):
        return pd.read_csv(out_dir / "result.csv")
    if reuse:
        return runner.execute(exp.id, cfg, results_dir=work, log=lambda m: None).table
    return runner.run_table(exp, cfg, runner.make_context(cfg, work, log=lambda m: None))


# ---------------------------------------------------------------------------------------
# privlab compare
# ---------------------------------------------------------------------------------------
def run_compare(a: str, b: str, *, paper: str | None, html: str | None) -> int:
    """``privlab compare A B``: each experiment's status, the worst moved cells of a drifted one
    and the claims that changed verdict; 1 on any difference. ``html`` also writes it as a page."""
    comparisons = compare_dirs(Path(a), Path(b), registry.select(paper=paper))
    width = max(len(c.exp_id) for c in comparisons)
    print(f"{'experiment':<{width}}  {'status':<16}  detail")
    for c in comparisons:
        detail = c.detail if c.status in ("drifted", "unreadable") else ""
        print(f"{c.exp_id:<{width}}  {c.status:<16}  {detail}".rstrip())
        for cell in c.cells if c.status == "drifted" else []:
            print(f"    {cell.row}: {cell.column} A={cell.ref} B={cell.new} (allowed {cell.allowed})")
    verdicts = sorted(((c.exp_id, v) for c in comparisons for v in c.verdicts), key=lambda p: p[1].rank)
    if verdicts:
        print("claims that changed verdict:")
        for exp_id, v in verdicts:
            print(f"    {exp_id}: {v.a} -> {v.b}: {v.claim}")
    counts = {s: sum(c.status == s for c in comparisons) for s in STATUSES}
    summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n) + f"; {len(verdicts)} claim verdict(s) changed"
    print(summary)
    if html:
        env = Environment(loader=PackageLoader("privlab", "templates"), autoescape=True)
        css = {
            "same": "same",
            "within tolerance": "within",
            "drifted": "drifted",
            "unreadable": "drifted",
            "only in A": "only",
            "only in B": "only",
        }
        page = env.get_template("compare.html.j2").render(
            a=a, b=b, comparisons=comparisons, css=css, verdicts=verdicts, summary=summary
        )
        try:
            print(f"wrote {runner.atomic_write_text(Path(html), page)}")
        except OSError as exc:
            raise PrivlabError(f"--html {html} cannot be written ({exc.strerror or exc})") from None
    differs = sum(c.status not in ("same", "within tolerance") for c in comparisons) + len(verdicts)
    return 1 if differs else 0


# ---------------------------------------------------------------------------------------
# privlab claims --audit
# ---------------------------------------------------------------------------------------
def audited_claims(exp: Experiment, profile: str = "quick"):
    """``exp``'s claims decided on its committed ``profile`` reference, read back as ``check`` reads it."""
    if profile not in runner.PROFILES:
        raise PrivlabError(f"--profile must be one of {', '.join(runner.PROFILES)}; got {profile!r}")
    cfg = runner.compose(exp.id, [], profile=profile)
    path = reference_path(exp, profile)
    if not path.is_file():
        raise PrivlabError(f"{exp.id} has no {profile} reference at {path}; run 'privlab check {exp.id} --update'")
    return exp.check_claims(read_reference(exp, path), cfg)


def audit_lines(exp: Experiment, profile: str = "quick") -> list[str]:
    """Per claim of ``exp`` (on its committed reference): verdict, rule, the value it read against its
    reference and margin, and the value at which the verdict flips (or why it cannot)."""
    lines = [f"{exp.id} ({profile} reference)"]
    for c in audited_claims(exp, profile):
        lines.append(f"- [{c.verdict}] {c.claim}")
        lines.append(f"    rule: {c.rule}")
        cmp = c.comparison
        if c.verdict == "info":
            lines.append(f"    not checkable: {c.note}")
        elif cmp is None:
            lines.append("    a statement decided by the experiment's own computed comparison: no single value to move")
        else:
            lines.append(f"    compared: {cmp.text()}")
            others = [v for v in (*CHECKED, "inconclusive") if v != c.verdict]
            for target in others:
                at = cmp.reaching([target])
                if at is not None:
                    lines.append(f"    becomes {target} at value {at:.6g}")
            if cmp.nearest_flip() is None:
                lines.append("    CANNOT FLIP: no value of what it reads changes this verdict")
    return lines
