"""The four reading audits (issue 27, items 1-4): each on small invented texts, one with a planted slip
of its kind and one without, then over the five papers: every slip found has a result, every result
fits its slip, and the counts the report quotes."""

from __future__ import annotations

from pathlib import Path

import pytest

from privlab import audit_reading as ar
from privlab import ledger

ROOT = Path(__file__).resolve().parents[2]
PAPERS = ("bucketization", "multilevel", "isolation", "lpb", "cae")
TEST = "test:tests/core/test_audit_reading.py::test_every_slip_of_the_five_papers_has_its_result"


# --- consistency ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("0.0137", "1/73", True),  # 0.013699 within half a unit of the 4th decimal
        ("0.0137", "1/74", False),
        ("50%", "0.5", True),
        ("48,842", 48842, True),
        ("(90 - 17)/48842", "0.0015", True),
        ("0.0031", "(16 - 1)/48842", False),
        ("1~99", "17..90", False),
        ("17..90", [17, 90], True),
        ("[2, 4, 8, 16, 32]", [2, 4, 8, 16, 32], True),
        ("5.041", "5.401", False),
        ("Uniform", "uniform", True),
    ],
)
def test_printed_values_compare_at_their_printed_precision(a, b, same):
    assert ar.parse_value(a).agrees(ar.parse_value(b)) is same


def test_consistency_finds_a_value_printed_two_ways(tmp_path):
    (tmp_path / "conf.yaml").write_text("rho2: 0.5\nprinted: {n: {value: 1000}}\n")
    entries = [
        {
            "id": "k.rho2",
            "quantity": "rho2 of Figure 1",
            "places": [{"where": "caption", "value": "0.5"}, {"where": "Section 5", "value": "50%"}],
            "config": [{"file": "conf.yaml", "key": "rho2"}],
        },
        {
            "id": "k.queries",
            "places": [{"where": "Section 5", "value": "1000"}, {"where": "Figure 2", "value": "100"}],
            "config": [{"file": "conf.yaml", "key": "printed.n"}],
        },
    ]
    slips, places, problems = ar.consistency(entries, tmp_path)
    assert (places, problems) == (6, [])
    assert [s.id for s in slips] == ["k.queries"] and "1000 (Section 5) vs 100 (Figure 2)" in slips[0].what
    entries[0]["config"] = [{"file": "conf.yaml", "key": "rho1"}]
    assert ar.consistency(entries, tmp_path)[2] == ["consistency k.rho2: conf.yaml has no key rho1"]


# --- notation -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("check", "slip", "clean", "extra"),
    [
        ("brackets", "Pr[X = x | (Y = y]", "Pr[X = x | (Y = y)]", {}),
        ("event", "Pr[M(D)] = 0.2", "Pr[M(D) = r] = 0.2", {}),
        ("density", "Pr[M(D) = 5.04] = 0.176", "p_{M(D)}(5.04) = 0.176", {"continuous": ["M("]}),
        ("density", "Pr[D_i -> r] / Pr[D_j -> r]", "Pr[X = x | D_i]", {"continuous": ["D_i ->", "D_j ->"]}),
        ("free_and_summed", "Pr[X | Y_i] = a / sum_{i in U} Pr[Y_i]", "Pr[X | Y] = a / sum_{i in U} Pr[Y_i]", {}),
        ("measure", "A = \u222b_0^e H(t)", "A = \u222b_0^e H(t) dt", {}),
    ],
)
def test_notation_checks_find_the_planted_slip_only(check, slip, clean, extra):
    entry = {"id": "n", "checks": [check], **extra}
    assert ar.notation_slips(entry, text=slip), f"{check} missed {slip!r}"
    assert ar.notation_slips(entry, text=clean) == [], f"{check} flagged {clean!r}"


def test_notation_symbols_and_recursions():
    order = ["Section 1", "Section 2", "Section 3"]
    late = {"id": "n", "checks": ["defined"], "symbols": [{"name": "k", "used": "Section 1", "defined": "Section 3"}]}
    assert ar.notation_slips(late, order=order) == ["k is used in Section 1 before its definition in Section 3"]
    early = {"id": "n", "checks": ["defined"], "symbols": [{"name": "k", "used": "Section 2", "defined": "Section 1"}]}
    assert ar.notation_slips(early, order=order) == []
    nowhere = {"id": "n", "checks": ["defined"], "symbols": [{"name": "Y_0", "used": "Section 2", "defined": None}]}
    assert ar.notation_slips(nowhere, order=order) == ["Y_0 is defined nowhere (first used in Section 2)"]
    # H(e, i) from H(e - 1, i) and H(e, i - 1), base cases H(e, 0) and H(e, 1): the first stage reads H(e0 - 1, 2)
    rec = {"name": "H", "first": {"e": 1, "i": 2}, "reads": [{"e": -1}, {"i": -1}], "base": [{"i": 0}, {"i": 1}]}
    entry = {"id": "n", "checks": ["recursion"], "recursion": rec}
    assert ar.notation_slips(entry) == ["reads H at {'e': 0, 'i': 2}, which no base case defines"]
    entry["recursion"] = {**rec, "base": [*rec["base"], {"e": 0}]}  # with the stage before the first defined
    assert ar.notation_slips(entry) == []


# --- direction ------------------------------------------------------------------------------------

LAMBDA = "Delta / log(rho2 * (1 - rho1) / (rho1 * (1 - rho2)))"


@pytest.mark.parametrize(
    ("says", "vary", "fixed", "found"),
    [
        ("increases", {"rho1": [0.01, 0.1]}, [{"rho2": 0.5, "Delta": 1}], "holds"),
        ("decreases", {"rho1": [0.01, 0.1]}, [{"rho2": 0.5, "Delta": 1}], "opposite"),  # the planted slip
        ("increases", {"rho2": [0.2, 0.9]}, [{"rho1": 0.05, "Delta": 1}, {"rho1": 0.1, "Delta": 1}], "opposite"),
        ("decreases", {"rho2": [0.2, 0.9]}, [{"rho1": 0.05, "Delta": 1}], "holds"),
        ("proportional", {"Delta": [0.1, 3]}, [{"rho1": 0.05, "rho2": 0.5}], "holds"),
        ("inversely_proportional", {"Delta": [0.1, 3]}, [{"rho1": 0.05, "rho2": 0.5}], "mixed"),
    ],
)
def test_direction_computes_how_the_formula_moves(says, vary, fixed, found):
    entry = {"id": "d", "where": "S5", "text": "t", "formula": LAMBDA, "says": says, "vary": vary, "fixed": fixed}
    assert ar.direction_of(entry) == found


def test_direction_bounds_and_cases():
    rise = {"id": "d", "formula": "p * g / (p * g + 1 - p) - p", "vary": {"p": [0.001, 0.2]}, "bound": "0.3"}
    assert ar.direction_of({**rise, "says": "at_most", "fixed": [{"g": 4}]}) == "holds"
    assert ar.direction_of({**rise, "says": "at_most", "vary": {"p": [0.001, 0.999]}, "fixed": [{"g": 4}]}) == "mixed"
    assert ar.direction_of({**rise, "says": "at_least", "bound": "0", "fixed": [{"g": 4}]}) == "holds"
    area = {"id": "d", "formula": "Abs(x2 - x1)", "cases": [{"x1": 50, "x2": 107}, {"x1": 77, "x2": 80}]}
    assert ar.direction_of({**area, "says": "larger"}) == "holds"
    assert ar.direction_of({**area, "says": "smaller"}) == "opposite"
    slips = ar.direction([{**area, "says": "smaller", "where": "S3", "text": "smaller for Layla"}])
    assert [(s.id, s.what.split(":")[0]) for s in slips] == [("d", "opposite")]


# --- bibliography ---------------------------------------------------------------------------------

BIB = {
    "entries": [
        {"key": 1, "authors": ["Sweeney"], "title": "k-anonymity: a model. IJUFKS", "year": 2002, "pages": "557-570"},
        {
            "key": 2,
            "authors": ["Adam", "Wortmann"],
            "title": "Statistical databases. ACM Comput. Surv.",
            "year": 1989,
            "volume": 21,
            "pages": "515-556",
        },
        {"key": 3, "authors": ["Li", "Li", "Venkat"], "title": "t-closeness: beyond k-anonymity", "year": 2007},
    ],
    "citations": [
        {"id": "c1", "where": "S2", "text": "Sweeney [1]", "key": 1, "about": ["k-anonymity"]},
        {"id": "c2", "where": "S2", "text": "Adam and Wortmann [2]", "key": 2},
        {"id": "c3", "where": "S2", "text": "Li et al. [3]", "key": 3, "about": ["t-closeness"]},
    ],
    "names": [{"id": "n1", "where": "S2", "text": "t-closeness [3]", "literature": "t-closeness"}],
    "known": [{"venue": "ACM Comput. Surv.", "first_year": 1969, "confidence": "high"}],
}


def _bib(**changes):
    import copy

    data = copy.deepcopy(BIB)
    for path, value in changes.items():
        part, index, key = path.split("__")
        data[part][int(index)][key] = value
    vocab = {"beyond": 3, "statistical": 4, "databases": 3, "anonymity": 2}
    return sorted(s.id for s in ar.bibliography(data, vocab)[0])


def test_a_volume_slip_says_it_rests_on_outside_knowledge():
    import copy

    data = copy.deepcopy(BIB)
    data["entries"][1]["volume"] = 22
    (slip,) = ar.bibliography(data, {})[0]
    assert slip.what == (
        "volume 22 in 1989; ACM Comput. Surv.'s volume of 1989 is 21 (outside knowledge, confidence high)"
    )


def test_bibliography_clean_has_no_slip():
    assert _bib() == []
    assert ar.bibliography(BIB, {})[1] == 3 + 3 + 1


@pytest.mark.parametrize(
    ("change", "slip"),
    [
        ({"entries__1__pages": "46-353"}, "pages:2"),  # a 308-page article
        ({"entries__1__pages": "556-515"}, "pages:2"),
        ({"entries__1__volume": 22}, "volume:2"),  # volume 22 is 1990
        ({"entries__0__year": None}, "year:1"),
        ({"entries__2__title": "t-closeness: beyound k-anonymity"}, "spelling:3:beyound"),
        ({"entries__1__title": "Statisical databases. ACM Comput. Surv."}, "spelling:2:Statisical"),
        ({"citations__0__text": "Samarati and Sweeney [1]"}, "citation:c1"),
        ({"citations__1__text": "Adam et al. [2]"}, "citation:c2"),
        ({"citations__2__text": "Li et el. [3]"}, "citation:c3"),
        ({"citations__0__about": ["l-diversity"]}, "fit:c1"),
        ({"names__0__text": "t-closure [3]"}, "name:n1"),
    ],
)
def test_bibliography_finds_the_planted_slip(change, slip):
    assert _bib(**change) == [slip]


def test_abbreviated_end_pages_are_a_range():
    assert ar._pages("279\u201389") == (279, 289) and ar._pages("14.2\u201314.53") == (2, 53)


def test_cited_names():
    assert ar.cited_names("Samarati and Sweeney[9]") == (["Samarati", "Sweeney"], "two")
    assert ar.cited_names("is first proposed by D. Work[3]") == (["Work"], "one")
    assert ar.cited_names("Machanavajjhala et al [30]") == (["Machanavajjhala"], "many")
    assert ar.cited_names("Truta et el. [39]") == ([], "malformed")
    assert ar.cited_names("differential privacy [16]") == ([], "none")
    assert ar.cited_names("[Chawla, Dwork, McSherry, Talwar]") == ([], "none")
    assert ar.cited_names("Chawla, Dwork, McSherry, Talwar [4]") == (["Chawla", "Dwork", "McSherry", "Talwar"], "all")


# --- over the five papers -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def readings():
    vocab = ar.vocabulary(PAPERS)
    return {p: ar.run(p, root=ROOT, vocab=vocab) for p in PAPERS}


@pytest.mark.slow
@pytest.mark.parametrize("paper", PAPERS)
def test_every_slip_of_the_five_papers_has_its_result(readings, paper):
    reading = readings[paper]
    assert reading.problems == []
    assert all(reading.collected[a] > 0 for a in ar.AUDITS), reading.collected
    items = {i.id: i for i in ledger.load(paper) or []}
    for s in reading.slips:
        result = reading.results[(s.audit, s.id)]
        if not ar.plain(result):
            item = items[result]
            assert item.finding_kind and item.confidence and item.evidence, result
            if s.audit == "notation":
                assert item.finding_kind == "notation" and item.corrected, result


@pytest.mark.parametrize("paper", PAPERS)
def test_every_reading_finding_names_this_test(paper):
    # the findings the four audits made (ledger ids read.*) name the audit as their evidence
    for item in ledger.load(paper) or []:
        if item.id.startswith("read."):
            assert item.finding and TEST in item.evidence and TEST in item.checked_by, item.id


@pytest.mark.slow
def test_counts_table():
    table = ar.counts(list(PAPERS))
    columns = ["paper", "audit", "collected", "places", "slips", "explained", "findings", "problems"]
    assert list(table.columns) == columns
    assert len(table) == len(PAPERS) * len(ar.AUDITS) and table["problems"].sum() == 0
    assert (table["places"] > 0).all() and (table["collected"] > 0).all()
