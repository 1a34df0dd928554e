"""The prose audit (issue 19): each paper's ``<paper>.audit.yaml`` is well formed, every discrepancy it
records is a ledger finding and every prose finding is recorded by it, its counts are the ones the
report quotes, and every value privlab's configs copy from a seed is audited and still what the
audit checked. Below, `privlab.audit` itself on small inputs."""

import textwrap
from collections import Counter
from pathlib import Path

import pytest
import yaml

from privlab import PrivlabError, audit, ledger, registry

ROOT = Path(__file__).resolve().parents[2]
PAPERS = ("bucketization", "multilevel", "isolation", "lpb", "cae")
TEST = "test:tests/core/test_audit.py::test_audit_results_name_ledger_findings"

# per paper: cross-references, citations, terms, values checked; entries lost in extraction;
# the prose findings (ledger items checked by this test) by kind. A change here is a change of
# the audit the report quotes: re-read the seed.
EXPECTED = {
    "bucketization": ((38, 22, 20, 18), 8, {"reference": 4, "error": 1, "notation": 1, "remark": 1}),
    "multilevel": ((6, 2, 13, 9), 1, {"notation": 4}),
    "isolation": ((7, 7, 9, 5), 0, {}),
    "lpb": ((10, 12, 11, 10), 0, {"reference": 3, "notation": 2}),
    "cae": ((16, 21, 14, 10), 1, {"reference": 4, "error": 1, "notation": 2}),
}


def prose_items(paper):
    return [item for item in ledger.load(paper) or [] if TEST in item.checked_by]


@pytest.mark.parametrize("paper", PAPERS)
def test_audit_is_well_formed(paper):
    found = audit.load(paper)
    assert found is not None, f"{paper} has no audit"
    assert found.paper == paper
    assert found.seed == registry.papers()[paper].text
    assert all(e.text and e.target and e.where for e in found.entries)


@pytest.mark.parametrize("paper", PAPERS)
def test_audit_results_name_ledger_findings(paper):
    found, problems = audit.findings(audit.load(paper), ledger.load(paper) or [])
    assert problems == []
    for item in found.values():  # a finding the audit points at is classified like every finding
        assert item.finding_kind in ledger.FINDING_KINDS, item.id
        assert item.confidence in ledger.CONFIDENCES, item.id


@pytest.mark.parametrize("paper", PAPERS)
def test_every_prose_finding_is_recorded_by_the_audit(paper):
    referenced = {e.result for e in audit.load(paper).entries}
    for item in prose_items(paper):
        assert item.id in referenced, f"{item.id} is checked by the audit but no audit entry names it"
        assert item.finding and item.finding_kind and item.printed, item.id
        assert TEST in item.evidence, item.id


@pytest.mark.parametrize("paper", PAPERS)
def test_audit_counts(paper):
    per_category, lost, kinds = EXPECTED[paper]
    counts = audit.counts(paper)
    assert tuple(counts[c] for c in audit.CATEGORIES) == per_category
    assert counts["lost"] == lost
    assert dict(Counter(item.finding_kind for item in prose_items(paper))) == kinds
    assert counts["findings"] >= sum(kinds.values())  # the prose findings and the ledger's own the audit met


@pytest.mark.slow
@pytest.mark.parametrize("paper", PAPERS)
def test_privlab_copies_are_what_the_audit_checked(paper):
    assert audit.check_copies(audit.load(paper), ROOT) == []


@pytest.mark.parametrize("paper", PAPERS)
def test_every_printed_value_is_audited(paper):
    """A config's printed: block may copy a value from the seed only once the audit has checked it."""
    audited = {(c.file, c.key) for c in audit.load(paper).privlab if c.key}
    missing = []
    paths = sorted((ROOT / "experiments" / paper / "conf" / "experiment" / paper).glob("*.yaml"))
    assert paths, f"no configs of {paper}"
    for path in paths:
        config = yaml.safe_load(path.read_text()) or {}
        rel = str(path.relative_to(ROOT))
        missing += [f"{rel} {key}" for key, _ in audit.printed_values(config) if (rel, key) not in audited]
    assert missing == [], "audit these against the seed (privlab section of the paper's .audit.yaml)"


def test_summary_table_has_a_row_per_audited_paper():
    table = audit.summary(list(PAPERS))
    assert list(table["paper"]) == list(PAPERS)
    assert {*audit.CATEGORIES, "lost", "findings", *ledger.FINDING_KINDS, "privlab checked"} <= set(table.columns)
    text = audit.markdown(table)
    assert text.splitlines()[0].startswith("| paper | cross-reference | citation | term | value |")
    assert len(text.splitlines()) == 2 + len(PAPERS)


# --- the module on small inputs ----------------------------------------------------------------

GOOD = """
paper: toy
seed: toy.txt
entries:
  - {id: x.one, category: cross-reference, where: Section 1, text: see Section 2, target: Section 2, result: ok}
  - {id: c.one, category: citation, where: Section 1, text: "Smith [1]", target: "[1] Jones", result: bad.cite}
privlab:
  - {file: conf.yaml, key: printed.n, data: {value: 3}, seed: Table 1, result: ok}
  - {file: notes.md, text: "Jones [1]", seed: reference list, result: ok}
"""


def write(tmp_path, text):
    path = tmp_path / "toy.audit.yaml"
    path.write_text(textwrap.dedent(text))
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("category: citation", "category: quote"), "category must be one of"),
        (("id: c.one", "id: x.one"), "appears twice"),
        (("result: bad.cite", "result: lost"), "a lost entry says in its note"),
        (("target: Section 2, ", ""), "target is missing"),
        (("result: ok}\n  - {file: notes.md", "result: guessed}\n  - {file: notes.md"), "result must be one of"),
        (("key: printed.n, data: {value: 3}", "key: printed.n"), "a key needs the data"),
        (('text: "Jones [1]", seed', "seed"), "give a key (with its data) or a text"),
        (("where: Section 1, text: see", "wher: Section 1, text: see"), "unknown key(s) wher"),
    ],
)
def test_read_rejects_malformed_audits(tmp_path, change, message):
    old, new = change
    assert old in GOOD
    with pytest.raises(PrivlabError, match=message.replace("(", r"\(").replace(")", r"\)")):
        audit.read(write(tmp_path, GOOD.replace(old, new, 1)))


def test_findings_names_entries_without_a_ledger_finding(tmp_path):
    toy = audit.read(write(tmp_path, GOOD))
    items = [ledger.Item("bad.cite", "Section 1", "text", "Smith [1]", not_checkable="x")]
    assert audit.findings(toy, items)[1] == ["toy c.one: ledger item 'bad.cite' records no finding"]
    assert audit.findings(toy, [])[1] == ["toy c.one: result 'bad.cite' is no ledger item"]
    with_finding = [ledger.Item("bad.cite", "S1", "text", "t", finding="[1] is Jones", finding_kind="reference")]
    found, problems = audit.findings(toy, with_finding)
    assert (list(found), problems) == (["bad.cite"], [])


def test_check_copies_reports_a_changed_value_or_text(tmp_path):
    toy = audit.read(write(tmp_path, GOOD))
    (tmp_path / "conf.yaml").write_text("printed:\n  n: {claim: rows, value: 3}\n")
    (tmp_path / "notes.md").write_text("as Jones [1] shows\n")
    assert audit.check_copies(toy, tmp_path) == []
    (tmp_path / "conf.yaml").write_text("printed:\n  n: {claim: rows, value: 4}\n")
    (tmp_path / "notes.md").write_text("as Jones (2001) shows\n")
    assert audit.check_copies(toy, tmp_path) == [
        "toy conf.yaml printed.n: holds {'value': 4}, the audit checked {'value': 3}",
        "toy notes.md: no longer contains 'Jones [1]'",
    ]
    (tmp_path / "conf.yaml").write_text("printed: {}\n")
    (tmp_path / "notes.md").unlink()
    assert audit.check_copies(toy, tmp_path) == ["toy conf.yaml printed.n: no such key", "toy notes.md: no such file"]


def test_printed_values_takes_value_nodes_and_plain_rows_with_digits():
    config = yaml.safe_load(
        textwrap.dedent(
            """
            printed:
              rows: {claim: three rows, where: Table 1, value: 3, ledger: t1}
              words: {claim: a statement, value: slightly}
              row: {max: 90, min: 17}
              prose: {claim: "rule 2", where: Section 2}
              group:
                inner: {claim: x, values: ["0.5", "0.25"], note: "9 digits"}
            """
        )
    )
    assert list(audit.printed_values(config)) == [
        ("printed.rows", {"value": 3}),
        ("printed.row", {"max": 90, "min": 17}),
        ("printed.group.inner", {"values": ["0.5", "0.25"]}),
    ]
