"""Ledger coverage (issue 27, item 7): checked / checkable / not checkable with reason, computed from
the ledger and the verdicts of claims; on invented verdicts here (the real ones are recomputed from the
committed reference tables by ``privlab errata --coverage`` and ``python -m privlab.audit``)."""

from __future__ import annotations

import re

import pytest

from privlab import audit_coverage as ac
from privlab import cli, ledger


@pytest.mark.parametrize(
    ("why", "reason"),
    [
        ("the seed lost the plotted values", "the seed lost it"),
        ("privlab has no CENSUS; its synthetic generator is built to them", "the paper's data is not available"),
        ("a definition; Table I's sensitivity uses it", "a definition, input or setting"),
        ("a description of another paper (Lee and Clifton)", "about other work"),
        ("restates the table's decay in d, checked under s24.row1-3", "restates items checked elsewhere"),
        ("an argument about a method privlab does not implement", "outside what privlab runs"),
        ("a paraphrase, no finding", "no finding: a paraphrase or standard usage"),
        ("the motivation of the work", "prose without a number or test"),
    ],
)
def test_reasons_fall_in_their_class(why, reason):
    assert ac.reason_class(why) == reason


def test_coverage_counts_claims_tests_and_reasons():
    items = {i.id: i for i in ledger.load("lpb")}
    verdicts = {"table1.posterior": {"lpb/table1": ["disagree", "agree"]}, "fig1.increases": {"lpb/x": ["info"]}}
    cov = ac.coverage("lpb", verdicts)
    assert cov.total == len(items) and "table1.posterior" in cov.by_claims
    # checked by a test only: every test it names exists in the checkout
    assert "sec5.di_less" in cov.by_tests and "sec5.di_less" not in cov.unchecked
    # a checkable item whose experiments gave only info, or no claim at all, is listed with what it lacks
    assert cov.unchecked["fig1.increases"] == "its claims give only info"
    assert cov.unchecked["table2.max"] == "no claim of lpb/table2 carries its id"
    assert cov.checked + len(cov.unchecked) == cov.checkable
    assert cov.checkable + sum(len(v) for v in cov.not_checkable.values()) == cov.total
    assert "fig1.curves" in cov.not_checkable["the seed lost it"]
    assert "prose.membership_vs_value" in cov.not_checkable["no finding: a paraphrase or standard usage"]
    row = ac.table(["lpb"], {"lpb": cov}).iloc[0]
    assert (row["items"], row["checked"], row["unchecked"]) == (cov.total, cov.checked, len(cov.unchecked))
    assert "checkable, not checked:" in ac.text(cov) and "table2.max: no claim" in ac.text(cov)


def test_errata_coverage_on_the_command_line(capsys, monkeypatch):
    monkeypatch.setattr(ac, "reference_verdicts", lambda paper: {})  # tests only: fast
    assert cli.main(["errata", "isolation", "--coverage"]) == 0
    out = capsys.readouterr().out
    assert re.match(r"isolation: \d+ ledger items; checked \d+ of \d+ checkable", out) and "by reason:" in out
