"""Studies: named robustness questions, each a sweep that asks where a paper's conclusions hold.

A study is a file ``conf/study/<paper>/<name>.yaml`` of the paper's config directory::

    experiment: bucketization/fig3_l_vs_theta
    question: Where does l-diversity's eligibility hold as the offset b moves?
    probes: reconstructed       # reconstructed | unstated | stated: what kind of value the grid moves
    about: the offset b of F_i = min(1, theta f_i + b), lost in the seed; privlab chose b = 0.02
    grid:                       # per scale: config key -> the values it takes (a job per combination)
      quick: {offset: [0.0, 0.01, 0.02, 0.03, 0.05, 0.1]}
      paper: {offset: [0.0, 0.005, 0.01, ...]}
    overrides:                  # optional, per scale: fixed overrides of every job (e.g. a smaller run)
      quick: [thetas=[2,8,32]]
    timing: false               # true: the claims compare wall-clock times (their verdicts are not regression-checked)

``privlab study run <paper>/<name>`` runs it as a sweep (`privlab.multirun`) into
``<results>/studies/<paper>/<name>/<profile>/`` (rerun: resumed) at the quick scale, or at the
paper's with ``--profile paper``, and writes its sweep report (`privlab.sweeps`). Each grid must
hold the experiment's own value of every key it moves (the *baseline*, the value the reproduction
uses): `robustness` then says, per claim, the verdict at the baseline, the range of the grid over
which that verdict held and where it flipped. The report's Robustness section and the papers' docs
pages are built from it (the docs from the committed quick-scale outcomes in
``reference/studies/<name>.csv`` of the paper's experiment unit, refreshed with ``--update``).
"""

from __future__ import annotations

import argparse
import itertools
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml
from omegaconf import OmegaConf

from . import app, registry, runner, store, sweeps
from ._validation import PrivlabError
from .executors import CLUSTER_HELP
from .multirun import format_value
from .sweep_plots import label, sorted_values
from .sweeps import ABSENT, CLAIMS_CSV, describe_where, values_text

PROBES = ("reconstructed", "unstated", "stated")
SCALES = runner.PROFILES  # quick, paper
STUDIES = "studies"  # results/studies/<paper>/<name>/<profile>/
KEYS = ("experiment", "question", "probes", "about", "grid", "overrides", "timing")


@dataclass(frozen=True)
class Study(registry.PaperScoped):
    """One robustness question (a ``conf/study/<paper>/<name>.yaml``)."""

    id: str  # <paper>/<name>
    experiment: str
    question: str
    probes: str
    about: str
    grid: dict[str, dict[str, list[Any]]]  # scale -> key -> values
    overrides: dict[str, list[str]] = field(default_factory=dict)  # scale -> fixed overrides
    timing: bool = False
    path: Path | None = None

    def keys(self, scale: str = "quick") -> list[str]:
        return list(self.grid[scale])

    def fixed(self, scale: str) -> list[str]:
        """The fixed overrides of every job at ``scale`` (``profile=paper`` included for the paper's)."""
        return [*self.overrides.get(scale, []), *(["profile=paper"] if scale == "paper" else [])]

    def jobs(self, scale: str) -> list[list[str]]:
        """Every job's overrides at ``scale``: one per combination of the grid's values."""
        keys = self.keys(scale)
        combos = itertools.product(*[self.grid[scale][k] for k in keys])
        return [[*[f"{k}={format_value(v)}" for k, v in zip(keys, combo)], *self.fixed(scale)] for combo in combos]

    def sweep_overrides(self, scale: str) -> list[str]:
        """The study as one sweep's overrides (Hydra's ``key=a,b,c``)."""
        grid = [f"{k}={','.join(format_value(v) for v in values)}" for k, values in self.grid[scale].items()]
        return [*grid, *self.fixed(scale)]

    def baseline(self, scale: str = "quick") -> dict[str, Any]:
        """The experiment's own value of each key the grid moves (at ``scale``, with its fixed overrides)."""
        cfg = runner.compose(self.experiment, self.fixed(scale))
        out = {}
        for k in self.keys(scale):
            value = OmegaConf.select(cfg, k, default=None)
            out[k] = OmegaConf.to_container(value) if OmegaConf.is_config(value) else value
        return out

    def check(self) -> None:
        """Each grid holds its baseline (a `PrivlabError` naming the study, key and values otherwise)."""
        for scale in SCALES:
            base = self.baseline(scale)
            for k, values in self.grid[scale].items():
                if not any(_same(v, base[k]) for v in values):
                    raise PrivlabError(
                        f"study {self.id}: its {scale} grid of {k} ({', '.join(map(str, values))}) must hold the "
                        f"experiment's own value {base[k]!r}, the baseline its verdicts are compared with"
                    )

    def sweep_dir(self, results_dir: Path, scale: str) -> Path:
        return Path(results_dir) / STUDIES / self.paper / self.name / scale

    def reference_path(self) -> Path:
        """The committed quick-scale outcome (``sweep_claims.csv`` of the quick run)."""
        given = runner.given_reference_dir()
        if given is not None:
            return given / STUDIES / self.paper / f"{self.name}.csv"
        where = registry.papers()[self.paper].reference_dir
        assert where is not None
        return where / STUDIES / f"{self.name}.csv"


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return float(a) == float(b)
    return a == b


def _load(path: Path, study_id: str) -> Study:
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise PrivlabError(f"study {study_id} ({path}) cannot be read: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise PrivlabError(f"study {study_id} ({path}) must be a mapping with keys {', '.join(KEYS)}")
    unknown = sorted(set(data) - set(KEYS))
    missing = [k for k in ("experiment", "question", "probes", "grid") if k not in data]
    if unknown or missing:
        what = f"unknown key(s) {', '.join(unknown)}" if unknown else f"lacks {', '.join(missing)}"
        raise PrivlabError(f"study {study_id} ({path}) {what}; a study has {', '.join(KEYS)}")
    if data["probes"] not in PROBES:
        raise PrivlabError(f"study {study_id}: probes must be one of {', '.join(PROBES)}; got {data['probes']!r}")
    grid = data["grid"]
    if not isinstance(grid, dict) or set(grid) != set(SCALES):
        raise PrivlabError(f"study {study_id}: grid must give the values of each scale, {' and '.join(SCALES)}")
    for scale, keys in grid.items():
        if not isinstance(keys, dict) or not keys or not all(isinstance(v, list) and v for v in keys.values()):
            raise PrivlabError(f"study {study_id}: grid.{scale} must map config keys to non-empty lists of values")
    overrides = data.get("overrides") or {}
    if not isinstance(overrides, dict) or not set(overrides) <= set(SCALES):
        raise PrivlabError(f"study {study_id}: overrides must map {' and/or '.join(SCALES)} to lists of overrides")
    return Study(
        id=study_id,
        experiment=str(data["experiment"]),
        question=" ".join(str(data["question"]).split()),
        probes=str(data["probes"]),
        about=" ".join(str(data.get("about", "")).split()),
        grid={s: dict(grid[s]) for s in SCALES},
        overrides={s: [str(o) for o in overrides.get(s) or []] for s in SCALES},
        timing=bool(data.get("timing", False)),
        path=path,
    )


def studies(paper: str | None = None) -> list[Study]:
    """Every study of the registered papers (``conf/study/<paper>/*.yaml``), sorted by id."""
    out = []
    for key, info in registry.papers().items():
        if paper is not None and key != paper or info.conf_dir is None:
            continue
        folder = Path(info.conf_dir) / "study" / key
        for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
            out.append(_load(path, f"{key}/{path.stem}"))
    return sorted(out, key=lambda s: s.id)


def get(study_id: str) -> Study:
    """The study ``<paper>/<name>`` (only its file is read)."""
    paper, _, name = study_id.partition("/")
    info = registry.papers().get(paper)
    path = Path(info.conf_dir) / "study" / paper / f"{name}.yaml" if info and info.conf_dir and name else None
    if path is None or not path.is_file():
        known = ", ".join(s.id for s in studies()) or "(none)"
        raise PrivlabError(f"unknown study {study_id!r}; known studies: {known}")
    return _load(path, study_id)


# ---------------------------------------------------------------------------------------
# robustness: where each claim's verdict held
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ClaimRobustness:
    """One claim over a study's grid: its verdict at the baseline, where that held, where it flipped
    (to the other of agree and disagree), and where it was not checkable or not stated at all."""

    claim: str
    baseline_verdict: str
    held: str  # e.g. "0.01 <= offset <= 0.04" or "the whole grid"
    flips: str  # e.g. "disagree where offset >= 0.05" ("" when it never flips)
    other: str  # e.g. "info (not checkable) where ...; not stated where ..." ("" when none)
    n_held: int
    n_jobs: int
    checkable: bool  # agree or disagree somewhere in the grid

    @property
    def flipped(self) -> bool:
        """Did the paper's conclusion change (agree <-> disagree) inside the grid?"""
        return bool(self.flips)

    def line(self) -> str:
        held = "over the whole grid" if self.held == "the whole grid" else f"for {self.held}"
        tail = "".join(f"; {part}" for part in (f"flips: {self.flips}" if self.flips else "", self.other) if part)
        return f"{self.baseline_verdict} at the baseline, held {held}{tail}"


def _held_range(values: list[Any], ok: list[bool], base_index: int, key: str) -> str:
    """The run of grid values around the baseline over which the verdict held, in words."""
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):  # unordered: a set
        held = [v for v, good in zip(values, ok) if good]
        return "the whole grid" if len(held) == len(values) else values_text(key, held, values)
    lo = hi = base_index
    while lo > 0 and ok[lo - 1]:
        lo -= 1
    while hi < len(values) - 1 and ok[hi + 1]:
        hi += 1
    if lo == 0 and hi == len(values) - 1:
        return "the whole grid"
    if lo == hi:
        return f"{key} = {label(values[lo])} only"
    return values_text(key, values[lo : hi + 1], values)


def robustness(claims: pd.DataFrame, baseline: Mapping[str, Any]) -> list[ClaimRobustness]:
    """Per claim of a study's ``sweep_claims.csv`` (``claims``): its verdict at ``baseline`` (the
    experiment's own values of the swept keys) and where over the grid that verdict held or flipped.
    A job lacking the claim counts as ``absent``."""
    keys = [k for k in baseline if k in claims.columns]
    points = claims.drop_duplicates("job")[["job", *keys]].reset_index(drop=True)
    at_base = points
    for k in keys:
        at_base = at_base[[_same(_value(v), baseline[k]) for v in at_base[k]]]
    if at_base.empty:
        raise PrivlabError(f"no job of the study is at the baseline {dict(baseline)}")
    base_job = at_base["job"].iloc[0]
    out = []
    words = {
        "agree": "agree",
        "disagree": "disagree",
        "inconclusive": "inconclusive (the data cannot decide)",
        "info": "info (not checkable)",
        ABSENT: "not stated",
    }
    for name, g in claims.groupby("claim", sort=False):
        verdicts = {j: ABSENT for j in points["job"]}
        verdicts.update(dict(zip(g["job"], g["verdict"])))
        v0 = verdicts[base_job]
        same = {j for j, v in verdicts.items() if v == v0}
        flips: list[str] = []
        other: list[str] = []
        for verdict in (*words,):
            chosen = {j for j, v in verdicts.items() if v == verdict and v != v0}
            if chosen:
                conclusion = verdict in ("agree", "disagree") and v0 in ("agree", "disagree")
                (flips if conclusion else other).append(f"{words[verdict]} {describe_where(points, chosen, keys)}")
        if len(keys) == 1:
            k = keys[0]
            values = sorted_values(points[k])
            by_value = {repr(v): verdicts[j] for j, v in zip(points["job"], points[k])}
            ok = [by_value[repr(v)] == v0 for v in values]
            base_index = next(i for i, v in enumerate(values) if _same(_value(v), baseline[k]))
            held = _held_range(values, ok, base_index, k)
        else:
            held = "the whole grid" if len(same) == len(points) else f"{len(same)} of {len(points)} grid points"
            where = describe_where(points, same, keys)
            if len(same) < len(points) and where.startswith("where "):
                held = where.removeprefix("where ")
        checkable = any(v in ("agree", "disagree") for v in verdicts.values())
        out.append(
            ClaimRobustness(str(name), v0, held, "; ".join(flips), "; ".join(other), len(same), len(points), checkable)
        )
    return out


def _value(v: Any) -> Any:
    """A CSV cell back to the value the grid holds (lists were written as their text)."""
    if isinstance(v, str) and v[:1] in "[{":
        try:
            return yaml.safe_load(v)
        except yaml.YAMLError:
            return v
    return v


@dataclass
class StudyOutcome:
    """A study that has run (at one scale), with its claims' robustness; ``sweep_dir`` None: the
    committed quick-scale outcome shipped with the references (not run here)."""

    study: Study
    scale: str
    claims: list[ClaimRobustness]
    n_jobs: int
    sweep_dir: Path | None = None

    @property
    def shipped(self) -> bool:
        return self.sweep_dir is None

    @property
    def anchor(self) -> str:
        return "study-" + self.study.id.replace("/", "-") + f"-{self.scale}"

    @property
    def flipped(self) -> list[ClaimRobustness]:
        return [c for c in self.claims if c.flipped and c.checkable]

    @property
    def steady(self) -> list[ClaimRobustness]:
        return [c for c in self.claims if not c.flipped and c.checkable]

    def grid_text(self) -> str:
        return "; ".join(
            f"{k} in {{{', '.join(label(v) for v in vs)}}}" for k, vs in self.study.grid[self.scale].items()
        )


def outcome(study: Study, claims_csv: Path, scale: str, sweep_dir: Path | None = None) -> StudyOutcome:
    """The robustness of every claim in a study's ``sweep_claims.csv``."""
    claims = pd.read_csv(claims_csv, keep_default_na=False, dtype={"job": str})
    for k in study.keys(scale):
        if k in claims.columns:  # numbers back to numbers; lists stay their text (compared through _value)
            claims[k] = [_number(v) for v in claims[k]]
    base = study.baseline(scale)
    return StudyOutcome(study, scale, robustness(claims, base), claims["job"].nunique(), sweep_dir)


def _number(v: Any) -> Any:
    if isinstance(v, str):
        for kind in (int, float):
            try:
                return kind(v)
            except ValueError:
                pass
        if v in ("True", "False"):
            return v == "True"
    return v


def outcomes(results_dir: Path) -> list[StudyOutcome]:
    """Every study that has a report under ``results_dir/studies`` (paper scale before quick)."""
    out = []
    for study in studies():
        for scale in reversed(SCALES):
            sweep = study.sweep_dir(results_dir, scale)
            if (sweep / CLAIMS_CSV).is_file():
                try:
                    out.append(outcome(study, sweep / CLAIMS_CSV, scale, sweep))
                except (PrivlabError, ValueError, KeyError):
                    continue  # a stale or partial study: left out of the report
    return out


def committed_outcome(study: Study) -> StudyOutcome | None:
    """The committed quick-scale outcome of ``study``, if there is one (for the docs)."""
    path = study.reference_path()
    return outcome(study, path, "quick") if path.is_file() else None


# ---------------------------------------------------------------------------------------
# the command
# ---------------------------------------------------------------------------------------
def list_lines(paper: str | None = None) -> list[str]:
    found = studies(paper)
    if not found:
        return ["no study is defined (conf/study/<paper>/<name>.yaml)"]
    width = max(len(s.id) for s in found)
    exp_width = max(len(s.experiment) for s in found)
    lines = [f"{'study':<{width}}  {'experiment':<{exp_width}}  {'probes':<13}  jobs (quick/paper)  question"]
    for s in found:
        sizes = "/".join(str(len(s.jobs(scale))) for scale in SCALES)
        lines.append(f"{s.id:<{width}}  {s.experiment:<{exp_width}}  {s.probes:<13}  {sizes:<18}  {s.question}")
    return lines


def run_study(
    study_id: str,
    *,
    profile: str = "quick",
    workers: int | None = None,
    results: str | None = None,
    update: bool = False,
    cluster: str | None = None,
) -> int:
    """``privlab study run NAME``: the study's sweep (resumed if it ran before), its report and the
    robustness of each claim; ``update`` also rewrites its committed quick-scale outcome."""

    if profile not in SCALES:
        raise PrivlabError(f"--profile must be one of {', '.join(SCALES)}; got {profile!r}")
    if update and profile != "quick":
        raise PrivlabError("--update rewrites the committed quick-scale outcome; run it with the quick profile")
    study = get(study_id)
    study.check()
    results_dir = store.writable_dir(Path(results) if results else runner.default_results_dir(), "--results")
    sweep_dir = study.sweep_dir(results_dir, profile)
    print(f"study {study.id}: {study.question}", flush=True)
    overrides = [*study.sweep_overrides(profile), f"hydra.sweep.dir={runner.quote_override_value(str(sweep_dir))}"]
    overrides += [f"results_dir={runner.quote_override_value(str(results_dir))}"]
    if workers is not None:
        overrides.append(f"hydra.launcher.workers={workers}")
    status = 0
    try:
        app.run(study.experiment, [*overrides, "--multirun", *(["--cluster", cluster] if cluster else [])])
    except SystemExit as exc:  # some jobs failed (said above): report the others, then exit as the sweep did
        status = int(exc.code or 0)
        if not any(p.name.isdigit() for p in sweep_dir.iterdir()):
            raise
    report = sweeps.write_sweep_report(sweep_dir)
    found = outcome(study, sweep_dir / sweeps.CLAIMS_CSV, profile, sweep_dir)
    print(f"{study.id} ({profile}): {found.n_jobs} jobs over {found.grid_text()}; baseline {study.baseline(profile)}")
    for c in found.claims:
        if c.checkable:
            print(f"claim: {c.claim}: {c.line()}")
    print(f"wrote {report.sweep_dir / sweeps.HTML_NAME}")
    if update:
        target = study.reference_path()
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sweep_dir / sweeps.CLAIMS_CSV, target)
        print(f"updated {target}")
    if status:
        sys.exit(status)
    return 0


def configure(p) -> None:
    """``privlab study``'s arguments."""
    sub = p.add_subparsers(dest="study_command", required=True)
    q = sub.add_parser("list", help="every study: its experiment, what it probes, its grid sizes, its question")
    q.add_argument("--paper", help="only this paper's studies")
    q = sub.add_parser("run", help="run a study's sweep (resumed if it ran before) and say where each claim held")
    q.add_argument("name", help="the study, <paper>/<name> (see 'privlab study list')")
    q.add_argument("--profile", default="quick", help="quick (default: the quick grid) or paper (the full grid)")
    q.add_argument("--workers", type=int, help="worker processes running the study's jobs (default: every core)")
    q.add_argument("--jobs", type=int, dest="workers", help=argparse.SUPPRESS)  # its old name, for one release
    q.add_argument("--results", help="results directory (default: ./results, or PRIVLAB_RESULTS)")
    q.add_argument("--update", action="store_true", help="also rewrite the study's committed quick-scale outcome")
    q.add_argument("--cluster", help=CLUSTER_HELP)


def run(args) -> int:
    """Dispatch ``privlab study list|run``."""
    if args.study_command == "list":
        if args.paper is not None and args.paper not in registry.papers():
            raise PrivlabError(f"--paper must be one of {', '.join(registry.papers())}; got {args.paper!r}")
        for line in list_lines(args.paper):
            print(line)
        return 0
    return run_study(
        args.name,
        profile=args.profile,
        workers=args.workers,
        results=args.results,
        update=args.update,
        cluster=getattr(args, "cluster", None),
    )


@dataclass
class PaperRobustness:
    """What a paper's studies found: the conclusions that flip inside a study's range (and which of
    those depend on a value privlab reconstructed), and how many held over every grid."""

    paper: str
    flipped: list[tuple[StudyOutcome, ClaimRobustness]]
    steady: int

    @property
    def reconstructed(self) -> list[tuple[StudyOutcome, ClaimRobustness]]:
        return [(o, c) for o, c in self.flipped if o.study.probes == "reconstructed"]


def paper_summaries(found: Sequence[StudyOutcome]) -> list[PaperRobustness]:
    """Per paper (in key order), its studies' flipped and steady claims."""
    out = []
    for paper in sorted({o.study.paper for o in found}):
        mine = [o for o in found if o.study.paper == paper]
        flipped = [(o, c) for o in mine for c in o.flipped]
        out.append(PaperRobustness(paper, flipped, sum(len(o.steady) for o in mine)))
    return out


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def docs_section(paper: str) -> str:
    """The docs page's section on which of ``paper``'s conclusions depend on a reconstruction (or on
    a value the paper leaves unstated), from its studies' committed quick-scale outcomes."""
    found = [(s, committed_outcome(s)) for s in studies(paper)]
    lines = ["## Which conclusions depend on a reconstruction", ""]
    if not found:
        return "\n".join([*lines, "No study of this paper yet (`conf/study/<paper>/<name>.yaml`).", ""])
    lines += [
        "Each study sweeps a value the seed lost (privlab's reconstruction) or leaves unstated, and asks where "
        f"the paper's conclusions hold (`privlab study list --paper {paper}`; `privlab study run NAME` runs one, "
        "`--profile paper` on the full grid). At the quick scale, from the committed outcomes in "
        f"`reference/studies/` of the paper's experiment unit (`experiments/{paper}/` for privlab's own):",
        "",
    ]
    depends: list[tuple[Study, ClaimRobustness]] = []
    for s, o in found:
        if o is None:
            continue
        for c in o.claims:
            if not c.checkable:
                continue
            if c.flipped and s.probes == "reconstructed":
                depends.append((s, c))
    if depends:
        lines += ["**Conclusions that depend on a reconstructed value** (their verdict flips inside a study's range):"]
        lines += [""]
        for sid in dict.fromkeys(s.id for s, _ in depends):
            study = next(s for s, _ in depends if s.id == sid)
            lines.append(f"- `{sid}` moves {_cell(study.about)}:")
            lines += [f"    - {_cell(c.claim)}: {c.baseline_verdict} at privlab's value, held for {_cell(c.held)}; "
                      f"{_cell(c.flips)}" for s, c in depends if s.id == sid]  # fmt: skip
    else:
        lines += ["No conclusion flips inside the range of a study of a reconstructed value.", ""]
    lines += ["", "| study | moves | conclusion | at the baseline | held for | flips |", "|---|---|---|---|---|---|"]
    for s, o in found:
        if o is None:
            lines.append(f"| `{s.id}` | {s.probes}: {_cell(s.about)} | (no committed outcome yet) | | | |")
            continue
        for c in o.claims:
            if c.checkable:
                flips = (_cell(c.flips) or "never") + (f" ({_cell(c.other)})" if c.other else "")
                lines.append(
                    f"| `{s.id}` | {s.probes} | {_cell(c.claim)} | {c.baseline_verdict} | {_cell(c.held)} | {flips} |"
                )
    return "\n".join([*lines, ""])
