"""mkdocs hook: the parts of privlab's site generated from the repository at build time.

Generated pages (added to the site in ``on_files``, to the navigation in ``on_config``):

``papers/index.md``, ``papers/<paper>.md``
    One page per registered paper: its experiments (from the registry), what was
    reconstructed and why (the ``[reconstructed]`` comments of its configs), the thresholds
    that are ours (``[ours]`` comments), and what privlab found in the paper: the findings of
    its ledger (``experiments/<paper>.ledger.yaml``, when it has one) with their kind (only
    ``error`` is an error of the paper), and the claims that disagree with the paper,
    recomputed from the committed reference tables by the experiments' own claim functions,
    each with its cause (`privlab.errata.cause`).
``errata/index.md``, ``errata/<paper>.md``
    The errata of each paper with a ledger (`privlab.errata.markdown`, what ``privlab errata
    <paper> --markdown`` prints): each finding's place, printed and corrected text or value,
    kind, confidence and evidence.
``reference/core/<module>.md``, ``reference/papers/<paper>.md``
    mkdocstrings pages of the core modules users call and of each paper's package.

Directives expanded in any page (``on_page_markdown``):

``<!-- contributing -->``
    CONTRIBUTING.md, its headings one level down, each of its code blocks marked not run.

Nothing here reads outside the repository. tests/core/test_docs.py imports this module to check
the code blocks of the generated pages and of the expanded directives too.
"""

from __future__ import annotations

import logging
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "privlab" / "conf"
log = logging.getLogger("mkdocs.plugins.privlab_docs")  # a warning fails `mkdocs build --strict`
CORE_MODULES = (
    "registry",
    "claims",
    "params",
    "relations",
    "constraints",
    "stats",
    "datasets",
    "context",
    "formulas",
    "figures",
    "ledger",
    "testing",
)
NOT_RUN_PREFIX = "<!-- not run in tests:"
CONTRIBUTING_REASON = (
    "an excerpt quoted in CONTRIBUTING.md; experiments/lpb/ runs the complete code and the "
    "Add-a-paper tutorial runs a whole paper"
)


# ---------------------------------------------------------------------------------------
# markdown helpers
# ---------------------------------------------------------------------------------------
def cell(text: Any) -> str:
    """``text`` as one cell of a Markdown table: one line, Markdown and HTML characters escaped."""
    from privlab.errata import md_cell  # the errata pages escape their cells the same way

    return md_cell(text)


def code(text: Any) -> str:
    """``text`` as inline code inside a table cell."""
    s = " ".join(str(text).split()).replace("|", "\\|")
    return f"``{s}``" if "`" in s else f"`{s}`"


def _kind(finding_kind: str) -> str:
    """A finding's kind as a table cell; an error of the paper in bold."""
    return "**error**" if finding_kind == "error" else cell(finding_kind or "not classified")


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# [reconstructed] and [ours] comments of the configs
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Annotation:
    """A config value (or a whole config file) annotated ``[reconstructed]`` or ``[ours]``."""

    file: str  # relative to the repository root
    key: str  # dotted key path; "" for a comment about the whole file
    value: str
    comment: str


def _split_comment(line: str) -> tuple[str, str, int]:
    """(code, comment, column of '#') of a YAML line; no comment: (line, "", -1)."""
    in_quote = ""
    for i, ch in enumerate(line):
        if in_quote:
            in_quote = "" if ch == in_quote else in_quote
        elif ch in "'\"":
            in_quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1 :].strip(), i
    return line.rstrip(), "", -1


def annotations(path: Path, tag: str) -> list[Annotation]:
    """Every value of the YAML file ``path`` whose comment carries ``[tag`` (with the comment's
    continuation lines), and file-level comments that carry it."""
    lines = path.read_text().splitlines()
    rel = str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    stack: list[tuple[int, str]] = []  # (indent, key) of the mapping keys enclosing the current line
    found: list[Annotation] = []
    i = 0
    while i < len(lines):
        text, comment, col = _split_comment(lines[i])
        indent = len(lines[i]) - len(lines[i].lstrip())
        key, value = "", ""
        if text.strip():
            body = text.strip().removeprefix("- ")
            if ":" in body and not body.startswith(("{", "[")):
                key, _, value = body.partition(":")
                key, value = key.strip().strip("'\""), value.strip()
                while stack and stack[-1][0] >= indent:
                    stack.pop()
                stack.append((indent, key))
        if f"[{tag}" not in comment:
            if key and f"[{tag}" in value:  # a printed statement that carries the tag itself
                found.append(Annotation(rel, ".".join(k for _, k in stack), "", value.strip("'\"")))
            i += 1
            continue
        parts, j = [comment], i + 1
        while j < len(lines):  # continuation: comment-only lines in the same column
            t, c, cc = _split_comment(lines[j])
            if t.strip() or not c or cc != col or f"[{tag}" in c:
                break
            parts.append(c)
            j += 1
        if text.strip():
            path_key = ".".join(k for _, k in stack)
            found.append(Annotation(rel, path_key, value or "(block below)", " ".join(parts)))
        elif indent == 0 and not stack:  # the header: a tag in its first sentence is about the whole file
            first = i
            while first > 0 and lines[first - 1].startswith("#") and "@package" not in lines[first - 1]:
                first -= 1
            if first == i:  # (a tag further down the header is prose about the tag, not an annotation)
                found.append(Annotation(rel, "", "", " ".join(parts)))
        else:  # a comment line about the key that follows it
            k = j
            while k < len(lines) and not _split_comment(lines[k])[0].strip():
                k += 1
            if k < len(lines):
                nxt = _split_comment(lines[k])[0].strip().removeprefix("- ")
                name, _, value = nxt.partition(":")
                nindent = len(lines[k]) - len(lines[k].lstrip())
                parents = [key for ind, key in stack if ind < nindent]
                found.append(Annotation(rel, ".".join([*parents, name.strip()]), value.strip(), " ".join(parts)))
        i = j
    return found


def paper_configs(paper: str) -> list[Path]:
    """The paper's experiment configs and the mechanism configs whose target is in its package."""
    files = sorted((CONF / "experiment" / paper).glob("*.yaml"))
    for path in sorted((CONF / "mechanism").glob("*.yaml")):
        if re.search(rf"_target_:\s*privlab\.{re.escape(paper)}\.", path.read_text()):
            files.append(path)
    return files


# ---------------------------------------------------------------------------------------
# the claims of each experiment, recomputed from its committed reference table
# ---------------------------------------------------------------------------------------
@dataclass
class ExperimentFacts:
    id: str
    artifact: str
    summary: str
    twin_of: str | None
    data: str
    mechanisms: str
    counts: dict[str, int] | None  # verdict -> count at the reference; None: not recomputed
    disagreements: list[Any]  # Claim objects
    if_disagree: list[tuple[str, str]]  # (claim, explanation) of the config's printed entries
    problem: str  # why the claims were not recomputed


def _printed_if_disagree(printed: Any) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("if_disagree") and node.get("claim"):
                where = f" ({node['where']})" if node.get("where") else ""
                out.append((f"{node['claim']}{where}", str(node["if_disagree"])))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(printed)
    return out


def _data_label(config: Any) -> str:
    from privlab import datasets

    labels: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            name = node.get("name")
            if isinstance(name, str) and name in (*datasets.NAMES, *datasets.GENERATED):
                if name in datasets.GENERATED:
                    kind = "simulated"
                else:
                    kind = "synthetic" if datasets.SYNTHETIC.get(name, True) and not node.get("path") else "real"
                label = f"{name} ({kind})"
                if label not in labels:
                    labels.append(label)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(config)
    return ", ".join(labels) or "drawn by the experiment"


def experiment_facts(exp: Any) -> ExperimentFacts:
    """What a paper page says about one experiment; claims recomputed from the committed reference."""
    from omegaconf import OmegaConf

    from privlab import check, runner

    facts = ExperimentFacts(exp.id, exp.artifact, exp.summary, exp.twin_of, "", "", None, [], [], "")
    try:
        cfg = runner.compose(exp.id)
    except Exception as exc:  # the page says so, and the strict build fails
        facts.problem = f"its config does not compose: {exc}".splitlines()[0]
        log.warning("%s: %s", exp.id, facts.problem)
        return facts
    data = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(data, dict)
    facts.data = _data_label({k: v for k, v in data.items() if k not in ("printed", "mechanism")})
    facts.mechanisms = ", ".join(str(m.get("label", name)) for name, m in (data.get("mechanism") or {}).items())
    facts.if_disagree = _printed_if_disagree(data.get("printed"))
    path = check.reference_path(exp)
    if not path.is_file():
        facts.problem = "it has no committed reference table yet"
        return facts
    try:
        claims = exp.check_claims(check.read_reference(exp, path), cfg)
    except Exception as exc:  # e.g. a reference older than the table's columns: the page says so
        facts.problem = f"its claims could not be recomputed from the reference: {type(exc).__name__}: {exc}"
        facts.problem = facts.problem.splitlines()[0]
        log.warning("%s: %s", exp.id, facts.problem)  # the strict build fails: the page would show it
        return facts
    facts.counts = {v: sum(c.verdict == v for c in claims) for v in ("agree", "disagree", "info")}
    facts.disagreements = [c for c in claims if c.verdict == "disagree"]
    return facts


# ---------------------------------------------------------------------------------------
# the paper pages
# ---------------------------------------------------------------------------------------
def _module_doc(paper: str) -> str:
    import importlib

    try:
        module = importlib.import_module(f"privlab.experiments.{paper}")
    except Exception:
        return ""
    return textwrap.dedent(module.__doc__ or "").strip()


def _has_package(paper: str) -> bool:
    return (ROOT / "privlab" / paper / "__init__.py").is_file()


def paper_packages() -> list[str]:
    """The registered papers whose library is a package ``privlab/<paper>/`` (an API page each)."""
    from privlab import registry

    return [p for p in registry.papers() if _has_package(p)]


def paper_page(paper: str) -> str:
    """``papers/<paper>.md``."""
    from privlab import errata, ledger, registry, study

    info = registry.papers()[paper]
    exps = registry.select(paper=paper)
    facts = [experiment_facts(e) for e in exps]
    out = [f"# {paper}: {info.title}", ""]
    doc = _module_doc(paper)
    if doc:
        out += [doc, ""]
    seed = f" Source text: `{info.text}`." if info.text and info.text != "none" else ""
    out += [
        f"Reproduce this paper with `privlab reproduce --paper {paper}` (quick profile; add `--profile paper` "
        f"for the paper's scale), one experiment with `privlab run {exps[0].id if exps else paper + '/NAME'}`." + seed,
        "",
        '!!! note "Generated from the repository"',
        f"    This page is built from the paper's experiment unit `experiments/{paper}/`: its experiments, "
        f"configs (`conf/experiment/{paper}/`), committed reference tables (`reference/quick/`) and ledger, "
        "each time the site is built.",
        "",
        "## What is reproduced",
        "",
    ]
    rows = []
    for f in facts:
        counts = f"{f.counts['agree']} / {f.counts['disagree']} / {f.counts['info']}" if f.counts else "—"
        what = cell(f.summary) + (f" (the same experiment as {code(f.twin_of)} on other data)" if f.twin_of else "")
        rows.append([code(f.id), cell(f.artifact), what, cell(f.data or "—"), cell(f.mechanisms or "—"), counts])
    out += [
        table(["experiment", "reproduces", "what", "data", "compares", "claims: agree / disagree / info"], rows),
        "",
        "The claim counts are those of the committed reference tables (quick profile), recomputed by the "
        "experiments' own claim functions when this page was built; `privlab reproduce` writes the same claims "
        "into each run's `claims.csv` and the report.",
        "",
        "## What was reconstructed and why",
        "",
    ]
    recon = [a for path in paper_configs(paper) for a in annotations(path, "reconstructed")]
    if recon:
        out += [
            "The seed text lost these; privlab rebuilt each one and marks it `[reconstructed]` in the config, "
            "where a value can be overridden or swept like any other.",
            "",
            table(
                ["config", "key", "value", "what and why"],
                [
                    [code(a.file), code(a.key) if a.key else "(the whole file)", code(a.value) if a.value else "—"]
                    + [cell(a.comment)]
                    for a in recon
                ],
            ),
            "",
        ]
    else:
        out += ["No config value of this paper is marked `[reconstructed]`.", ""]
    out += [study.docs_section(paper)]  # its studies: which conclusions depend on a reconstruction
    ours = [a for path in paper_configs(paper) for a in annotations(path, "ours")]
    if ours:
        out += [
            "## Thresholds that are ours",
            "",
            "Where a claim needs a threshold the paper does not state, privlab chooses one and marks it `[ours]`:",
            "",
            table(
                ["config", "key", "value", "meaning"],
                [[code(a.file), code(a.key), code(a.value), cell(a.comment)] for a in ours],
            ),
            "",
        ]
    out += ["## What privlab found in the paper", ""]
    items = None
    ledger_problem = ""
    try:
        items = ledger.load(paper)
    except Exception as exc:
        ledger_problem = str(exc).splitlines()[0]
    findings = [i for i in items or [] if i.finding]
    by_id = {i.id: i for i in items or []}
    if findings:
        out += [
            "### Findings recorded in the ledger",
            "",
            f"{errata.summary(findings)}. Only a finding of kind **error** is an error of the paper; "
            f"[the errata](../errata/{paper}.md) give each with the printed and the corrected text or value, "
            "its confidence and its evidence.",
            "",
            table(
                ["item", "where", "kind", "the paper", "what privlab found"],
                [[code(i.id), cell(i.where), _kind(i.finding_kind), cell(i.text), cell(i.finding)] for i in findings],
            ),
            "",
        ]
    refuted = [f for f in facts if f.disagreements]
    if refuted:
        out += [
            "### Claims that disagree with the paper",
            "",
            "Each row is a number or statement of the paper that a check of privlab came out against, with privlab's "
            "explanation (at the quick profile's reference tables) and its cause: the kind of the ledger's finding "
            "(only an *error of the paper* is one), or privlab's own reconstruction, or other data than the "
            "paper's (a real-data twin, a stand-in), which the claim's note says.",
            "",
        ]
        for f in refuted:
            out += [
                f"**{code(f.id)}** ({cell(f.artifact)})",
                "",
                table(
                    ["claim", "the paper", "privlab", "cause", "why"],
                    [
                        [cell(c.claim), cell(c.printed), cell(c.reproduced)]
                        + [cell(errata.cause(c.note, by_id.get(c.ledger), f.twin_of)), cell(c.note or c.rule)]
                        for c in f.disagreements
                    ],
                ),
                "",
            ]
    unchecked = [f for f in facts if f.counts is None]
    for f in unchecked:
        out += [f"The claims of {code(f.id)} are not shown here: {cell(f.problem)}."]
        if f.if_disagree:
            out += [
                "Where its checks can disagree with the paper, privlab explains:",
                "",
                *[f"- {cell(claim)}: {cell(why)}" for claim, why in f.if_disagree],
            ]
        out += [""]
    if not findings and not refuted and not unchecked:
        out += ["Nothing: every claim privlab checks agrees with the paper at the reference tables.", ""]
    out += ["## Ledger", ""]
    if ledger_problem:
        out += [f"The ledger cannot be read: {cell(ledger_problem)}", ""]
    elif items is None:
        out += [
            f"This paper has no ledger yet (`experiments/{paper}.ledger.yaml`, the inventory of everything the "
            "paper prints and what checks it; see `privlab.ledger`).",
            "",
        ]
    else:
        rows = [
            [code(i.id), cell(i.where), cell(i.kind), cell(i.text)]
            + [cell(", ".join(i.checked_by)) if i.checked_by else "not checkable: " + cell(i.not_checkable)]
            for i in items
        ]
        out += [
            f"{len(items)} items: everything the paper prints, and what checks it.",
            "",
            table(["item", "where", "kind", "text", "checked by"], rows),
            "",
        ]
    if _has_package(paper):
        out += ["## API", "", f"The paper's library: [`privlab.{paper}`](../reference/papers/{paper}.md).", ""]
    return "\n".join(out)


def papers_index() -> str:
    from privlab import ledger, registry

    rows = []
    for key, info in registry.papers().items():
        n = len(registry.select(paper=key))
        try:
            items = ledger.load(key)
            led = "none yet" if items is None else f"{len(items)} items"
        except Exception:
            led = "unreadable"
        rows.append([f"[{key}]({key}.md)", cell(info.title), str(n), led])
    broken = registry.broken()
    for key, why in broken.items():
        log.warning("paper %s has no page: %s", key, why)
    out = [
        "# Papers",
        "",
        "One page per paper privlab reproduces, generated from the repository when the site is built: what is "
        "reproduced, what was reconstructed and why, and what privlab found in the paper "
        "([the errata](../errata/index.md) list each finding with its kind; only an *error* is an error of the paper).",
        "",
        table(["paper", "title", "experiments", "ledger"], rows),
        "",
    ]
    if broken:
        out += ["Papers whose module failed to load:", ""]
        out += [f"- `{k}`: {cell(v)}" for k, v in broken.items()] + [""]
    return "\n".join(out)


def errata_pages() -> dict[str, str]:
    """``errata/index.md`` and ``errata/<paper>.md`` of every paper with a readable ledger."""
    from privlab import errata, ledger, registry

    pages, rows = {}, []
    for key, info in registry.papers().items():
        try:
            items = ledger.load(key)
        except Exception as exc:  # the paper page says why; the strict build fails on the warning
            log.warning("paper %s has no errata page: its ledger cannot be read (%s)", key, str(exc).splitlines()[0])
            continue
        if items is None:
            continue
        found = errata.findings(key)
        pages[f"errata/{key}.md"] = errata.markdown(key, found)
        tally = errata.counts(found)
        others = ", ".join(f"{n} {k or 'not classified'}" for k, n in tally.items() if n and k != errata.ERROR)
        rows.append([f"[{key}]({key}.md)", cell(info.title), str(len(found)), str(tally[errata.ERROR]), others or "—"])
    pages["errata/index.md"] = "\n".join(
        [
            "# Errata",
            "",
            "What privlab found in each paper, generated from its ledger when the site is built (`privlab errata "
            "<paper>` prints the same): each finding with its place, the printed and the corrected text or value, "
            "its kind, confidence and evidence. Only a finding of kind **error** (a typo, a wrong number, formula or "
            "statement) is an error of the paper; *unreproducible* (the inputs were lost), *data-dependent* (a "
            "statement about the paper's data that fails on other data), *notation* and *reference* (a wrong "
            "cross-reference or citation) say what they are.",
            "",
            table(["paper", "title", "findings", "errors of the paper", "other findings"], rows),
            "",
        ]
    )
    return pages


def reference_pages() -> dict[str, str]:
    """``reference/core/<module>.md`` and ``reference/papers/<paper>.md``: mkdocstrings directives."""
    from privlab import registry

    options = "    options:\n      show_root_heading: false\n"  # the page's title is the module's name
    pages = {f"reference/core/{m}.md": f"# privlab.{m}\n\n::: privlab.{m}\n{options}" for m in CORE_MODULES}
    for paper, info in registry.papers().items():
        if paper in paper_packages():
            pages[f"reference/papers/{paper}.md"] = (
                f"# privlab.{paper}\n\nThe library of {info.title}: the science behind the experiments of "
                f"[{paper}](../../papers/{paper}.md).\n\n::: privlab.{paper}\n{options}"
            )
    return pages


def generated_pages() -> dict[str, str]:
    """Every generated page: path under docs/ -> Markdown."""
    from privlab import registry

    pages = {"papers/index.md": papers_index()}
    for paper in registry.papers():
        pages[f"papers/{paper}.md"] = paper_page(paper)
    pages.update(errata_pages())
    pages.update(reference_pages())
    return pages


# ---------------------------------------------------------------------------------------
# directives
# ---------------------------------------------------------------------------------------
_CONTRIBUTING = re.compile(r"^<!-- contributing -->$", re.M)


def contributing() -> str:
    """CONTRIBUTING.md with its headings one level down and its code blocks marked not run."""
    out, in_fence = [], False
    for line in (ROOT / "CONTRIBUTING.md").read_text().splitlines():
        if line.lstrip().startswith("```"):
            if not in_fence:
                out += [f"{NOT_RUN_PREFIX} {CONTRIBUTING_REASON} -->", ""]
            in_fence = not in_fence
        elif not in_fence and line.startswith("#"):
            line = "#" + line
        out.append(line)
    return "\n".join(out)


def expand(markdown: str) -> str:
    """A page's Markdown with the directives replaced."""
    return _CONTRIBUTING.sub(lambda m: contributing(), markdown)


def iter_nav(generated: dict[str, str]) -> Iterator[tuple[str, list[Any]]]:
    """The navigation sections the generated pages fill: (the section's index page, its entries)."""
    from privlab import registry

    papers = [{f"{k}": f"papers/{k}.md"} for k in registry.papers()]
    yield "papers/index.md", ["papers/index.md", *papers]
    sheets = [{Path(p).stem: p} for p in generated if p.startswith("errata/") and p != "errata/index.md"]
    yield "errata/index.md", ["errata/index.md", *sheets]
    core = [{f"privlab.{m}": f"reference/core/{m}.md"} for m in CORE_MODULES]
    pkgs = [{f"privlab.{Path(p).stem}": p} for p in generated if p.startswith("reference/papers/")]
    yield "reference/index.md", ["reference/index.md", {"Core": core}, {"Papers' libraries": pkgs}]


# ---------------------------------------------------------------------------------------
# mkdocs events
# ---------------------------------------------------------------------------------------
_PAGES: dict[str, str] = {}


def on_config(config: Any) -> Any:
    _PAGES.clear()
    _PAGES.update(generated_pages())
    sections = dict(iter_nav(_PAGES))

    def fill(items: list[Any]) -> list[Any]:
        out = []
        for item in items:
            if isinstance(item, dict):
                ((title, value),) = item.items()
                if isinstance(value, str) and value in sections:
                    value = sections[value]
                elif isinstance(value, list):
                    value = fill(value)
                out.append({title: value})
            else:
                out.append(item)
        return out

    config["nav"] = fill(config["nav"])
    return config


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    for path, text in _PAGES.items():
        if files.get_file_from_path(path) is None:
            files.append(File.generated(config, path, content=text))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return expand(markdown)
