"""RunContext.map_unordered (results in completion order, lazily) and checkpoint parts."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time

import numpy as np
import pytest

from privlab.context import _HOST, Checkpoint, RunContext


def _slow_square(item: tuple[int, str]) -> int:
    x, done = item
    if x == 0:  # waits until another item has finished (a worker beside it), or 60 s if none runs
        deadline = time.time() + 60
        while not os.listdir(done) and time.time() < deadline:
            time.sleep(0.02)
    else:
        open(os.path.join(done, str(x)), "w").close()
    return x * x


def test_map_unordered_yields_every_result_as_it_finishes(tmp_path):
    ctx = RunContext(workers=2, progress=False)
    (tmp_path / "a").mkdir()
    results = list(ctx.map_unordered(_slow_square, [(x, str(tmp_path / "a")) for x in range(6)]))
    assert sorted(results) == [x * x for x in range(6)]
    assert results[0] != 0  # item 0 is slow: another result came first, nothing waited for it
    (tmp_path / "b").mkdir()
    in_order = ctx.map(_slow_square, [(x, str(tmp_path / "b")) for x in range(6)])
    assert in_order == [x * x for x in range(6)]  # map keeps the order


def test_map_unordered_is_lazy_and_serial_with_one_worker():
    ctx = RunContext(workers=1, progress=False)
    seen = []
    gen = ctx.map_unordered(lambda x: seen.append(x) or x, [1, 2, 3])
    assert seen == []  # nothing runs before the caller asks
    assert next(iter(gen)) == 1 and seen == [1]
    assert list(gen) == [2, 3]


def test_checkpoint_parts_and_discard(tmp_path):
    ctx = RunContext(seed=3, scratch_dir=tmp_path)
    main = ctx.checkpoint("mc", a=1)
    part = main.part("task0")
    assert part.path.parent == tmp_path and part.path.name == f"{main.path.stem}.part-task0.npz"
    part.save(F=np.arange(3))
    clone = pickle.loads(pickle.dumps(part))  # travels to a worker process
    np.testing.assert_array_equal(clone.load()["F"], np.arange(3))
    part.discard()
    assert part.load() is None and not part.path.exists()
    part.discard()  # nothing left: still fine
    assert Checkpoint(None).part("x").load() is None
    with pytest.raises(ValueError, match="part name"):
        main.part("../escape")


def test_checkpoint_removes_what_a_killed_writer_left(tmp_path):
    store = RunContext(scratch_dir=tmp_path).checkpoint("mc", a=1)
    store.save(F=np.arange(2))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f".{store.path.name}.{int(dead.stdout)}.1.{_HOST}.tmp.npz"
    live = tmp_path / f".{store.path.name}.{os.getpid()}.1.{_HOST}.tmp.npz"  # a writer still at work
    remote = tmp_path / f".{store.path.name}.{int(dead.stdout)}.1.otherhost.tmp.npz"  # not ours to judge
    for tmp in (stale, live, remote):
        tmp.write_bytes(b"half")
    np.testing.assert_array_equal(store.load()["F"], np.arange(2))
    assert not stale.exists() and live.exists() and remote.exists()
    store.discard()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, remote.name])
