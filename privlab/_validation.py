"""The old, private name of `privlab.validation` (kept for one release): import from privlab.validation."""

from __future__ import annotations

from .errors import PrivlabError
from .errors import fmt as _fmt
from .validation import *  # noqa: F403
from .validation import __all__ as _public

__all__ = ["PrivlabError", "_fmt", *_public]
