"""The templates' environment and inlined assets that every page of privlab is rendered with.

`privlab.report` (REPORT.md, report.html), `privlab.sweeps` (a sweep's report.html) and `privlab.check`
(``compare --html``) render the templates of ``privlab/templates/`` through this one environment, so
that the style sheet and script they inline are the same files.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

__all__ = ["environment", "asset", "cell", "md_cell"]


def cell(value: Any) -> str:
    """A table cell's text: floats to 6 significant digits."""
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def md_cell(value: Any) -> str:
    """A Markdown table cell: pipes escaped, one line."""
    return cell(value).replace("|", "\\|").replace("\n", " ")


@cache
def environment(html: bool) -> Environment:
    """The templates' environment: HTML-escaping for pages, not for Markdown."""
    env = Environment(
        loader=PackageLoader("privlab", "templates"),
        autoescape=html,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["md"] = md_cell
    return env


def asset(name: str) -> Markup:
    """A static file of the templates directory (style sheet, script), inlined verbatim."""
    env = environment(True)
    assert env.loader is not None
    source, _, _ = env.loader.get_source(env, name)
    return Markup(source)
