"""privlab's process pool as a Hydra launcher: ``hydra/launcher=privlab``, beside joblib, submitit and ray.

``privlab run ID a=1,2 b=x,y --multirun`` is a Hydra application (`privlab.app`); its sweeper expands
the sweep and this launcher runs the jobs on a pool of ``hydra.launcher.workers`` processes
(`privlab.multirun`: one Hydra composition per set of config-group choices, every job's config checked
before any starts, a job that fails or whose worker dies is one line and a marker). The launcher is
the default of privlab's root config; ``hydra/launcher=joblib`` (or submitit, ray) runs the same jobs
through that launcher instead, in the same directories.

The sweeper is Hydra's basic sweeper less its check of every job by a full composition: privlab composed
every job before Hydra started (`privlab.app.prevalidate`, or this launcher itself), in a fraction of
the time.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hydra._internal.core_plugins import basic_sweeper
from hydra.core.utils import JobReturn, JobStatus
from hydra.plugins.launcher import Launcher
from hydra.plugins.sweeper import Sweeper
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig

from privlab import multirun
from privlab.context import effective_workers


class PrivlabLauncher(Launcher):
    """The jobs of a sweep on ``workers`` processes of this machine (-1: one per core), or on ``cluster``
    (``privlab run ... --multirun --cluster X``: a Dask scheduler's address or a file of conf/cluster/)."""

    def __init__(self, workers: int = -1, cluster: str | None = None) -> None:
        self.workers, self.cluster = workers, cluster
        self.config: DictConfig | None = None

    def setup(self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig) -> None:
        self.config = config

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[JobReturn]:
        assert self.config is not None
        if initial_job_idx != 0:  # the sweep's store numbers its jobs from 0, in one batch
            raise ValueError("privlab's launcher runs a sweep in one batch: leave hydra.sweeper.max_batch_size null")
        sweep_dir = Path(str(self.config.hydra.sweep.dir))
        exp_ids = {o.split("=", 1)[1] for job in job_overrides for o in job if o.startswith("experiment=")}
        (exp_id,) = exp_ids  # privlab run names one experiment
        jobs = [[o for o in job if not o.startswith("experiment=")] for job in job_overrides]
        multirun.run_sweep(exp_id, jobs, sweep_dir, workers=effective_workers(self.workers), cluster=self.cluster)
        # each job said its outcome and left its marker if it failed; Hydra's sweeper asks only that all ran
        return [_ran(job, sweep_dir / str(initial_job_idx + i)) for i, job in enumerate(job_overrides)]


def _ran(overrides: Sequence[str], out_dir: Path) -> JobReturn:
    return JobReturn(
        overrides=list(overrides), working_dir=str(out_dir), task_name="privlab", status=JobStatus.COMPLETED
    )


class PrivlabSweeper(Sweeper):
    """Hydra's basic sweeper without its per-job composition check (privlab checked every job already)."""

    def __init__(self, max_batch_size: int | None = None, params: dict[str, str] | None = None) -> None:
        self.max_batch_size, self.params = max_batch_size, params
        self.basic: Any = None

    def setup(self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig) -> None:
        # the class as Hydra's plugin scan left it (the scan executes core_plugins' modules again)
        self.basic = basic_sweeper.BasicSweeper(max_batch_size=self.max_batch_size, params=self.params)
        self.basic.validate_batch_is_legal = lambda batch: None
        self.basic.setup(hydra_context=hydra_context, task_function=task_function, config=config)

    def sweep(self, arguments: list[str]) -> Any:
        return self.basic.sweep(arguments)
