"""The ``privlab`` command line: list, run, reproduce, check.

Every user error (unknown experiment or parameter, a value out of range, a bad
file) ends in one line ``privlab: error: ...`` on stderr and exit status 2, with no
traceback and no half-written output.
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import NoReturn

from . import claims as claims_mod
from . import registry, runner, store, sweeps
from ._validation import PrivlabError


def _fail(message: str, code: int = 2):
    print(f"privlab: error: {message}", file=sys.stderr)
    sys.exit(code)


# ---------------------------------------------------------------------------------------
# privlab list
# ---------------------------------------------------------------------------------------
def cmd_list(args) -> int:
    exps = registry.select(paper=args.paper)
    for paper, why in registry.broken().items():
        print(f"privlab: warning: paper {paper} is unavailable: {why}", file=sys.stderr)
    if args.markdown:
        print(markdown_table(exps))
        return 0
    width = max((len(e.id) for e in exps), default=10)
    art = max([len("reproduces"), *(len(e.artifact) for e in exps)])
    print(f"{'id':<{width}}  {'paper':<13}  {'reproduces':<{art}}  summary")
    for e in exps:
        print(f"{e.id:<{width}}  {e.paper:<13}  {e.artifact:<{art}}  {e.summary}")
    return 0


def markdown_table(exps) -> str:
    """The README's table of experiments, generated from the registry (a test keeps README in step)."""
    lines = ["| id | reproduces | what |", "|---|---|---|"]
    for e in exps:
        lines.append(f"| `{e.id}` | {e.artifact} | {e.summary} |")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# privlab run ID [overrides] [--multirun]
# ---------------------------------------------------------------------------------------
MAX_PRECOMPOSE = 64


def _sweep_jobs(overrides: list[str]) -> list[list[str]]:
    """Expand sweep overrides (a=1,2 b=x,y) into the override lists of each job."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    try:
        parsed = OverridesParser.create().parse_overrides(overrides)
    except (HydraException, ValueError) as exc:
        raise PrivlabError(runner.hydra_error_line(exc)) from None
    choices = []
    for ov in parsed:
        if ov.is_sweep_override():
            values = list(ov.sweep_string_iterator())
            if not values:
                raise PrivlabError(f"the sweep over {ov.get_key_element()} is empty; give at least one value")
            choices.append([f"{ov.get_key_element()}={v}" for v in values])
        else:
            choices.append([str(ov.input_line)])
    return [list(c) for c in itertools.product(*choices)]


def _prevalidate(exp_id: str, overrides: list[str], multirun: bool) -> None:
    """Compose the config of (a sample of) every job before any job starts."""
    params = [o for o in overrides if not o.startswith(("hydra", "+hydra", "~hydra"))]
    for item in overrides:
        if item.startswith("hydra/launcher="):
            _check_launcher(item.split("=", 1)[1])
    jobs = _sweep_jobs(params) if multirun else [params]
    if len(jobs) > MAX_PRECOMPOSE:  # first and last jobs carry every sweep's extreme values
        jobs = jobs[: MAX_PRECOMPOSE // 2] + jobs[-MAX_PRECOMPOSE // 2 :]
    for job in jobs:
        runner.compose(exp_id, job)
    hydra_part = [o for o in overrides if o.startswith(("hydra", "+hydra", "~hydra"))]
    if hydra_part:  # launcher settings and the like, checked with the first job
        runner.compose(exp_id, jobs[0] + hydra_part, hydra_node=True)


# launcher -> (plugin module, what to install)
LAUNCHERS = {
    "joblib": ("hydra_plugins.hydra_joblib_launcher", "hydra-joblib-launcher"),
    "slurm": ("hydra_plugins.hydra_submitit_launcher", "hydra-submitit-launcher"),
    "submitit_slurm": ("hydra_plugins.hydra_submitit_launcher", "hydra-submitit-launcher"),
    "submitit_local": ("hydra_plugins.hydra_submitit_launcher", "hydra-submitit-launcher"),
    "ray": ("hydra_plugins.hydra_ray_launcher", "hydra-ray-launcher (pip install -e '.[ray]')"),
}


def _check_launcher(name: str) -> None:
    """A launcher must be known and its plugin installed, before any job starts."""
    import importlib.util

    if name == "basic":
        return
    if name not in LAUNCHERS:
        raise PrivlabError(f"hydra/launcher must be one of basic, {', '.join(sorted(LAUNCHERS))}; got {name!r}")
    module, package = LAUNCHERS[name]
    try:
        found = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        found = False
    if not found:
        raise PrivlabError(f"hydra/launcher={name} is not installed: install {package}")


def sweep_dir_for(exp_id: str, params: list[str], results_dir: Path) -> Path:
    """A stable sweep directory per (experiment, sweep): rerunning the same sweep resumes it."""
    import hashlib

    digest = hashlib.sha256("\n".join([exp_id, *sorted(params)]).encode()).hexdigest()[:10]
    return results_dir / "sweeps" / exp_id / digest


FAILED_MARKERS = sweeps.FAILED_MARKERS


def _hydra_task(cfg) -> None:
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    from .context import die_with_parent

    die_with_parent()  # a job run by a launcher's worker process ends with the launcher
    hc = HydraConfig.get()
    out_dir = Path(hc.runtime.output_dir)
    multirun = hc.mode == RunMode.MULTIRUN
    if multirun and runner.is_complete(out_dir, cfg):
        print(f"{cfg.id} job {hc.job.num}: complete in {out_dir}, skipped", flush=True)
        return
    overrides = "".join(f"- {o}\n" for o in hc.overrides.task)
    try:
        outcome = runner.execute(cfg.id, cfg, out_dir=out_dir, extra_files={"overrides.yaml": overrides})
    except Exception as exc:  # a user error (PrivlabError) or a fault of the experiment: one line each
        _remove_empty(out_dir, Path(cfg.results_dir))
        user_error = isinstance(exc, PrivlabError)
        exp = registry.get(cfg.id)
        log = None
        if not user_error:  # a fault: its traceback goes to a file, not the terminal
            log = (
                runner.record_error(Path(cfg.results_dir), exp, exc)
                if not multirun
                else runner.atomic_write_text(
                    Path(hc.sweep.dir) / ".errors" / f"{hc.job.num}.log", runner.traceback_text(exp, exc)
                )
            )
        reason = runner.error_line(exc) + (f" (traceback: {log})" if log else "")
        if not multirun:
            _fail(reason if user_error else f"{cfg.id}: {reason}", 2 if user_error else 1)
        # a failed job must not stop the others: say why in one line, leave a marker for the summary
        print(
            f"privlab: error: job {hc.job.num} ({' '.join(hc.overrides.task[1:])}): {reason}",
            file=sys.stderr,
            flush=True,
        )
        failed = Path(hc.sweep.dir) / FAILED_MARKERS
        failed.mkdir(parents=True, exist_ok=True)
        (failed / str(hc.job.num)).touch()
        return
    job = f" job {hc.job.num}" if multirun else ""
    print(
        f"{cfg.id}{job}: {len(outcome.table)} rows in {outcome.wall_time:.1f} s -> {outcome.out_dir}"
        + (f" (claims: {claims_mod.counts_text(claims_mod.counts(outcome.claims))})" if outcome.claims else ""),
        flush=True,
    )


def _override_value(overrides: list[str], key: str) -> str | None:
    """The value the last override of ``key`` gives, as Hydra parses it (quotes removed)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    found = None
    for ov in OverridesParser.create().parse_overrides([o for o in overrides if o.split("=", 1)[0] == key]):
        found = str(ov.value())
    return found


def _remove_empty(path: Path, stop: Path) -> None:
    """Remove ``path`` and its parents below ``stop`` while they are empty (Hydra made them for
    a run that then failed: a refused run leaves nothing behind)."""
    path, stop = path.resolve(), stop.resolve()
    while path != stop and stop in path.parents and path.is_dir() and not any(path.iterdir()):
        path.rmdir()
        path = path.parent


def cmd_run(args, hydra_args: list[str]) -> int:
    import hydra

    exp = registry.get(args.id)
    multirun = "--multirun" in hydra_args or "-m" in hydra_args
    flags_with_values = {
        "--cfg",
        "-c",
        "--package",
        "-p",
        "--config-name",
        "-cn",
        "--config-dir",
        "-cd",
        "--info",
        "-i",
        "--experimental-rerun",
    }
    overrides, flags, args_iter = [], [], iter(hydra_args)
    for a in args_iter:  # Hydra wants overrides before flags; users write them in any order
        if a in flags_with_values:
            flags += [a, *(v for v in [next(args_iter, None)] if v is not None)]
        elif a.startswith("-"):
            flags.append(a)
        else:
            overrides.append(a)
    extra, sweep_dir = [], None
    if not any(a in ("--cfg", "-c", "--help", "-h", "--info") for a in hydra_args):
        _prevalidate(exp.id, overrides, multirun)
        given_results = _override_value(overrides, "results_dir")
        results_dir = Path(given_results) if given_results else runner.default_results_dir()
        store.probe_writable(results_dir, "results_dir")
        if multirun:
            given = _override_value(overrides, "hydra.sweep.dir")
            params = [o for o in overrides if not o.startswith(("hydra", "+hydra", "~hydra"))]
            sweep_dir = Path(given) if given else sweep_dir_for(exp.id, params, results_dir)
            store.probe_writable(sweep_dir, "the sweep directory")
            extra = [] if given else [f"hydra.sweep.dir='{sweep_dir}'"]
            print(f"sweep directory: {sweep_dir} (rerun the same command to resume)", flush=True)
            shutil.rmtree(sweep_dir / FAILED_MARKERS, ignore_errors=True)
    sys.argv = ["privlab run", f"experiment={exp.id}", *runner.searchpath_override(), *extra, *overrides, *flags]
    task = hydra.main(config_path=str(runner.conf_dir()), config_name="config", version_base="1.3")(_hydra_task)
    task()
    if sweep_dir is not None and (sweep_dir / FAILED_MARKERS).is_dir():
        failed = sorted((sweep_dir / FAILED_MARKERS).iterdir(), key=lambda p: int(p.name))
        _fail(
            f"{len(failed)} job(s) of the sweep failed: {', '.join(p.name for p in failed)} "
            "(errors above); the others completed",
            2,
        )
    return 0


# ---------------------------------------------------------------------------------------
# privlab reproduce
# ---------------------------------------------------------------------------------------
def cmd_reproduce(args) -> int:
    from . import report

    exps = registry.select(args.ids, paper=args.paper)
    results_dir = store.writable_dir(Path(args.results) if args.results else runner.default_results_dir(), "--results")
    extra = [f"results_dir={results_dir}"] + ([f"n_jobs={args.jobs}"] if args.jobs is not None else [])
    configs = [(exp, runner.compose(exp.id, extra, profile=args.profile)) for exp in exps]  # bad input: before any run
    start = time.perf_counter()
    total: dict[str, int] = {}
    failures: list[str] = []
    longest = ("", 0.0)
    for k, (exp, cfg) in enumerate(configs, start=1):
        head = f"[{k}/{len(configs)}, {_clock(time.perf_counter() - start)}] {exp.id}"
        out_dir = results_dir / exp.paper / exp.name
        if not args.force and runner.is_complete(out_dir, cfg, exp):
            print(f"{head}: complete for this config, seed and code, skipped (--force reruns it)", flush=True)
            runner.clear_error(results_dir, exp)
            continue
        slowest = f"; longest so far {longest[0]} {longest[1]:.0f} s" if longest[0] else ""
        print(f"{head}: running ({args.profile} profile{slowest})", flush=True)
        try:
            outcome = runner.execute(exp.id, cfg, results_dir=results_dir)
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # one experiment's fault (a solver crash, a dead worker, a bug) stops only it
            failures.append(exp.id)
            log = runner.record_error(results_dir, exp, exc)
            print(f"privlab: error: {exp.id}: {runner.error_line(exc)} (traceback: {log})", file=sys.stderr, flush=True)
            continue
        runner.clear_error(results_dir, exp)
        if outcome.wall_time > longest[1]:
            longest = (exp.id, outcome.wall_time)
        tally = claims_mod.counts(outcome.claims)
        total = {v: total.get(v, 0) + n for v, n in tally.items()}
        note = f"; claims: {claims_mod.counts_text(tally)}" if outcome.claims else ""
        print(f"{head}: {len(outcome.table)} rows, {outcome.wall_time:.1f} s{note}", flush=True)
    path = report.write_report(results_dir)
    if any(total.values()):
        print(f"claims in all: {claims_mod.counts_text(total)}")
    print(f"report: {path} and {path.with_name(report.HTML_NAME)} ({_clock(time.perf_counter() - start)} in all)")
    if failures:
        _fail(f"{len(failures)} experiment(s) failed: {', '.join(failures)}; the others completed", 1)
    return 0


def _clock(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    return f"{m // 60}:{m % 60:02d}:{s:02d}" if m >= 60 else f"{m}:{s:02d}"


# ---------------------------------------------------------------------------------------
# privlab check
# ---------------------------------------------------------------------------------------
def cmd_check(args) -> int:
    from . import check

    exps = registry.select(args.ids, paper=args.paper)
    if args.profile not in runner.PROFILES:
        raise PrivlabError(f"--profile must be one of {', '.join(runner.PROFILES)}; got {args.profile!r}")
    given = Path(args.reference) if args.reference else None
    if given is not None and args.update:
        store.probe_writable(given, "--reference")
    elif given is not None and not given.is_dir():
        raise PrivlabError(f"--reference {given} is not a directory")
    paper_scale = args.profile == "paper"
    configs = [(exp, runner.compose(exp.id, [], profile=args.profile)) for exp in exps]
    width = max((len(e.id) for e in exps), default=10)
    print(f"{'experiment':<{width}}  {'status':<8}  {'seconds':>7}  detail", flush=True)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        # quick: every table recomputed in a fresh directory; paper scale: into the results directory,
        # reusing a complete result of the same config, seed and code (privlab reproduce --profile paper)
        work = runner.default_results_dir() if paper_scale else Path(tmp)
        for exp, cfg in configs:  # rows stream out as experiments finish
            ref_dir = given or reference_for(exp, args.profile)
            start = time.perf_counter()
            try:
                table = _checked_table(exp, cfg, work, reuse=paper_scale)
            except KeyboardInterrupt:
                raise
            except Exception as exc:  # a fault in one experiment is its row, not the end of the check
                bad += 1
                print(f"{exp.id:<{width}}  {'ERROR':<8}  {time.perf_counter() - start:7.1f}  {runner.error_line(exc)}")
                continue
            seconds = time.perf_counter() - start
            if args.update:
                target = runner.atomic_write_text(check.reference_path(exp, ref_dir), runner.table_to_csv(table))
                status, detail = "updated", f"{len(table)} rows -> {target}"
            else:
                drift = check.check_against_reference(exp, table, ref_dir)
                bad += drift.status != "ok"
                status, detail = drift.status.upper(), drift.detail
            print(f"{exp.id:<{width}}  {status:<8}  {seconds:7.1f}  {detail}", flush=True)
    if bad:
        _fail(f"{bad} of {len(configs)} experiment(s) drifted from their references", 1)
    return 0


def reference_for(exp, profile: str) -> Path:
    """Quick-profile references in results/reference/, paper-profile ones in results/reference/paper/."""
    base = runner.reference_dir(exp)
    return base / "paper" if profile == "paper" else base


def _checked_table(exp, cfg, work: Path, *, reuse: bool):
    import pandas as pd

    out_dir = work / exp.paper / exp.name
    if reuse and runner.is_complete(out_dir, cfg, exp):
        return pd.read_csv(out_dir / "result.csv")
    if reuse:
        return runner.execute(exp.id, cfg, results_dir=work, log=lambda m: None).table
    return runner.run_table(exp, cfg, runner.make_context(cfg, work, log=lambda m: None))


# ---------------------------------------------------------------------------------------
# privlab epsilon
# ---------------------------------------------------------------------------------------
def _epsilon_data(source: str):
    import pandas as pd

    from . import datasets

    if source in datasets.NAMES:
        return datasets.load(source), source
    path = Path(source)
    if not path.is_file():
        raise PrivlabError(f"--data must be a data set ({', '.join(datasets.NAMES)}) or a CSV file; got {source!r}")
    try:
        return pd.read_csv(path), path.name
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, OSError) as exc:
        raise PrivlabError(f"--data {path} is not a readable CSV file: {str(exc).strip().splitlines()[-1]}") from None


def cmd_epsilon(args) -> int:
    import json as json_mod

    import numpy as np
    import pandas as pd

    from .lpb import advice
    from .lpb.calibration import check_rhos

    try:
        rho1, rho2 = check_rhos(args.rho1, args.rho2)
    except PrivlabError as exc:
        raise PrivlabError(f"--{exc}") from None
    frame, label = _epsilon_data(args.data)
    columns = [c.strip() for item in args.column for c in item.split(",") if c.strip()]
    results = []
    for col in columns:
        if col not in frame.columns:
            raise PrivlabError(
                f"--column {col!r} is not a column of {label}; its columns: {', '.join(map(str, frame.columns))}"
            )
        values = frame[col]
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
        from .plots import new_figure

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


# ---------------------------------------------------------------------------------------
# privlab compare A B
# ---------------------------------------------------------------------------------------
def cmd_compare(args) -> int:
    from . import check

    comparisons = check.compare_dirs(Path(args.a), Path(args.b), registry.select(paper=args.paper))
    width = max(len(c.exp_id) for c in comparisons)
    print(f"{'experiment':<{width}}  {'status':<16}  detail")
    for c in comparisons:
        print(f"{c.exp_id:<{width}}  {c.status:<16}  {c.detail if c.status == 'drifted' else ''}".rstrip())
        for cell in c.cells if c.status == "drifted" else []:
            print(f"    {cell.row}: {cell.column} A={cell.ref} B={cell.new} (allowed {cell.allowed})")
    verdicts = sorted(((c.exp_id, v) for c in comparisons for v in c.verdicts), key=lambda p: p[1].rank)
    if verdicts:
        print("claims that changed verdict:")
        for exp_id, v in verdicts:
            print(f"    {exp_id}: {v.a} -> {v.b}: {v.claim}")
    counts = {s: sum(c.status == s for c in comparisons) for s in check.STATUSES}
    summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n) + f"; {len(verdicts)} claim verdict(s) changed"
    print(summary)
    if args.html:
        from jinja2 import Environment, PackageLoader

        env = Environment(loader=PackageLoader("privlab", "templates"), autoescape=True)
        css = {
            "same": "same",
            "within tolerance": "within",
            "drifted": "drifted",
            "only in A": "only",
            "only in B": "only",
        }
        page = env.get_template("compare.html.j2").render(
            a=args.a, b=args.b, comparisons=comparisons, css=css, verdicts=verdicts, summary=summary
        )
        print(f"wrote {runner.atomic_write_text(Path(args.html), page)}")
    differs = sum(c.status not in ("same", "within tolerance") for c in comparisons) + len(verdicts)
    return 1 if differs else 0


# ---------------------------------------------------------------------------------------
# privlab sweep-report SWEEP_DIR
# ---------------------------------------------------------------------------------------
def cmd_sweep_report(args) -> int:
    where = {}
    for item in args.where or []:
        col, sep, value = item.partition("=")
        if not sep:
            raise PrivlabError(f"--where must be COLUMN=VALUE; got {item!r}")
        where[col] = value
    written = sweeps.write_sweep_report(args.sweep_dir, args.metric, where)
    for line in sweeps.summary_lines(args.sweep_dir):
        print(line)
    for path in written:
        print(f"wrote {path}")
    return 0


# ---------------------------------------------------------------------------------------
# privlab report [RESULTS_DIR]
# ---------------------------------------------------------------------------------------
def cmd_report(args) -> int:
    from . import report

    results_dir = Path(args.results_dir) if args.results_dir else runner.default_results_dir()
    path = report.write_report(results_dir, require_results=True)
    print(f"wrote {path} and {path.with_name(report.HTML_NAME)}")
    return 0


# ---------------------------------------------------------------------------------------
class _Parser(argparse.ArgumentParser):
    """argparse with usage errors in privlab's one-line form."""

    def error(self, message: str) -> NoReturn:
        raise PrivlabError(f"{message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="privlab", description="Reproduce, sweep and regression-check the experiments of five privacy papers."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("list", help="every registered experiment")
    p.add_argument("--paper", help="only this paper's experiments")
    p.add_argument("--markdown", action="store_true", help="print the README's table of experiments")
    p = sub.add_parser(
        "run",
        help="run one experiment through Hydra (overrides, --multirun)",
        description="Run one experiment. Anything after ID goes to Hydra: overrides such as "
        "rho2=0.3,0.5 and flags such as --multirun or --cfg job.",
    )
    p.add_argument("id", help="experiment id, e.g. lpb/fig1_lambda")
    p = sub.add_parser("reproduce", help="run every experiment and write results/REPORT.md")
    p.add_argument("ids", nargs="*", help="experiment ids (default: all)")
    p.add_argument("--profile", default="quick", help="quick (minutes) or paper (the papers' full scale)")
    p.add_argument("--paper", help="only this paper (a key of 'privlab list')")
    p.add_argument("--jobs", type=int, default=None, help="worker processes inside each experiment (-1 = all cores)")
    p.add_argument("--results", help="results directory (default: results/ of the checkout, or PRIVLAB_RESULTS)")
    p.add_argument("--force", action="store_true", help="rerun experiments whose complete result already exists")
    p = sub.add_parser("check", help="regression check against results/reference/")
    p.add_argument("ids", nargs="*", help="experiment ids (default: all)")
    p.add_argument("--paper", help="only this paper")
    p.add_argument("--update", action="store_true", help="rewrite the references instead of comparing")
    p.add_argument(
        "--profile",
        default="quick",
        help="quick (default) or paper: compare full-scale results with "
        "results/reference/paper/, reusing complete results of 'privlab reproduce --profile paper'",
    )
    p.add_argument("--reference", help="reference directory (default: results/reference/)")
    p = sub.add_parser(
        "epsilon",
        help="choose epsilon for a statistic you publish (LPB's rule)",
        description="LPB's epsilon against (rho1, rho2) breaches for a query over your own columns, "
        "beside differential identifiability, with the informed adversary's worst-case posterior.",
    )
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
    p = sub.add_parser("compare", help="compare two result directories experiment by experiment")
    p.add_argument("a", help="results directory A (before)")
    p.add_argument("b", help="results directory B (after)")
    p.add_argument("--paper", help="only this paper")
    p.add_argument("--html", help="also write the comparison as an HTML page at this path")
    p = sub.add_parser(
        "report",
        help="write REPORT.md and the self-contained report.html from a results directory",
        description="Rewrite REPORT.md and report.html (one page: figures, claims with a verdict filter, "
        "tables, provenance) from the run directories of RESULTS_DIR, without running anything.",
    )
    p.add_argument(
        "results_dir", nargs="?", help="results directory (default: results/ of the checkout, or PRIVLAB_RESULTS)"
    )
    p = sub.add_parser("sweep-report", help="gather a multirun into one table and plots")
    p.add_argument("sweep_dir", help="the sweep directory printed by 'privlab run ... --multirun'")
    p.add_argument("--metric", action="append", help="result column to plot (repeatable; default: a few numeric ones)")
    p.add_argument("--where", action="append", help="plot only rows with COLUMN=VALUE (repeatable)")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    os.environ["PRIVLAB_MAIN_PID"] = str(os.getpid())  # workers watch for this process's death
    # numerical warnings (divide by zero in a ratio column, ...) are not messages for the user;
    # worker processes inherit the filter through the environment
    warnings.simplefilter("ignore", RuntimeWarning)
    os.environ["PYTHONWARNINGS"] = ",".join(filter(None, [os.environ.get("PYTHONWARNINGS"), "ignore::RuntimeWarning"]))
    parser = build_parser()
    try:
        if argv[:1] == ["run"] and len(argv) >= 2 and not argv[1].startswith("-"):
            args = parser.parse_args(argv[:2])
            return cmd_run(args, argv[2:])
        args = parser.parse_args(argv)
        if args.command == "list":
            return cmd_list(args)
        if args.command == "run":
            return cmd_run(args, [])
        if args.command == "reproduce":
            if args.profile not in runner.PROFILES:
                raise PrivlabError(f"--profile must be one of {', '.join(runner.PROFILES)}; got {args.profile!r}")
            return cmd_reproduce(args)
        if args.command == "check":
            return cmd_check(args)
        if args.command == "epsilon":
            return cmd_epsilon(args)
        if args.command == "compare":
            return cmd_compare(args)
        if args.command == "sweep-report":
            return cmd_sweep_report(args)
        if args.command == "report":
            return cmd_report(args)
    except PrivlabError as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        _fail("interrupted; completed outputs are intact, the interrupted one was not written", 130)
    except BrokenPipeError:  # output piped into a reader that stopped (privlab list | head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
