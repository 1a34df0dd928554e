"""``privlab epsilon``: LPB's rule for a statistic you publish, as a subcommand of privlab.

LPB contributes this command through the registration that adds its experiments
(`privlab.registry.command`, called in ``experiments/lpb/__init__.py``); the numbers
come from `privlab.lpb.advice`, the code that reproduces the paper.
"""

from __future__ import annotations

import json as json_mod
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from .. import datasets, store
from .._validation import PrivlabError
from ..plots import new_figure
from . import advice
from .calibration import check_rhos

HELP = "choose epsilon for a statistic you publish (LPB's rule)"
DESCRIPTION = (
    "LPB's epsilon against (rho1, rho2) breaches for a query over your own columns, "
    "beside differential identifiability, with the informed adversary's worst-case posterior."
)


def configure(p) -> None:
    """Add the command's arguments to its argparse parser ``p``."""
    p.add_argument("--data", required=True, help="a data set (adult, census, pums) or a CSV file")
    p.add_argument("--column", required=True, action="append", help="numeric column(s); repeat or separate by commas")
    p.add_argument(
        "--query",
        default="mean",
        choices=("mean", "sum", "count"),
        help="mean or sum of the column, or count of records >= --threshold",
    )
    p.add_argument(
        "--rho1", type=float, required=True, help="prior threshold: a value believed with probability <= rho1 ..."
    )
    p.add_argument(
        "--rho2", type=float, required=True, help="... must not reach posterior probability rho2 (rho1 < rho2)"
    )
    p.add_argument(
        "--threshold", type=float, help="for --query count: count records with a value >= this (default median)"
    )
    p.add_argument("--plot", help="write lambda against rho1 at this rho2 to this PNG")
    p.add_argument("--json", action="store_true", help="print JSON for scripts")


def epsilon_data(source: str):

    if source in datasets.NAMES:
        return datasets.load(source), source
    path = Path(source)
    if not path.is_file():
        raise PrivlabError(f"--data must be a data set ({', '.join(datasets.NAMES)}) or a CSV file; got {source!r}")
    try:
        return pd.read_csv(path), path.name
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, OSError) as exc:
        raise PrivlabError(f"--data {path} is not a readable CSV file: {str(exc).strip().splitlines()[-1]}") from None


def check_plot_path(plot: str) -> Path:
    """``--plot``'s file: not a directory, and of an image format matplotlib writes (or no extension: PNG)."""
    # matplotlib: about 0.3 s to import, loaded only to draw
    from matplotlib.figure import Figure

    path = Path(plot)
    if path.is_dir():
        raise PrivlabError(f"--plot {plot} is a directory; give a file name such as {path / 'lambda.png'}")
    formats = Figure().canvas.get_supported_filetypes()
    ext = path.suffix.lower().lstrip(".")
    if ext and ext not in formats:
        raise PrivlabError(f"--plot {plot}: .{ext} is not an image format; one of {', '.join(sorted(formats))}")
    return path


def run(args) -> int:
    """Print (or write as JSON) LPB's epsilon for each ``--column``; exit status 0."""

    try:
        rho1, rho2 = check_rhos(args.rho1, args.rho2)
    except PrivlabError as exc:
        raise PrivlabError(f"--{exc}") from None
    if args.threshold is not None and args.query != "count":
        raise PrivlabError(f"--threshold is for --query count only (the {args.query} takes no threshold)")
    if args.plot:
        check_plot_path(args.plot)
    columns = [c.strip() for item in args.column for c in item.split(",") if c.strip()]
    if not columns:
        raise PrivlabError("--column names no column; give one or more numeric columns (repeat or separate by commas)")
    frame, label = epsilon_data(args.data)
    results = []
    for col in columns:
        if col not in frame.columns:
            raise PrivlabError(
                f"--column {col!r} is not a column of {label}; its columns: {', '.join(map(str, frame.columns))}"
            )
        values = frame[col]
        if not values.notna().any():
            raise PrivlabError(f"--column {col} of {label} holds no values ({len(values)} rows, all empty)")
        if not pd.api.types.is_numeric_dtype(values):
            example = values.dropna().astype(str).iloc[0] if values.notna().any() else "nothing"
            raise PrivlabError(f"--column {col} is not numeric (it holds e.g. {example!r}); choose a numeric column")
        kept = values.dropna().to_numpy(dtype=float)
        if kept.size == 0 or np.unique(kept).size < 2:
            raise PrivlabError(f"--column {col} holds fewer than two distinct values: no query over it needs noise")
        res = advice.advise(kept, query=args.query, rho1=rho1, rho2=rho2, threshold=args.threshold)
        results.append(
            {
                "data": label,
                "column": col,
                "rho1": rho1,
                "rho2": rho2,
                "dropped_missing": int(values.isna().sum()),
                **res,
            }
        )
    if args.json:
        clean = [{k: (None if isinstance(v, float) and v != v else v) for k, v in r.items()} for r in results]
        print(json_mod.dumps(clean, indent=2))
    else:
        print(
            f"LPB's epsilon against ({rho1:g}, {rho2:g}) breaches for the {args.query} of {label} (informed adversary: "
            "knows every record but one)"
        )
        for r in results:
            what = f" of records >= {r['threshold']:g}" if r["query"] == "count" else ""
            print(
                f"\ncolumn {r['column']}: {r['n']:,} records, universe {r['universe_min']:g}..{r['universe_max']:g} "
                f"(|U| = {r['universe_size']:,}){what}"
            )
            print(f"  sensitivity of the {r['query']} over U      {r['sensitivity']:.6g}")
            print(f"  LPB                                  epsilon {r['epsilon']:.4g}, lambda {r['lambda']:.6g}")
            di = (
                "not defined (1/|U| >= rho2)"
                if r["di_epsilon"] != r["di_epsilon"]
                else f"epsilon {r['di_epsilon']:.4g}, lambda {r['di_lambda']:.6g}"
            )
            print(f"  differential identifiability         {di} (rho1 = 1/|U| whatever the prior)")
            print(
                f"  worst-case posterior at this epsilon {r['worst_posterior']:.4f} (prior rho1 on one value; "
                f"<= rho2 = {rho2:g} means no breach)"
            )
            u = r["uniform_worst_posterior"]
            shown = f"{u:.4f}" if u == u else f"not covered (a uniform prior gives 1/|U| > rho1 = {rho1:g})"
            print(f"  worst posterior, uniform prior       {shown}")
            print(
                f"  the {r['query']} is {r['statistic']:.6g}: expected |noise| {r['noise_mean_abs']:.3g} "
                f"(sd {r['noise_sd']:.3g}), {100 * r['relative_noise']:.3g}% of the statistic"
            )
    if args.plot:
        fig, ax = new_figure(5.5, 3.6)
        grid = np.linspace(min(rho1, rho2) / 10, rho2 * 0.999, 200)
        for r in results:
            (line,) = ax.plot(grid, advice.lambda_curve(r["sensitivity"], rho2, grid), label=r["column"])
            ax.plot([rho1], [r["lambda"]], "o", color=line.get_color())
        ax.set(
            yscale="log",
            xlabel="rho1 (prior threshold)",
            ylabel="lambda (Laplace scale)",
            title=f"LPB's lambda vs rho1 at rho2 = {rho2:g} ({args.query} of {label})",
        )
        ax.legend()
        fig.savefig(
            store.writable_dir(Path(args.plot).resolve().parent, "--plot") / Path(args.plot).name,
            dpi=130,
            bbox_inches="tight",
        )
        print(f"wrote {args.plot}", file=sys.stderr if args.json else sys.stdout)
    return 0
