"""The prose audit: a seed's own references, citations, terms and values, checked against itself.

Beside its ledger a paper may have ``audit.yaml`` in its experiment unit (privlab's own papers:
``experiments/<paper>/``), the record of reading the seed for consistency rather than for
numbers to recompute:

- every **cross-reference** (section, definition, theorem, lemma, equation, figure, table,
  algorithm) resolved against the seed's own numbering;
- every **citation** checked against the seed's reference list (names, number of authors, and
  what the cited work is said to show against what the paper says of it elsewhere);
- every technical **term** checked for one sense throughout;
- every parameter **value** compared across the figures, captions and sections that use it.

Each entry says where it is, what the seed prints (``text``), what it points at or is compared
with (``target``) and the ``result``: ``ok``, ``lost`` (the extraction lost the text or what it
points at; ``note`` says what) or the id of the ledger item whose ``finding`` records the
discrepancy (the ledger items the audit itself adds have ids ``prose.<name>``). A second list,
``privlab``, records every place privlab's own configs, code and docs copy a value or a
reference from the seed, and how it was checked: ``ok`` (as the seed prints it),
``reconstructed`` (the seed lost it; privlab's value is a marked reconstruction) or
``fixed`` (privlab's copy was wrong and was corrected; ``note`` says how)::

    paper: lpb
    seed: 003_bcd9c4aebb45eb59.txt
    entries:
      - {id: c.sec2_samarati, category: citation, where: Section II,
         text: "Samarati and Sweeney[9] proposed k-anonymity", target: "[9] Sweeney L. ...",
         result: prose.samarati_sweeney}
    privlab:
      - {file: experiments/lpb/conf/experiment/lpb/table1.yaml, key: printed.lambda,
         data: {value: "1.125"}, seed: "Section III.B", result: ok}
      - {file: README.md, text: "LPB's rule (Ouyang, Yin, Liu)", seed: "title", result: ok}

A ``privlab`` entry names a YAML ``key`` (dotted path) whose ``value``/``values`` (or, for a
mapping of plain values, the mapping itself) must equal ``data``, or a ``text`` the file must
contain: `check_copies` reports every entry the files no longer match, so a copied value cannot
change without the audit being read again. `summary` tabulates the counts per paper.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from . import ledger, registry
from ._validation import PrivlabError

# libyaml's parser where PyYAML has it: the same documents, several times faster
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

CATEGORIES = ("cross-reference", "citation", "term", "value")
PLAIN_RESULTS = ("ok", "lost")  # anything else names a ledger item with a finding
COPY_RESULTS = ("ok", "reconstructed", "fixed")
PROSE_PREFIX = "prose."  # the ledger ids of the findings the audit itself made
PROSE_KEYS = {"claim", "where", "ledger", "note", "if_disagree", "notes"}  # printed-block keys that hold prose
_ENTRY_KEYS = {"id", "category", "where", "text", "target", "result", "note"}
_COPY_KEYS = {"file", "key", "data", "text", "seed", "result", "note"}


@dataclass(frozen=True)
class Entry:
    """One checked cross-reference, citation, term or value of the seed."""

    id: str
    category: str
    where: str
    text: str
    target: str
    result: str  # "ok", "lost" or a ledger item id
    note: str = ""


@dataclass(frozen=True)
class Copy:
    """One place privlab copies a value or a reference from the seed, and how it was checked."""

    file: str  # relative to the paper's root (the checkout for privlab's own papers)
    seed: str  # where in the seed it was checked
    result: str  # one of COPY_RESULTS
    key: str = ""  # dotted path into a YAML file ...
    data: Any = None  # ... and what it holds there
    text: str = ""  # or a text the file contains
    note: str = ""


@dataclass(frozen=True)
class Audit:
    paper: str
    seed: str
    entries: tuple[Entry, ...]
    privlab: tuple[Copy, ...]


def path_of(paper: str) -> Path:
    """``audit.yaml`` of the paper's experiment unit, beside its ledger."""
    path = registry.papers()[paper].audit_path
    assert path is not None
    return path


def load(paper: str) -> Audit | None:
    """The paper's audit, or None when it has none; a malformed audit is one line."""
    path = path_of(paper)
    return read(path) if path.is_file() else None


def _str(raw: Mapping[str, Any], key: str) -> str:
    value = raw.get(key)
    return "" if value is None else str(value)


def read(path: Path) -> Audit:
    """Read and validate one audit file (see the module docstring for the format)."""
    try:
        data = yaml.load(Path(path).read_text(), Loader=_LOADER) or {}
    except yaml.YAMLError as exc:
        raise PrivlabError(f"{path}: not valid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict) or not data.get("paper"):
        raise PrivlabError(f"{path}: an audit is a mapping with paper, seed, entries and privlab")
    entries, seen = [], set()
    for i, raw in enumerate(data.get("entries") or [], start=1):
        where = f"{path.name} entry {i}"
        if not isinstance(raw, dict) or not raw.get("id"):
            raise PrivlabError(f"{where}: an entry is a mapping with an id")
        name = f"{where} ({raw['id']})"
        if unknown := set(raw) - _ENTRY_KEYS:
            raise PrivlabError(f"{name}: unknown key(s) {', '.join(sorted(unknown))}")
        if raw["id"] in seen:
            raise PrivlabError(f"{where}: id {raw['id']!r} appears twice")
        seen.add(raw["id"])
        if raw.get("category") not in CATEGORIES:
            raise PrivlabError(f"{name}: category must be one of {', '.join(CATEGORIES)}; got {raw.get('category')!r}")
        for key in ("where", "text", "target", "result"):
            if not _str(raw, key).strip():
                raise PrivlabError(f"{name}: {key} is missing")
        if raw["result"] == "lost" and not _str(raw, "note").strip():
            raise PrivlabError(f"{name}: a lost entry says in its note what was lost")
        entries.append(Entry(*(_str(raw, k) for k in ("id", "category", "where", "text", "target", "result", "note"))))
    copies = []
    for i, raw in enumerate(data.get("privlab") or [], start=1):
        where = f"{path.name} privlab entry {i}"
        if not isinstance(raw, dict) or not raw.get("file"):
            raise PrivlabError(f"{where}: a privlab entry is a mapping with a file")
        if unknown := set(raw) - _COPY_KEYS:
            raise PrivlabError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        if bool(raw.get("key")) == bool(raw.get("text")):
            raise PrivlabError(f"{where}: give a key (with its data) or a text, not both")
        if raw.get("key") and "data" not in raw:
            raise PrivlabError(f"{where}: a key needs the data it holds")
        if raw.get("result") not in COPY_RESULTS:
            raise PrivlabError(f"{where}: result must be one of {', '.join(COPY_RESULTS)}; got {raw.get('result')!r}")
        if not _str(raw, "seed").strip():
            raise PrivlabError(f"{where}: seed (where the value or reference was checked) is missing")
        if raw["result"] != "ok" and not _str(raw, "note").strip():
            raise PrivlabError(f"{where}: a {raw['result']} entry says in its note what and why")
        copies.append(
            Copy(
                _str(raw, "file"),
                _str(raw, "seed"),
                raw["result"],
                _str(raw, "key"),
                raw.get("data"),
                _str(raw, "text"),
                _str(raw, "note"),
            )
        )
    return Audit(str(data["paper"]), _str(data, "seed"), tuple(entries), tuple(copies))


def findings(audit: Audit, items: list[ledger.Item]) -> tuple[dict[str, ledger.Item], list[str]]:
    """The ledger items the audit's entries point at, and one problem line per entry whose result
    is neither ``ok``/``lost`` nor the id of a ledger item with a finding."""
    by_id = {item.id: item for item in items}
    found, problems = {}, []
    for entry in audit.entries:
        if entry.result in PLAIN_RESULTS:
            continue
        item = by_id.get(entry.result)
        if item is None:
            problems.append(f"{audit.paper} {entry.id}: result {entry.result!r} is no ledger item")
        elif not item.finding:
            problems.append(f"{audit.paper} {entry.id}: ledger item {entry.result!r} records no finding")
        else:
            found[item.id] = item
    return found, problems


def value_at(data: Any, key: str) -> Any:
    """The node at a dotted ``key`` of loaded YAML; KeyError when it is not there."""
    node = data
    for part in key.split("."):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, Mapping) and part.isdigit() and int(part) in node:
            node = node[int(part)]
        else:
            raise KeyError(key)
    return node


def payload(node: Any) -> Any:
    """What an audit compares at a printed node: its ``value``/``values``, or a mapping of plain
    values (a table row such as ``{max: 90, min: 17}``) whole."""
    if isinstance(node, Mapping) and ("value" in node or "values" in node):
        return {k: node[k] for k in ("value", "values") if k in node}
    return node


def printed_values(config: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """(dotted key, payload) of every value a config's ``printed:`` block copies from the seed:
    each node holding ``value``/``values``, and each mapping of plain values outside prose keys,
    whose payload holds a digit."""

    def walk(node: Any, path: list[str]) -> Iterator[tuple[str, Any]]:
        if not isinstance(node, Mapping):
            return
        if "value" in node or "values" in node:
            yield ".".join(path), payload(node)
        elif (
            node
            and not set(map(str, node)) & PROSE_KEYS
            and not any(isinstance(v, (Mapping, list)) for v in node.values())
        ):
            yield ".".join(path), dict(node)
            return
        for k, v in node.items():
            if str(k) not in PROSE_KEYS | {"value", "values"}:
                yield from walk(v, [*path, str(k)])

    for key, value in walk(config.get("printed"), ["printed"]):
        if re.search(r"\d", json.dumps(value, default=str)):
            yield key, value


def check_copies(audit: Audit, root: Path) -> list[str]:
    """One line per ``privlab`` entry the files under ``root`` no longer match."""
    problems = []
    for copy in audit.privlab:
        path = Path(root) / copy.file
        label = f"{audit.paper} {copy.file}" + (f" {copy.key}" if copy.key else "")
        if not path.is_file():
            problems.append(f"{label}: no such file")
        elif copy.key:
            try:
                found = payload(value_at(yaml.safe_load(path.read_text()), copy.key))
            except KeyError:
                problems.append(f"{label}: no such key")
                continue
            if found != copy.data:
                problems.append(f"{label}: holds {found!r}, the audit checked {copy.data!r}")
        elif copy.text not in path.read_text():
            problems.append(f"{label}: no longer contains {copy.text!r}")
    return problems


def counts(paper: str) -> dict[str, int] | None:
    """Per category the entries checked, the entries lost, the findings (distinct ledger items;
    ``new findings``: those the audit made, ids ``prose.*``) by kind, and privlab's copies checked
    and fixed; None without an audit."""
    audit = load(paper)
    if audit is None:
        return None
    found, _ = findings(audit, ledger.load(paper) or [])
    by_category = Counter(e.category for e in audit.entries)
    kinds = Counter(item.finding_kind or "unclassified" for item in found.values())
    out = {c: by_category[c] for c in CATEGORIES}
    out["lost"] = sum(e.result == "lost" for e in audit.entries)
    out["findings"] = len(found)
    out["new findings"] = sum(item_id.startswith(PROSE_PREFIX) for item_id in found)
    out.update({kind: kinds[kind] for kind in (*ledger.FINDING_KINDS, "unclassified")})
    out["privlab checked"] = len(audit.privlab)
    out["privlab fixed"] = sum(c.result == "fixed" for c in audit.privlab)
    return out


def summary(papers: list[str] | None = None) -> pd.DataFrame:
    """One row per paper with an audit: `counts`."""
    keys = papers if papers is not None else list(registry.papers())
    rows = [{"paper": p, **c} for p in keys if (c := counts(p)) is not None]
    return pd.DataFrame(rows)


def markdown(table: pd.DataFrame) -> str:
    """``table`` as a Markdown table (what the report and the lead quote)."""
    cols = list(table.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(row[c]) for c in cols) + " |" for _, row in table.iterrows()]
    return "\n".join(lines)


if __name__ == "__main__":
    # run as a script (python -m privlab.audit): the counts need the floors above (check, the reading audits)
    from privlab.audit_coverage import main

    main()
