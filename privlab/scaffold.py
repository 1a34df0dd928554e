"""``privlab new <paper>``: a new paper as an installable package, on the road every paper takes.

It writes ``<paper>/`` (or ``--into DIR``) with the shape of privlab's example ``examples/warner``:

``pyproject.toml``
    the distribution ``privlab-<paper>``, its entry point ``<paper> = "privlab_<paper>.experiments"``
    in the group ``privlab.papers`` and its package data (configs, ledger, references);
``privlab_<paper>/`` (the library)
    pure functions with their exact counterpart: the mean of ``n`` Bernoulli(q) draws, its exact
    variance and a Monte Carlo of it (replace them with the paper's science);
``privlab_<paper>/experiments/`` (the experiment unit)
    an exact experiment with claims, a Monte Carlo experiment with a figure, ``verdicts.py``,
    ``figures.py``, ``conf/experiment/<paper>/``, a study in ``conf/study/<paper>/``, ``ledger.yaml``
    (``reference/`` is written by ``privlab check --paper <paper> --update``);
``tests/test_<paper>.py``
    the library's tests and privlab's conformance harness with 2 workers.

Then::

    pip install -e ./<paper>
    privlab check --paper <paper> --update     # references into ./<paper>, the source tree
    privlab check --paper <paper>
    python -m pytest <paper>/tests
"""

from __future__ import annotations

import keyword
from pathlib import Path

from ._validation import PrivlabError

__all__ = ["files", "write"]

PYPROJECT = """\
[build-system]
requires = ["setuptools>=77"]
build-backend = "setuptools.build_meta"

[project]
name = "privlab-{paper}"
version = "0.1.0"
description = "{title}, reproduced with privlab"
requires-python = ">=3.10"
dependencies = ["privlab", "numpy>=1.24", "pandas>=2.0", "scipy>=1.10"]

[project.optional-dependencies]
test = ["pytest>=7"]

# privlab finds the paper through this entry point (the group every paper takes, privlab's own too)
[project.entry-points."privlab.papers"]
{paper} = "privlab_{paper}.experiments"

[tool.setuptools]
packages = ["privlab_{paper}", "privlab_{paper}.experiments"]

# the experiment unit's configs, ledger and committed references ship inside the package
[tool.setuptools.package-data]
"privlab_{paper}.experiments" = ["conf/**/*.yaml", "ledger.yaml", "reference/**/*.csv"]

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["."]  # the tests import the package from this source tree, installed or not
"""

LIBRARY = '''\
"""{title}: the library. Pure functions (numbers or arrays and a seed in, arrays out), each sampler
beside its exact counterpart. privlab's template: the mean of n Bernoulli(q) draws; replace it with
the paper's science, keeping the exact counterpart of every sampler."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from privlab.constraints import Interval

__all__ = ["mean_variance", "exact_mean_variance", "simulate_means", "monte_carlo_cell"]

Q = Interval(float, 0, 1)
N = Interval(int, 1, 10**9, limit="draws per sample")


def mean_variance(q: float, n: int) -> float:
    """The closed form: Var(mean of n Bernoulli(q) draws) = q (1 - q) / n.

    >>> mean_variance(0.5, 100)
    0.0025
    """
    q, n = Q.check("q", q), N.check("n", n)
    return q * (1 - q) / n


def exact_mean_variance(q: float, n: int) -> float:
    """The same variance as a sum over the exact law of the number of successes, Binomial(n, q)."""
    q, n = Q.check("q", q), N.check("n", n)
    k = np.arange(n + 1)
    law = stats.binom.pmf(k, n, q)
    means = k / n
    centre = float(np.sum(law * means))
    return float(np.sum(law * (means - centre) ** 2))


def simulate_means(q: float, n: int, repeats: int, seed: Any) -> np.ndarray:
    """``repeats`` sample means of n Bernoulli(q) draws."""
    q, n = Q.check("q", q), N.check("n", n)
    repeats = Interval(int, 4, 10**8, limit="means held in memory").check("repeats", repeats)
    return np.random.default_rng(seed).binomial(n, q, size=repeats) / n


def monte_carlo_cell(item: tuple[float, int, int, Any]) -> dict[str, float]:
    """One Monte Carlo cell ``(q, n, repeats, seed)``: the simulated variance and its standard error
    (from the fourth central moment) beside the exact one."""
    q, n, repeats, seed = item
    x = simulate_means(q, n, repeats, seed)
    s2 = float(np.var(x, ddof=1))
    m4 = float(np.mean((x - x.mean()) ** 4))
    se = float(np.sqrt(max(m4 - s2**2 * (repeats - 3) / (repeats - 1), 0.0) / repeats))
    return {{"q": q, "mc_variance": s2, "mc_variance_se": se, "variance": mean_variance(q, n)}}
'''

UNIT = '''\
"""{title}: the experiment unit, found by privlab through the entry point ``{paper}`` of group
``privlab.papers``. Its experiments' ids are ``{paper}/<function name>``."""

from __future__ import annotations

import pandas as pd

from privlab.params import Int, List, Real
from privlab.registry import Paper, Tolerance, experiment
from privlab_{paper} import library

from . import figures, verdicts

PAPER = Paper("{title}", text="the paper's citation or DOI")


@experiment(
    artifact="Eq. (1)",
    summary="The closed-form variance against the exact law",
    keys=("n", "q"),
    params={{
        "ns": List(Int(1, 10**5, limit="terms of the Binomial sums"), unique=True),
        "qs": List(Real(0, 1), unique=True),
        "claims": {{"rtol": Real(0, 1e-3)}},
    }},
    smoke=("ns=[10]",),
)
def exact(cfg, ctx):
    rows = [
        {{"n": n, "q": q, "variance": library.mean_variance(q, n), "exact_variance": library.exact_mean_variance(q, n)}}
        for n in cfg.ns
        for q in cfg.qs
    ]
    return pd.DataFrame(rows)


exact.judged_by(verdicts.exact, limits="claims")


@experiment(
    artifact="Figure 1",
    summary="Monte Carlo of the variance against q, beside its exact value",
    keys=("q",),
    tolerances={{"mc_variance": Tolerance(se="mc_variance_se"), "mc_variance_se": Tolerance(rtol=0.5)}},
    params={{
        "n": Int(1, 10**9),
        "qs": List(Real(0, 1), min_len=2, unique=True),
        "repeats": Int(4, 10**7, limit="means held in memory per q"),
        "claims": {{"k": Real(0, low_open=True)}},
    }},
    figures={{"variance_vs_q": figures.variance_vs_q}},
    smoke=("repeats=400",),
)
def monte_carlo(cfg, ctx):
    items = [(q, cfg.n, cfg.repeats, ctx.seed_sequence("monte_carlo", q)) for q in cfg.qs]
    return pd.DataFrame(ctx.map(library.monte_carlo_cell, items))


monte_carlo.judged_by(verdicts.monte_carlo, limits="claims")

__all__ = ["PAPER", "exact", "monte_carlo"]
'''

VERDICTS = '''\
"""What each claim compares (one function per experiment)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privlab import claims as cl


def exact(table: pd.DataFrame, *, printed: Any, limits: Any) -> list[cl.Claim]:
    """The closed form against the exact law, to rounding."""
    rel = np.abs(table.variance - table.exact_variance) / np.maximum(table.exact_variance, 1e-300)
    return [
        cl.statement(
            printed.variance,
            bool(rel.max() <= limits.rtol),
            reproduced=f"max relative difference {{rel.max():.2e}} over {{len(table)}} cell(s)",
            rule=f"relative difference <= {{limits.rtol:g}}",
        )
    ]


def monte_carlo(table: pd.DataFrame, *, printed: Any, limits: Any) -> list[cl.Claim]:
    """The simulated variance within k standard errors of the exact one."""
    return [cl.within_se(printed.variance, table.mc_variance, table.variance, table.mc_variance_se, k=limits.k)]
'''

FIGURES = '''\
"""The paper's figures, declared as specs over the result tables (privlab draws and audits them)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from privlab.figures import Axis, FigureSpec, Interval, Layer, Panel, figure, style_map

SIMULATED = "simulated, ±2 s.e."


@figure(ledger=("fig1", "eq1"))
def variance_vs_q(table: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """The simulated variance (points, ±2 s.e.) and the exact one (dotted) against q."""
    panel = Panel(
        table.assign(series=SIMULATED),
        "q",
        Axis("success probability q"),
        Axis("variance of the sample mean"),
        (
            Layer("mc_variance", kind="points", interval=Interval("se", se="mc_variance_se", k=2)),
            Layer("variance", name="exact q (1 − q) / n", linestyle=":", marker=""),
        ),
    )
    return FigureSpec("Figure 1: the variance of the sample mean", (panel,), style_map([SIMULATED]))
'''

EXACT_YAML = """\
# @package _global_
# the closed-form variance against the exact law, at every (n, q)
ns: [10, 100]
qs: ${{by_profile:[0.1,0.3,0.5,0.7,0.9],[0.01,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,0.99]}}
claims:
  rtol: 1.0e-9          # the two computations agree to rounding
printed:
  variance:
    claim: "Var = q (1 - q) / n"
    where: Eq. (1)
    value: "q (1 - q) / n"
    ledger: eq1
"""

MC_YAML = """\
# @package _global_
# the Monte Carlo of Figure 1
n: 100
qs: ${{by_profile:[0.1,0.3,0.5,0.7,0.9],[0.05,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,0.95]}}
repeats: ${{by_profile:2000,20000}}
claims:
  k: 4                  # simulated within 4 standard errors of the exact values
printed:
  variance:
    claim: "Var = q (1 - q) / n, in simulation"
    where: Figure 1
    value: "(exact counterpart)"
    ledger: eq1
"""

STUDY_YAML = """\
# the Monte Carlo's claims at other sample sizes than n = 100
experiment: {paper}/monte_carlo
question: Does the simulated variance agree with the exact one at every sample size?
probes: unstated
about: n, the draws per sample (config n, conf/experiment/{paper}/monte_carlo.yaml)
grid:
  quick: {{n: [10, 100, 1000]}}
  paper: {{n: [5, 10, 30, 100, 300, 1000, 3000]}}
"""

LEDGER = """\
# every item the paper prints, with what checks it (or why it cannot be checked)
items:
  - id: eq1
    where: Eq. (1)
    kind: formula
    text: "the variance of the mean of n Bernoulli(q) draws is q (1 - q) / n"
    checked_by: [{paper}/exact, {paper}/monte_carlo, "test:tests/test_{paper}.py::test_exact_law_matches_the_formula"]
  - id: fig1
    where: Figure 1
    kind: figure
    text: the variance of the sample mean against q
    checked_by: [{paper}/monte_carlo]
"""

TESTS = '''\
"""The library's tests and privlab's conformance harness over every experiment (1 and 2 workers)."""

import pytest

from privlab.testing import conformance
from privlab_{paper} import library


def test_exact_law_matches_the_formula():
    for q in (0.0, 0.2, 0.5, 0.9):
        assert library.exact_mean_variance(q, 25) == pytest.approx(library.mean_variance(q, 25), rel=1e-10, abs=1e-15)


def test_worked_example():
    assert library.mean_variance(0.5, 100) == pytest.approx(0.0025)


def test_conformance():
    conformance("{paper}", workers=2)
'''

README = """\
# privlab-{paper}

{title}, reproduced with privlab: the library `privlab_{paper}/library.py`, the experiment unit
`privlab_{paper}/experiments/` (experiments, verdicts, figures, configs, study, ledger, references)
and its tests.

```bash
pip install -e .
privlab check --paper {paper} --update      # writes the references into privlab_{paper}/experiments/reference
privlab check --paper {paper}
python -m pytest tests
```
"""


def files(paper: str, title: str = "") -> dict[str, str]:
    """The files of a new paper ``paper`` (relative path -> text)."""
    if not paper.isidentifier() or keyword.iskeyword(paper) or not paper.islower():
        raise PrivlabError(f"paper must be a lower-case Python identifier (e.g. warner, my_paper); got {paper!r}")
    if any(c in title for c in '"\\{}\n'):
        raise PrivlabError(f"--title must not hold quotes, backslashes, braces or line breaks; got {title!r}")
    title = title or f"{paper} - the paper's authors and title"
    pkg, unit = f"privlab_{paper}", f"privlab_{paper}/experiments"
    out = {
        "pyproject.toml": PYPROJECT,
        "README.md": README,
        f"{pkg}/__init__.py": '"""{title}: the library and its experiment unit."""\n',
        f"{pkg}/library.py": LIBRARY,
        f"{unit}/__init__.py": UNIT,
        f"{unit}/verdicts.py": VERDICTS,
        f"{unit}/figures.py": FIGURES,
        f"{unit}/ledger.yaml": LEDGER,
        f"{unit}/conf/experiment/{paper}/exact.yaml": EXACT_YAML,
        f"{unit}/conf/experiment/{paper}/monte_carlo.yaml": MC_YAML,
        f"{unit}/conf/study/{paper}/n.yaml": STUDY_YAML,
        f"tests/test_{paper}.py": TESTS,
    }
    return {path: text.format(paper=paper, title=title) for path, text in out.items()}


def write(paper: str, into: str | Path | None = None, *, title: str = "") -> Path:
    """Write the new paper's package into ``into`` (default ``./<paper>``), which must not exist or be
    empty; returns the directory. Nothing is written when the paper's name is refused."""
    written = files(paper, title)
    root = Path(into) if into is not None else Path(paper)
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise PrivlabError(f"{root} already exists and is not an empty directory; choose another with --into DIR")
    try:
        for rel, text in written.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    except OSError as exc:
        raise PrivlabError(f"{root} cannot be written ({exc.strerror or exc})") from None
    return root


def run(args) -> int:
    """``privlab new PAPER [--into DIR] [--title TITLE]``."""
    root = write(args.paper, args.into, title=args.title or "")
    shown = str(root) if root.is_absolute() or str(root).startswith(".") else f"./{root}"  # pip: a path
    print(f"wrote the paper {args.paper} into {shown}; next:")
    print(f"  pip install -e {shown}")
    print(f"  privlab check --paper {args.paper} --update")
    print(f"  privlab check --paper {args.paper}")
    print(f"  python -m pytest {shown}/tests")
    return 0


def configure(parser) -> None:
    parser.add_argument("paper", help="the new paper's key (a lower-case Python identifier, e.g. warner)")
    parser.add_argument("--into", help="the directory to write (default: ./PAPER); must not exist or be empty")
    parser.add_argument("--title", help="the paper's authors and title (default: a placeholder)")
