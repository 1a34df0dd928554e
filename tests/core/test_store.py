"""Crash-safe results: a SIGKILL at any step of a write leaves the old or the new complete
result at its path; stale leftovers are cleaned; concurrent writers wait; a damaged result
is never taken as complete."""

import json
import multiprocessing as mp
import os
import signal
from pathlib import Path

import pytest

from privlab import store

STEPS = ["fill", "manifest", "rename", "symlink", "replace", "after"]


def _fill(text):
    def fill(d: Path) -> None:
        (d / "result.csv").write_text(text)
        (d / "config.yaml").write_text("a: 1\n")

    return fill


def _writer(target: str, text: str, die_at: str | None) -> None:
    """Write a result in a child process and SIGKILL it at step ``die_at``."""

    def die(*_a, **_k):
        os.kill(os.getpid(), signal.SIGKILL)

    real_rename, real_symlink, real_replace = os.rename, os.symlink, os.replace
    if die_at == "fill":

        def fill(d):
            (d / "result.csv").write_text(text[: len(text) // 2])
            die()

        store.write_result(Path(target), fill)
        return
    if die_at == "manifest":
        json.dumps = die  # type: ignore[assignment]  # the manifest is the last file written
    if die_at == "rename":
        os.rename = die  # type: ignore[assignment]
    if die_at == "symlink":
        os.symlink = die  # type: ignore[assignment]
    if die_at == "replace":
        os.replace = die  # type: ignore[assignment]
    if die_at == "after":
        store._clean_stale = lambda target: die() if target.is_symlink() else None  # type: ignore[assignment]
    try:
        store.write_result(Path(target), _fill(text), rows=1)
    finally:
        os.rename, os.symlink, os.replace = real_rename, real_symlink, real_replace


def _run(target: Path, text: str, die_at: str | None) -> int:
    proc = mp.get_context("fork").Process(target=_writer, args=(str(target), text, die_at))
    proc.start()
    proc.join(30)
    return proc.exitcode


@pytest.mark.parametrize("step", STEPS)
def test_sigkill_at_each_step_leaves_old_or_new(tmp_path, step):
    target = tmp_path / "paper" / "exp"
    assert _run(target, "old,1\n", None) == 0
    assert _run(target, "new,2\n", step) == -signal.SIGKILL
    ok, why = store.verify(target)
    assert ok, why
    text = (target / "result.csv").read_text()
    assert text in ("old,1\n", "new,2\n")
    if step in ("fill", "manifest", "rename", "symlink", "replace"):
        assert text == "old,1\n"
    # the next write cleans what the killed writer left
    assert _run(target, "third,3\n", None) == 0
    assert (target / "result.csv").read_text() == "third,3\n"
    leftovers = [p.name for p in target.parent.iterdir() if p.name.startswith(".exp.") and not p.name.endswith(".lock")]
    assert leftovers == [os.readlink(target)], leftovers


def test_first_write_killed_leaves_nothing_complete(tmp_path):
    target = tmp_path / "exp"
    assert _run(target, "new\n", "replace") == -signal.SIGKILL
    assert not store.verify(target)[0]


def test_concurrent_writers_wait_for_each_other(tmp_path):
    target = tmp_path / "exp"
    procs = [
        mp.get_context("fork").Process(target=_writer, args=(str(target), f"w{i}\n" * 2000, None)) for i in range(6)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0] * 6
    ok, why = store.verify(target)
    assert ok, why
    assert len({line for line in (target / "result.csv").read_text().splitlines()}) == 1


def test_verify_catches_truncation_and_tampering(tmp_path):
    target = tmp_path / "exp"
    store.write_result(target, _fill("a,b\n1,2\n"), rows=1)
    assert store.verify(target) == (True, "2 files")
    path = target / "result.csv"
    path.write_text("a,b\n")
    assert store.verify(target)[0] is False and "bytes" in store.verify(target)[1]
    path.write_text("a,b\n1,3\n")  # same size, other content
    assert store.verify(target) == (False, "result.csv does not match its checksum")
    path.unlink()
    assert store.verify(target) == (False, "result.csv is missing")


def test_unusable_output_directory_is_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(store.PrivlabError, match="is not a writable directory"):
        store.write_result(blocker / "exp", _fill("x"))
    with pytest.raises(store.PrivlabError, match="/proc/x"):
        store.writable_dir(Path("/proc/x"), "results directory")
