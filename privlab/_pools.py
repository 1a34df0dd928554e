"""Process pools for whole experiments (`privlab.reproduce_pool`) and sweep jobs (`privlab.multirun`):
this machine's implementation of `privlab.executors.Executor`."""

from __future__ import annotations

from concurrent.futures import Future
from types import TracebackType
from typing import Any


class RenewablePool:
    """A loky process pool of the caller's own, replaced by `renew` after a worker died.

    Not loky's process-wide reusable executor: joblib's loky backend shares that one, and a
    ``Parallel(n_jobs=...)`` later in the same process fails on it (it lacks joblib's
    ``_temp_folder_manager``). loky rather than concurrent.futures: a worker that dies breaks the
    pool with ``BrokenProcessPool`` at once, and callables travel by cloudpickle. As a context
    manager it waits for its workers on a normal exit and kills them on an exception (Ctrl-C, a
    generator closed early).
    """

    remote = False  # the workers share this machine's file system: they write their results themselves

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool = self._new()

    def _new(self) -> Any:
        # loky: the process pool loads only when a pool starts
        from joblib.externals.loky import ProcessPoolExecutor

        return ProcessPoolExecutor(max_workers=self.workers)

    def submit(self, fn: Any, *args: Any) -> Future:
        return self._pool.submit(fn, *args)

    def lost(self, exc: BaseException) -> bool:
        """A worker died (killed, out of memory, a crash in C code): loky breaks the pool."""
        from joblib.externals.loky.process_executor import BrokenProcessPool  # loaded only when a pool starts

        return isinstance(exc, BrokenProcessPool)

    def renew(self) -> None:
        """A fresh pool in place of a broken one (its workers killed)."""
        self._pool.shutdown(wait=False, kill_workers=True)
        self._pool = self._new()

    def __enter__(self) -> RenewablePool:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        failed = exc_type is not None
        self._pool.shutdown(wait=not failed, kill_workers=failed)
