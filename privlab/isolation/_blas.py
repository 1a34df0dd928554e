"""One BLAS thread while the isolation package multiplies its blocks.

The distance blocks are small (a few thousand by a few hundred); OpenBLAS splits any product
above about 2^18 multiply-adds across all cores, and on a shared or busy machine the threads
wait on each other: measured on 2 cores at load 2.5, the quick isolation_vs_d ran in 14.8 s
with OpenBLAS's default threads and 4.1 s with one. Parallel work belongs to the experiment's
workers (`RunContext.map`), which already run one BLAS thread each. Where no OpenBLAS is
found (another BLAS, another platform) this does nothing; answers never depend on it.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache, wraps
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

_PREFIXES = ("scipy_openblas", "openblas")
_SUFFIXES = ("64_", "")


@cache
def _openblas() -> tuple[Callable[[], int], Callable[[int], Any]] | None:
    """(get, set) of the number of threads of the OpenBLAS loaded in this process, if any."""
    try:
        with open("/proc/self/maps") as f:
            paths = sorted({line.split()[-1] for line in f if "openblas" in line.lower() and ".so" in line})
    except OSError:
        return None
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in _PREFIXES:
            for suffix in _SUFFIXES:
                get = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                put = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
                if get is not None and put is not None:
                    get.restype = ctypes.c_int
                    put.argtypes = [ctypes.c_int]
                    return get, put
    return None


@contextmanager
def one_thread() -> Iterator[None]:
    """Run the block with OpenBLAS limited to one thread (restored afterwards)."""
    found = _openblas()
    if found is None:
        yield
        return
    get, put = found
    before = get()
    if before <= 1:
        yield
        return
    put(1)
    try:
        yield
    finally:
        put(before)


def single_blas_thread(fn: Callable[P, R]) -> Callable[P, R]:
    """Decorate ``fn`` to run under `one_thread`."""

    @wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with one_thread():
            return fn(*args, **kwargs)

    return run
