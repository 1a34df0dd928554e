"""Crash-safe result directories.

A result lives at a path such as ``results/lpb/table1``. That path is a symbolic link to a
complete version directory beside it (``.table1.v<stamp>``). A write fills a new staging
directory, writes ``manifest.json`` last (every file's size and sha256, and the table's row
count), fsyncs the files and the directory, and then switches the link with one atomic
``rename``. A SIGKILL at any moment leaves either the old or the new complete result at the
path, never neither and never a mixture; what the killed writer left behind (a staging
directory, an unreferenced version) is removed by the next write, once its process is dead.
Writers of the same result take a lock (``flock``) and wait for each other.

Readers never infer completeness from a file's existence: `verify` checks the manifest.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from ._validation import PrivlabError

MANIFEST = "manifest.json"
_NO_ROOM = (errno.ENOSPC, errno.EDQUOT, errno.EROFS)  # a write the file system refuses, whoever asks
_STAGING = re.compile(r"^\.(?P<name>.+)\.(?:staging|v|link)-(?P<pid>\d+)(?:-\d+)?$")


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def writable_dir(path: Path, what: str) -> Path:
    """Create ``path`` (and parents) or end in one line naming it: an unusable output directory
    (read-only, a file in the way, no permission, a full disk) is a user error, not a traceback."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".privlab-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise PrivlabError(f"{what} {_short(path)} is not a writable directory ({exc.strerror or exc})") from None
    return path


def _short(path: Path) -> str:
    """A path as messages show it: at most 120 characters (its start and its end)."""
    text = str(path)
    return text if len(text) <= 120 else f"{text[:60]}...{text[-57:]}"


def probe_writable(path: Path, what: str) -> None:
    """Check that ``path`` can be created and written, leaving nothing behind: the directories
    it had to create are removed again. A refused run writes nothing."""
    path = Path(path)
    created = []
    p = path
    try:
        while not p.exists() and p != p.parent:
            created.append(p)
            p = p.parent
    except OSError as exc:  # a name longer than the file system allows, a loop of links
        raise PrivlabError(f"{what} {_short(path)} is not a usable directory ({exc.strerror or exc})") from None
    try:
        writable_dir(path, what)
    finally:
        for d in created:  # deepest first
            with contextlib.suppress(OSError):
                d.rmdir()


def read_claims(path: Path) -> Any:
    """A result's ``claims.csv`` as a table of strings; one that cannot be read (not UTF-8, not CSV,
    without the claim and verdict columns) is a `PrivlabError` saying so, for that result's row."""
    try:
        frame = pd.read_csv(path, keep_default_na=False, dtype=str)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, OSError, UnicodeDecodeError) as exc:
        raise PrivlabError(f"{path} cannot be read as claims: {str(exc).strip().splitlines()[-1]}") from None
    missing = [c for c in ("claim", "verdict") if c not in frame.columns]
    if missing:
        raise PrivlabError(f"{path} is not a claims table: it lacks the column(s) {', '.join(missing)}")
    return frame


@contextlib.contextmanager
def locked(target: Path) -> Iterator[None]:
    """Hold the writer's lock of result ``target`` (other writers of it wait)."""
    lock_path = target.parent / f".{target.name}.lock"
    with open(lock_path, "a+b") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _clean_stale(target: Path) -> None:
    """Remove staging and version directories of ``target`` that no live process owns and the
    link does not point to (left by a killed writer). Called under the lock."""
    current = os.readlink(target) if target.is_symlink() else None
    for entry in target.parent.iterdir():
        m = _STAGING.match(entry.name)
        if not m or m.group("name") != target.name or entry.name == current:
            continue
        if ".staging-" in entry.name and _alive(int(m.group("pid"))):
            continue  # another writer's work in progress
        if entry.is_symlink():  # a killed writer's temporary link
            entry.unlink(missing_ok=True)
        else:
            shutil.rmtree(entry, ignore_errors=True)


def write_result(target: Path, fill: Callable[[Path], None], *, rows: int | None = None, durable: bool = True) -> Path:
    """Write the result ``target`` atomically: ``fill(staging)`` writes the files, then the
    manifest is written last, everything is fsynced and the link switched in one rename.

    ``durable=False`` (the jobs of a sweep) leaves the fsyncs out: the write is as atomic for a
    killed process, and a job that a power failure tears fails its manifest's checksums, so the
    sweep's resume runs it again; on a busy disk the fsyncs cost tens of ms per job."""
    target = Path(target)
    parent = writable_dir(target.parent, "results directory")
    stamp = f"{os.getpid()}-{time.time_ns()}"
    staging = parent / f".{target.name}.staging-{stamp}"
    with locked(target):
        _clean_stale(target)
        staging.mkdir()
        try:
            fill(staging)
            files = {}
            for path in sorted(staging.iterdir()):
                if path.is_file():
                    if durable:
                        with open(path, "rb+") as fh:
                            os.fsync(fh.fileno())
                    files[path.name] = {"bytes": path.stat().st_size, "sha256": _sha256(path)}
            manifest = {"rows": rows, "files": files, "written_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
            with open(staging / MANIFEST, "w") as fh:
                fh.write(json.dumps(manifest, indent=1) + "\n")
                fh.flush()
                if durable:
                    os.fsync(fh.fileno())
            if durable:
                _fsync_dir(staging)
            version = parent / f".{target.name}.v-{stamp}"
            os.rename(staging, version)
            _switch(target, version, durable)
        except BaseException as exc:
            shutil.rmtree(staging, ignore_errors=True)
            if isinstance(exc, OSError) and exc.errno in _NO_ROOM:  # the disk, not the experiment
                raise PrivlabError(f"the result {_short(target)} cannot be written ({exc.strerror})") from None
            raise
        _clean_stale(target)
    return target


def _switch(target: Path, version: Path, durable: bool = True) -> None:
    """Point ``target`` at ``version`` in one atomic rename (a real directory left by an older
    privlab is first moved aside, the one step that is not atomic)."""
    old = None
    if target.exists() and not target.is_symlink():
        old = target.parent / f".{target.name}.v-{os.getpid()}-0"
        os.rename(target, old)
    link = target.parent / f".{target.name}.link-{os.getpid()}"
    with contextlib.suppress(FileNotFoundError):
        link.unlink()
    os.symlink(version.name, link)
    os.replace(link, target)
    if durable:
        _fsync_dir(target.parent)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def verify(result: Path, *, deep: bool = True) -> tuple[bool, str]:
    """Is ``result`` a complete result? Its manifest lists every file with its size (and, with
    ``deep``, its sha256); a missing, truncated or altered file makes it incomplete."""
    result = Path(result)
    try:
        manifest = json.loads((result / MANIFEST).read_text())
    except (OSError, ValueError):
        return False, "no readable manifest"
    for name, meta in manifest.get("files", {}).items():
        path = result / name
        try:
            size = path.stat().st_size
        except OSError:
            return False, f"{name} is missing"
        if size != meta.get("bytes"):
            return False, f"{name} has {size} bytes, the manifest says {meta.get('bytes')}"
        if deep and _sha256(path) != meta.get("sha256"):
            return False, f"{name} does not match its checksum"
    return True, f"{len(manifest.get('files', {}))} files"


def manifest_rows(result: Path) -> int | None:
    try:
        return json.loads((Path(result) / MANIFEST).read_text()).get("rows")
    except (OSError, ValueError):
        return None


def remove(target: Path) -> None:
    """Remove result ``target`` (its link and every version), under its lock."""
    target = Path(target)
    if not target.parent.is_dir():
        return
    with locked(target):
        if target.is_symlink():
            version = target.parent / os.readlink(target)
            target.unlink()
            shutil.rmtree(version, ignore_errors=True)
        elif target.is_dir():
            shutil.rmtree(target)
        _clean_stale(target)
