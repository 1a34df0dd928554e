"""The claims ledger: items, their status from the claims of a run, coverage, validation."""

import pytest

from privlab import PrivlabError, ledger, report, runner

EXPERIMENT = '''
"""A paper with a ledger."""
import pandas as pd

from privlab import claims as cl
from privlab.params import Int
from privlab.registry import Paper, experiment

PAPER = Paper("Ledgered - a paper with an inventory")


@experiment(artifact="T1", summary="one table", keys=("x",), params={"n": Int(1, 10)})
def table(cfg, ctx):
    return pd.DataFrame({"x": range(cfg.n)})


@table.claims
def _(df, cfg):
    p = cfg.printed
    return [cl.equal(p.rows, len(df)), cl.equal(p.wrong, len(df)), cl.info(p.shown, "3")]
'''
CONFIG = """
# @package _global_
n: 3
printed:
  rows: {claim: the table has 3 rows, value: 3, ledger: t1.rows}
  wrong: {claim: the text says 4 rows, value: 4, ledger: text.rows}
  shown: {claim: a number shown for reading, ledger: t1.shown, note: not printed}
"""
LEDGER = """
items:
  - {id: t1.rows, where: Table 1, kind: table, text: three rows, checked_by: [ledgered/table]}
  - {id: text.rows, where: Section 2, kind: number, text: four rows, checked_by: [ledgered/table]}
  - {id: t1.shown, where: Table 1, kind: number, text: a value, checked_by: [ledgered/table]}
  - {id: eq1, where: Eq. (1), kind: formula, text: a formula, checked_by: ["test:tests/t.py::test_eq1"]}
  - {id: fig1, where: Figure 1, kind: figure, text: a diagram, not_checkable: no number in it}
  - {id: later, where: Section 3, kind: statement, text: not yet looked at, checked_by: [ledgered/other]}
"""


@pytest.fixture()
def root(paper_root):
    return paper_root(
        {
            "ledgered/__init__.py": EXPERIMENT,
            "ledgered/ledger.yaml": LEDGER,
            "ledgered/conf/experiment/ledgered/table.yaml": CONFIG,
            "tests/t.py": "def test_eq1():\n    assert 1 + 1 == 2\n",
        }
    )


def test_status_and_coverage(root, tmp_path):
    cfg = runner.compose("ledgered/table")
    runner.execute("ledgered/table", cfg, results_dir=tmp_path / "results", log=lambda m: None)
    status = {r.item.id: r.status for r in ledger.rows("ledgered", tmp_path / "results")}
    assert status == {
        "t1.rows": "agree",
        "text.rows": "disagree",
        "t1.shown": "info",
        "eq1": "checked by a test",
        "fig1": "not checkable",
        "later": "not yet checked",
    }
    assert ledger.coverage("ledgered", tmp_path / "results") == (3, 6)
    assert ledger.coverage("ledgered", None) == (1, 6)  # without results only the test counts
    assert sorted(ledger.references(dict(cfg.printed))) == ["t1.rows", "t1.shown", "text.rows"]
    report.write_report(tmp_path / "results")
    md = (tmp_path / "results" / "REPORT.md").read_text()
    assert "### Ledger: everything ledgered prints, and what checks it (3 of 6 items checked)" in md
    assert "| text.rows | Section 2 | number | four rows | **disagree** | ledgered/table (disagree) |" in md
    html = (tmp_path / "results" / "report.html").read_text()
    assert 'class="ledger-item" data-status="not yet checked"' in html and "3 / 6" in html


@pytest.mark.parametrize(
    "text, message",
    [
        ("items:\n  - {id: a, kind: poem, text: x, checked_by: [p/x]}\n", "kind must be one of"),
        ("items:\n  - {id: a, kind: table, text: x}\n", "give checked_by"),
        ("items:\n  - {id: a, kind: table, checked_by: [x]}\n  - {id: a, kind: table, checked_by: [x]}\n", "twice"),
        ("items:\n  - {id: a, kind: table, colour: red, checked_by: [x]}\n", r"unknown key\(s\) colour"),
        ("items: [\n", "not valid YAML"),
    ],
)
def test_malformed_ledger_is_one_line(root, text, message):
    (root / "ledgered" / "ledger.yaml").write_text(text)
    with pytest.raises(PrivlabError, match=message):
        ledger.load("ledgered")


def test_a_paper_without_ledger():
    assert ledger.coverage("lpb", None) is None or isinstance(ledger.coverage("lpb", None), tuple)
