"""A user's Hydra overrides, made safe before Hydra sees them.

Hydra's override grammar refuses an unquoted non-ASCII value (``results_dir=/tmp/résultats``)
with the lexer's name, takes time growing with the square of an override's length, expands a
``range(...)`` sweep into every value before anything can count them, merges a mapping
override into the configured mapping (``distributions={}`` empties nothing), and enumerates no
``interval(...)`` or ``glob(...)`` sweep of a plain parameter. This module turns each of these
into a value that works or one line saying what to write instead:

* `normalize` quotes a plain value that only fails to parse for its characters (a path with
  spaces or accents), refuses an override too long to parse in reasonable time, and explains
  in one line how to quote any other override that does not parse;
* `normalize` also turns ``key={}`` into ``~key +key={}``: the mapping emptied, as written;
* `sweep_values` lists a sweep's values, counting a range's before listing them; `sweep_jobs`
  expands a sweep into the override lists of its jobs.

It also holds what the command line's two sides share about overrides: which ones are Hydra's own
(`is_hydra`), the value one gives (`override_value`), the launcher a sweep names (`check_launcher`)
and Hydra's errors said in one line (`hydra_error_line`).
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import Glob, IntervalSweep, RangeSweep
from hydra.errors import HydraException

from ._validation import PrivlabError

__all__ = [
    "MAX_OVERRIDE_CHARS",
    "MAX_SWEEP_JOBS",
    "normalize",
    "quote",
    "sweep_values",
    "job_count",
    "sweep_jobs",
    "override_value",
    "is_hydra",
    "check_launcher",
    "hydra_error_line",
]

#: the longest override parsed (Hydra's parser takes about a second at this length, and time
#: growing with the square of the length beyond it)
MAX_OVERRIDE_CHARS = 10_000
#: the longest key (a parameter's dotted path, or a config group) an override may name
MAX_KEY_CHARS = 200
#: the most jobs one sweep may expand to (each job's config is composed and checked before any runs)
MAX_SWEEP_JOBS = 100_000
# characters with a meaning in Hydra's override grammar: a value holding none of them is plain text
_GRAMMAR = set(",[]{}()'\"=\\") | {"$"}


def quote(value: str) -> str:
    """``value`` as one quoted string of Hydra's override grammar (any path: spaces, accents, quotes).

    In a quoted value a backslash is literal unless a quote follows it: a run of backslashes before
    a quote (or before the closing quote) is doubled, and each quote is escaped."""
    value = re.sub(r"(\\+)(?='|$)", lambda m: m.group(1) * 2, value)
    return "'" + value.replace("'", "\\'") + "'"


def _parse(items: Sequence[str]) -> list[Any]:
    return OverridesParser.create().parse_overrides(list(items))


def normalize(overrides: Iterable[str]) -> list[str]:
    """The overrides as Hydra can parse them: each one that does not parse only because of the
    characters of its plain value (non-ASCII letters, say) quoted; any other that does not parse
    is one line saying how to quote it. An override longer than `MAX_OVERRIDE_CHARS` is refused
    before it is parsed. ``key={}`` becomes ``~key`` and ``+key={}``: Hydra merges a mapping
    override into the configured mapping, so ``{}`` alone would change nothing."""
    out = []
    for item in overrides:
        if len(item) > MAX_OVERRIDE_CHARS:
            key = item.partition("=")[0][:40]
            raise PrivlabError(
                f"the override of {key} is {len(item):,} characters long, at most {MAX_OVERRIDE_CHARS:,} are "
                "parsed (Hydra's parser slows with the square of the length); put a value this long in a "
                "config file"
            )
        key = item.partition("=")[0]
        if len(key) > MAX_KEY_CHARS:
            raise PrivlabError(
                f"override key {key[:40]}... is {len(key):,} characters long; no parameter name is longer than "
                f"{MAX_KEY_CHARS} (see 'privlab run ID --cfg job' for the parameters)"
            )
        try:
            _parse([item])
        except (HydraException, ValueError):
            out.append(_quoted_or_explained(item))
            continue
        key, _, value = item.partition("=")
        if key and not key.startswith(("+", "~")) and value.replace(" ", "") == "{}":
            out += [f"~{key}", f"+{key}={{}}"]  # empty the mapping, as written
            continue
        out.append(item)
    return out


def _quoted_or_explained(item: str) -> str:
    key, eq, value = item.partition("=")
    if eq and key and not set(value) & _GRAMMAR and value.strip() == value and value:
        candidate = f"{key}={quote(value)}"
        try:
            _parse([candidate])
        except (HydraException, ValueError):
            pass
        else:
            return candidate
    if not eq or not key.strip():
        raise PrivlabError(f"override {item!r} is not NAME=VALUE (e.g. rho2=0.3)")
    example = f"{key}={quote(value)}"
    raise PrivlabError(
        f"override {item!r} does not parse in Hydra's override grammar; quote the value, e.g. "
        f'"{example}" (in the shell: \'{key}="{value}"\' also works)'
    )


def sweep_values(override: Any, limit: int = MAX_SWEEP_JOBS) -> list[str]:
    """The values of one parsed sweep override (``a=1,2``, ``a=range(0,10,2)``) as override
    strings; a range is counted before it is listed, and a sweep Hydra's basic sweeper cannot
    enumerate (``interval``, ``glob`` of a plain parameter) is one line."""
    key = override.get_key_element()
    value = override.value()
    if isinstance(value, IntervalSweep):
        raise PrivlabError(
            f"{key}=interval(...) is a search space for an optimizing sweeper, not a list of jobs; give the "
            f"values ({key}=0.1,0.2,0.3) or a range ({key}=range(0.1,0.5,0.1))"
        )
    if isinstance(value, Glob):
        raise PrivlabError(
            f"{key}=glob(...) picks options of a config group (dataset=glob(*)), and {key} is a parameter; "
            f"give its values ({key}=a,b,c)"
        )
    if isinstance(value, RangeSweep):
        count = _range_length(value)
        if count > limit:
            raise PrivlabError(f"{key}={override.input_line.partition('=')[2]} makes {count:,} jobs, at most {limit:,}")
    try:
        values = list(override.sweep_string_iterator())
    except HydraException as exc:
        raise PrivlabError(f"the sweep over {key} cannot be listed: {str(exc).splitlines()[0]}") from None
    if not values:
        raise PrivlabError(f"the sweep over {key} is empty; give at least one value")
    return values


def _range_length(value: Any) -> int:
    start, stop, step = (float(x) for x in (value.start, value.stop, value.step))
    if step == 0 or not all(math.isfinite(x) for x in (start, stop, step)):
        return 0
    return max(0, math.ceil((stop - start) / step))


def job_count(choices: Sequence[Sequence[str]], limit: int = MAX_SWEEP_JOBS) -> int:
    """The number of jobs of a sweep with these per-parameter values; more than ``limit`` is one line."""
    count = math.prod(len(c) for c in choices)
    if count > limit:
        sizes = " x ".join(f"{len(c):,}" for c in choices if len(c) > 1)
        raise PrivlabError(f"the sweep makes {sizes} = {count:,} jobs, at most {limit:,}; sweep fewer values")
    return count


# Hydra's command-line flags privlab run passes on; those that take a value take the next argument
_FLAGS = {
    "--help": 0, "-h": 0, "--hydra-help": 0, "--version": 0, "--resolve": 0, "--run": 0, "-r": 0,
    "--multirun": 0, "-m": 0, "--cfg": 1, "-c": 1, "--package": 1, "-p": 1, "--info": 1, "-i": 1,
    "--config-dir": 1, "-cd": 1, "--experimental-rerun": 1, "--shell-completion": 0, "-sc": 0,
}  # fmt: skip
_CFG = ("job", "hydra", "all")
_INFO = ("all", "config", "defaults", "defaults-tree", "plugins", "searchpath")


def check_flags(flags: Sequence[str]) -> None:
    """Refuse, in one line, a Hydra flag ``privlab run`` cannot honour before Hydra prints its usage:
    an unknown flag, a bad ``--cfg``/``--info`` choice, a ``--config-dir`` that is no directory, and
    ``--config-name``/``--config-path`` (privlab composes its own root config; the experiment is its id)."""
    items = list(flags)
    for i, flag in enumerate(items):
        if not flag.startswith("-"):
            continue
        if flag in ("--config-name", "-cn", "--config-path", "-cp"):
            raise PrivlabError(
                f"{flag} is not for privlab run: it composes the experiment's own config (choose it by its id, "
                "add configs with --config-dir DIR)"
            )
        if flag not in _FLAGS:
            known = ", ".join(sorted(f for f in _FLAGS if f.startswith("--")))
            raise PrivlabError(f"unknown flag {flag} of privlab run; Hydra's flags: {known}")
        value = items[i + 1] if _FLAGS[flag] and i + 1 < len(items) else None
        if flag in ("--cfg", "-c") and value not in _CFG:
            raise PrivlabError(f"{flag} must be one of {', '.join(_CFG)}; got {value!r}")
        if flag in ("--info", "-i") and value is not None and value not in _INFO:
            raise PrivlabError(f"{flag} must be one of {', '.join(_INFO)}; got {value!r}")
        if flag in ("--config-dir", "-cd") and (value is None or not Path(value).is_dir()):
            raise PrivlabError(f"{flag} must name a directory of configs; got {value!r}")


def is_hydra(override: str) -> bool:
    """Is ``override`` one of Hydra's own (``hydra.sweep.dir=...``, ``hydra/launcher=joblib``, ``+hydra...``)
    rather than a parameter of the experiment?"""
    key = override.split("=", 1)[0].lstrip("+~")
    return key == "hydra" or key.startswith(("hydra.", "hydra/"))


def hydra_error_line(
    exc: BaseException, exp_id: str | None = None, group_options: Callable[[str], list[str]] | None = None
) -> str:
    """Turn a Hydra/OmegaConf composition error into one line for the user (``group_options(group)``: the
    options of a config group, for an unknown one)."""
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:  # a config file that is not YAML (in a config directory or a paper root)
        return f"config file {mark.name} is not valid YAML: {getattr(exc, 'problem', '')} (line {mark.line + 1})"
    found = re.search(r"Could not (?:find|load) '([^']+)/([^'/]+)'", str(exc))  # an unknown option of a group
    if found:
        group, name = found.groups()
        options = getattr(exc, "options", None) or (group_options(group) if group_options else [])
        if options:
            return f"{group} must be one of {', '.join(sorted(options))}; got {name!r}"
    if isinstance(exc, OSError):
        return f"a config cannot be read ({exc.strerror or exc})"
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    node = re.search(r"full_key: (\S+)", text)  # OmegaConf names the node (an interpolation's key)
    if node and node.group(1) not in first and "Could not override" not in text:
        first = f"{node.group(1)}: {first}"
    if "Could not delete" in text:
        key_name = first.split("'")[1] if "'" in first else first
        return f"unknown parameter {key_name!r}" + (f" of {exp_id}" if exp_id else "")
    if "Could not override" in text or "not in struct" in text:
        key = first.split("'")[1] if "'" in first else first
        where = f" of {exp_id}" if exp_id else ""
        return f"unknown parameter {key!r}{where}; see 'privlab run {exp_id or 'ID'} --cfg job' for its parameters"
    if "Could not find" in text and "experiment" in text:
        return f"unknown experiment: {first}"
    return first


def sweep_jobs(overrides: list[str]) -> list[list[str]]:
    """Expand sweep overrides (a=1,2 b=x,y) into the override lists of each job."""
    try:
        parsed = _parse(overrides)
    except (HydraException, ValueError) as exc:
        raise PrivlabError(hydra_error_line(exc)) from None
    choices = []
    for ov in parsed:
        if ov.is_sweep_override():
            values = sweep_values(ov)  # counted before listed; interval/glob: one line
            choices.append([f"{ov.get_key_element()}={v}" for v in values])
        else:
            choices.append([str(ov.input_line)])
    job_count(choices)
    return [list(c) for c in itertools.product(*choices)]


def override_value(overrides: list[str], key: str) -> str | None:
    """The value the last override of ``key`` gives, as Hydra parses it (quotes removed)."""
    found = None
    for ov in _parse([o for o in overrides if o.split("=", 1)[0] == key]):
        found = str(ov.value())
    return found


# launcher -> (plugin module, what to install)
LAUNCHERS = {
    "joblib": ("hydra_plugins.hydra_joblib_launcher", "hydra-joblib-launcher"),
    "slurm": ("hydra_plugins.hydra_submitit_launcher", "hydra-submitit-launcher"),
    "submitit_slurm": ("hydra_plugins.hydra_submitit_launcher", "hydra-submitit-launcher"),
    "submitit_local": ("hydra_plugins.hydra_submitit_launcher", "hydra-submitit-launcher"),
    "ray": ("hydra_plugins.hydra_ray_launcher", "hydra-ray-launcher (pip install -e '.[ray]')"),
}


def check_launcher(name: str) -> None:
    """A launcher must be known and its plugin installed, before any job starts."""
    if name == "basic":
        return
    if name not in LAUNCHERS:
        raise PrivlabError(f"hydra/launcher must be one of basic, {', '.join(sorted(LAUNCHERS))}; got {name!r}")
    module, package = LAUNCHERS[name]
    try:
        found = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        found = False
    if not found:
        raise PrivlabError(f"hydra/launcher={name} is not installed: install {package}")
