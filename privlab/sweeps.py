"""Sweep reports: ``privlab sweep-report DIR`` gathers a multirun into one table, the claims of every
job into one table, and answers the sweep's question: where does each conclusion hold?

It writes, into the sweep directory:

``sweep.parquet``, ``sweep.csv``
    every complete job's result table with the swept parameters as columns (`privlab.sweep_store`,
    gathered one job at a time);
``sweep_claims.csv``
    every job's claims: job, the swept parameters, claim, printed, reproduced, verdict, rule;
``sweep_verdicts.png`` and ``sweep_verdicts_<k>.png``
    the verdict of every claim in every job, and per claim whose verdict changes over a grid of
    two or more parameters its verdict map (`privlab.sweep_plots.verdict_map`);
``sweep_<metric>_vs_<parameter>.png`` (and ``sweep_<metric>_heatmap.png`` for two parameters)
    each metric against each swept parameter, with its intervals, its exact counterpart and one
    series per categorical column;
``sweep.html``
    all of it on one self-contained page in the style of ``report.html``;

and prints one line per claim: "agree in k of N jobs; disagrees where ...".
"""

from __future__ import annotations

import base64
import csv
import functools
import io
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from . import check, pages, registry, runner, sweep_plots, sweep_store
from ._validation import PrivlabError
from .claims import VERDICTS
from .figures import Drawn
from .runner import atomic_write_text
from .sweep_plots import MAX_PANELS, companions, label, sorted_values
from .sweep_store import FAILED_MARKERS, Gathered  # noqa: F401  (FAILED_MARKERS: the launchers' marker folder)

CLAIMS_CSV = "sweep_claims.csv"
HTML_NAME = "sweep.html"
CLAIM_COLUMNS = ("claim", "printed", "reproduced", "verdict", "rule")
MAX_METRICS = 4  # metrics plotted when none is named
MAX_HTML_JOBS = 400  # verdict grids on the page up to this many jobs (the PNG overview has them all)
ABSENT = "absent"


def quantities(exp_id: str | None) -> dict[str, str]:
    """Column -> the quantity its axis shows (``Axis.label``), read from the experiment's declared
    figures drawn over its committed quick reference; {} where there is none to read."""
    if not exp_id:
        return {}
    return dict(_quantities(exp_id))


@functools.cache
def _quantities(exp_id: str) -> tuple[tuple[str, str], ...]:
    out: dict[str, str] = {}
    try:
        exp = registry.get(exp_id)
        drawn = [fn for fn in exp.figures.values() if isinstance(fn, Drawn)]
        if not drawn:
            return ()
        table = check.read_reference(exp, check.reference_path(exp))
        cfg = runner.compose(exp_id)
        for fn in drawn:
            for panel in fn.spec(table, cfg).panels:
                if isinstance(panel.x, str):
                    out.setdefault(panel.x, panel.xaxis.label)
                for layer in panel.layers:
                    if isinstance(layer.y, str):
                        out.setdefault(layer.y, panel.yaxis.label)
    except Exception:  # no reference, a figure that cannot read it: the column names stand
        return ()
    return tuple(out.items())


# ---------------------------------------------------------------------------------------
# claims across the sweep
# ---------------------------------------------------------------------------------------
def collect_claims(sweep_dir: Path, gathered: Gathered) -> pd.DataFrame:
    """Write ``sweep_claims.csv`` (job, swept parameters, claim, printed, reproduced, verdict, rule)
    and return it. A claim a job states twice keeps both rows, the second named ``claim [2]``."""
    swept = gathered.swept
    rows: list[dict[str, Any]] = []
    for (job, claims), params in zip(sweep_store.iter_claims(sweep_dir, gathered.jobs), gathered.params):
        seen: dict[str, int] = {}
        for c in claims:
            text = c.get("claim", "")
            seen[text] = seen.get(text, 0) + 1
            name = text if seen[text] == 1 else f"{text} [{seen[text]}]"
            rows.append({"job": job, **{k: params.get(k) for k in swept}, "claim": name, **_fields(c)})
    frame = pd.DataFrame(rows, columns=["job", *swept, *CLAIM_COLUMNS])
    atomic_write_text(Path(sweep_dir) / CLAIMS_CSV, frame.to_csv(index=False, lineterminator="\n"))
    return frame


def _fields(row: Mapping[str, str]) -> dict[str, str]:
    return {k: row.get(k, "") for k in CLAIM_COLUMNS if k != "claim"}


def job_points(gathered: Gathered) -> pd.DataFrame:
    """One row per complete job: ``job`` and its value of each swept parameter."""
    return pd.DataFrame(
        [{"job": j, **{k: p.get(k) for k in gathered.swept}} for j, p in zip(gathered.jobs, gathered.params)],
        columns=["job", *gathered.swept],
    )


def _runs(values: list[Any], all_values: list[Any]) -> list[list[Any]]:
    """``values`` split into runs of neighbours in the order of ``all_values``."""
    index = sorted(all_values.index(v) for v in values)
    runs: list[list[int]] = []
    for i in index:
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return [[all_values[i] for i in run] for run in runs]


def values_text(key: str, values: list[Any], all_values: list[Any]) -> str:
    """``key >= 0.7``, ``0.3 <= key <= 0.5``, ``key = x``, ``key in {a, b}`` or a union of such."""
    if len(values) == 1:
        return f"{key} = {label(values[0])}"
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in all_values)
    if not numeric:
        return f"{key} in {{{', '.join(label(v) for v in sorted_values(values))}}}"
    parts = []
    for run in _runs(values, all_values):
        lo, hi = run[0], run[-1]
        if len(run) == 1:
            parts.append(f"{key} = {label(lo)}")
        elif hi == all_values[-1]:
            parts.append(f"{key} >= {label(lo)}")
        elif lo == all_values[0]:
            parts.append(f"{key} <= {label(hi)}")
        else:
            parts.append(f"{label(lo)} <= {key} <= {label(hi)}")
    return " or ".join(parts)


def describe_where(points: pd.DataFrame, chosen: set[str], swept: Sequence[str], *, most: int = 6) -> str:
    """Where in the grid the jobs ``chosen`` lie: ``where rho2 >= 0.7`` when one parameter's
    values single them out, else the list of their points; ``in every job`` when all are chosen."""
    if set(points["job"]) <= chosen:
        return "in every job"
    sub = points[points["job"].isin(chosen)]
    best = None
    for k in swept:
        values = sorted_values(sub[k])
        if set(points.loc[points[k].isin(values), "job"]) == chosen:
            text = values_text(k, values, sorted_values(points[k]))
            best = text if best is None or len(text) < len(best) else best
    if best is not None:
        return f"where {best}"
    items = [
        ", ".join(f"{k}={label(v)}" for k, v in zip(swept, row)) for row in sub[list(swept)].itertuples(index=False)
    ]
    more = f" and {len(items) - most} more" if len(items) > most else ""
    return "at (" + "); (".join(items[:most]) + ")" + more


@dataclass
class Cell:
    """One job of a claim's verdict grid on the page."""

    verdict: str
    title: str


@dataclass
class Grid:
    """A claim's verdict map as an HTML table: rows x columns of one panel."""

    caption: str
    row_key: str | None
    col_key: str
    rows: list[str]
    cols: list[str]
    cells: list[list[Cell | None]]


@dataclass
class ClaimAcross:
    """One claim over the sweep: its verdict per job, the tally and the line that says where it holds."""

    claim: str
    verdicts: dict[str, str]
    counts: dict[str, int]
    line: str
    printed: str = ""
    grids: list[Grid] = field(default_factory=list)
    figure: Path | None = None

    @property
    def flips(self) -> bool:
        """Does the verdict change between jobs (absent jobs count as a change)?"""
        return sum(1 for n in self.counts.values() if n) > 1


def summarise_claims(claims: pd.DataFrame, points: pd.DataFrame, swept: Sequence[str]) -> list[ClaimAcross]:
    """Per claim (in order of first appearance): verdict per job and its line."""
    jobs = list(points["job"])
    out = []
    for name, g in claims.groupby("claim", sort=False):
        verdicts = {job: ABSENT for job in jobs}
        verdicts.update(dict(zip(g["job"], g["verdict"])))
        counts = {v: sum(1 for x in verdicts.values() if x == v) for v in (*VERDICTS, ABSENT)}
        checked = counts["agree"] + counts["disagree"]
        parts = [f"agree in {counts['agree']} of {len(jobs)} jobs"] if checked else []
        said = (("disagree", "disagrees"), ("inconclusive", "inconclusive"), ("info", "info (not checkable)"))
        for verdict, words in (*said, (ABSENT, "absent")):
            if counts[verdict]:
                chosen = {j for j, v in verdicts.items() if v == verdict}
                parts.append(f"{words} {describe_where(points, chosen, swept)}")
        printed = str(g["printed"].iloc[0]) if len(g) else ""
        out.append(ClaimAcross(str(name), verdicts, counts, "; ".join(parts), printed))
    return out


def html_grids(
    claim: ClaimAcross, points: pd.DataFrame, swept: Sequence[str], reproduced: Mapping[str, str]
) -> list[Grid]:
    """The claim's verdict map as tables: a strip (one parameter), a grid (two), one grid per
    combination of the others' values beyond."""

    swept = list(swept)
    col_key, row_key, rest = swept[-1], (swept[-2] if len(swept) > 1 else None), swept[:-2]
    cols = sorted_values(points[col_key])
    rows = sorted_values(points[row_key]) if row_key else [None]
    combos = list(itertools.product(*[sorted_values(points[k]) for k in rest])) or [()]
    grids = []
    for combo in combos[:MAX_PANELS]:
        part = points
        for k, v in zip(rest, combo):
            part = part[part[k] == v]
        cells: list[list[Cell | None]] = [[None] * len(cols) for _ in rows]
        for row in part.itertuples(index=False):
            values = dict(zip(["job", *swept], row))
            verdict = claim.verdicts.get(values["job"], ABSENT)
            where = ", ".join(f"{k}={label(values[k])}" for k in swept)
            what = reproduced.get(values["job"], "")
            title = f"job {values['job']} ({where}): {verdict}" + (f"; reproduced {what}" if what else "")
            r = rows.index(values[row_key]) if row_key else 0
            cells[r][cols.index(values[col_key])] = Cell(verdict, title)
        caption = ", ".join(f"{k} = {label(v)}" for k, v in zip(rest, combo))
        grids.append(
            Grid(
                caption,
                row_key,
                col_key,
                [label(r) for r in rows] if row_key else [""],
                [label(c) for c in cols],
                cells,
            )
        )
    return grids


# ---------------------------------------------------------------------------------------
# metrics
# ---------------------------------------------------------------------------------------
def _keys(exp_id: str | None) -> list[str]:
    if not exp_id:
        return []
    try:
        return list(registry.get(exp_id).keys)
    except PrivlabError:
        return []


def choose_metrics(
    schema_names: Sequence[str],
    numeric: Mapping[str, bool],
    view: pd.DataFrame | None,
    swept: Sequence[str],
    exp_id: str | None,
    chosen: Sequence[str] | None,
) -> list[str]:
    """The metrics to plot: those named (each must be a column), else up to `MAX_METRICS`
    numeric result columns that the swept parameters move (not keys, s.e., bounds or exact twins)."""
    if chosen:
        missing = [m for m in chosen if m not in schema_names]
        if missing:
            raise PrivlabError(f"--metric must name result columns ({', '.join(schema_names)}); got {missing[0]!r}")
        return list(chosen)
    keys = set(_keys(exp_id))
    candidates = [c for c in schema_names if numeric.get(c) and c not in ("job", *swept) and c not in keys]
    partners = set()
    for c in candidates:
        m = companions(c, schema_names)
        partners |= {p for p in (m.se, m.low, m.high, m.exact) if p}
    bounds = ("_se", "_upper", "_lower", "_low", "_high")  # intervals of other columns, not metrics of their own
    candidates = [c for c in candidates if c not in partners and not c.endswith(bounds)]
    if view is None:
        return candidates[:MAX_METRICS]
    moved = [c for c in candidates if c in view and view.groupby("job")[c].mean().nunique() > 1]
    return moved[:MAX_METRICS]


def categorical_columns(view: pd.DataFrame, swept: Sequence[str], exp_id: str | None) -> list[str]:
    """Text columns of the table that can name series: the experiment's key columns first."""
    text = [
        c
        for c in view.columns
        if c not in ("job", *swept)
        and not pd.api.types.is_numeric_dtype(view[c])
        and not pd.api.types.is_bool_dtype(view[c])
    ]
    keys = [k for k in _keys(exp_id) if k in text]
    return keys + [c for c in text if c not in keys and view[c].nunique() <= 8]


# ---------------------------------------------------------------------------------------
# the report
# ---------------------------------------------------------------------------------------
@dataclass
class SweepReport:
    """What ``sweep-report`` found and wrote."""

    sweep_dir: Path
    exp_id: str | None
    gathered: Gathered
    claims: list[ClaimAcross]
    figures: list[Path]
    metric_figures: list[Path]
    where: dict[str, str]
    failed: list[int]
    written: list[Path]

    @property
    def n_jobs(self) -> int:
        return len(self.gathered.jobs)

    def swept_values(self) -> dict[str, list[str]]:
        return {
            k: [label(v) for v in sorted_values([p.get(k) for p in self.gathered.params])] for k in self.gathered.swept
        }

    def summary_lines(self) -> list[str]:
        values = self.swept_values()
        swept = ", ".join(f"{p} in {{{', '.join(v)}}}" for p, v in values.items()) or "nothing"
        lines = [f"{self.exp_id}: {self.n_jobs} jobs, {self.gathered.rows} rows; swept: {swept}"]
        lines += [f"skipped incomplete {line} (rerun the sweep to redo it)" for line in self.gathered.incomplete]
        if self.failed:
            lines.append(f"{len(self.failed)} job(s) failed in the last run: {', '.join(map(str, self.failed))}")
        return lines

    def claim_lines(self) -> list[str]:
        return [f"claim: {c.claim}: {c.line}" for c in self.claims]


def _save(fig: Any, path: Path) -> Path:
    # matplotlib: about 0.3 s to import, loaded only to draw
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=110, bbox_inches="tight")  # long claim labels: nothing cut off
    plt.close(fig)
    return path


def write_sweep_report(sweep_dir, metrics=None, where: dict | None = None) -> SweepReport:
    """Gather the sweep (table and claims) and write its figures and ``sweep.html``."""
    # matplotlib: about 0.3 s to import, loaded only to draw
    import matplotlib

    matplotlib.use("Agg")
    sweep_dir = Path(sweep_dir)
    where = dict(where or {})

    def names_known(schema, swept: list[str], exp_id: str | None) -> None:  # bad names: refused, nothing written
        for col in where:
            if col not in schema.names:
                raise PrivlabError(f"--where must name result columns ({', '.join(schema.names)}); got {col!r}")
        if metrics:
            choose_metrics(schema.names, {}, None, swept, exp_id, metrics)

    gathered = sweep_store.gather(sweep_dir, names_known)
    swept, exp_id = gathered.swept, gathered.exp_id
    written = [sweep_dir / sweep_store.STORE, sweep_dir / sweep_store.TABLE_CSV]
    schema = sweep_store.schema_of(sweep_dir)
    # pyarrow: slow to import, loaded only for a sweep's Parquet store
    import pyarrow as pa

    numeric = {f.name: pa.types.is_integer(f.type) or pa.types.is_floating(f.type) for f in schema}
    sweep_store.where_filters(sweep_dir, where)  # bad --where: refused before anything else is drawn
    for old in [
        *sweep_dir.glob("sweep_*_vs_*.png"),
        *sweep_dir.glob("sweep_*_heatmap.png"),
        *sweep_dir.glob("sweep_verdicts*.png"),
    ]:
        old.unlink()
    claims_frame = collect_claims(sweep_dir, gathered)
    written.append(sweep_dir / CLAIMS_CSV)
    points = job_points(gathered)
    across = summarise_claims(claims_frame, points, swept) if swept else summarise_claims(claims_frame, points, [])
    figures: list[Path] = []
    if swept and across:
        names = [c.claim for c in across]
        for start in range(0, len(names), 60):
            chunk = names[start : start + 60]
            suffix = "" if start == 0 else f"_{start // 60 + 1}"
            fig = sweep_plots.verdict_overview(
                claims_frame[claims_frame["claim"].isin(chunk)],
                swept,
                chunk,
                f"{exp_id}: every claim's verdict in every job",
            )
            figures.append(_save(fig, sweep_dir / f"sweep_verdicts{suffix}.png"))
        for k, c in enumerate(across, start=1):
            if len(swept) >= 2 and c.flips:
                frame = points.assign(verdict=points["job"].map(c.verdicts))
                fig = sweep_plots.verdict_map(frame, swept, f"{c.claim}")
                c.figure = _save(fig, sweep_dir / f"sweep_verdicts_{k}.png")
                figures.append(c.figure)
        if len(points) <= MAX_HTML_JOBS:
            for c in across:
                rows = claims_frame[claims_frame["claim"] == c.claim]
                c.grids = html_grids(c, points, swept, dict(zip(rows["job"], rows["reproduced"])))
    metric_figures: list[Path] = []
    if swept:
        metric_figures = _metric_figures(sweep_dir, gathered, schema.names, numeric, where, metrics)
    written += figures + metric_figures
    report = SweepReport(
        sweep_dir, exp_id, gathered, across, figures, metric_figures, where, sweep_store.failed_jobs(sweep_dir), written
    )
    written.append(write_html(report))
    return report


def _metric_figures(
    sweep_dir: Path,
    gathered: Gathered,
    names: Sequence[str],
    numeric: Mapping[str, bool],
    where: Mapping[str, str],
    chosen: Sequence[str] | None,
) -> list[Path]:
    swept, exp_id = gathered.swept, gathered.exp_id
    if chosen:
        choose_metrics(names, numeric, None, swept, exp_id, chosen)  # a bad --metric: one line
    text_cols = [c for c in names if not numeric.get(c) and c not in ("job", *swept)]
    probe = sweep_store.query(
        sweep_dir, ["job", *[c for c in names if numeric.get(c) and c not in swept], *text_cols], where
    )
    metrics = choose_metrics(names, numeric, probe, swept, exp_id, chosen)
    out = []
    for metric_name in metrics:
        metric = companions(metric_name, names)
        cols = [c for c in (metric.column, metric.se, metric.low, metric.high, metric.exact) if c]
        view = sweep_store.query(sweep_dir, list(dict.fromkeys(["job", *swept, *cols, *text_cols])), where)
        cats = categorical_columns(view, swept, exp_id)
        filt = "".join(f", {k}={v}" for k, v in where.items())
        for x in swept:
            others = [p for p in swept if p != x]
            panels = others[0] if len(others) == 1 else None
            title = f"{exp_id}: {metric_name} vs {x}{filt}" + (
                " (mean over the other swept parameters)" if len(others) > 1 else ""
            )
            fig = sweep_plots.metric_plot(
                view, x, metric, panels=panels, categorical=cats, title=title, names=quantities(exp_id)
            )
            out.append(_save(fig, sweep_dir / f"sweep_{_safe(metric_name)}_vs_{_safe(x)}.png"))
        if len(swept) == 2:
            fig = sweep_plots.heatmap(view, swept[0], swept[1], metric_name, f"{exp_id}: {metric_name}{filt}")
            out.append(_save(fig, sweep_dir / f"sweep_{_safe(metric_name)}_heatmap.png"))
    return out


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


# ---------------------------------------------------------------------------------------
# sweep.html
# ---------------------------------------------------------------------------------------
def _data_uri(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _head_rows(sweep_dir: Path, n: int = 40) -> tuple[list[str], list[list[str]]]:
    with open(Path(sweep_dir) / sweep_store.TABLE_CSV, newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, [])
        rows = [row for _, row in zip(range(n), reader)]
    return header, rows


def write_html(report: SweepReport) -> Path:
    """``sweep.html``: the sweep on one self-contained page (report.html's style sheet)."""
    header, rows = _head_rows(report.sweep_dir)
    store_path = (report.sweep_dir / sweep_store.STORE).as_posix()
    first = report.gathered.swept[0] if report.gathered.swept else "job"
    one_liners = [
        f"import pandas as pd\npd.read_parquet('{store_path}', filters=[('job', '==', '{report.gathered.jobs[0]}')])",
        "import duckdb\n"
        f'duckdb.sql("SELECT \\"{first}\\", count(*) FROM \'{store_path}\' GROUP BY 1 ORDER BY 1").show()',
    ]
    template = pages.environment(True).get_template("sweep.html.j2")
    page = template.render(
        report=report,
        css=pages.asset("report.css"),
        data_uri=_data_uri,
        header=header,
        rows=rows,
        one_liners=one_liners,
        values=report.swept_values(),
    )
    return atomic_write_text(report.sweep_dir / HTML_NAME, page)


def run_sweep_report(sweep_dir: str, *, metrics: list[str] | None, where_items: list[str] | None) -> int:
    """``privlab sweep-report DIR``: gather a multirun into one table, its claims and plots; print
    its summary and one line per claim."""
    where = {}
    for item in where_items or []:
        col, sep, value = item.partition("=")
        if not sep:
            raise PrivlabError(f"--where must be COLUMN=VALUE; got {item!r}")
        where[col] = value
    report = write_sweep_report(sweep_dir, metrics, where)
    out = io.StringIO()
    for line in [*report.summary_lines(), *report.claim_lines()]:
        print(line, file=out)
    for path in report.written:
        print(f"wrote {path}", file=out)
    print(out.getvalue(), end="")
    return 0


def collect(sweep_dir) -> tuple[pd.DataFrame, list[str], str | None]:
    """One tidy table of every completed job under ``sweep_dir`` (gathered first): the table
    (job, each swept parameter, the job's result columns), the swept parameters, the experiment."""
    gathered = sweep_store.gather(Path(sweep_dir))
    return sweep_store.query(Path(sweep_dir)), gathered.swept, gathered.exp_id
