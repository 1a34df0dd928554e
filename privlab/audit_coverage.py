"""Ledger coverage: of every item a paper's ledger lists, what is checked, what could be and is not,
and why the rest cannot be.

An item is *checked* when a claim that carries its id reaches ``agree`` or ``disagree`` on the
committed reference tables (recomputed here from them, `reference_verdicts`, or read from a results
folder), or a test its ``checked_by`` names exists. It is *checkable* when its ``checked_by`` names
something; a checkable item that is not checked is listed with what it lacks (its claims only give
``info``, or no claim carries its id, or the test does not exist). The rest says ``not_checkable``
why (an item whose experiments give only ``info`` may say it too: the paper's data is not
available, the seed lost the value), each reason put in one of `REASONS` by the words it uses.

``privlab errata <paper> --coverage`` prints one paper's coverage; ``python -m privlab.audit`` the
table of the five (`table`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from . import audit, audit_reading, ledger, registry
from .check import read_reference, reference_path
from .runner import compose

#: the classes of "why not checkable", in the order they are tried, with the words that mark each
REASONS = (
    ("no finding: a paraphrase or standard usage", r"paraphrase|no finding"),
    ("the seed lost it", r"\blost\b"),
    ("the paper's data is not available", r"privlab has no|not available|ships no"),
    (
        "a definition, input or setting",
        r"definition|notation|numbering|outline|\binputs?\b|parameter|setting|choice"
        r"|method privlab follows|design|environment|how the tables are built|equation numbers|example's inputs",
    ),
    (
        "about other work",
        r"other (?:paper|work|authors)|another paper|literature|attribution|survey|quotation"
        r"|citation|Lee and Clifton|later work",
    ),
    (
        "restates items checked elsewhere",
        r"restates|checked (?:at|as|under)|concrete (?:forms|instances)"
        r"|statements read off|its measurable parts|instance of it",
    ),
    (
        "outside what privlab runs",
        r"privlab (?:simulates|ships no|perturbs)|does not implement|not modelled"
        r"|not run|not measured|no procedure|not named|not given|used to reconstruct",
    ),
    ("prose without a number or test", r"."),
)


def reason_class(why: str) -> str:
    """The class of `REASONS` a not-checkable reason falls in."""
    return next(name for name, pattern in REASONS if re.search(pattern, why, re.IGNORECASE))


@dataclass
class Coverage:
    paper: str
    total: int = 0
    by_claims: list[str] = field(default_factory=list)  # checked: a claim agrees or disagrees
    by_tests: list[str] = field(default_factory=list)  # checked: by a test only
    unchecked: dict[str, str] = field(default_factory=dict)  # checkable, not checked: id -> what it lacks
    not_checkable: dict[str, list[str]] = field(default_factory=dict)  # reason class -> ids

    @property
    def checked(self) -> int:
        return len(self.by_claims) + len(self.by_tests)

    @property
    def checkable(self) -> int:
        return self.checked + len(self.unchecked)


def reference_verdicts(paper: str, profile: str = "quick") -> dict[str, dict[str, list[str]]]:
    """Per ledger id, per experiment, the verdicts of the claims the experiment draws from its
    committed reference table (twins on other data left out: they check privlab's stand-in)."""
    out: dict[str, dict[str, list[str]]] = {}
    for exp in registry.select(paper=paper):
        if exp.twin_of is not None:
            continue
        path = reference_path(exp, profile)
        if not path.is_file():
            continue
        for claim in exp.check_claims(read_reference(exp, path), compose(exp.id)):
            if claim.ledger:
                out.setdefault(claim.ledger, {}).setdefault(exp.id, []).append(claim.verdict)
    return out


def coverage(paper: str, verdicts: Mapping[str, Mapping[str, Sequence[str]]] | None = None) -> Coverage | None:
    """The paper's coverage from ``verdicts`` (ledger id -> experiment -> verdicts; by default those of
    the committed reference tables); None without a ledger."""
    items = ledger.load(paper)
    if items is None:
        return None
    verdicts = reference_verdicts(paper) if verdicts is None else verdicts
    root = registry.papers()[paper].root
    out = Coverage(paper, total=len(items))
    for item in items:
        found = [v for vs in (verdicts.get(item.id) or {}).values() for v in vs]
        tests = [t for t in item.checked_by if t.startswith("test:")]
        if {"agree", "disagree"} & set(found):
            out.by_claims.append(item.id)
        elif tests and all(ledger.test_exists(t, root) for t in tests):
            out.by_tests.append(item.id)
        elif item.checked_by and not item.not_checkable:
            experiments = [c for c in item.checked_by if not c.startswith("test:")]
            missing = [t for t in tests if not ledger.test_exists(t, root)]
            lacks = (
                f"no test {', '.join(missing)}"
                if missing
                else f"its claims give only {', '.join(sorted(set(found)))}"
                if found
                else f"no claim of {', '.join(experiments)} carries its id"
            )
            out.unchecked[item.id] = lacks
        else:
            out.not_checkable.setdefault(reason_class(item.not_checkable), []).append(item.id)
    return out


def table(papers: Sequence[str] | None = None, results: Mapping[str, Coverage] | None = None) -> pd.DataFrame:
    """One row per paper: items, checked (by claims, by tests), checkable, checkable but unchecked, not
    checkable, and the not-checkable items per reason class."""
    keys = list(papers) if papers is not None else list(registry.papers())
    rows = []
    for paper in keys:
        cov = (results or {}).get(paper) or coverage(paper)
        if cov is None:
            continue
        reasons = Counter({k: len(v) for k, v in cov.not_checkable.items()})
        rows.append(
            {
                "paper": paper,
                "items": cov.total,
                "checked": cov.checked,
                "by claims": len(cov.by_claims),
                "by tests": len(cov.by_tests),
                "checkable": cov.checkable,
                "unchecked": len(cov.unchecked),
                "not checkable": sum(reasons.values()),
                **{name: reasons.get(name, 0) for name, _ in REASONS},
            }
        )
    return pd.DataFrame(rows)


def text(cov: Coverage) -> str:
    """One paper's coverage in words: the counts, each checkable item left unchecked and why, and the
    not-checkable items per reason."""
    out = [
        f"{cov.paper}: {cov.total} ledger items; checked {cov.checked} of {cov.checkable} checkable "
        f"({len(cov.by_claims)} by claims on the reference tables, {len(cov.by_tests)} by tests); "
        f"{cov.total - cov.checkable} not checkable"
    ]
    if cov.unchecked:
        out += ["", "checkable, not checked:"] + [f"  {k}: {v}" for k, v in cov.unchecked.items()]
    if cov.not_checkable:
        out += ["", "not checkable, by reason:"]
        out += [f"  {name} ({len(ids)}): {', '.join(ids)}" for name, ids in cov.not_checkable.items()]
    return "\n".join(out)


def results_verdicts(paper: str, results_dir: Path) -> dict[str, dict[str, list[str]]]:
    """The same mapping as `reference_verdicts`, read from a results folder's claims (`ledger.rows`)."""
    return {r.item.id: r.verdicts for r in ledger.rows(paper, results_dir) or [] if r.verdicts}


def main() -> None:
    """``python -m privlab.audit``: the prose audit's counts per paper, the four reading audits' counts
    per paper and audit (`privlab.audit_reading`), and the ledgers' coverage (`privlab.audit_coverage`)."""
    print("## The prose audit\n")
    print(audit.markdown(audit.summary()))
    print("\n## The reading audits: consistency, notation, direction, bibliography\n")
    print(audit.markdown(audit_reading.counts()))
    print("\n## Ledger coverage (claims recomputed from the committed quick reference tables)\n")
    print(audit.markdown(table()))
