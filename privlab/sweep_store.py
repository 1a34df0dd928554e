"""A sweep's columnar store: every job's table in Parquet, gathered incrementally.

A sweep directory holds, beside its jobs' result directories ``0``, ``1``, ... (`privlab.store`):

``sweep.yaml``
    the experiment, the sweep's overrides and the number of jobs (written when it starts);
``.table/<job>.parquet``
    a job's result table (as its ``result.csv`` reads back) with the job's parameters as
    columns, written by the job itself when it finishes (or by ``sweep-report`` for a job
    without one); its footer names the job version it was made from, so a recomputed job gets
    a fresh one;
``sweep.parquet`` and ``sweep.csv``
    every complete job's table in one file, with the swept parameters as columns, written by
    `gather` one job at a time (memory holds one job's table, never the sweep's);
``.failed-jobs/<job>`` and ``.errors/<job>.log``
    the marker of a failed job and its traceback.

`query` reads ``sweep.parquet`` with a column selection and filters pushed down to the file
(``sweep-report --where``); so does a one-liner outside privlab::

    import pandas as pd
    pd.read_parquet("SWEEP/sweep.parquet", columns=["attribute", "lambda"], filters=[("rho2", "==", 0.5)])

    import duckdb
    duckdb.sql("SELECT rho2, avg(epsilon) FROM 'SWEEP/sweep.parquet' GROUP BY rho2 ORDER BY rho2").show()
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from . import store
from ._validation import PrivlabError
from .runner import atomic_write_text

PARTS = ".table"
STORE = "sweep.parquet"
TABLE_CSV = "sweep.csv"
SWEEP_FILE = "sweep.yaml"
FAILED_MARKERS = ".failed-jobs"
_META = b"privlab"  # the footer key of a part's (and the store's) description


def _arrow():
    try:
        # pyarrow: slow to import, loaded only for a sweep's Parquet store
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # a dependency of privlab; absent only in a broken environment
        raise PrivlabError("the sweep store needs pyarrow: pip install pyarrow") from None
    return pa, pq


# ---------------------------------------------------------------------------------------
# jobs
# ---------------------------------------------------------------------------------------
def start_sweep(sweep_dir: Path, exp_id: str, jobs: Sequence[Sequence[str]]) -> None:
    """Record what the sweep is (``sweep.yaml``) and forget the failures of an earlier attempt."""

    shutil.rmtree(Path(sweep_dir) / FAILED_MARKERS, ignore_errors=True)
    text = yaml.safe_dump({"experiment": exp_id, "jobs": len(jobs)}, sort_keys=False)
    atomic_write_text(Path(sweep_dir) / SWEEP_FILE, text)


def mark_failed(sweep_dir: Path, num: int) -> None:
    failed = Path(sweep_dir) / FAILED_MARKERS
    failed.mkdir(parents=True, exist_ok=True)
    (failed / str(num)).touch()


def failed_jobs(sweep_dir: Path) -> list[int]:
    """The jobs of the last attempt that failed (their markers)."""
    failed = Path(sweep_dir) / FAILED_MARKERS
    return sorted(int(p.name) for p in failed.iterdir() if p.name.isdigit()) if failed.is_dir() else []


def _job_key(p: Path) -> tuple:
    return (not p.name.isdigit(), int(p.name) if p.name.isdigit() else 0, p.name)


def complete_jobs(sweep_dir: Path) -> tuple[list[Path], list[str]]:
    """The job directories of a sweep whose result is complete (manifest verified), in job order,
    and a line for each one that is not."""
    jobs, incomplete = [], []
    for p in Path(sweep_dir).iterdir():
        if p.name.startswith(".") or not p.is_dir():
            continue
        ok, why = store.verify(p)
        if ok:
            jobs.append(p)
        elif (p / "result.csv").exists() or p.is_symlink():
            incomplete.append(f"job {p.name}: {why}")
    return sorted(jobs, key=_job_key), sorted(incomplete)


def job_params(job_dir: Path) -> dict[str, Any]:
    """The parameters a job's overrides set (``overrides.yaml``), as YAML reads their values;
    lists and dicts as their text (a sweep's cell holds one value)."""
    values: dict[str, Any] = {}
    path = Path(job_dir) / "overrides.yaml"
    if not path.is_file():
        return values
    for line in yaml.safe_load(path.read_text()) or []:
        key, _, raw = str(line).partition("=")
        key = key.lstrip("+~")
        if key.startswith("hydra") or key == "experiment":
            continue
        value = yaml.safe_load(raw) if raw else None
        values[key] = repr(value) if isinstance(value, (list, dict)) else value
    return values


def _version(job_dir: Path) -> str:
    """The version of a complete job: its manifest's digest (a recomputed job has another)."""
    return hashlib.sha256((Path(job_dir) / store.MANIFEST).read_bytes()).hexdigest()[:16]


# ---------------------------------------------------------------------------------------
# parts: one job's table
# ---------------------------------------------------------------------------------------
def part_path(sweep_dir: Path, job: str | int) -> Path:
    return Path(sweep_dir) / PARTS / f"{job}.parquet"


def _read_meta(path: Path) -> dict[str, Any] | None:
    _, pq = _arrow()
    try:
        meta = pq.read_schema(path).metadata or {}
        return json.loads(meta[_META])
    except (OSError, KeyError, ValueError):
        return None


def write_part(sweep_dir: Path, job: str | int) -> Path:
    """Write the Parquet part of complete job ``job``: its table as ``result.csv`` reads back (the
    types every reader of the CSV sees), its parameters as leading columns (those its table lacks)."""
    pa, pq = _arrow()
    job_dir = Path(sweep_dir) / str(job)
    version = _version(job_dir)
    table = pd.read_csv(job_dir / "result.csv")
    table_columns = [str(c) for c in table.columns]
    params = job_params(job_dir)
    lead = {"job": str(job), **{k: v for k, v in params.items() if k not in table.columns and k != "job"}}
    for i, (k, v) in enumerate(lead.items()):
        table.insert(i, k, v)
    arrow = pa.Table.from_pandas(table, preserve_index=False)
    meta = {"job": str(job), "version": version, "params": params, "table_columns": table_columns}
    arrow = arrow.replace_schema_metadata({_META: json.dumps(meta).encode()})
    path = part_path(sweep_dir, job)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pq.write_table(arrow, tmp)
    os.replace(tmp, path)
    return path


def ensure_part(sweep_dir: Path, job: str | int) -> dict[str, Any]:
    """The description of job ``job``'s part, written first if missing or made from another version."""
    path = part_path(sweep_dir, job)
    meta = _read_meta(path) if path.is_file() else None
    if meta is None or meta.get("version") != _version(Path(sweep_dir) / str(job)):
        write_part(sweep_dir, job)
        meta = _read_meta(path)
    assert meta is not None
    return meta


# ---------------------------------------------------------------------------------------
# gathering every job into one table
# ---------------------------------------------------------------------------------------
@dataclass
class Gathered:
    """What `gather` found: the complete jobs (in order) with their parameters, the swept ones,
    the experiment and the rows of the table; lines for incomplete jobs."""

    jobs: list[str]
    params: list[dict[str, Any]]
    swept: list[str]
    exp_id: str | None
    rows: int
    columns: list[str]
    incomplete: list[str]


def swept_keys(params: Sequence[Mapping[str, Any]]) -> list[str]:
    """The parameters whose value differs between jobs, in the order the overrides name them."""
    keys = list(dict.fromkeys(k for p in params for k in p))
    return [k for k in keys if len({repr(p.get(k)) for p in params}) > 1]


def _unify(types: list) -> Any:
    """One Arrow type for a column whose parts have ``types``: equal types stay; integers and
    floats are floats; a column of nulls takes the others' type; anything else is text."""
    pa, _ = _arrow()
    known = [t for t in dict.fromkeys(types) if not pa.types.is_null(t)]
    if not known:
        return pa.null()
    if len(known) == 1:
        return known[0]
    if all(pa.types.is_integer(t) or pa.types.is_floating(t) for t in known):
        return pa.float64()
    return pa.string()


def _param_type(values: list[Any]) -> Any:
    pa, _ = _arrow()
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return pa.bool_()
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return pa.int64()
    if present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return pa.float64()
    return pa.string() if present else pa.null()


def _column(values: Any, kind: Any, rows: int) -> Any:
    """An Arrow array of type ``kind``: ``values`` an array to cast, or one value repeated."""
    pa, _ = _arrow()
    # pyarrow: slow to import, loaded only for a sweep's Parquet store
    import pyarrow.compute as pc

    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        if values.type == kind:
            return values
        if pa.types.is_string(kind) and not pa.types.is_string(values.type):
            return pa.array([None if v is None else _text(v) for v in values.to_pylist()], type=kind)
        return pc.cast(values, kind)
    if values is not None and pa.types.is_string(kind):
        values = _text(values)
    return pa.array([values] * rows, type=kind)


def _text(value: Any) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def gather(sweep_dir: Path, before_writing: Callable[[Any, list[str], str | None], None] | None = None) -> Gathered:
    """Write ``sweep.parquet`` and ``sweep.csv``: every complete job's table with the swept
    parameters as columns, one job at a time (each from its part, made first where missing).
    ``before_writing(schema, swept, exp_id)`` may refuse (a bad ``--metric``) before either is written."""
    pa, pq = _arrow()
    sweep_dir = Path(sweep_dir)
    if not sweep_dir.is_dir():
        raise PrivlabError(f"SWEEP_DIR {sweep_dir} is not a directory")
    job_dirs, incomplete = complete_jobs(sweep_dir)
    if not job_dirs:
        why = f" ({incomplete[0]})" if incomplete else ""
        raise PrivlabError(f"SWEEP_DIR {sweep_dir} holds no complete job{why}")
    metas = [ensure_part(sweep_dir, j.name) for j in job_dirs]
    params = [m["params"] for m in metas]
    swept = swept_keys(params)
    schemas = [pq.read_schema(part_path(sweep_dir, j.name)) for j in job_dirs]
    table_cols = list(dict.fromkeys(c for m in metas for c in m["table_columns"] if c != "job"))
    lead = ["job", *[k for k in swept if k not in table_cols]]
    columns = [*lead, *table_cols]
    kinds: dict[str, Any] = {"job": pa.string()}
    for k in lead[1:]:
        kinds[k] = _param_type([p.get(k) for p in params])
    for c in table_cols:
        types = [s.field(c).type for s in schemas if c in s.names]
        if c in swept:  # a swept parameter some tables report: the others get the value
            types += [_param_type([p.get(c)]) for s, p in zip(schemas, params) if c not in s.names]
        kinds[c] = _unify(types)
    schema = pa.schema([pa.field(c, kinds[c]) for c in columns])
    exp_id = _experiment(sweep_dir, job_dirs[0])
    description = {"experiment": exp_id, "swept": swept, "jobs": [j.name for j in job_dirs]}
    schema = schema.with_metadata({_META: json.dumps(description).encode()})
    if before_writing is not None:
        before_writing(schema, swept, exp_id)
    parquet_tmp = sweep_dir / f".{STORE}.{os.getpid()}.tmp"
    csv_tmp = sweep_dir / f".{TABLE_CSV}.{os.getpid()}.tmp"
    rows = 0
    try:
        with pq.ParquetWriter(parquet_tmp, schema) as writer, open(csv_tmp, "w") as csv:
            for i, (job, p) in enumerate(zip(job_dirs, params)):
                part = pq.read_table(part_path(sweep_dir, job.name))
                n = part.num_rows
                arrays = []
                for c in columns:
                    if c in part.column_names:
                        arrays.append(_column(part.column(c), kinds[c], n))
                    else:  # a swept parameter, or a column this job's table lacks
                        arrays.append(_column(p.get(c) if c in swept else None, kinds[c], n))
                chunk = pa.Table.from_arrays(arrays, schema=schema)
                writer.write_table(chunk)
                frame = chunk.to_pandas(types_mapper=_nullable)
                csv.write(frame.to_csv(index=False, header=i == 0, lineterminator="\n"))
                rows += n
        os.replace(parquet_tmp, sweep_dir / STORE)
        os.replace(csv_tmp, sweep_dir / TABLE_CSV)
    finally:
        parquet_tmp.unlink(missing_ok=True)
        csv_tmp.unlink(missing_ok=True)
    return Gathered([j.name for j in job_dirs], params, swept, exp_id, rows, columns, incomplete)


def _nullable(kind: Any) -> Any:
    """Integers and booleans with gaps stay integers and booleans in pandas (and in the CSV)."""
    pa, _ = _arrow()
    if pa.types.is_integer(kind):
        return pd.Int64Dtype()
    if pa.types.is_boolean(kind):
        return pd.BooleanDtype()
    return None


def _experiment(sweep_dir: Path, job_dir: Path) -> str | None:
    described = Path(sweep_dir) / SWEEP_FILE
    if described.is_file():
        found = (yaml.safe_load(described.read_text()) or {}).get("experiment")
        if found:
            return str(found)
    cfg = job_dir / "config.yaml"
    return (yaml.safe_load(cfg.read_text()) or {}).get("id") if cfg.is_file() else None


def description(sweep_dir: Path) -> dict[str, Any]:
    """What ``sweep.parquet`` says of itself: experiment, swept parameters, jobs."""
    _, pq = _arrow()
    path = Path(sweep_dir) / STORE
    if not path.is_file():
        raise PrivlabError(f"{path} does not exist; run 'privlab sweep-report {sweep_dir}' first")
    return json.loads((pq.read_schema(path).metadata or {})[_META])


def schema_of(sweep_dir: Path) -> Any:
    _, pq = _arrow()
    return pq.read_schema(Path(sweep_dir) / STORE)


def where_filters(sweep_dir: Path, where: Mapping[str, str]) -> list[tuple[str, str, Any]]:
    """``--where COLUMN=VALUE`` items as Parquet filters, each value read in its column's type;
    a column that does not exist, a value of the wrong type or one that matches no row is a
    `PrivlabError` naming what the column holds."""
    pa, pq = _arrow()
    schema = schema_of(sweep_dir)
    filters: list[tuple[str, str, Any]] = []
    for col, text in where.items():
        if col not in schema.names:
            raise PrivlabError(f"--where must name result columns ({', '.join(schema.names)}); got {col!r}")
        kind = schema.field(col).type
        value: Any = text
        try:
            if pa.types.is_integer(kind):
                number = float(text)
                value = int(number) if number.is_integer() else number
            elif pa.types.is_floating(kind):
                value = float(text)
            elif pa.types.is_boolean(kind):
                if text.lower() not in ("true", "false"):
                    raise ValueError(text)
                value = text.lower() == "true"
        except ValueError:
            value = None
        matched = value is not None and pq.read_table(
            Path(sweep_dir) / STORE, columns=[col], filters=[(col, "==", value)]
        )
        if not matched or matched.num_rows == 0:
            seen = pq.read_table(Path(sweep_dir) / STORE, columns=[col]).column(col).unique().to_pylist()
            shown = ", ".join(sorted(map(str, seen))[:12])
            raise PrivlabError(f"--where {col}={text} matches no row; {col} takes: {shown}")
        filters.append((col, "==", value))
    return filters


def query(
    sweep_dir: Path, columns: Sequence[str] | None = None, where: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """Rows of ``sweep.parquet`` (only ``columns``; only those ``where`` matches), as pandas."""
    _, pq = _arrow()
    filters = where_filters(sweep_dir, where) if where else None
    table = pq.read_table(Path(sweep_dir) / STORE, columns=list(columns) if columns else None, filters=filters)
    return table.to_pandas(types_mapper=_nullable)


def iter_claims(sweep_dir: Path, jobs: Sequence[str]) -> Iterator[tuple[str, list[dict[str, str]]]]:
    """Each complete job's claims (rows of its ``claims.csv``; none if it checks none)."""
    for job in jobs:
        path = Path(sweep_dir) / job / "claims.csv"
        if not path.is_file():
            yield job, []
            continue
        with open(path, newline="") as fh:
            yield job, list(csv.DictReader(fh))
