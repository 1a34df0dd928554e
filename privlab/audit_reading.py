"""What a careful referee checks when reading a paper: four audits over what the paper states where.

Beside the prose audit's entries (`privlab.audit`), a paper's ``audit.yaml`` may hold four more
lists, each the record of one reading of the seed, extracted from its text (``text`` is what the
seed prints there, ``where`` where). The code below is the mechanism, the same for every paper; it
decides what is a slip, and the audit file says what privlab recorded for it (``result``): ``ok``,
``explained`` (the paper or a note explains it; ``note`` says how, or ``explained: why``) or the id of the ledger item
whose finding records the slip.

``consistency``
    Every value the paper states in more than one place, each place with the value as printed
    (``value``: a number, ``50%``, ``1/73``, ``48,842``, ``(90 - 17)/48842``, a range ``1~99``, a list
    ``[2, 4, 8]``, or words), and the config keys (``config: [{file, key}]``) where an experiment
    takes it from the paper. Two numbers agree within half a unit of the last digit printed.
``notation``
    Expressions, each with the ``checks`` to run: ``brackets`` (every bracket closed by its own kind),
    ``event`` (``Pr[...]`` holds an event: a relation, not a bare quantity), ``density`` (no point
    probability ``Pr[Q = v]`` or ``Pr[Q -> v]`` of a quantity in ``continuous``), ``free_and_summed``
    (no index both free and bound by a sum, product, max or min), ``measure`` (an integral names its
    variable, ``dx``), ``defined`` (each of ``symbols`` defined, and before its first use, in the
    paper's ``order`` of places) and ``recursion`` (every value the recursion reads at its first step
    is a base case or a value it computed). A slip's ledger item gives the corrected form, which must
    pass the same checks.
``direction``
    Sentences that say how something moves, each tied to a ``formula`` of the paper's own definitions
    (a sympy expression) and checked by computation: ``says`` one of ``increases``, ``decreases``,
    ``proportional``, ``inversely_proportional`` (in ``vary``, over a grid, at each setting of
    ``fixed``), ``at_most``/``at_least`` a ``bound``, or ``larger``/``smaller`` (the first of two
    ``cases`` against the second). A sentence that says the opposite of its formula is an error: its
    result must be a ledger finding of kind ``error``.
``bibliography``
    ``entries`` of the reference list (``key``, ``authors``' surnames, ``et_al`` where the list
    names only some, ``title`` (with the venue as printed), ``year``, ``volume``, ``pages``,
    ``kind``), in-text ``citations`` (``text``, ``key``, and ``about``: words the cited entry's
    title must hold), technique ``names`` (the ``text`` that names one and the ``literature``'s
    spelling; an acronym keeps its case) and outside knowledge: ``known`` venues (``venue`` as the
    entries print it, ``first_year`` of volume 1, one volume a year, ``confidence``) and
    ``spellings`` (``key``, ``printed`` -> ``literature``).
    Checked: page ranges that increase and fit an article, volume against year, a year at all, title
    words near another word of the five bibliographies (or a known spelling), the names a citation
    gives against the entry's authors and their number (``X and Y``: two, ``X et al.``: three or
    more), and names spelled as the literature spells them. A slip's id (``pages:6``) maps to its
    result in ``results``.

`run` returns the slips and one problem line for each slip without a recorded result, each result
that names no finding of the right kind, and each recorded slip the mechanism no longer finds;
`counts` tabulates per paper and audit what was collected, in how many places, the slips and the
distinct findings.
"""

from __future__ import annotations

import ast
import difflib
import itertools
import operator
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from . import ledger, registry
from ._validation import PrivlabError
from .audit import path_of, value_at

AUDITS = ("consistency", "notation", "direction", "bibliography")
PLAIN = ("ok", "explained")
NOTATION_CHECKS = ("brackets", "event", "density", "free_and_summed", "measure", "defined", "recursion")
DIRECTIONS = (
    "increases",
    "decreases",
    "proportional",
    "inversely_proportional",
    "at_most",
    "at_least",
    "larger",
    "smaller",
)
OPPOSITE = {"increases": "decreases", "decreases": "increases", "larger": "smaller", "smaller": "larger"}
ARTICLE_PAGES = 80  # an article or a paper in proceedings longer than this is a range to look at twice


@dataclass(frozen=True)
class Slip:
    """One thing the mechanism found: ``audit``, the id of its record, where, and what."""

    audit: str
    id: str
    where: str
    what: str


@dataclass
class Reading:
    """One paper's four audits: what was collected, in how many places, the slips and the problems."""

    paper: str
    collected: dict[str, int] = field(default_factory=dict)
    places: dict[str, int] = field(default_factory=dict)
    slips: list[Slip] = field(default_factory=list)
    results: dict[tuple[str, str], str] = field(default_factory=dict)  # (audit, slip id) -> result
    problems: list[str] = field(default_factory=list)


# --- values -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Value:
    """A printed value: numbers (one, or several for a range or a list) with the resolution they
    were printed at, or words."""

    numbers: tuple[float, ...] = ()
    resolution: tuple[float, ...] = ()
    words: str = ""

    def agrees(self, other: Value) -> bool:
        if self.words or other.words:
            return self.words == other.words
        if len(self.numbers) != len(other.numbers):
            return False
        return all(
            abs(a - b) <= max(ra, rb) + 1e-12 * max(1.0, abs(a), abs(b))
            for a, b, ra, rb in zip(self.numbers, other.numbers, self.resolution, other.resolution)
        )


_OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: lambda a, b: a**b if b.denominator == 1 and abs(b) < 64 else Fraction(float(a) ** float(b)),
}
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?(?:e-?\d+)?%?$")


def _one(text: str) -> tuple[float, float] | None:
    """(value, resolution) of one printed number, fraction or arithmetic expression; None for words."""
    s = text.strip().replace("\u2212", "-")
    if re.fullmatch(r"-?\d{1,3}(,\d{3})+", s):  # 48,842
        s = s.replace(",", "")
    if _NUMBER.match(s):
        percent = s.endswith("%")
        digits = s.rstrip("%")
        decimals = len(digits.split(".")[1]) if "." in digits and "e" not in digits else 0
        scale = 0.01 if percent else 1.0
        return float(digits) * scale, 0.5 * 10.0**-decimals * scale if decimals else 0.0
    try:
        tree = ast.parse(s, mode="eval").body
    except SyntaxError:
        return None

    def ev(node: ast.AST) -> Fraction:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return Fraction(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        raise ValueError(s)

    try:
        return float(ev(tree)), 0.0
    except (ValueError, ZeroDivisionError):
        return None


def parse_value(printed: Any) -> Value:
    """A printed value as a `Value`: ``0.0137``, ``50%``, ``1/73``, ``48,842``, ``(90 - 17)/48842``,
    a range ``1~99`` or ``17..90``, a list ``[2, 4, 8]`` (or a YAML list), or words (compared
    case- and space-insensitively)."""
    if isinstance(printed, bool):
        return Value(words=str(printed).lower())
    if isinstance(printed, (int, float)):
        return Value((float(printed),), (0.0,))
    if isinstance(printed, Mapping):  # a table row or column keyed by its index: its values in order
        printed = list(printed.values())
    if isinstance(printed, (list, tuple)):
        parts = [parse_value(p) for p in printed]
        if any(p.words or len(p.numbers) != 1 for p in parts):
            return Value(words=" ".join(" ".join(str(p) for p in printed).lower().split()))
        return Value(tuple(p.numbers[0] for p in parts), tuple(p.resolution[0] for p in parts))
    s = str(printed).strip()
    inner = s[1:-1] if s[:1] in "[{" and s[-1:] in "]}" else None
    pieces = inner.split(",") if inner is not None else re.split(r"\s*(?:~|\.\.|\u2013)\s*", s)
    if inner is None and len(pieces) == 1:
        one = _one(s)
        return Value((one[0],), (one[1],)) if one else Value(words=" ".join(s.lower().split()))
    found = [_one(p) for p in pieces]
    if all(found):
        return Value(tuple(f[0] for f in found), tuple(f[1] for f in found))  # type: ignore[index]
    return Value(words=" ".join(s.lower().split()))


def _config_value(root: Path, file: str, key: str) -> Any:
    node = value_at(yaml.safe_load((root / file).read_text()), key)
    if isinstance(node, Mapping) and ("value" in node or "values" in node):
        node = node.get("value", node.get("values"))
    return node


def consistency(entries: Sequence[Mapping[str, Any]], root: Path | None) -> tuple[list[Slip], int, list[str]]:
    """The slips of the consistency audit (one per quantity whose places disagree), the number of
    places compared, and problem lines (a config key that is not there)."""
    slips, places, problems = [], 0, []
    for entry in entries:
        stated = [(p["where"], parse_value(p["value"]), str(p["value"])) for p in entry.get("places") or ()]
        for c in entry.get("config") or ():
            if root is None:
                continue
            try:
                raw = _config_value(root, c["file"], c["key"])
            except (KeyError, OSError):
                problems.append(f"consistency {entry['id']}: {c['file']} has no key {c['key']}")
                continue
            stated.append((f"config {c['file']}:{c['key']}", parse_value(raw), str(raw)))
        places += len(stated)
        if len(stated) < 2:
            problems.append(f"consistency {entry['id']}: a value stated in one place only")
            continue
        apart = [(a, b) for a, b in itertools.combinations(stated, 2) if not a[1].agrees(b[1])]
        if apart:
            (wa, _, ta), (wb, _, tb) = apart[0]
            what = f"{entry.get('quantity', entry['id'])}: {ta} ({wa}) vs {tb} ({wb})"
            slips.append(Slip("consistency", entry["id"], "; ".join(w for w, _, _ in stated), what))
    return slips, places, problems


# --- notation -----------------------------------------------------------------------------------

_PAIRS = {")": "(", "]": "[", "}": "{"}


def bracket_slips(text: str) -> list[str]:
    """Each bracket closed by another kind, closed without an opening, or left open."""
    stack: list[tuple[str, int]] = []
    out = []
    for i, ch in enumerate(text):
        if ch in "([{":
            stack.append((ch, i))
        elif ch in _PAIRS:
            if not stack:
                out.append(f"'{ch}' at {i} closes nothing")
            elif stack[-1][0] != _PAIRS[ch]:
                out.append(f"'{ch}' at {i} closes '{stack[-1][0]}' of {stack[-1][1]}")
                stack.pop()
            else:
                stack.pop()
    out += [f"'{ch}' at {i} is never closed" for ch, i in stack]
    return out


def _probabilities(text: str) -> Iterable[tuple[int, str]]:
    """(position, content) of every Pr[...] / Pr(...) whose bracket closes."""
    for m in re.finditer(r"\bPr\s*([\[(])", text):
        opening, depth = m.group(1), 0
        for j in range(m.end() - 1, len(text)):
            if text[j] in "([{":
                depth += 1
            elif text[j] in ")]}":
                depth -= 1
                if depth == 0:
                    yield m.start(), text[m.end() : j]
                    break
        del opening


_RELATION = re.compile(r"=|<|>|\u2264|\u2265|\u2208|->|\u2192|\|| in ")


def event_slips(text: str) -> list[str]:
    """Each Pr[...] whose content is no event (no relation, no condition)."""
    return [f"Pr[{c}] is the probability of no event" for _, c in _probabilities(text) if not _RELATION.search(c)]


def density_slips(text: str, continuous: Sequence[str]) -> list[str]:
    """Each Pr[...] of a point value (``= v``, ``-> v``) of a quantity named in ``continuous``."""
    out = []
    for _, content in _probabilities(text):
        event = content.split("|")[0]
        if re.search(r"(?<![<>!])=(?!=)|->|\u2192", event) and any(q in event for q in continuous):
            out.append(f"Pr[{content.strip()}]: a point of a continuous quantity (a density is meant)")
    return out


_BINDER = re.compile(r"(?:\bsum|\bprod|\bmax|\bmin|\u2211|\u220f)_\{?\s*([A-Za-z])(?![A-Za-z])")


def _scope_end(text: str, start: int) -> int:
    """Where a summand starting at ``start`` ends: the bracket that closes its level, or a top-level
    '=' or relation."""
    depth = 0
    for j in range(start, len(text)):
        ch = text[j]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return j
            depth -= 1
        elif depth == 0 and (ch in "=<>\u2264\u2265" or text.startswith("->", j)):
            return j
    return len(text)


def _skip_binder(text: str, m: re.Match[str]) -> int:
    """The end of a binder's subscript (``sum_{i in U}`` or ``sum_i``)."""
    if text[m.end(0) - 2 : m.end(0) - 1] == "{" or "{" in m.group(0):
        close = text.find("}", m.end(0))
        return close + 1 if close >= 0 else m.end(0)
    return m.end(0)


def free_and_summed_slips(text: str) -> list[str]:
    """Each index that a sum (product, max, min) binds and that also stands free in the text."""
    out = []
    bound: dict[str, list[tuple[int, int]]] = {}
    for m in _BINDER.finditer(text):
        body = _skip_binder(text, m)
        bound.setdefault(m.group(1), []).append((m.start(), _scope_end(text, body)))
    for index, scopes in bound.items():
        for occ in re.finditer(rf"(?<![A-Za-z]){index}(?![A-Za-z])", text):
            if not any(a <= occ.start() < b for a, b in scopes):
                out.append(f"index {index} is summed over and stands free at {occ.start()}")
                break
    return out


def measure_slips(text: str) -> list[str]:
    """Each integral that names no variable of integration (``d<var>``) after it."""
    out = []
    for m in re.finditer(r"\u222b|\bint_", text):
        rest = text[m.end() :]
        stop = re.search(r"[,;]|\s=\s|$", rest)
        if not re.search(r"\bd\s?[a-zA-Z\u03b5\u03bb\u03b8]+\b", rest[: stop.start() if stop else None]):
            out.append(f"integral at {m.start()} has no d<variable>")
    return out


def defined_slips(symbols: Sequence[Mapping[str, Any]], order: Sequence[str]) -> list[str]:
    """Each symbol defined nowhere, or only after its first use (``order``: the paper's places)."""
    out = []
    for s in symbols:
        if not s.get("defined"):
            out.append(f"{s['name']} is defined nowhere (first used in {s['used']})")
        elif order.index(s["defined"]) > order.index(s["used"]):
            out.append(f"{s['name']} is used in {s['used']} before its definition in {s['defined']}")
    return out


def recursion_slips(recursion: Mapping[str, Any]) -> list[str]:
    """Each value a recursion reads at its first step (``first``: the first index it computes,
    ``reads``: offsets) that is neither a base case (``base``: fixed coordinates) nor computed."""
    first = {k: int(v) for k, v in recursion["first"].items()}
    out = []
    for offset in recursion["reads"]:
        at = {k: first[k] + int(offset.get(k, 0)) for k in first}
        computed = all(at[k] >= first[k] for k in first)
        base = any(all(at[k] == int(v) for k, v in b.items()) for b in recursion.get("base") or ())
        if not (computed or base):
            out.append(f"reads {recursion['name']} at {at}, which no base case defines")
    return out


def notation_slips(entry: Mapping[str, Any], text: str | None = None, order: Sequence[str] = ()) -> list[str]:
    """What the entry's ``checks`` find in ``text`` (the entry's own text by default)."""
    text = entry.get("text", "") if text is None else text
    found: list[str] = []
    for check in entry.get("checks") or ():
        if check == "brackets":
            found += bracket_slips(text)
        elif check == "event":
            found += event_slips(text)
        elif check == "density":
            found += density_slips(text, entry.get("continuous") or ())
        elif check == "free_and_summed":
            found += free_and_summed_slips(text)
        elif check == "measure":
            found += measure_slips(text)
        elif check == "defined":
            found += defined_slips(entry.get("symbols") or (), order)
        elif check == "recursion":
            found += recursion_slips(entry["recursion"])
        else:
            raise PrivlabError(f"notation {entry['id']}: check must be one of {', '.join(NOTATION_CHECKS)}")
    return found


# --- direction ----------------------------------------------------------------------------------


def _function(formula: str, names: Iterable[str]):
    import sympy as sp  # about 0.5 s to import; only the formula audit needs it

    symbols = {n: sp.Symbol(n) for n in names}
    expr = sp.parse_expr(formula, local_dict={**symbols, "log": sp.log, "exp": sp.exp, "sqrt": sp.sqrt})
    missing = {str(s) for s in expr.free_symbols} - set(symbols)
    if missing:
        raise PrivlabError(f"formula {formula!r}: no value for {', '.join(sorted(missing))}")
    return sp.lambdify(list(symbols.values()), expr, "numpy")


def direction_of(entry: Mapping[str, Any], points: int = 201) -> str:
    """``holds``, ``opposite`` or ``mixed``: what the formula does against what the sentence says."""
    says = entry["says"]
    if says not in DIRECTIONS:
        raise PrivlabError(f"direction {entry['id']}: says must be one of {', '.join(DIRECTIONS)}; got {says!r}")
    settings = entry.get("fixed") or [{}]
    if says in ("larger", "smaller"):
        a, b = entry["cases"]
        f = _function(entry["formula"], a)
        va, vb = float(f(**a)), float(f(**b))
        if va == vb:
            return "mixed"
        larger = va > vb
        return "holds" if larger == (says == "larger") else "opposite"
    ((name, (lo, hi)),) = entry["vary"].items()
    grid = np.linspace(float(lo), float(hi), points)
    outcomes = set()
    for fixed in settings:
        names = [name, *fixed]
        f = _function(entry["formula"], names)
        y = np.asarray(f(grid, *[np.full_like(grid, float(fixed[k])) for k in fixed]), dtype=float) * np.ones_like(grid)
        if says in ("at_most", "at_least"):
            g = _function(str(entry["bound"]), names)
            bound = np.asarray(g(grid, *[np.full_like(grid, float(fixed[k])) for k in fixed]), dtype=float)
            gap = y - bound * np.ones_like(grid)
            ok = np.all(gap <= 1e-12) if says == "at_most" else np.all(gap >= -1e-12)
            never = np.all(gap > 1e-12) if says == "at_most" else np.all(gap < -1e-12)
            outcomes.add("holds" if ok else "opposite" if never else "mixed")
        elif says in ("proportional", "inversely_proportional"):
            ratio = y / grid if says == "proportional" else y * grid
            outcomes.add("holds" if np.allclose(ratio, ratio[0], rtol=1e-9) else "mixed")
        else:
            steps = np.diff(y)
            up, down = np.all(steps > 0), np.all(steps < 0)
            moves = "increases" if up else "decreases" if down else ""
            outcomes.add("holds" if moves == says else "opposite" if moves == OPPOSITE[says] else "mixed")
    return outcomes.pop() if len(outcomes) == 1 else "mixed"


def direction(entries: Sequence[Mapping[str, Any]]) -> list[Slip]:
    """One slip per sentence whose formula does not move as it says (``opposite`` or ``mixed``)."""
    out = []
    for e in entries:
        found = direction_of(e)
        if found != "holds":
            out.append(Slip("direction", e["id"], e["where"], f"{found}: {e['text']} ({e['formula']})"))
    return out


# --- bibliography -------------------------------------------------------------------------------


def _pages(pages: str) -> tuple[int, int] | None:
    m = re.fullmatch(r"\s*(?:\d+[.:])?(\d+)\s*[-\u2013\u2014]+\s*(?:\d+[.:])?(\d+)\s*", str(pages))
    if not m:
        return None
    first, last = m.group(1), m.group(2)
    if int(last) < int(first) and len(last) < len(first):  # 279-89: the end page abbreviated
        last = first[: len(first) - len(last)] + last
    return int(first), int(last)


_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]+")


def _words(text: str) -> list[str]:
    return [w.strip("'-") for w in _WORD.findall(text)]


def vocabulary(papers: Iterable[str] | None = None) -> dict[str, int]:
    """How often each word (lower case) occurs in the titles, venues and authors of the bibliographies
    of ``papers`` (all papers by default)."""
    counts: dict[str, int] = {}
    for paper in papers if papers is not None else registry.papers():
        data = load(paper).get("bibliography") or {}
        for e in data.get("entries") or ():
            for w in _words(" ".join(str(e.get(k, "")) for k in ("title", "venue"))) + list(e.get("authors") or ()):
                counts[w.lower()] = counts.get(w.lower(), 0) + 1
    return counts


def _near(word: str, vocab: Mapping[str, int]) -> str:
    """A word of ``vocab`` one edit from ``word`` that occurs more often, or ""."""
    w = word.lower()
    if len(w) < 5 or vocab.get(w, 0) > 1:
        return ""
    for other, n in vocab.items():
        if n <= vocab.get(w, 0) or abs(len(other) - len(w)) > 1 or other[0] != w[0]:
            continue
        if not (w.startswith(other) or other.startswith(w)):  # model/models: an inflection, not a slip
            if difflib.SequenceMatcher(None, w, other).ratio() >= 0.9 and _edits(w, other) == 1:
                return other
    return ""


def _edits(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def cited_names(text: str) -> tuple[list[str], str]:
    """The surnames an in-text citation gives, and its form: ``one``, ``two`` (``X and Y``), ``all``
    (``X, Y, Z``), ``many`` (``X et al.``), ``malformed`` (``et el.``) or ``none`` (a number alone)."""
    lead = re.split(r"\s*[\[(]\d", text)[0]
    lead = re.sub(r".*\b(?:by|from|of|in)\s+(?=[A-Z])", "", lead)
    if re.search(r"\bet\s*el\b", lead):
        return [], "malformed"
    if re.search(r"\bet\s*al\b", lead):
        names = re.sub(r"\s*\bet\s*al\.?.*", "", lead).split()
        return names[-1:], "many"
    parts = re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", lead.strip())
    names = [p.split()[-1].rstrip(".,") for p in parts if p.split()]
    if not names or not all(n[:1].isupper() for n in names):
        return [], "none"
    return names, {1: "one", 2: "two"}.get(len(names), "all")


def bibliography(data: Mapping[str, Any], vocab: Mapping[str, int]) -> tuple[list[Slip], int]:
    """The slips of the bibliography audit and the number of places read (entries, citations, names)."""
    entries = {str(e["key"]): e for e in data.get("entries") or ()}
    known = {k["venue"].lower(): k for k in data.get("known") or ()}
    slips: list[Slip] = []

    def add(sid: str, where: str, what: str) -> None:
        slips.append(Slip("bibliography", sid, where, what))

    for key, e in entries.items():
        label = f"[{key}]"
        span = _pages(e["pages"]) if e.get("pages") else None
        if e.get("pages") and span is None:
            add(f"pages:{key}", label, f"pages {e['pages']!r} are no range")
        elif span and (
            span[1] < span[0] or (e.get("kind", "article") != "book" and span[1] - span[0] + 1 > ARTICLE_PAGES)
        ):
            add(f"pages:{key}", label, f"pages {e['pages']}: {span[1] - span[0] + 1} pages")
        if not e.get("year"):
            add(f"year:{key}", label, "no year")
        text = " ".join(str(e.get(k, "")) for k in ("title", "venue"))
        venue = next((k for name, k in known.items() if name in text.lower()), None)
        if venue and e.get("year") and e.get("volume"):
            expected = int(e["year"]) - int(venue["first_year"]) + 1
            if int(e["volume"]) != expected:
                what = (
                    f"volume {e['volume']} in {e['year']}; {venue['venue']}'s volume of {e['year']} is {expected}"
                    f" (outside knowledge, confidence {venue.get('confidence', 'not given')})"
                )
                add(f"volume:{key}", label, what)
        for w in _words(" ".join(str(e.get(k, "")) for k in ("title", "venue"))):
            near = _near(w, vocab)
            if near:
                add(f"spelling:{key}:{w}", label, f"{w!r} for {near!r}")
        for s in data.get("spellings") or ():
            if str(s.get("key")) == key and s["printed"] in " ".join([*(e.get("authors") or ()), text]):
                add(
                    f"spelling:{key}:{s['printed']}",
                    label,
                    f"{s['printed']!r} for {s['literature']!r}",
                )
    for c in data.get("citations") or ():
        entry = entries.get(str(c["key"]))
        if entry is None:
            add(f"citation:{c['id']}", c["where"], f"{c['text']}: no entry [{c['key']}]")
            continue
        authors = [a.lower() for a in entry.get("authors") or ()]
        names, form = cited_names(c["text"])
        if form != "none":
            wrong = [n for n in names if n.lower() not in authors]
            n, more = len(authors), bool(entry.get("et_al"))  # a list that prints "et al." names some only
            count = {"one": n == 1, "two": n == 2, "all": n == len(names)}.get(form, False) and not more
            count = count or (form == "many" and (n >= 3 or more))
            if form == "malformed" or wrong or (names and not count):
                what = f"{c['text']}: names {names or form} for [{c['key']}] by {', '.join(entry.get('authors') or ())}"
                add(f"citation:{c['id']}", c["where"], what)
        title = " ".join(str(entry.get(k, "")) for k in ("title", "venue")).lower()
        missing = [w for w in c.get("about") or () if w.lower() not in title]
        if missing:
            add(f"fit:{c['id']}", c["where"], f"[{c['key']}]'s title has no {missing}")
    for n in data.get("names") or ():
        literature, printed = n["literature"], n["text"]
        if not any(ch.isupper() for ch in literature[1:]):  # an acronym (SuLQ, PRAM) keeps its case
            literature, printed = literature.lower(), printed.lower()
        if literature not in printed:
            add(
                f"name:{n['id']}",
                n["where"],
                f"{n['text']!r}: the literature writes {n['literature']!r}",
            )
    places = len(entries) + len(data.get("citations") or ()) + len(data.get("names") or ())
    return slips, places


# --- running the four audits over a paper -------------------------------------------------------


def load(paper: str) -> dict[str, Any]:
    """The four audits' data of the paper's ``audit.yaml`` ({} without an audit)."""
    path = path_of(paper)
    if not path.is_file():
        return {}
    data = yaml.safe_load(path.read_text()) or {}
    return {k: data[k] for k in (*AUDITS, "order") if k in data}


def plain(result: str) -> bool:
    """``ok``, or ``explained`` (``explained: why`` where the record has no note)."""
    return result == "ok" or result.split(":")[0].strip() == "explained"


def _check_results(reading: Reading, items: Mapping[str, ledger.Item]) -> None:
    found = {(s.audit, s.id) for s in reading.slips}
    for (audit, sid), result in reading.results.items():
        slip = (audit, sid) in found
        if plain(result):
            if slip and result == "ok":
                what = next(s.what for s in reading.slips if (s.audit, s.id) == (audit, sid))
                reading.problems.append(f"{reading.paper} {audit} {sid}: a slip recorded as ok ({what})")
            continue
        item = items.get(result)
        if item is None or not item.finding:
            reading.problems.append(
                f"{reading.paper} {audit} {sid}: result {result!r} is no ledger item with a finding"
            )
        elif not slip:
            reading.problems.append(f"{reading.paper} {audit} {sid}: {result} is recorded, the mechanism finds no slip")
        elif audit == "notation" and item.finding_kind != "notation":
            reading.problems.append(f"{reading.paper} notation {sid}: {result} is of kind {item.finding_kind!r}")
    for s in reading.slips:
        if (s.audit, s.id) not in reading.results:
            reading.problems.append(f"{reading.paper} {s.audit} {s.id}: a slip without a result ({s.what})")


def run(paper: str, root: Path | None = None, vocab: Mapping[str, int] | None = None) -> Reading:
    """The paper's four audits: the slips found, and one problem line for each result that does not
    fit them (see the module docstring)."""
    data = load(paper)
    items = {i.id: i for i in ledger.load(paper) or []}
    root = root if root is not None else registry.papers()[paper].root
    reading = Reading(paper)
    cons = data.get("consistency") or []
    slips, places, problems = consistency(cons, root)
    reading.slips += slips
    reading.problems += [f"{paper} {p}" for p in problems]
    reading.collected["consistency"], reading.places["consistency"] = len(cons), places
    reading.results.update({("consistency", e["id"]): e.get("result", "ok") for e in cons})
    notes = data.get("notation") or []
    order = data.get("order") or []
    for e in notes:
        for what in notation_slips(e, order=order):
            reading.slips.append(Slip("notation", e["id"], e["where"], what))
        result = e.get("result", "ok")
        reading.results[("notation", e["id"])] = result
        item = items.get(result)
        if item is not None and item.corrected and e.get("checks") and "defined" not in e["checks"]:
            left = [c for c in e["checks"] if c not in ("defined", "recursion")]
            if notation_slips({**e, "checks": left}, text=item.corrected):
                reading.problems.append(f"{paper} notation {e['id']}: the corrected form of {result} has the slip too")
    reading.collected["notation"], reading.places["notation"] = len(notes), len({e["where"] for e in notes})
    dirs = data.get("direction") or []
    reading.slips += direction(dirs)
    reading.results.update({("direction", e["id"]): e.get("result", "ok") for e in dirs})
    for e in dirs:
        item = items.get(e.get("result", "ok"))
        if item is not None and direction_of(e) == "opposite" and item.finding_kind != "error":
            reading.problems.append(f"{paper} direction {e['id']}: says the opposite of its formula, not an error")
    reading.collected["direction"], reading.places["direction"] = len(dirs), len({e["where"] for e in dirs})
    bib = data.get("bibliography") or {}
    slips, places = bibliography(bib, vocab if vocab is not None else vocabulary())
    reading.slips += slips
    reading.results.update({("bibliography", k): v for k, v in (bib.get("results") or {}).items()})
    reading.collected["bibliography"], reading.places["bibliography"] = len(bib.get("entries") or ()), places
    _check_results(reading, items)
    return reading


def counts(papers: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per paper and audit: values/expressions/sentences/entries collected, places read,
    slips found, of them explained, and the distinct ledger findings they point at."""
    keys = list(papers) if papers is not None else [p for p in registry.papers() if load(p)]
    vocab = vocabulary(keys)
    rows = []
    for paper in keys:
        reading = run(paper, vocab=vocab)
        for audit in AUDITS:
            slips = [s for s in reading.slips if s.audit == audit]
            results = {reading.results.get((audit, s.id), "") for s in slips}
            rows.append(
                {
                    "paper": paper,
                    "audit": audit,
                    "collected": reading.collected.get(audit, 0),
                    "places": reading.places.get(audit, 0),
                    "slips": len({s.id for s in slips}),
                    "explained": sum(plain(r) and r != "ok" for r in results),
                    "findings": len({r for r in results if r and not plain(r)}),
                    "problems": sum(p.split()[1:2] == [audit] for p in reading.problems),
                }
            )
    return pd.DataFrame(rows)
