"""Shared fixtures of privlab's test suite (helpers for any paper's tests are in `privlab.testing`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import matplotlib
import pytest

from privlab import testing

matplotlib.use("Agg")  # figures render without a display, in every test process

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture()
def results(tmp_path: Path) -> Path:
    """A fresh results directory for one test."""
    path = tmp_path / "results"
    path.mkdir()
    return path


@pytest.fixture()
def cli(results: Path) -> Callable[..., object]:
    """``cli(*args, **kw)``: ``privlab ARGS`` in a subprocess from the checkout, writing into the
    test's own results directory unless ``results=`` says otherwise (see `privlab.testing.run_cli`)."""

    def run(*args: str, **kw):
        kw.setdefault("results", results)
        kw.setdefault("cwd", REPO)
        return testing.run_cli(*args, **kw)

    return run


@pytest.fixture()
def paper_root(tmp_path: Path) -> Iterator[Callable[..., Path]]:
    """``paper_root(files, name="root")``: a paper root with ``files`` (relative path -> text) on
    ``PRIVLAB_PATH`` of this process and of the subprocesses it starts, until the test ends."""
    stack: list = []

    def make(files: dict[str, str], name: str = "root") -> Path:
        context = testing.paper_root(tmp_path / name, files)
        stack.append(context)
        return context.__enter__()

    yield make
    while stack:
        stack.pop().__exit__(None, None, None)
