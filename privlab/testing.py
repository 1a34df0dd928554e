"""Helpers for testing privlab and papers built on it (as `numpy.testing` serves numpy's users).

A paper's author tests their experiments the way privlab tests its own: run the command line
in a subprocess (`run_cli`), read a committed reference table (`reference_table`), or put a paper
root on ``PRIVLAB_PATH`` for the duration of a test (`paper_root`).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path

import pandas as pd

from . import registry
from .check import reference_path

__all__ = ["run_cli", "reference_table", "paper_root", "write_project"]


def run_cli(
    *args: str,
    results: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 600,
) -> subprocess.CompletedProcess[str]:
    """``privlab ARGS`` in a fresh Python process, its output captured as text.

    Parameters
    ----------
    *args : str
        The command line after ``privlab``.
    results : path, optional
        The results directory (``PRIVLAB_RESULTS``); default: ``./results`` of ``cwd``.
    env : mapping, optional
        Variables added to (or overriding) this process's environment.
    cwd : path, optional
        The working directory (default: this process's).
    timeout : float
        Seconds before the process is killed (``subprocess.TimeoutExpired``).
    """
    full_env = {**os.environ, **(env or {})}
    if results is not None:
        full_env["PRIVLAB_RESULTS"] = str(results)
    return subprocess.run(
        [sys.executable, "-m", "privlab.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full_env,
        timeout=timeout,
    )


def reference_table(exp_id: str, *, profile: str = "quick", **read_csv) -> pd.DataFrame:
    """The committed reference table of experiment ``exp_id`` at ``profile`` (quick or paper)."""
    return pd.read_csv(reference_path(registry.get(exp_id), profile), **read_csv)


def write_project(
    root: str | os.PathLike[str], files: Mapping[str, str] | None = None, papers: Mapping[str, str] | None = None
) -> Path:
    """Write ``files`` (relative path -> text, dedented) under ``root``, a paper project; unless the
    files hold a ``pyproject.toml``, write one that declares ``papers`` (key -> experiment unit
    module; default: every top-level package of ``files`` whose ``__init__.py`` declares ``PAPER``,
    under its own name) in the entry-point group ``privlab.papers``."""
    root = Path(root)
    for rel, text in (files or {}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    if not (root / "pyproject.toml").is_file():
        if papers is None:
            papers = {
                rel.split("/")[0]: rel.split("/")[0]
                for rel, text in (files or {}).items()
                if rel.count("/") == 1 and rel.endswith("/__init__.py") and "PAPER" in text
            }
        lines = [f'{key} = "{module}"' for key, module in papers.items()]
        text = "\n".join(
            [
                "[project]",
                f'name = "{root.name.replace("_", "-")}"',
                'version = "0.1"',
                "",
                '[project.entry-points."privlab.papers"]',
                *lines,
                "",
            ]
        )
        root.mkdir(parents=True, exist_ok=True)
        (root / "pyproject.toml").write_text(text)
    return root


@contextlib.contextmanager
def paper_root(
    root: str | os.PathLike[str], files: Mapping[str, str] | None = None, papers: Mapping[str, str] | None = None
) -> Iterator[Path]:
    """Write a paper project under ``root`` (`write_project`) and put it on ``PRIVLAB_PATH`` in this
    process until the block ends; the registry is reloaded on entry and exit, so the project's
    papers come and go with it."""
    root = write_project(root, files, papers)
    before = os.environ.get("PRIVLAB_PATH")
    os.environ["PRIVLAB_PATH"] = str(root)
    registry.reload()
    try:
        yield root
    finally:
        if before is None:
            os.environ.pop("PRIVLAB_PATH", None)
        else:
            os.environ["PRIVLAB_PATH"] = before
        registry.reload()
