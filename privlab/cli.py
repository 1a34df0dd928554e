"""The ``privlab`` command line: it parses arguments and dispatches, nothing more.

Core commands: list, run, reproduce, check, compare, report, sweep-report, study, errata. A paper may add its
own (LPB's ``epsilon``) with `privlab.registry.command`, beside its experiments. Every user
error (unknown experiment or parameter, a value out of range, a bad file) ends in one line
``privlab: error: ...`` on stderr and exit status 2, with no traceback and no half-written output.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path
from typing import NoReturn

from . import check, errata, launch, registry, report, runner, scaffold, study, sweeps, testing
from ._validation import PrivlabError
from .errors import fail
from .executors import CLUSTER_HELP, one_line_warnings
from .study import configure as configure_study


def cmd_list(args) -> int:
    exps = registry.select(paper=args.paper)
    for paper, why in registry.broken().items():
        print(f"privlab: warning: paper {paper} is unavailable: {why}", file=sys.stderr)
    if not exps:
        where = "; ".join(registry.sources())
        print(f"privlab: warning: no experiment is registered; looked in {where}", file=sys.stderr)
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


def cmd_report(args) -> int:
    results_dir = Path(args.results_dir) if args.results_dir else runner.default_results_dir()
    path = report.write_report(results_dir, require_results=True)
    print(f"wrote {path} and {path.with_name(report.HTML_NAME)}")
    return 0


def cmd_claims(args) -> int:
    for exp in registry.select(args.ids, paper=args.paper):
        print("\n".join(check.audit_lines(exp, args.profile)))
    return 0


def _dispatch(args, hydra_args: list[str]) -> int:
    if args.command == "list":
        return cmd_list(args)
    if args.command == "run":
        return launch.run(args.id, hydra_args)
    if args.command == "reproduce":
        return launch.reproduce(
            args.ids,
            paper=args.paper,
            profile=args.profile,
            workers=args.workers,
            results=args.results,
            force=args.force,
            cluster=args.cluster,
        )
    if args.command == "check" and args.conformance:
        return testing.run_conformance(args.ids, paper=args.paper)
    if args.command == "check":
        return check.run_check(
            args.ids, paper=args.paper, profile=args.profile, reference=args.reference, update=args.update
        )
    if args.command == "compare":
        return check.run_compare(args.a, args.b, paper=args.paper, html=args.html)
    if args.command == "sweep-report":
        return sweeps.run_sweep_report(args.sweep_dir, metrics=args.metric, where_items=args.where)
    if args.command == "study":
        return study.run(args)
    if args.command == "report":
        return cmd_report(args)
    if args.command == "errata":
        return errata.run(args)
    if args.command == "new":
        return scaffold.run(args)
    if args.command == "claims":
        return cmd_claims(args)
    return registry.commands()[args.command].run(args)


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
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="worker processes inside each experiment, one experiment at a time (-1 = all cores); "
        "without it, papers run side by side, one experiment per core",
    )
    p.add_argument("--jobs", type=int, dest="workers", help=argparse.SUPPRESS)  # its old name, for one release
    p.add_argument("--results", help="results directory (default: ./results, or PRIVLAB_RESULTS)")
    p.add_argument("--force", action="store_true", help="rerun experiments whose complete result already exists")
    p.add_argument("--cluster", help=CLUSTER_HELP)
    p = sub.add_parser("check", help="regression check against the committed references")
    p.add_argument("ids", nargs="*", help="experiment ids (default: all)")
    p.add_argument("--paper", help="only this paper")
    p.add_argument("--update", action="store_true", help="rewrite the references instead of comparing")
    p.add_argument(
        "--profile",
        default="quick",
        help="quick (default) or paper: compare full-scale results with the paper-profile references, "
        "reusing complete results of 'privlab reproduce --profile paper'",
    )
    p.add_argument("--reference", help="reference directory (default: each paper's committed references)")
    p.add_argument(
        "--conformance",
        action="store_true",
        help="run the conformance harness instead (privlab.testing.conformance): configs, contracts, ledger ids, "
        "references, figure audits, smoke runs with 1 and 2 workers",
    )
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
    p.add_argument("results_dir", nargs="?", help="results directory (default: ./results, or PRIVLAB_RESULTS)")
    p = sub.add_parser("sweep-report", help="gather a multirun into one table and plots")
    p.add_argument("sweep_dir", help="the sweep directory printed by 'privlab run ... --multirun'")
    p.add_argument("--metric", action="append", help="result column to plot (repeatable; default: a few numeric ones)")
    p.add_argument("--where", action="append", help="plot only rows with COLUMN=VALUE (repeatable)")
    p = sub.add_parser(
        "study",
        help="named robustness questions: a sweep that asks where a paper's conclusions hold",
        description="List the studies (conf/study/<paper>/<name>.yaml) or run one: its sweep, its report and, "
        "per claim, the range of the grid over which its verdict held and where it flipped.",
    )
    configure_study(p)
    p = sub.add_parser(
        "claims",
        help="each claim's rule, margin and the value at which its verdict flips",
        description="Decide each experiment's claims on its committed reference and print, per claim, its rule, "
        "the value it read against its reference and margin, and the value at which the verdict flips.",
    )
    p.add_argument("ids", nargs="*", help="experiment ids (default: all)")
    p.add_argument("--audit", action="store_true", help="print the audit (the only mode today)")
    p.add_argument("--paper", help="only this paper")
    p.add_argument("--profile", default="quick", help="the reference to decide on: quick (default) or paper")
    p = sub.add_parser("errata", help="what privlab found in a paper, beside the printed text or value",
                       description=errata.DESCRIPTION)  # fmt: skip
    errata.configure(p)
    p = sub.add_parser("new", help="write a new paper as an installable package (privlab's example's shape)",
                       description=(scaffold.__doc__ or "").split("\n\n")[0])  # fmt: skip
    scaffold.configure(p)
    for name, command in registry.commands().items():  # the papers' own commands
        p = sub.add_parser(name, help=command.help, description=command.description or None)
        command.configure(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    os.environ["PRIVLAB_MAIN_PID"] = str(os.getpid())  # workers watch for this process's death
    # numerical warnings (divide by zero in a ratio column, ...) are not messages for the user;
    # worker processes inherit the filter through the environment
    warnings.simplefilter("ignore", RuntimeWarning)
    os.environ["PYTHONWARNINGS"] = ",".join(filter(None, [os.environ.get("PYTHONWARNINGS"), "ignore::RuntimeWarning"]))
    one_line_warnings()  # a library's warning: one line of privlab's, not its raw text
    closed = _standard_output_closed()
    if not isinstance(sys.stdout, _GuardedOutput):
        sys.stdout = _GuardedOutput(sys.stdout)
    try:
        if closed:
            raise PrivlabError("standard output is closed (>&-); redirect it instead, e.g. >/dev/null")
        if argv[:1] != ["list"]:
            _check_working_directory()
        parser = build_parser()
        if argv[:1] == ["run"] and len(argv) >= 2 and not argv[1].startswith("-"):
            return _dispatch(parser.parse_args(argv[:2]), argv[2:])  # the rest is Hydra's
        return _dispatch(parser.parse_args(argv), [])
    except PrivlabError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        fail("interrupted; completed outputs are intact, the interrupted one was not written", 130)
    except BrokenPipeError:  # output piped into a reader that stopped (privlab list | head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OutputLost as exc:  # stdout on a full disk or /dev/full: its buffer is dropped, one line on stderr
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        fail(f"cannot write to standard output ({exc})")


class OutputLost(BaseException):
    """Standard output refused a write (a full disk, /dev/full). A BaseException, so that no
    ``except Exception`` on the way (Hydra's job runner, a fault handler) takes it for the job's fault."""


class _GuardedOutput:
    """``sys.stdout`` whose failed writes (other than a closed pipe) raise `OutputLost`."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputLost(exc.strerror or str(exc)) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputLost(exc.strerror or str(exc)) from None

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _standard_output_closed() -> bool:
    """Is file descriptor 1 closed (``>&-``)? Then it is taken by /dev/null at once, so that no file the
    run opens becomes standard output, and ``sys.stdout`` writes there."""
    try:
        os.fstat(1)
        return False
    except OSError:
        fd = os.open(os.devnull, os.O_WRONLY)
        if fd != 1:
            os.dup2(fd, 1)
            os.close(fd)
        sys.stdout = open(1, "w", closefd=False)
        return True


def _check_working_directory() -> None:
    try:
        os.getcwd()
    except FileNotFoundError:
        raise PrivlabError("the working directory no longer exists (deleted?); cd into an existing directory") from None


if __name__ == "__main__":
    sys.exit(main())
