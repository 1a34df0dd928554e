"""Sweep tables and plots: gather every job of a multirun into one tidy table with the
swept parameters as columns, and draw metric-vs-parameter plots (a heatmap for two).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml

from . import registry, store
from ._validation import PrivlabError
from .runner import atomic_write_text, table_to_csv

FAILED_MARKERS = ".failed-jobs"


def _job_dirs(sweep_dir: Path) -> tuple[list[Path], list[str]]:
    """The job directories of a sweep whose result is complete (manifest verified), and a
    line for each one that is not."""
    jobs, incomplete = [], []
    for p in sweep_dir.iterdir():
        if p.name.startswith(".") or not p.is_dir() or p.name == FAILED_MARKERS:
            continue
        ok, why = store.verify(p)
        if ok:
            jobs.append(p)
        elif (p / "result.csv").exists() or p.is_symlink():
            incomplete.append(f"job {p.name}: {why}")
    key = lambda p: (not p.name.isdigit(), int(p.name) if p.name.isdigit() else 0, p.name)  # noqa: E731
    return sorted(jobs, key=key), sorted(incomplete)


def _parse_overrides(path: Path) -> dict:
    values: dict = {}
    if not path.is_file():
        return values
    for line in yaml.safe_load(path.read_text()) or []:
        key, _, raw = str(line).partition("=")
        key = key.lstrip("+~")
        if key.startswith("hydra") or key == "experiment":
            continue
        values[key] = yaml.safe_load(raw) if raw else None
    return values


def collect(sweep_dir) -> tuple[pd.DataFrame, list[str], str | None]:
    """One tidy table of every completed job under ``sweep_dir``.

    Returns the table (columns: job, each swept parameter, then the job's result
    columns), the names of the swept parameters, and the experiment id.
    """
    sweep_dir = Path(sweep_dir)
    if not sweep_dir.is_dir():
        raise PrivlabError(f"SWEEP_DIR {sweep_dir} is not a directory")
    jobs, incomplete = _job_dirs(sweep_dir)
    if not jobs:
        why = f" ({incomplete[0]})" if incomplete else ""
        raise PrivlabError(f"SWEEP_DIR {sweep_dir} holds no complete job{why}")
    params_per_job = [_parse_overrides(j / "overrides.yaml") for j in jobs]
    keys = list(dict.fromkeys(k for p in params_per_job for k in p))
    swept = [k for k in keys if len({repr(p.get(k)) for p in params_per_job}) > 1]
    exp_id = None
    frames = []
    for job, params in zip(jobs, params_per_job):
        cfg = yaml.safe_load((job / "config.yaml").read_text()) if (job / "config.yaml").is_file() else {}
        exp_id = exp_id or (cfg or {}).get("id")
        table = pd.read_csv(job / "result.csv")
        # a swept parameter the table already reports (e.g. rho2) keeps the table's column
        lead = {"job": job.name, **{k: params.get(k) for k in swept if k not in table.columns}}
        for i, (k, v) in enumerate(lead.items()):
            table.insert(i, k, v if not isinstance(v, (list, dict)) else repr(v))
        frames.append(table)
    return pd.concat(frames, ignore_index=True), swept, exp_id


def _metrics(table: pd.DataFrame, swept: list[str], exp_id: str | None, chosen) -> list[str]:
    if chosen:
        missing = [m for m in chosen if m not in table.columns]
        if missing:
            raise PrivlabError(f"--metric must name result columns ({', '.join(table.columns)}); got {missing[0]!r}")
        return list(chosen)
    keys = set()
    if exp_id:
        try:
            keys = set(registry.get(exp_id).keys)
        except PrivlabError:
            pass
    numeric = [
        c
        for c in table.columns
        if c not in ("job", *swept)
        and c not in keys
        and pd.api.types.is_numeric_dtype(table[c])
        and not c.endswith("_se")
    ]
    # the interesting metrics are those the swept parameters move
    moved = [c for c in numeric if table.groupby("job")[c].mean().nunique() > 1]
    return moved[:4]


def plot_sweep(summary: pd.DataFrame, swept: list[str], metric: str):
    """Metric (mean over each job's rows) against each swept parameter; a heatmap for two."""
    import matplotlib.pyplot as plt

    figs = {}
    for param in swept:
        fig, ax = plt.subplots(figsize=(5, 3.4))
        others = [p for p in swept if p != param]
        if len(others) == 1:
            for value, g in summary.groupby(others[0], sort=True):
                g = g.sort_values(param)
                ax.plot(g[param], g[metric], marker="o", label=f"{others[0]}={value}")
            ax.legend(fontsize=7)
        else:
            g = summary.groupby(param, sort=True)[metric].agg(["mean", "min", "max"]).reset_index()
            ax.plot(g[param], g["mean"], marker="o")
            if others:
                ax.fill_between(g[param], g["min"], g["max"], alpha=0.2, label="range over other parameters")
                ax.legend(fontsize=7)
        ax.set_xlabel(param)
        ax.set_ylabel(metric)
        fig.tight_layout()
        figs[f"sweep_{metric}_vs_{param}"] = fig
    if len(swept) == 2:
        grid = summary.pivot_table(index=swept[0], columns=swept[1], values=metric, aggfunc="mean")
        fig, ax = plt.subplots(figsize=(5, 4))
        im = ax.imshow(grid.to_numpy(float), aspect="auto", origin="lower", cmap="viridis")
        ax.set_xticks(range(grid.shape[1]), [f"{v}" for v in grid.columns], rotation=45, fontsize=7)
        ax.set_yticks(range(grid.shape[0]), [f"{v}" for v in grid.index], fontsize=7)
        ax.set_xlabel(swept[1])
        ax.set_ylabel(swept[0])
        fig.colorbar(im, ax=ax, label=metric)
        fig.tight_layout()
        figs[f"sweep_{metric}_heatmap"] = fig
    return figs


def write_sweep_report(sweep_dir, metrics=None, where: dict | None = None) -> list[Path]:
    """Write ``sweep.csv`` (and ``sweep.parquet`` when pyarrow is installed) and the plots."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sweep_dir = Path(sweep_dir)
    table, swept, exp_id = collect(sweep_dir)
    view = table
    for col, value in (where or {}).items():  # checked before anything is written
        if col not in view.columns:
            raise PrivlabError(f"--where must name result columns ({', '.join(view.columns)}); got {col!r}")
        kept = view[view[col].astype(str) == str(value)]
        if kept.empty:
            seen = ", ".join(sorted(map(str, view[col].astype(str).unique()))[:12])
            raise PrivlabError(f"--where {col}={value} matches no row; {col} takes: {seen}")
        view = kept
    metric_names = _metrics(view, swept, exp_id, metrics) if swept else []
    written = [atomic_write_text(sweep_dir / "sweep.csv", table_to_csv(table))]
    try:
        table.to_parquet(sweep_dir / "sweep.parquet", index=False)
        written.append(sweep_dir / "sweep.parquet")
    except ImportError:
        pass
    if swept:
        for metric in metric_names:
            summary = view.groupby(swept, dropna=False)[metric].mean().reset_index()
            for name, fig in plot_sweep(summary, swept, metric).items():
                path = sweep_dir / f"{name}.png"
                fig.savefig(path, dpi=120)
                plt.close(fig)
                written.append(path)
    return written


def summary_lines(sweep_dir) -> list[str]:
    table, swept, exp_id = collect(sweep_dir)
    n_jobs = table["job"].nunique()
    values = {}
    for p in swept:
        unique = list(table[p].dropna().unique())
        try:
            unique = sorted(unique)
        except TypeError:  # mixed types: sort by text
            unique = sorted(unique, key=str)
        values[p] = [str(v) for v in unique]
    _, incomplete = _job_dirs(Path(sweep_dir))
    return [
        f"{exp_id}: {n_jobs} jobs, {len(table)} rows; swept: "
        + (", ".join(f"{p} in {{{', '.join(v)}}}" for p, v in values.items()) or "nothing"),
        *(f"skipped incomplete {line} (rerun the sweep to redo it)" for line in incomplete),
    ]


def run_sweep_report(sweep_dir: str, *, metrics: list[str] | None, where_items: list[str] | None) -> int:
    """``privlab sweep-report DIR``: gather a multirun into one table and plots, print its summary."""
    where = {}
    for item in where_items or []:
        col, sep, value = item.partition("=")
        if not sep:
            raise PrivlabError(f"--where must be COLUMN=VALUE; got {item!r}")
        where[col] = value
    written = write_sweep_report(sweep_dir, metrics, where)
    for line in summary_lines(sweep_dir):
        print(line)
    for path in written:
        print(f"wrote {path}")
    return 0
