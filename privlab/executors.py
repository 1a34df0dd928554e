"""Where whole jobs run: one interface, futures, for this machine's processes, a Dask cluster and SLURM.

``privlab reproduce``, ``privlab study run`` and ``privlab run ... --multirun`` send each experiment
or job as one task to an `Executor`: ``submit(fn, *args) -> concurrent.futures.Future``, ``lost(exc)``
(did the worker running it die, so that the task is run again?) and ``renew()`` after such a death.
Three implementations:

* `privlab._pools.RenewablePool`: worker processes of this machine (the default);
* `DaskExecutor`: a Dask scheduler's workers (``--cluster tcp://host:port``);
* `SubmititExecutor`: SLURM through submitit (``--cluster slurm``, its options in ``conf/cluster/slurm.yaml``;
  ``--cluster submitit_local`` runs the same path on this machine's processes).

On a cluster (`Executor.remote`) a worker shares no file system with the client: it computes a
result's files in a directory of its own and sends them back (`compute_files`), and the client writes
them crash-safely as a local run does (`write_files`, `privlab.store.write_result`). Tables do not
depend on where they ran (every number depends only on its config and seed).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
import warnings
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

from omegaconf import OmegaConf

from . import runner, store
from ._pools import RenewablePool
from ._validation import PrivlabError

__all__ = [
    "Executor",
    "DaskExecutor",
    "SubmititExecutor",
    "make_executor",
    "pop_cluster",
    "check_cluster",
    "one_line_warnings",
    "Files",
    "compute_files",
    "write_files",
]

# loky's note when an idle worker timed out (or was recycled) while tasks waited: it starts another
# and nothing is lost, so nothing is said
WORKER_STOPPED = "A worker stopped while some jobs were given to the executor"


class Executor(Protocol):
    """What the job loops need of a pool of workers."""

    workers: int  # tasks run at once
    remote: bool  # workers without the client's file system: results come back as files

    def submit(self, fn: Any, *args: Any) -> Future: ...

    def lost(self, exc: BaseException) -> bool:
        """Does ``exc`` (a task's exception) say that the worker running it died?"""
        ...

    def renew(self) -> None: ...

    def __enter__(self) -> Executor: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...


# ---------------------------------------------------------------------------------------
# warnings: one line of privlab's, never a library's raw warning
# ---------------------------------------------------------------------------------------
def one_line_warnings(where: str = "") -> None:
    """From now on in this process, a warning is one line ``privlab: warning: [where: ]message
    (Category)`` on stderr, and loky's worker-stopped note (nothing lost) is dropped. Worker processes
    started from here inherit the note's filter through ``PYTHONWARNINGS``; they call this too."""
    warnings.filterwarnings("ignore", message=WORKER_STOPPED, category=UserWarning)
    note = f"ignore:{WORKER_STOPPED}:UserWarning"
    current = os.environ.get("PYTHONWARNINGS", "")
    if note not in current:
        os.environ["PYTHONWARNINGS"] = ",".join(filter(None, [current, note]))
    prefix = f"{where}: " if where else ""

    def show(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
        text = (str(message).strip().splitlines() or [""])[0]
        try:
            print(f"privlab: warning: {prefix}{text} ({category.__name__})", file=file or sys.stderr, flush=True)
        except (OSError, ValueError):  # stderr gone: a warning is not worth a fault
            pass

    warnings.showwarning = show


# ---------------------------------------------------------------------------------------
# results that travel: a worker's files, written by the client
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Files:
    """A result directory's files as bytes (``manifest.json`` aside: the client writes its own)."""

    contents: dict[str, bytes]
    rows: int | None


def compute_files(run: Any, *args: Any) -> tuple[Any, Files | None]:
    """On a remote worker: ``run(*args, out_dir=..., results_dir=...)`` into a directory of the
    worker's own, then its files read back; ``(what run returned, Files)``, Files None when the run
    wrote no complete result (a failure)."""

    scratch = Path(tempfile.gettempdir()) / f"privlab-worker-{os.getuid()}"  # the worker's cache and scratch
    work = Path(tempfile.mkdtemp(prefix="job-", dir=_made(scratch)))
    try:
        out = work / "out"
        returned = run(*args, out_dir=out, results_dir=scratch)
        ok, _ = store.verify(out)
        if not ok:
            return returned, None
        real = out.resolve()
        contents = {p.name: p.read_bytes() for p in sorted(real.iterdir()) if p.is_file() and p.name != store.MANIFEST}
        return returned, Files(contents, store.manifest_rows(out))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _made(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def write_files(out_dir: Path, files: Files, *, durable: bool = True) -> None:
    """Write a worker's ``files`` to ``out_dir`` crash-safely (`privlab.store.write_result`)."""

    def fill(staging: Path) -> None:
        for name, data in files.contents.items():
            (staging / name).write_bytes(data)

    store.write_result(Path(out_dir), fill, rows=files.rows, durable=durable)


# ---------------------------------------------------------------------------------------
# clusters
# ---------------------------------------------------------------------------------------
def _settled(target: Future, source: Any) -> None:
    """Copy the outcome of a finished ``source`` future (Dask's, submitit's) into ``target``."""
    try:
        target.set_result(source.result())
    except BaseException as exc:  # noqa: BLE001 - the task's outcome, whatever it is
        target.set_exception(exc)


class DaskExecutor:
    """The workers of a Dask scheduler at ``address`` (``tcp://host:port``). Dask itself runs again a
    task whose worker died (up to ``distributed.scheduler.allowed-failures`` times); past that the task
    fails with ``KilledWorker``, which `lost` reports, and the job loop runs it once more."""

    remote = True

    def __init__(self, address: str, *, timeout: float = 20) -> None:
        try:
            from distributed import Client  # an optional extra (privlab[dask]): only a Dask cluster needs it
        except ImportError:
            raise PrivlabError(f"--cluster {address} needs Dask: install privlab[dask]") from None
        try:
            self.client = Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise PrivlabError(f"--cluster {address}: no Dask scheduler answers there ({exc})") from None
        threads = sum(self.client.nthreads().values())
        if threads == 0:
            self.client.close()
            raise PrivlabError(f"--cluster {address}: the scheduler has no worker")
        self.workers = threads

    def submit(self, fn: Any, *args: Any) -> Future:
        future: Future = Future()
        task = self.client.submit(fn, *args, pure=False)
        task.add_done_callback(lambda done: _settled(future, done))
        return future

    def lost(self, exc: BaseException) -> bool:
        from distributed import KilledWorker  # an optional extra (privlab[dask])

        return isinstance(exc, KilledWorker)

    def renew(self) -> None:
        """Nothing to renew: the scheduler replaces its own workers."""

    def __enter__(self) -> DaskExecutor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.client.close()


class SubmititExecutor:
    """SLURM jobs through submitit (``cluster="slurm"``), or the same on this machine's processes
    (``cluster="local"``, a stand-in for SLURM in tests). ``parameters`` are submitit's
    (``timeout_min``, ``slurm_partition``, ``mem_gb``, ``cpus_per_task``, ...)."""

    remote = True

    def __init__(self, folder: Path, *, cluster: str, workers: int, parameters: dict[str, Any]) -> None:
        import submitit  # an optional extra: only a SLURM (or submitit-local) cluster needs it

        self.executor = submitit.AutoExecutor(folder=str(folder), cluster=cluster)
        try:
            self.executor.update_parameters(**parameters)
        except (ValueError, TypeError) as exc:
            raise PrivlabError(f"conf/cluster: a submitit option is not one of {cluster}'s ({exc})") from None
        self.workers = workers
        self._threads: list[threading.Thread] = []

    def submit(self, fn: Any, *args: Any) -> Future:
        future: Future = Future()
        job = self.executor.submit(fn, *args)
        waiter = threading.Thread(target=_settled, args=(future, job), daemon=True)  # job.result() polls
        waiter.start()
        self._threads.append(waiter)
        return future

    def lost(self, exc: BaseException) -> bool:
        from submitit.core.utils import UncompletedJobError  # an optional extra (submitit)

        return isinstance(exc, UncompletedJobError)

    def renew(self) -> None:
        """Nothing to renew: each job has its own allocation."""

    def __enter__(self) -> SubmititExecutor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self._threads = [t for t in self._threads if t.is_alive()]


CLUSTER_HELP = (
    "run each experiment or job as a task of a cluster: a Dask scheduler (tcp://host:port) or slurm "
    "(submitit; options in conf/cluster/slurm.yaml); results come back here"
)
SCHEMES = ("tcp", "tls", "ucx", "inproc", "ws", "wss")


def check_cluster(cluster: str, *, sweep: bool = True, own: bool = True) -> None:
    """``--cluster`` checked before anything runs: an address of a Dask scheduler or a file of
    ``conf/cluster/``; with ``privlab run``, a sweep (``--multirun``) on privlab's own launcher."""
    if not sweep:
        raise PrivlabError("--cluster sends the jobs of a sweep: add --multirun (or use privlab reproduce --cluster)")
    if not own:
        raise PrivlabError(
            "--cluster runs privlab's own launcher: drop the hydra/launcher and hydra.launcher overrides"
        )
    if "://" in cluster:
        scheme = cluster.split("://", 1)[0]
        if scheme not in SCHEMES or not cluster.split("://", 1)[1]:
            raise PrivlabError(f"--cluster {cluster} is not a Dask scheduler address (e.g. tcp://host:8786)")
        return
    cluster_options(cluster)


def pop_cluster(args: list[str]) -> tuple[str | None, list[str]]:
    """``--cluster X`` (or ``--cluster=X``) taken out of ``args``: ``(X or None, the rest)``."""
    rest, cluster, items = [], None, iter(args)
    for a in items:
        if a == "--cluster":
            cluster = next(items, None)
            if cluster is None or cluster.startswith("-"):
                raise PrivlabError("--cluster needs a value: a Dask scheduler (tcp://host:port) or slurm")
        elif a.startswith("--cluster="):
            cluster = a.split("=", 1)[1]
        else:
            rest.append(a)
    return cluster, rest


def cluster_options(name: str) -> dict[str, Any]:
    """``conf/cluster/<name>.yaml``: ``executor: submitit``, ``cluster`` (slurm, local), ``workers``
    (jobs in flight at once) and ``parameters`` (submitit's)."""
    folder = runner.conf_dir() / "cluster"
    known = sorted(p.stem for p in folder.glob("*.yaml"))
    if name not in known:
        raise PrivlabError(
            f"--cluster must be a Dask scheduler address (tcp://host:port) or one of {', '.join(known)} "
            f"(conf/cluster/); got {name!r}"
        )
    data = OmegaConf.to_container(OmegaConf.load(folder / f"{name}.yaml"), resolve=True)
    assert isinstance(data, dict)
    return {str(k): v for k, v in data.items()}


def make_executor(cluster: str | None, workers: int, folder: Path) -> Executor:
    """The executor ``--cluster`` names (None: ``workers`` processes of this machine). ``folder``
    holds a submitit run's logs."""
    if cluster is None:
        return RenewablePool(workers)
    if "://" in cluster:
        return DaskExecutor(cluster)
    options = cluster_options(cluster)
    return SubmititExecutor(
        Path(folder) / ".submitit",
        cluster=str(options.get("cluster", "slurm")),
        workers=int(options.get("workers", 64)),
        parameters=dict(options.get("parameters") or {}),
    )
