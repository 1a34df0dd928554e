"""Errata: what privlab found in a paper, generated from its ledger.

Every ledger item with a ``finding`` (see `privlab.ledger`) is an erratum: where it stands in
the paper, the text or value as printed, the corrected one, what privlab found, the evidence
(experiments and tests that show it), its kind and a confidence. Only a finding of kind
``error`` (a typo, a wrong number, formula or statement) is an error of the paper; the others
say what they are: ``unreproducible`` (the inputs were lost, nothing can be decided),
``data-dependent`` (a statement about the paper's data that fails on other data), ``notation``,
``reference`` (a wrong cross-reference or citation) and ``remark`` (not an error: loose wording, an
approximation the paper does not call one, an anomaly noted without a correction).

One slip, one finding: a slip that shows up in several places is the finding of one ledger item
whose ``consequences`` name the others (each keeps its printed and corrected value); `findings`
returns the slips, and `summary` counts both the slips and the places.

``privlab errata <paper>`` prints them beside the paper's order (`text`), ``--markdown`` as the
documentation's errata page (`markdown`), ``--kind`` keeps the findings of some kinds, ``--coverage``
prints the ledger's coverage instead (`privlab.audit_coverage`).
`cause` names why a claim disagrees with the paper, for the report and the paper pages.
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Sequence

from . import audit_coverage, ledger, registry
from ._validation import PrivlabError
from .claims import OTHER_DATA, RECONSTRUCTED
from .ledger import FINDING_KINDS, Item

__all__ = [
    "ERROR",
    "LABELS",
    "DESCRIPTION",
    "findings",
    "consequences",
    "counts",
    "place_counts",
    "summary",
    "text",
    "markdown",
    "md_cell",
    "cause",
    "configure",
    "run",
]

ERROR = "error"  # the one kind that is an error of the paper
#: each kind of finding in words, for tables and summaries
LABELS = {
    "error": "error of the paper",
    "unreproducible": "unreproducible (inputs lost)",
    "data-dependent": "data-dependent (fails on other data)",
    "notation": "notation",
    "reference": "wrong reference",
    "remark": "remark (not an error of the paper)",
}
DESCRIPTION = (
    "Print each finding of the paper's ledger beside the paper: its place, the text or value as printed, the "
    "corrected one, what privlab found, the evidence (experiments, tests), its kind and a confidence. Kinds: "
    "error (a typo, a wrong number, formula or statement: the only kind that is an error of the paper), "
    "unreproducible (the inputs were lost), data-dependent (holds on the paper's data, fails on other data), "
    "notation, reference (a wrong cross-reference or citation), remark (not an error: loose wording, an approximation, "
    "an anomaly noted). A slip that shows up in several places is one finding with its consequences listed."
)


def _paper(paper: str) -> str:
    known = registry.papers()
    if paper not in known:
        raise PrivlabError(f"paper must be one of {', '.join(known)}; got {paper!r}")
    return paper


def findings(paper: str, kinds: Sequence[str] = ()) -> list[Item]:
    """The paper's distinct slips: its ledger items with a finding that is no consequence of another
    item's, in the ledger's (the paper's) order; only those of ``kinds`` when given. A paper without a
    ledger is a PrivlabError."""
    _paper(paper)
    bad = [k for k in kinds if k not in FINDING_KINDS]
    if bad:
        raise PrivlabError(f"kind must be one of {', '.join(FINDING_KINDS)}; got {bad[0]!r}")
    items = ledger.load(paper)
    if items is None:
        raise PrivlabError(f"paper {paper} has no ledger ({ledger.path_of(paper).name}), so no findings to print")
    return [i for i in items if i.finding and not i.consequence_of and (not kinds or i.finding_kind in kinds)]


def consequences(paper: str, item: Item) -> list[Item]:
    """The ledger items where ``item``'s slip shows up again, in the order the item lists them."""
    by_id = {i.id: i for i in ledger.load(paper) or []}
    return [by_id[c] for c in item.consequences if c in by_id]


def counts(items: Sequence[Item]) -> dict[str, int]:
    """How many distinct slips of each kind (every kind, in `FINDING_KINDS` order; "" for unclassified
    ones); an item that is a consequence of another's slip is not counted."""
    out = dict.fromkeys(FINDING_KINDS, 0)
    for i in items:
        if not i.consequence_of:
            out[i.finding_kind] = out.get(i.finding_kind, 0) + 1
    return out


def place_counts(items: Sequence[Item]) -> dict[str, int]:
    """How many places the slips of each kind show up in: each slip and its consequences."""
    out = dict.fromkeys(FINDING_KINDS, 0)
    for i in items:
        if not i.consequence_of:
            out[i.finding_kind] = out.get(i.finding_kind, 0) + 1 + len(i.consequences)
    return out


def summary(items: Sequence[Item]) -> str:
    """``5 findings: 3 errors of the paper, 1 unreproducible, 1 notation`` (kinds that occur), one
    finding per distinct slip; where a slip shows up in several places, how many: ``22 findings (30
    places): 15 errors of the paper (in 20 places), ...``."""
    tally, places = counts(items), place_counts(items)

    def part(kind: str, label: str) -> str:
        extra = f" (in {places[kind]} places)" if places[kind] != tally[kind] else ""
        return f"{tally[kind]} {label}{extra}"

    errors = tally[ERROR]
    parts = [part(ERROR, f"error{'s' if errors != 1 else ''} of the paper")]
    parts += [part(kind, kind or "not classified") for kind, n in tally.items() if n and kind != ERROR]
    n, m = sum(tally.values()), sum(places.values())
    where = f" ({m} places)" if m != n else ""
    return f"{n} finding{'s' if n != 1 else ''}{where}: " + ", ".join(parts)


def _consequence_lines(paper: str, item: Item) -> list[str]:
    return [f"{c.id} ({c.where}): {c.printed or c.text} -> {_shown(c.corrected)}" for c in consequences(paper, item)]


def _shown(value: str) -> str:
    return value or "(none can be given)"


def text(paper: str, items: Sequence[Item], width: int = 100) -> str:
    """The errata as plain text: a header with the tally, then each finding."""
    title = registry.papers()[paper].title
    out = [f"{paper}: {title}", f"errata, from the ledger: {summary(items)}"]
    out.append("Only a finding of kind 'error' is an error of the paper; see 'privlab errata --help' for the kinds.")
    for n, i in enumerate(items, start=1):
        out += ["", f"[{n}] {i.id} - {i.where}", f"    kind: {i.finding_kind or 'not classified'}"]
        out[-1] += f", confidence: {i.confidence or 'not given'}"
        for label, value in (
            ("printed", i.printed or i.text),
            ("corrected", _shown(i.corrected)),
            ("finding", i.finding),
            ("evidence", "; ".join(i.evidence) or "(none recorded)"),
            *(("also in", line) for line in _consequence_lines(paper, i)),
        ):
            out += textwrap.wrap(
                value,
                width=width,
                initial_indent=f"    {label + ':':<11}",
                subsequent_indent=" " * 15,
                break_long_words=False,
                break_on_hyphens=False,
            ) or [f"    {label}:"]
    if not items:
        out += ["", "No finding of these kinds."]
    return "\n".join(out)


def md_cell(value: object) -> str:
    """``value`` as one cell of a Markdown table (or inline Markdown): one line, Markdown and HTML
    characters escaped."""
    s = " ".join(str(value).split())
    for ch in "\\`*_[]|":
        s = s.replace(ch, "\\" + ch)
    return s.replace("<", "&lt;").replace(">", "&gt;") or " "


def _evidence(ref: str) -> str:
    return f"`{ref}`" if "`" not in ref else ref


def markdown(paper: str, items: Sequence[Item], heading: str = "#") -> str:
    """The errata as a Markdown page (the documentation's ``errata/<paper>.md``): per finding its
    place, kind and confidence, the printed and the corrected text side by side, what privlab
    found and the evidence."""
    title = registry.papers()[paper].title
    out = [
        f"{heading} Errata: {paper}",
        "",
        f"*{md_cell(title)}*: what privlab found in the paper, generated from its ledger "
        f"(`experiments/{paper}/ledger.yaml` for privlab's own papers)"
        f" (`privlab errata {paper}` prints the same). {summary(items)}.",
        "",
        "Only a finding of kind **error** is an error of the paper. *unreproducible*: the inputs were lost, "
        "nothing can be decided; *data-dependent*: a statement about the paper's data that fails on other data; "
        "*notation*; *reference*: a wrong cross-reference or citation.",
        "",
    ]
    if not items:
        return "\n".join([*out, "No finding recorded.", ""])
    for n, i in enumerate(items, start=1):
        kind = f"**{i.finding_kind}**" if i.finding_kind == ERROR else f"*{i.finding_kind or 'not classified'}*"
        out += [
            f"{heading}# {n}. {md_cell(i.where)}",
            "",
            f"`{i.id}` · {kind} · confidence {i.confidence or 'not given'}",
            "",
            "| where | printed | corrected |",
            "|---|---|---|",
            *(
                f"| {md_cell(c.where)} | {md_cell(c.printed or c.text)} | "
                f"{md_cell(c.corrected) if c.corrected else '(none can be given)'} |"
                for c in (i, *consequences(paper, i))
            ),
            "",
            f"What privlab found: {md_cell(i.finding)}.",
            "",
            "Evidence: " + (", ".join(_evidence(e) for e in i.evidence) or "none recorded") + ".",
            "",
        ]
    return "\n".join(out)


def cause(note: str, item: Item | None, twin_of: str | None = None) -> str:
    """Why a claim disagrees with the paper, in a word or two: its ledger item's finding kind when
    the item records a finding; else privlab's own doing when the claim's note says so
    (`RECONSTRUCTED`), other data (a twin, or `OTHER_DATA`); else "no finding recorded"."""
    if item is not None and item.finding and item.finding_kind:
        return LABELS.get(item.finding_kind, item.finding_kind)
    if note.lstrip().startswith(RECONSTRUCTED):
        return "privlab's reconstruction"
    if twin_of is not None or OTHER_DATA in note:
        return "other data"
    return "no finding recorded"


def configure(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``privlab errata``."""
    parser.add_argument("paper", help="paper key (see 'privlab list')")
    parser.add_argument(
        "--kind",
        action="append",
        choices=FINDING_KINDS,
        help="only findings of this kind (repeatable); 'error' alone lists the errors of the paper",
    )
    parser.add_argument("--markdown", action="store_true", help="print the documentation's errata page")
    parser.add_argument(
        "--coverage",
        action="store_true",
        help="print the ledger's coverage instead: checked / checkable / not checkable with reason (claims "
        "recomputed from the committed reference tables)",
    )


def run(args: argparse.Namespace) -> int:
    """``privlab errata``: print the paper's findings (``--coverage``: its ledger's coverage)."""
    items = findings(args.paper, args.kind or ())
    if getattr(args, "coverage", False):
        found = audit_coverage.coverage(args.paper)
        assert found is not None  # findings() refused a paper without a ledger
        print(audit_coverage.text(found))
        return 0
    print(markdown(args.paper, items) if args.markdown else text(args.paper, items))
    return 0
