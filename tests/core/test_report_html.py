"""report.html: one self-contained page rendered from the same data model as REPORT.md.

The HTML is checked twice: parsed (every claim row with its verdict, figures embedded as
data: URIs, no network address anywhere) and in a real headless chromium driven by
selenium (no console errors, every image decodes, the verdict filter hides and shows
rows). Without chromium, chromedriver or selenium the browser test is skipped, saying
which is missing.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import time
import warnings
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from privlab import claims as claims_mod
from privlab import ledger, registry, report, runner
from privlab._validation import PrivlabError
from privlab.testing import run_cli

ROOT = Path(__file__).resolve().parents[2]
# in report order (by id): info claims and a 57-row table; agree and disagree; real data
EXPERIMENTS = ("lpb/fig1_lambda", "lpb/table1", "lpb/table2")
FAILED = "lpb/breach_check"  # its failure log is written by the runner's own record_error
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """A results directory with three real lpb runs, one failed experiment and both reports."""
    out = tmp_path_factory.mktemp("results")
    for exp_id in EXPERIMENTS:
        cfg = runner.compose(exp_id, [f"results_dir={out}"])
        runner.execute(exp_id, cfg, results_dir=out, log=lambda message: None)
    try:
        raise RuntimeError("solver crashed <on purpose> & stopped")
    except RuntimeError as exc:
        runner.record_error(out, registry.get(FAILED), exc)
    report.write_report(out)
    return out


def claims_of(results: Path, exp_id: str) -> pd.DataFrame:
    return pd.read_csv(results / exp_id / "claims.csv", keep_default_na=False, dtype=str)


# ---------------------------------------------------------------------------------------
# the page, parsed
# ---------------------------------------------------------------------------------------
class Page(HTMLParser):
    """Collects elements' attributes, claim rows (with their cells' text) and the text of <td>s."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.claim_rows: list[dict] = []
        self._row: dict | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {k: v or "" for k, v in attrs}
        self.elements.append((tag, attributes))
        if tag == "tr" and "claim" in attributes.get("class", "").split():
            self._row = {"attrs": attributes, "cells": []}
        elif tag == "td" and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._row is not None and self._cell is not None:
            self._row["cells"].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.claim_rows.append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def find(self, tag: str, **attrs: str) -> list[dict[str, str]]:
        return [a for t, a in self.elements if t == tag and all(a.get(k) == v for k, v in attrs.items())]


def parse(text: str) -> Page:
    page = Page()
    page.feed(text)
    page.close()
    return page


@pytest.mark.slow
def test_every_claim_row_is_present_with_its_verdict(results):
    page = parse((results / report.HTML_NAME).read_text())
    expected = pd.concat([claims_of(results, e) for e in EXPERIMENTS], ignore_index=True)
    assert len(page.claim_rows) == len(expected) > 0
    for row, (_, claim) in zip(page.claim_rows, expected.iterrows()):
        assert row["attrs"]["data-verdict"] == claim.verdict
        assert f"v-{claim.verdict}" in row["attrs"]["class"].split()
        verdict, _, cause = row["cells"][3].partition(" ")  # a disagreement names its cause (privlab.errata)
        cells = [*row["cells"][:3], verdict, *row["cells"][4:]]
        assert cells == [claim.claim, claim.printed, claim.reproduced, claim.verdict, claim.rule, claim.note]
        assert bool(cause) == (claim.verdict == "disagree")
    assert {"agree", "disagree", "info"} <= set(expected.verdict)


def test_figures_are_embedded_png_data_uris(results):
    page = parse((results / report.HTML_NAME).read_text())
    images = page.find("img")
    pngs = sorted(p for e in EXPERIMENTS for p in (results / e).glob("*.png"))
    assert len(images) == len(pngs) > 0
    for img, png in zip(images, pngs):
        prefix = "data:image/png;base64,"
        assert img["src"].startswith(prefix)
        assert base64.b64decode(img["src"][len(prefix) :]) == png.read_bytes()
        assert img["alt"]


@pytest.mark.slow
def test_figures_stand_beside_the_papers_caption_and_their_claims(results):
    """Each figure beside the caption of the ledger item it names and the claims that read it."""
    model = report.build_report(results)
    figs = {(e.id, f.name): f for p in model.papers for e in p.experiments for f in e.figures}
    fig1 = figs[("lpb/fig1_lambda", "fig1_lambda")]
    item = {i.id: i for i in ledger.load("lpb") or []}["fig1.curves"]
    assert item.caption.startswith("Figure 1.") and [p.caption for p in fig1.paper] == [item.caption]
    claims = claims_of(results, "lpb/fig1_lambda")
    read = claims[claims.ledger.isin(registry.get("lpb/fig1_lambda").figures["fig1_lambda"].ledger)]
    assert len(read) > 0 and [c.claim for c in fig1.claims] == list(read.claim)
    table1 = figs[("lpb/table1", "table1_posteriors")]
    assert table1.about and not table1.paper  # privlab's picture of a table: it says so
    page = (results / report.HTML_NAME).read_text()
    assert f"<q>{item.caption}</q>" in page and "Claims read from it:" in page


def test_no_network_address_anywhere(results):
    text = (results / report.HTML_NAME).read_text()
    assert "http://" not in text.lower() and "https://" not in text.lower()
    page = parse(text)
    csp = page.find("meta", **{"http-equiv": "Content-Security-Policy"})
    assert csp and "default-src 'none'" in csp[0]["content"]
    for tag, attrs in page.elements:
        for key in ("src", "href"):
            if key in attrs:
                value = attrs[key]
                assert value.startswith(("data:", "#")) or ":" not in value.split("/")[0], (tag, value[:80])
                if not value.startswith(("data:", "#")):  # a relative link to a file beside the report
                    assert (results / value).exists(), value
    assert [t for t, a in page.elements if t == "script" and "src" in a] == []
    assert [t for t, a in page.elements if t == "link" and a.get("rel") == "stylesheet"] == []


@pytest.mark.slow
def test_summary_counts_failures_and_coverage_placeholder(results):
    text = (results / report.HTML_NAME).read_text()
    tally = pd.concat([claims_of(results, e) for e in EXPERIMENTS]).verdict.value_counts()
    built = report.build_report(results)
    (lpb,) = built.papers
    assert len(lpb.experiments) == len(EXPERIMENTS) and [f.id for f in lpb.failures] == [FAILED]
    assert lpb.tally == {v: int(tally.get(v, 0)) for v in claims_mod.VERDICTS}
    assert "ledger coverage (checked / total)" in text
    checked, total = ledger.coverage("lpb", results)  # lpb has a ledger: its coverage is in the summary
    assert f"{checked} / {total}" in text and 0 < checked <= total
    assert "solver crashed &lt;on purpose&gt; &amp; stopped" in text  # escaped, not markup
    assert 'href="errors/lpb/breach_check.log"' in text
    with_coverage = report.render_html(report.build_report(results, coverage={"lpb": (3, 7)}))
    assert "3 / 7" in with_coverage
    without = report.render_html(report.build_report(results, coverage={}))
    assert "not yet available" in without  # a paper without a ledger


def test_long_table_first_rows_then_the_rest_on_demand(results):
    text = (results / report.HTML_NAME).read_text()
    n_rows = len(pd.read_csv(results / "lpb" / "fig1_lambda" / "result.csv"))
    assert n_rows > report.MAX_TABLE_ROWS
    section = text[text.index('id="exp-lpb-fig1_lambda"') :]
    section = section[: section.index("</section>")]
    shown, _, more = section[section.index('<table class="result">') :].partition('<details class="more">')
    assert shown.count("<tr>") - 1 == report.MAX_TABLE_ROWS  # minus the header row
    assert more.count("<tr>") - 1 == n_rows - report.MAX_TABLE_ROWS
    assert f"Show the other {n_rows - report.MAX_TABLE_ROWS} rows" in more


def test_provenance_and_data_label(results):
    text = (results / report.HTML_NAME).read_text()
    prov = json.loads((results / "lpb" / "table2" / "provenance.json").read_text())
    section = text[text.index('id="exp-lpb-table2"') :]
    section = section[: section.index("</section>")]
    (label,) = prov["data"]
    assert "synthetic" not in label.lower()
    assert (
        '<span class="badge real">real</span>' in section and label.replace("<", "&lt;").replace(">", "&gt;") in section
    )
    assert f"<code>{prov['git_commit'][:12]}" in section and f"seed {prov['seed']}," in section
    assert f"{prov['workers']} worker(s) of a {prov['host_cores']}-core host" in section
    assert "Reproduces <strong>Table II</strong>" in section


@pytest.mark.slow
def test_markdown_report_from_the_same_model(results):
    text = (results / report.MARKDOWN_NAME).read_text()
    assert "| paper | experiments | agree | disagree | inconclusive | info | failed |" in text
    assert f"| lpb | {len(EXPERIMENTS)} |" in text
    assert "## Failed experiments" in text and "lpb/breach_check" in text
    assert "![lpb/table1 table1_posteriors](lpb/table1/table1_posteriors.png)" in text
    assert "**disagree**" in text and "Data (real): UCI Adult" in text
    checked, total = ledger.coverage("lpb", results)
    assert f"| {checked} / {total} |" in text and "### Ledger: everything lpb prints" in text
    with_coverage = report.render_markdown(report.build_report(results, coverage={"lpb": (3, 7)}))
    assert "| ledger coverage (checked / total) |" in with_coverage and "| 3 / 7 |" in with_coverage


def test_synthetic_data_and_escaping_in_a_built_model(results):
    png = next((results / "lpb" / "table1").glob("*.png"))
    exp = report.ExperimentReport(
        id="toy/coins",
        artifact="Table <1>",
        summary="a & b",
        data=[report.DataSource("CENSUS-like data, synthetic: seeded generator")],
        figures=[report.Figure(name="fig", png=png, href="toy/coins/fig.png", pdf_href=None)],
        table=None,
        claims=[report.ClaimRow("<script>alert(1)</script>", "1", "2", "disagree", "equal", "")],
        provenance=None,
    )
    model = report.Report(papers=[report.PaperReport("toy", "Toy", [exp], [])])
    page = report.render_html(model)
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert '<span class="badge synthetic">synthetic</span>' in page and "Table &lt;1&gt;" in page
    assert "provenance.json missing" in page
    assert "Data (synthetic): CENSUS-like data" in report.render_markdown(model)


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return run_cli(*args, env=env, cwd=ROOT, timeout=300)


def run_main(*args: str) -> int:
    """``privlab ARGS`` in this process (its global settings restored afterwards): the exit status."""
    from privlab import cli

    with warnings.catch_warnings():
        try:
            return cli.main(list(args))
        except SystemExit as exc:
            return int(exc.code or 0)


@pytest.mark.slow
def test_report_command(results, tmp_path, monkeypatch, capsys):
    for name in ("PRIVLAB_MAIN_PID", "PYTHONWARNINGS"):  # main() sets them; restored by monkeypatch
        monkeypatch.setenv(name, os.environ.get(name, ""))
    (results / report.HTML_NAME).unlink()
    assert run_main("report", str(results)) == 0
    assert (results / report.HTML_NAME).is_file() and str(results / report.MARKDOWN_NAME) in capsys.readouterr().out

    monkeypatch.setenv("PRIVLAB_RESULTS", str(tmp_path / "missing"))  # the default results directory
    assert run_main("report") == 2
    assert capsys.readouterr().err.splitlines() == [
        f"privlab: error: results directory {tmp_path / 'missing'} does not exist; run 'privlab reproduce' first"
    ]
    assert not (tmp_path / "missing").exists()

    empty = tmp_path / "empty"  # the real command line: one line on stderr, exit status 2, nothing written
    empty.mkdir()
    bad = cli("report", str(empty))
    lines = [line for line in bad.stderr.splitlines() if line.strip()]
    assert bad.returncode == 2 and len(lines) == 1 and lines[0].startswith("privlab: error: "), bad.stderr
    assert "holds no experiment results" in lines[0] and list(empty.iterdir()) == []


def test_write_report_refuses_an_empty_directory_only_when_asked(tmp_path):
    with pytest.raises(PrivlabError, match="holds no experiment results"):
        report.write_report(tmp_path, require_results=True)
    path = report.write_report(tmp_path)  # privlab reproduce of nothing still writes a (short) report
    assert "No experiment has a result" in path.read_text()
    assert "No experiment has a result" in (tmp_path / report.HTML_NAME).read_text()


# ---------------------------------------------------------------------------------------
# the page, in a real headless browser
# ---------------------------------------------------------------------------------------
def _browser(profile: Path):
    tools = {"chromium": CHROMIUM, "chromedriver": CHROMEDRIVER}
    missing = [f"{name} ({path})" for name, path in tools.items() if not Path(path).exists()]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing.append("the selenium package")
    if missing:
        pytest.skip(
            f"browser test skipped: {', '.join(missing)} missing "
            "(install: apt-get install chromium chromium-driver; pip install selenium)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--window-size=1400,1000",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


# checkVisibility: not display:none and not inside a closed <details> (offsetParent misses the latter)
VISIBLE_CLAIMS = "return Array.from(document.querySelectorAll('tr.claim')).filter(r => r.checkVisibility())" + (
    ".map(r => r.dataset.verdict)"
)


@pytest.mark.slow
def test_report_in_headless_chromium(results, tmp_path):
    start = time.perf_counter()
    driver = _browser(tmp_path / "chromium-profile")
    try:
        driver.get((results / report.HTML_NAME).as_uri())
        severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert severe == [], severe

        # every figure decodes
        sizes = driver.execute_script(
            "return Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.naturalHeight])"
        )
        assert len(sizes) == sum(len(list((results / e).glob("*.png"))) for e in EXPERIMENTS) > 0
        assert all(done and w > 0 and h > 0 for done, w, h in sizes), sizes

        claims = pd.concat([claims_of(results, e) for e in EXPERIMENTS], ignore_index=True)
        assert sorted(driver.execute_script(VISIBLE_CLAIMS)) == sorted(claims.verdict)

        def click(choice: str) -> None:
            driver.find_element("css selector", f"button[data-filter='{choice}']").click()

        def shown(element_id: str) -> bool:
            return driver.find_element("id", element_id).is_displayed()

        click("disagree")
        assert driver.execute_script(VISIBLE_CLAIMS) == ["disagree"] * int((claims.verdict == "disagree").sum())
        assert driver.current_url.endswith("#verdict=disagree")
        assert not shown("paper-lpb-failures")  # failed experiments are listed only under "all"
        assert shown("summary")
        driver.save_screenshot(str(tmp_path / "report-disagree.png"))

        click("info")  # table1 and table2 have no info claim: their sections are hidden
        info = int((claims.verdict == "info").sum())
        assert driver.execute_script(VISIBLE_CLAIMS) == ["info"] * info and info > 0
        assert shown("exp-lpb-fig1_lambda") and not shown("exp-lpb-table1") and not shown("exp-lpb-table2")
        status = driver.find_element("id", "filter-status").text
        assert status == f"showing {info} info claim row{'s' if info != 1 else ''} in 1 experiment"

        click("all")
        assert len(driver.execute_script(VISIBLE_CLAIMS)) == len(claims)
        assert shown("exp-lpb-table1") and shown("paper-lpb-failures")

        # the long table: 40 rows, the rest one click away
        rows = "return Array.from(document.querySelectorAll('#exp-lpb-fig1_lambda table.result tbody tr'))" + (
            ".filter(r => r.checkVisibility()).length"
        )
        n_rows = len(pd.read_csv(results / "lpb" / "fig1_lambda" / "result.csv"))
        assert driver.execute_script(rows) == report.MAX_TABLE_ROWS
        driver.find_element("css selector", "#exp-lpb-fig1_lambda details.more > summary").click()
        assert driver.execute_script(rows) == n_rows

        # a link with the filter in its address opens the filtered page
        driver.get((results / report.HTML_NAME).as_uri() + "#verdict=disagree")
        driver.refresh()
        assert set(driver.execute_script(VISIBLE_CLAIMS)) == {"disagree"}

        # at 1400 px: the ledger fits its box (no horizontal scroll) and no caption is squeezed
        overflow = "return Array.from(document.querySelectorAll('table.ledger'))" + (
            ".map(t => t.scrollWidth - t.parentElement.clientWidth)"
        )
        assert driver.execute_script(overflow) and max(driver.execute_script(overflow)) <= 0
        widths = "return Array.from(document.querySelectorAll('figure figcaption'))" + (
            ".map(c => c.getBoundingClientRect().width)"
        )
        assert min(driver.execute_script(widths)) >= 250

        driver.get((results / report.HTML_NAME).as_uri())
        screenshot = tmp_path / "report.png"
        assert driver.save_screenshot(str(screenshot))
        assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert severe == [], severe
    finally:
        driver.quit()
        shutil.rmtree(tmp_path / "chromium-profile", ignore_errors=True)
    print(f"\nscreenshot: {screenshot} (browser part {time.perf_counter() - start:.1f} s)")


def test_data_labels_differing_in_one_number_merge():
    """isolation_vs_d describes its cube once per d: the page says it once, listing the d's."""
    labels = [
        f"{n:,} points uniform on the hypercube [-1, 1]^{d}, drawn per trial" for n, d in ((10000, 2), (10000, 4))
    ]
    assert report.merge_labels(labels) == ["10,000 points uniform on the hypercube [-1, 1]^{2, 4}, drawn per trial"]
    assert report.merge_labels(["a 1 b 2", "a 3 b 4", "c"]) == ["a 1 b 2", "a 3 b 4", "c"]  # two numbers move: kept


def test_a_figure_taller_than_wide_is_tall(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for name, size in (("tall", (3, 6)), ("wide", (6, 3))):
        fig = plt.figure(figsize=size)
        fig.savefig(tmp_path / f"{name}.png")
        plt.close(fig)

    def figure(name):
        return report.Figure(name, tmp_path / f"{name}.png", f"{name}.png", None)

    assert figure("tall").tall and not figure("wide").tall
