"""Heavy modules imported on first use, so that privlab (the command line, a worker process)
starts without them: ``stats = lazy("scipy.stats")`` at the top of a module, then
``stats.norm.ppf(...)`` imports SciPy's stats the first time it is reached. Importing every
paper imports their libraries; SciPy alone made half of that (0.5 of 1.6 s per process)."""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """The module ``name``, imported when one of its attributes is first read."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


def lazy(name: str) -> Any:
    """The module ``name``, imported on first use (see the module docstring)."""
    return LazyModule(name)
