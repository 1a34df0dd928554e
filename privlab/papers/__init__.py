"""The papers privlab reproduces, one module each, found at run time.

A *paper root* is a directory holding ``experiments/<paper>.py`` (the paper's
experiments), ``conf/experiment/<paper>/`` (their configs) and, optionally,
``results/reference/<paper>/`` (committed reference tables). The checkout of privlab
is the first root; ``PRIVLAB_PATH`` (directories separated by ``os.pathsep``) adds
more, so a new paper lives wherever its author keeps it and touches no core file.

Each ``experiments/<paper>.py`` is importable as ``privlab.papers.<paper>`` (this
package's ``__path__`` spans every root's ``experiments/`` folder), also inside
worker processes, which inherit ``PRIVLAB_PATH``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]


def roots() -> list[Path]:
    """The paper roots: the checkout, then every directory on ``PRIVLAB_PATH``."""
    extra = [Path(p).resolve() for p in os.environ.get("PRIVLAB_PATH", "").split(os.pathsep) if p]
    out: list[Path] = []
    for root in (CHECKOUT, *extra):
        if root not in out:
            out.append(root)
    return out


def refresh_path() -> None:
    """Point this package at every root's ``experiments/`` folder (and make each root importable,
    so a paper's own library module beside its experiments imports by name)."""
    __path__[:] = [str(r / "experiments") for r in roots() if (r / "experiments").is_dir()]
    for root in roots()[1:]:
        if str(root) not in sys.path:
            sys.path.append(str(root))


refresh_path()
