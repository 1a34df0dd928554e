"""The claims ledger: every item a paper prints, and what checks it.

A paper may have a ledger, ``ledger.yaml`` in its experiment unit (privlab's own: ``experiments/<paper>/``;
see `privlab.registry` for other papers), the inventory of the seed:
every table, figure, worked example, displayed formula, in-text number, description of
the data and statement, each with where it appears and either what checks it or why it
cannot be checked::

    items:
      - id: table1.posterior
        where: Table I
        kind: table
        text: the informed adversary's posterior for each candidate value
        checked_by: [lpb/table1]                 # experiments whose claims carry `ledger: table1.posterior`
      - id: eq5.posterior
        where: Section III.A, Eq. (5)
        kind: formula
        text: Pr[X = u | r] proportional to Pr[X = u] exp(-|r - f(D_u)| / lambda)
        checked_by: [test:tests/lpb/test_formulas.py::test_posterior_formula]
      - id: fig6.layout
        where: Figure 6
        kind: figure
        text: the layout of the experimental pipeline
        not_checkable: a diagram, no number or statement to recompute

An item whose ``finding`` is a slip of the paper that shows up again elsewhere lists those items in
``consequences`` (one slip, one finding: each keeps its own printed and corrected value, and `load`
sets its ``consequence_of``); a finding of kind ``remark`` is not an error of the paper (loose wording,
an approximation, an anomaly noted).

An experiment's claim points at an item through the ``ledger:`` key of its ``printed:``
entry. An item counts as *checked* when a claim with its id reached ``agree`` or
``disagree`` in the results, or a test listed in ``checked_by`` exists; coverage is checked
items over all items.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from . import registry, store
from ._validation import PrivlabError

# libyaml's parser where PyYAML has it: the same documents, several times faster
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

KINDS = ("table", "figure", "example", "formula", "number", "data", "statement", "text")
# what a finding is: only `error` is an error of the paper
FINDING_KINDS = ("error", "unreproducible", "data-dependent", "notation", "reference", "remark")
CONFIDENCES = ("high", "medium", "low")
STATUSES = ("agree", "disagree", "checked by a test", "inconclusive", "info", "not checkable", "not yet checked")


@dataclass(frozen=True)
class Item:
    id: str
    where: str
    kind: str
    text: str
    checked_by: tuple[str, ...] = ()
    not_checkable: str = ""
    finding: str = ""  # what privlab found, where the paper is wrong (shown beside the verdict)
    finding_kind: str = ""  # one of FINDING_KINDS; required with a finding
    printed: str = ""  # the text or value as the paper prints it (errata)
    corrected: str = ""  # the corrected text or value ("" where none can be given, e.g. unreproducible)
    evidence: tuple[str, ...] = ()  # experiment ids and test:... references that show the finding
    confidence: str = ""  # one of CONFIDENCES; required with a finding
    caption: str = ""  # a figure's caption as the paper prints it (shown beside privlab's figure)
    consequences: tuple[str, ...] = ()  # ids of the items where this finding's slip shows up again
    consequence_of: str = ""  # the item whose slip this finding is a consequence of (set by `load`)


@dataclass
class Row:
    item: Item
    status: str
    verdicts: dict[str, list[str]] = field(default_factory=dict)  # experiment id -> verdicts of its claims


def path_of(paper: str) -> Path:
    path = registry.papers()[paper].ledger_path
    assert path is not None
    return path


def load(paper: str) -> list[Item] | None:
    """The paper's ledger items, or None when the paper has no ledger; a malformed ledger is one line."""
    path = path_of(paper)
    if not path.is_file():
        return None
    try:
        data = yaml.load(path.read_text(), Loader=_LOADER) or {}
    except yaml.YAMLError as exc:
        raise PrivlabError(f"{path}: not valid YAML ({str(exc).splitlines()[0]})") from None
    items, seen = [], set()
    for i, raw in enumerate(data.get("items") or [], start=1):
        where = f"{path.name} item {i}"
        if not isinstance(raw, dict) or not raw.get("id"):
            raise PrivlabError(f"{where}: an item is a mapping with an id")
        unknown = set(raw) - {
            "id",
            "where",
            "kind",
            "text",
            "checked_by",
            "not_checkable",
            "finding",
            "finding_kind",
            "printed",
            "corrected",
            "evidence",
            "confidence",
            "caption",
            "consequences",
        }
        if unknown:
            raise PrivlabError(f"{where} ({raw['id']}): unknown key(s) {', '.join(sorted(unknown))}")
        if raw["id"] in seen:
            raise PrivlabError(f"{where}: id {raw['id']!r} appears twice")
        seen.add(raw["id"])
        if raw.get("kind") not in KINDS:
            raise PrivlabError(
                f"{where} ({raw['id']}): kind must be one of {', '.join(KINDS)}; got {raw.get('kind')!r}"
            )
        for key, allowed in (("finding_kind", FINDING_KINDS), ("confidence", CONFIDENCES)):
            if raw.get(key) is not None and raw.get(key) not in allowed:
                choices = ", ".join(allowed)
                raise PrivlabError(f"{where} ({raw['id']}): {key} must be one of {choices}; got {raw[key]!r}")
        if not raw.get("finding") and any(raw.get(k) for k in ("finding_kind", "corrected", "evidence", "confidence")):
            raise PrivlabError(f"{where} ({raw['id']}): finding_kind, corrected, evidence, confidence need a finding")
        checked_by = tuple(raw.get("checked_by") or ())
        if not checked_by and not raw.get("not_checkable"):
            raise PrivlabError(f"{where} ({raw['id']}): give checked_by (experiments or tests) or not_checkable: why")
        items.append(
            Item(
                str(raw["id"]),
                str(raw.get("where", "")),
                raw["kind"],
                str(raw.get("text", "")),
                checked_by,
                str(raw.get("not_checkable") or ""),
                str(raw.get("finding") or ""),
                str(raw.get("finding_kind") or ""),
                str(raw.get("printed") or ""),
                str(raw.get("corrected") or ""),
                tuple(str(e) for e in raw.get("evidence") or ()),
                str(raw.get("confidence") or ""),
                str(raw.get("caption") or ""),
                tuple(str(c) for c in raw.get("consequences") or ()),
            )
        )
    return _link_consequences(items, path.name)


def _link_consequences(items: list[Item], name: str) -> list[Item]:
    """One slip, one finding: an item's ``consequences`` name the other items where the same slip shows
    up; each is a finding of the same kind, of one slip only, and gets ``consequence_of`` set."""
    by_id = {i.id: i for i in items}
    owner: dict[str, str] = {}
    for item in items:
        if item.consequences and not item.finding:
            raise PrivlabError(f"{name} ({item.id}): consequences need a finding")
        for cid in item.consequences:
            other = by_id.get(cid)
            if other is None or not other.finding:
                raise PrivlabError(f"{name} ({item.id}): consequence {cid!r} is no item with a finding")
            if cid == item.id or other.consequences:
                raise PrivlabError(f"{name} ({item.id}): consequence {cid!r} is a slip of its own")
            if other.finding_kind != item.finding_kind:
                raise PrivlabError(
                    f"{name} ({item.id}): consequence {cid!r} is of kind {other.finding_kind!r}, "
                    f"the slip of kind {item.finding_kind!r}"
                )
            if cid in owner:
                raise PrivlabError(f"{name} ({item.id}): consequence {cid!r} is already one of {owner[cid]!r}")
            owner[cid] = item.id
    return [replace(i, consequence_of=owner[i.id]) if i.id in owner else i for i in items]


def test_exists(ref: str, root: Path | None) -> bool:
    """``test:tests/x.py::test_name`` names an existing test function under ``root``. An installed
    privlab ships no tests: there the ledger is trusted (the checkout's ledger test checks each name)."""
    file, _, name = ref.removeprefix("test:").partition("::")
    if root is None or not (root / "tests").is_dir():
        return True
    path = root / file
    return path.is_file() and (
        not name or re.search(rf"^\s*def {re.escape(name.split('[')[0])}\(", path.read_text(), re.M) is not None
    )


def rows(paper: str, results_dir: Path | None) -> list[Row] | None:
    """Each ledger item with its status, from the claims in ``results_dir`` (None: tests only)."""
    items = load(paper)
    if items is None:
        return None
    root = registry.papers()[paper].root
    verdicts: dict[str, dict[str, list[str]]] = {}
    for exp in registry.select(paper=paper):
        if exp.twin_of is not None:  # a twin on other data checks privlab's stand-in, not what the paper printed
            continue
        path = Path(results_dir) / exp.paper / exp.name / "claims.csv" if results_dir else None
        if path is None or not path.is_file():
            continue
        try:
            claims = store.read_claims(path)
        except PrivlabError:  # a damaged claims file: the report says so in that experiment's row
            continue
        if "ledger" not in claims.columns:
            continue
        for lid, verdict in zip(claims["ledger"], claims["verdict"]):
            if lid:
                verdicts.setdefault(lid, {}).setdefault(exp.id, []).append(verdict)
    out = []
    for item in items:
        seen = verdicts.get(item.id, {})
        flat = [v for vs in seen.values() for v in vs]
        tests = [t for t in item.checked_by if t.startswith("test:") and test_exists(t, root)]
        if "disagree" in flat:
            status = "disagree"
        elif "agree" in flat:
            status = "agree"
        elif tests:
            status = "checked by a test"
        elif "inconclusive" in flat:  # checked, but this run's data could not decide it
            status = "inconclusive"
        elif item.not_checkable:
            status = "not checkable"
        elif flat:
            status = "info"
        else:
            status = "not yet checked"
        out.append(Row(item, status, seen))
    return out


def coverage(paper: str, results_dir: Path | None) -> tuple[int, int] | None:
    """(checked, total) items of the paper's ledger; None without a ledger."""
    found = rows(paper, results_dir)
    if found is None:
        return None
    checked = sum(r.status in ("agree", "disagree", "checked by a test") for r in found)
    return checked, len(found)


def references(config: Any) -> list[str]:
    """Every ``ledger:`` id a config's ``printed:`` block points at."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, Mapping):
            if isinstance(node.get("ledger"), str):
                found.append(node["ledger"])
            for v in node.values():
                walk(v)
        elif isinstance(node, (list, tuple)) or type(node).__name__ == "ListConfig":
            for v in node:
                walk(v)

    walk(config)
    return found


def unresolved(exp: registry.Experiment, cfg: Any) -> list[str]:
    """Every ledger id that ``exp`` names and its paper's ledger lacks, one line each: the ids of its
    config's ``printed:`` entries (which its claims carry) and of its figures. A paper without a
    ledger resolves no id. ``privlab check`` and the conformance harness refuse such a typo."""
    items = load(exp.paper)
    known = {i.id for i in items or []}
    where = path_of(exp.paper)
    named = [(lid, "its config") for lid in references(cfg)]
    named += [(lid, f"figure {name}") for name, fn in exp.figures.items() for lid in getattr(fn, "ledger", ())]
    missing = "which does not exist" if items is None else "which has no such item"
    return [
        f"{exp.id}: ledger id {lid!r} named by {by} is not an item of {where} ({missing})"
        for lid, by in dict.fromkeys(named)
        if lid not in known
    ]
