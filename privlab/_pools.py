"""Process pools for whole experiments (`privlab.reproduce_pool`) and sweep jobs (`privlab.multirun`)."""

from __future__ import annotations

from typing import Any


def process_pool(workers: int) -> Any:
    """A loky process pool of the caller's own (shut it down when done).

    Not loky's process-wide reusable executor: joblib's loky backend shares that one, and a
    ``Parallel(n_jobs=...)`` later in the same process fails on it (it lacks joblib's
    ``_temp_folder_manager``). loky rather than concurrent.futures: a worker that dies breaks the
    pool with ``BrokenProcessPool`` at once, and callables travel by cloudpickle.
    """
    from joblib.externals.loky import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=workers)
