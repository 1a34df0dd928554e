"""TEMPORARY: the pre-redesign decorators, for paper modules not yet converted.

Deleted when the last paper module moves to `privlab.registry.experiment` and
`privlab.claims`. Nothing new may import it.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import claims as _claims
from .registry import _REGISTRY, EXACT, IGNORE, Experiment, Tolerance

__all__ = ["Claim", "EXACT", "IGNORE", "Tolerance", "claims", "experiment", "figure"]


@dataclass(frozen=True)
class Claim:
    claim: str
    paper: str
    reproduced: str
    agree: bool
    note: str = ""

    def convert(self) -> _claims.Claim:
        return _claims.Claim(
            self.claim, self.paper, self.reproduced, "agree" if self.agree else "disagree", "legacy", self.note
        )


def experiment(id, *, artifact, summary, keys=(), tolerances=None, data=""):
    def register(fn):
        _REGISTRY[id] = Experiment(
            id=id, run=fn, artifact=artifact, summary=summary, keys=tuple(keys), tolerances=dict(tolerances or {})
        )
        return fn

    return register


def figure(id, name=None):
    def register(fn):
        _REGISTRY[id].figures[name or fn.__name__] = fn
        return fn

    return register


def claims(id):
    def register(fn):
        _REGISTRY[id].claims_fn = lambda df, cfg: [c.convert() for c in fn(df, cfg)]
        return fn

    return register
