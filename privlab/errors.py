"""privlab's user error and how its messages show a value: the bottom floor, importing nothing of privlab.

Every other module raises `PrivlabError` for bad input or a bad file; the command line prints it as
one line (`fail`) and exits with status 2.
"""

from __future__ import annotations

import sys
from typing import NoReturn

__all__ = ["PrivlabError", "fmt", "fail"]


class PrivlabError(ValueError):
    """Bad input or a bad file: the message is one line naming the parameter
    (or file, line and column) and what is allowed."""


def fmt(value) -> str:
    """``repr(value)`` cut to 60 characters: a value as a one-line message shows it."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def fail(message: str, code: int = 2) -> NoReturn:
    """End the command: one line ``privlab: error: ...`` on stderr and exit status ``code``."""
    print(f"privlab: error: {message}", file=sys.stderr)
    sys.exit(code)
