"""Heavy modules imported on first use, so that privlab (the command line, a worker process)
starts without them: ``stats = lazy("scipy.stats")`` at the top of a module, then
``stats.norm.ppf(...)`` imports SciPy's stats the first time it is reached. Importing every
paper imports their libraries; SciPy alone made half of that (0.5 of 1.6 s per process)."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
import re
from collections.abc import Callable
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


def forward(package: str, renamed: dict[str, str] | None = None) -> Callable[[str], Any]:
    """A package's ``__getattr__`` that finds a name its face no longer hands on in the module of the
    package that defines it (``privlab.lpb.breach_grid`` is ``privlab.lpb.breach.breach_grid``; a face's
    own alias through ``renamed``, name -> ``module.name``): the import path of before, kept for one
    release. Write new code against the defining module."""

    def __getattr__(name: str) -> Any:
        if renamed and name in renamed:
            home, _, attr = renamed[name].rpartition(".")
            return getattr(importlib.import_module(f"{package}.{home}"), attr)
        if not name.startswith("_"):
            if importlib.util.find_spec(f"{package}.{name}") is not None:  # a module of the package
                return importlib.import_module(f"{package}.{name}")
            modules = [
                importlib.import_module(f"{package}.{info.name}")
                for info in pkgutil.iter_modules(importlib.import_module(package).__path__)
            ]
            for module in modules:  # the module that declares it public, else any that holds it
                if name in getattr(module, "__all__", ()):
                    return getattr(module, name)
            for module in modules:  # the module that defines it (a module that imports it holds it too)
                if _defines(module, name):
                    return getattr(module, name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__


def _defines(module: Any, name: str) -> bool:
    """Does ``module`` define ``name`` (a function or class of its own, or a top-level assignment)?"""
    if not hasattr(module, name):
        return False
    obj = getattr(module, name)
    if inspect.isfunction(obj) or inspect.isclass(obj):
        return obj.__module__ == module.__name__
    return re.search(rf"^{re.escape(name)}\b\s*(:[^=\n]*)?=", inspect.getsource(module), re.M) is not None
