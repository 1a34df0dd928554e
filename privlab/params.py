"""The parameter contract: what every config key of an experiment may hold.

Each experiment declares its parameters beside its function (``params=`` of
`privlab.registry.experiment`) as a mapping of constraints (`privlab.constraints`: the one protocol
of privlab, also the library's argument checks); a nested mapping declares a nested config block.
After Hydra composes a config, `validate` checks every key against the contract *before anything
runs*: an undeclared key, a value of the wrong type, out of range or not among the allowed choices
ends in one line naming the parameter as the user writes it (``mc.trials``, ``sk_sizes[2]``) and
what is allowed.

>>> validate({"rho2": Real(0, 1, low_open=True, high_open=True)}, {"rho2": 1.5})
Traceback (most recent call last):
...
privlab.errors.PrivlabError: rho2 must be in (0, 1), got 1.5
"""

from __future__ import annotations

from .constraints import (
    Block,
    Bool,
    Choice,
    Constraint,
    Free,
    Int,
    List,
    MapOf,
    Optional,
    Printed,
    Real,
    Str,
    describe,
    validate,
)

#: a parameter's contract is a `Constraint` (the name ``Spec`` is kept for one release)
Spec = Constraint

__all__ = [
    "Constraint",
    "Spec",
    "Int",
    "Real",
    "Bool",
    "Str",
    "Choice",
    "List",
    "Optional",
    "Free",
    "Printed",
    "MapOf",
    "Block",
    "validate",
    "describe",
]
