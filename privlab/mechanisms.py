"""Mechanisms defined in config: the ``conf/mechanism/`` group.

Every mechanism an experiment compares is one file ``conf/mechanism/<name>.yaml``::

    two_size:                       # the name the command line uses
      _target_: privlab.bucketization.TwoSizeBucketing
      label: TwoSize                # what result tables call it
      kind: bucketing               # which experiments can use it
      pruning: full                 # parameters, passed to the target

An experiment selects mechanisms in its config's defaults
(``- override /mechanism: [two_size, multi_size]``); a user swaps, adds or tunes them
from the command line (``mechanism=[anatomy]``, ``+mechanism=anatomy``,
``mechanism.two_size.pruning=loss``) or sweeps over them with ``--multirun``. A new
mechanism is a library class or function plus one config file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hydra.errors import InstantiationException
from hydra.utils import instantiate as hydra_instantiate
from omegaconf import DictConfig, OmegaConf

from ._validation import PrivlabError

META_KEYS = ("label", "kind")


@dataclass(frozen=True)
class Mechanism:
    """A mechanism built from its config entry."""

    name: str
    label: str
    kind: str
    impl: Any
    params: dict[str, Any] = field(default_factory=dict)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.impl(*args, **kwargs)


def instantiate(name: str, spec: Mapping[str, Any]) -> Mechanism:
    """Build mechanism ``name`` from its config entry (``_target_``, ``label``, ``kind``, parameters)."""
    if isinstance(spec, DictConfig):
        spec = OmegaConf.to_container(spec, resolve=True)  # type: ignore[assignment]
    if not isinstance(spec, Mapping) or "_target_" not in spec:
        raise PrivlabError(f"mechanism.{name} must be a mapping with a _target_ (see conf/mechanism/{name}.yaml)")
    target = {k: v for k, v in spec.items() if k not in META_KEYS}
    params = {k: v for k, v in target.items() if not k.startswith("_")}
    try:
        impl = hydra_instantiate(target)
    except PrivlabError as exc:
        raise PrivlabError(f"mechanism.{name}: {exc}") from None
    except (InstantiationException, TypeError, ValueError, ImportError) as exc:
        cause = exc.__cause__ if isinstance(exc.__cause__, PrivlabError) else exc
        first = (str(cause).strip().splitlines() or [type(cause).__name__])[-1 if cause is exc else 0]
        raise PrivlabError(f"mechanism.{name}: {first}") from None
    return Mechanism(
        name=name, label=str(spec.get("label", name)), kind=str(spec.get("kind", "")), impl=impl, params=params
    )


def build(specs: Mapping[str, Any] | None, *, kind: str | None = None) -> dict[str, Mechanism]:
    """Every mechanism of a ``mechanism`` config block, in config order; ``kind`` must match when given."""
    out: dict[str, Mechanism] = {}
    for name, spec in (specs or {}).items():
        mech = instantiate(str(name), spec)
        if kind is not None and mech.kind != kind:
            raise PrivlabError(
                f"mechanism={name} is a {mech.kind or 'untyped'} mechanism; this experiment compares {kind} mechanisms"
            )
        out[str(name)] = mech
    if kind is not None and not out:
        raise PrivlabError(f"mechanism must name at least one {kind} mechanism")
    return out
