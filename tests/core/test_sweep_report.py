"""sweep-report: claims across a sweep (sweep_claims.csv, one line per claim, verdict maps), metric
plots with intervals and exact twins, sweep.html in a real browser."""

from __future__ import annotations

import itertools
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab import multirun, sweep_plots, sweeps
from privlab.overrides import sweep_jobs

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


# ---------------------------------------------------------------------------------------
# where a claim holds, in words
# ---------------------------------------------------------------------------------------
def holds(text: str, point: dict) -> bool:
    """Evaluate a description of `sweeps.describe_where` ("where ..." part) at a grid point."""
    for piece in text.split(" or "):
        m = re.fullmatch(r"(\S+) <= (\w+) <= (\S+)", piece)
        if m:
            if float(m[1]) <= point[m[2]] <= float(m[3]):
                return True
            continue
        m = re.fullmatch(r"(\w+) (=|>=|<=) (\S+)", piece)
        assert m, piece
        value, bound = point[m[1]], float(m[3])
        if {"=": value == bound, ">=": value >= bound, "<=": value <= bound}[m[2]]:
            return True
    return False


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(2, 4), min_size=1, max_size=3), st.data())
def test_describe_where_names_exactly_the_chosen_jobs(shape, data):
    keys = ["a", "b", "c"][: len(shape)]
    grid = list(itertools.product(*[[float(v) for v in range(n)] for n in shape]))
    points = pd.DataFrame([{"job": str(i), **dict(zip(keys, p))} for i, p in enumerate(grid)])
    chosen = set(data.draw(st.sets(st.sampled_from(list(points.job)), min_size=1)))
    text = sweeps.describe_where(points, chosen, keys, most=10**6)
    if chosen == set(points.job):
        assert text == "in every job"
    elif text.startswith("where "):
        picked = {row.job for row in points.itertuples() if holds(text[6:], row._asdict())}
        assert picked == chosen, text
    else:
        listed = re.findall(r"\(([^)]*)\)", text)
        assert len(listed) == len(chosen)
        for item in listed:
            point = {k: float(v) for k, v in (kv.split("=") for kv in item.split(", "))}
            (job,) = points.job[(points[keys] == pd.Series(point)).all(axis=1)]
            assert job in chosen


def test_describe_where_prefers_one_parameter():
    points = pd.DataFrame({"job": list("01234567"), "rho2": [0.1, 0.3, 0.5, 0.7] * 2, "s": [1] * 4 + [2] * 4})
    assert sweeps.describe_where(points, {"3", "7"}, ["rho2", "s"]) == "where rho2 = 0.7"
    assert sweeps.describe_where(points, {"2", "3", "6", "7"}, ["rho2", "s"]) == "where rho2 >= 0.5"
    assert sweeps.describe_where(points, {"0", "3", "4", "7"}, ["rho2", "s"]) == "where rho2 = 0.1 or rho2 = 0.7"
    assert sweeps.describe_where(points, {"4", "5", "6", "7"}, ["rho2", "s"]) == "where s = 2"
    assert sweeps.describe_where(points, {"0"}, ["rho2", "s"]) == "at (rho2=0.1, s=1)"


def test_claim_lines():
    points = pd.DataFrame({"job": ["0", "1", "2"], "rho2": [0.3, 0.5, 0.7]})
    frame = pd.DataFrame(
        {
            "job": ["0", "1", "2", "0", "1", "2", "0", "1"],
            "claim": ["a"] * 3 + ["b"] * 3 + ["c"] * 2,
            "printed": ["p"] * 8,
            "verdict": ["agree", "agree", "disagree", "info", "info", "info", "agree", "agree"],
        }
    )
    lines = {c.claim: c.line for c in sweeps.summarise_claims(frame, points, ["rho2"])}
    assert lines == {
        "a": "agree in 2 of 3 jobs; disagrees where rho2 = 0.7",
        "b": "info (not checkable) in every job",
        "c": "agree in 2 of 3 jobs; absent where rho2 = 0.7",
    }


# ---------------------------------------------------------------------------------------
# plots
# ---------------------------------------------------------------------------------------
def test_companions_by_name():
    cols = ["mc", "mc_se", "exact", "mc_breach_rate", "exact_breach_rate", "rate", "rate_se", "H0_unique",
            "H0_unique_exact", "noise_ratio_mean", "noise_ratio_exact", "q", "q_low", "q_high"]  # fmt: skip
    assert sweep_plots.companions("mc", cols) == sweep_plots.Metric("mc", "mc_se", None, None, "exact")
    assert sweep_plots.companions("mc_breach_rate", cols).exact == "exact_breach_rate"
    assert sweep_plots.companions("H0_unique", cols).exact == "H0_unique_exact"
    assert sweep_plots.companions("noise_ratio_mean", cols).exact == "noise_ratio_exact"
    assert sweep_plots.companions("q", cols) == sweep_plots.Metric("q", None, "q_low", "q_high", None)
    assert sweep_plots.companions("rate", cols) == sweep_plots.Metric("rate", "rate_se", None, None, None)


def test_metric_plot_draws_its_table():
    """Series per categorical value, +-1.96 s.e. bars, the exact twin dashed, log y over decades."""
    frame = pd.DataFrame(
        [
            {
                "job": str(j),
                "eps": eps,
                "kind": kind,
                "row": r,
                "y": 10.0**eps * (1 + r),
                "y_se": 0.5,
                "y_exact": 10.0**eps,
            }
            for j, (eps, kind) in enumerate(itertools.product([0.0, 1.0, 2.0, 3.0], ["a", "b"]))
            for r in range(2)
        ]
    )
    metric = sweep_plots.companions("y", list(frame.columns))
    fig = sweep_plots.metric_plot(frame, "eps", metric, panels=None, categorical=["kind"], title="t")
    (ax,) = [a for a in fig.axes if a.get_visible()]
    assert ax.get_yscale() == "log" and ax.get_xscale() == "linear"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert sorted(labels) == ["exact (y_exact), per series", "kind=a", "kind=b"]
    means = [line.get_ydata() for line in ax.lines if line.get_linestyle() == "-"]
    np.testing.assert_allclose(means[0], 1.5 * 10.0 ** np.arange(4))  # the mean over each job's two rows
    exact = [line.get_ydata() for line in ax.lines if line.get_linestyle() == "--"]
    np.testing.assert_allclose(exact[0], 10.0 ** np.arange(4))
    bars = ax.containers[0][2][0].get_segments()  # error bars: mean +- 1.96 * sqrt(2 * 0.5^2) / 2
    np.testing.assert_allclose([s[1, 1] - s[0, 1] for s in bars], 2 * 1.96 * np.sqrt(0.5) / 2)
    assert ax.get_ylabel() == "y (mean over each job's rows)"


def test_verdict_map_shapes():
    frame = pd.DataFrame(
        [
            {"job": str(i), "a": a, "b": b, "c": c, "verdict": "agree" if a < 2 else "disagree"}
            for i, (a, b, c) in enumerate(itertools.product([1, 2, 3], [0.1, 0.2], ["x", "y"]))
        ]
    )
    strip = sweep_plots.verdict_map(frame[frame.b.eq(0.1) & frame.c.eq("x")], ["a"], "one")
    assert len([a for a in strip.axes if a.get_visible()]) == 1
    facets = sweep_plots.verdict_map(frame, ["a", "b", "c"], "three")
    assert [a.get_title() for a in facets.axes if a.get_visible()] == ["c=x", "c=y"]


# ---------------------------------------------------------------------------------------
# a real sweep: lpb/fig1_lambda over rho2
# ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fig1_sweep(tmp_path_factory) -> Path:
    sweep = tmp_path_factory.mktemp("sweeps") / "fig1"
    jobs = sweep_jobs(["rho2=0.3,0.5,0.7", "rho1_points=4"])
    assert multirun.run_sweep("lpb/fig1_lambda", jobs, sweep, workers=1) == []
    sweeps.write_sweep_report(sweep)
    return sweep


@pytest.mark.slow
def test_sweep_claims_table(fig1_sweep):
    claims = pd.read_csv(fig1_sweep / sweeps.CLAIMS_CSV)
    assert list(claims.columns) == ["job", "rho2", "claim", "printed", "reproduced", "verdict", "rule"]
    per_job = [pd.read_csv(fig1_sweep / str(j) / "claims.csv") for j in range(3)]
    assert len(claims) == sum(len(c) for c in per_job) == 3 * len(per_job[0])
    assert sorted(set(claims.rho2)) == [0.3, 0.5, 0.7]
    for j, c in enumerate(per_job):
        mine = claims[claims.job == j]
        assert mine.verdict.tolist() == c.verdict.tolist() and mine.claim.tolist() == c.claim.tolist()


@pytest.mark.slow
def test_report_lines_and_files(fig1_sweep):
    report = sweeps.write_sweep_report(fig1_sweep)
    assert report.summary_lines() == ["lpb/fig1_lambda: 3 jobs, 36 rows; swept: rho2 in {0.3, 0.5, 0.7}"]
    lines = report.claim_lines()
    assert "claim: lambda increases with rho1, age (Figure 1): agree in 3 of 3 jobs" in lines
    assert any(line.endswith("agree in 0 of 3 jobs; disagrees in every job") for line in lines)
    assert (fig1_sweep / "sweep_verdicts.png").is_file() and (fig1_sweep / "sweep_lambda_vs_rho2.png").is_file()
    assert (fig1_sweep / sweeps.HTML_NAME).is_file()


def _browser(profile: Path):
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not Path(p).exists()]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing.append("the selenium package")
    if missing:
        pytest.skip(f"browser test skipped: {', '.join(missing)} missing")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--user-data-dir={profile}", "--window-size=1400,1000"):  # fmt: skip
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


@pytest.mark.slow
def test_sweep_html_in_headless_chromium(fig1_sweep, tmp_path):
    page = fig1_sweep / sweeps.HTML_NAME
    text = page.read_text()
    assert "http://" not in text and "https://" not in text and "default-src 'none'" in text
    driver = _browser(tmp_path / "profile")
    try:
        driver.get(page.as_uri())
        assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []
        sizes = driver.execute_script("return Array.from(document.images).map(i => [i.complete, i.naturalWidth])")
        pngs = [*fig1_sweep.glob("sweep_verdicts*.png"), *fig1_sweep.glob("sweep_*_vs_*.png")]
        assert len(sizes) == len(pngs) > 0 and all(done and w > 0 for done, w in sizes)
        cells = driver.execute_script(
            "return Array.from(document.querySelectorAll('table.verdicts td.cell'))"
            ".filter(c => c.checkVisibility()).map(c => c.dataset.verdict)"
        )
        claims = pd.read_csv(fig1_sweep / sweeps.CLAIMS_CSV)
        assert sorted(cells) == sorted(claims.verdict)  # one visible cell per job and claim, its verdict
        rows = driver.execute_script("return document.querySelectorAll('tr.claim-across').length")
        assert rows == claims.claim.nunique()
        assert driver.save_screenshot(str(tmp_path / "sweep.png"))
    finally:
        driver.quit()
        shutil.rmtree(tmp_path / "profile", ignore_errors=True)


@pytest.mark.slow  # ~30 s: the new-user commands through the command line
def test_new_user_sweep_and_report(cli, results):
    """``privlab run lpb/fig1_lambda rho2=0.3,0.5,0.7 --multirun`` then ``privlab sweep-report DIR``."""
    run = cli("run", "lpb/fig1_lambda", "rho2=0.3,0.5,0.7", "--multirun")
    assert run.returncode == 0, run.stderr
    sweep = Path(run.stdout.splitlines()[0].split("sweep directory: ")[1].split(" (")[0])
    report = cli("sweep-report", str(sweep))
    assert report.returncode == 0, report.stderr
    claims = pd.read_csv(sweep / sweeps.CLAIMS_CSV)
    assert claims.job.nunique() == 3 and len(claims) == 3 * claims.claim.nunique()
    assert "verdict" in claims.columns and sorted(set(claims.rho2)) == [0.3, 0.5, 0.7]
    assert (sweep / "sweep.html").is_file()
    assert report.stdout.count("claim: ") == claims.claim.nunique()
    assert "agree in 3 of 3 jobs" in report.stdout
    bad = cli("sweep-report", str(sweep), "--where", "rho2=0.4")
    assert bad.returncode == 2 and bad.stderr.strip().startswith("privlab: error: --where rho2=0.4 matches no row")


@pytest.mark.slow
def test_sweep_over_mechanisms(tmp_path):
    """``mechanism=[lpb],[differential_identifiability]``: the mechanism is the swept parameter."""
    sweep = tmp_path / "mechanisms"
    jobs = sweep_jobs(["mechanism=[lpb],[differential_identifiability]", "n_responses=2000", "priors=[two_point]"])
    assert multirun.run_sweep("lpb/breach_check", jobs, sweep, workers=1) == []
    report = sweeps.write_sweep_report(sweep)
    assert report.gathered.swept == ["mechanism"]
    claims = pd.read_csv(sweep / sweeps.CLAIMS_CSV)
    assert sorted(set(claims.mechanism)) == ["['differential_identifiability']", "['lpb']"]
    bounded = next(c for c in report.claims if c.claim.startswith("at the calibrated lambda no posterior exceeds"))
    # LPB's lambda keeps every posterior at rho2; differential identifiability's lets it through
    assert bounded.line == "agree in 1 of 2 jobs; disagrees where mechanism = differential_identifiability"
    assert report.metric_figures and (sweep / "sweep.html").is_file()
