"""A griffe extension for privlab's API pages: the reStructuredText that privlab's docstrings
use beside numpy-style sections, turned into the Markdown mkdocstrings renders.

- simple tables (columns under ``=====  =====`` borders) become Markdown tables;
- a paragraph ending in ``::`` followed by an indented block becomes a fenced code block
  (``yaml`` when the block is a YAML mapping, ``python`` otherwise).

Loaded by mkdocs.yml (``extensions`` of the python handler); `convert` is what tests use.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

import griffe
import yaml

_BORDER = re.compile(r"^(\s*)(=+)(\s+=+)+\s*$")


def _columns(border: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"=+", border)]


def _cells(line: str, cols: list[tuple[int, int]]) -> list[str]:
    out = []
    for k, (start, _) in enumerate(cols):
        end = cols[k + 1][0] if k + 1 < len(cols) else len(line)
        out.append(line[start:end].strip())
    return out


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def _table(lines: list[str], start: int) -> tuple[list[str], int] | None:
    """The Markdown of the simple table whose top border is ``lines[start]``, and the index after
    it; None when it is not a well-formed table (top border, header, border, rows, border)."""
    cols = _columns(lines[start])
    indent = _BORDER.match(lines[start]).group(1)  # type: ignore[union-attr]
    borders = [i for i in range(start, len(lines)) if lines[i].strip() and _BORDER.match(lines[i])]
    if len(borders) < 3 or borders[1] != start + 2:
        return None
    header = _cells(lines[start + 1], cols)
    rows: list[list[str]] = []
    for line in lines[borders[1] + 1 : borders[2]]:
        if not line.strip():
            continue
        cells = _cells(line, cols)
        if rows and not cells[0]:  # a continuation line: its text joins the row above
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells)]
        else:
            rows.append(cells)
    md = [f"{indent}| " + " | ".join(_escape(h) for h in header) + " |", indent + "|" + "---|" * len(cols)]
    md += [f"{indent}| " + " | ".join(_escape(c) for c in row) + " |" for row in rows]
    return md, borders[2] + 1


def _language(block: str) -> str:
    try:
        return "yaml" if isinstance(yaml.safe_load(block), dict) else "python"
    except yaml.YAMLError:
        return "python"


def convert(text: str) -> str:
    """``text`` (a docstring) with its simple tables and literal blocks in Markdown."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if _BORDER.match(line):
            done = _table(lines, i)
            if done is not None:
                md, i = done
                if out and out[-1].strip():
                    out.append("")
                out += md
                continue
        if line.rstrip().endswith("::") and i + 1 < len(lines) and not lines[i + 1].strip():
            base = len(line) - len(line.lstrip())
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > base):
                j += 1
            block = textwrap.dedent("\n".join(lines[i + 1 : j])).strip("\n")
            if block:
                head = line.rstrip()[:-1]  # "text::" -> "text:"
                pad = " " * base
                out += [head if head.strip() != ":" else "", "", f"{pad}```{_language(block)}"]
                out += [pad + b if b else "" for b in block.splitlines()] + [f"{pad}```", ""]
                i = j
                continue
        out.append(line)
        i += 1
    return "\n".join(out)


class RstToMarkdown(griffe.Extension):
    """Convert every loaded object's docstring with `convert`."""

    def on_object(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None and ("::" in obj.docstring.value or "==" in obj.docstring.value):
            obj.docstring.value = convert(obj.docstring.value)
