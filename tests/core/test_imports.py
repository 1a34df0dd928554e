"""The house reads one way: privlab's modules import one another without a circle, and an import
inside a function is only for a heavy or optional dependency, with the reason in a comment.

The graph is built from the source (every ``import`` of every module of ``privlab``: at the top, inside
functions and under ``TYPE_CHECKING``), so a circle kept importable by a late import is still one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "privlab"

#: what may be imported inside a function, and why (each such import also says why in a comment)
HEAVY = {
    "matplotlib": "about 0.3 s to import; only drawing needs it",
    "scipy": "slow to import; only the computations that use it load it",
    "sympy": "about 0.5 s to import; only the formula audit needs it",
    "pulp": "the ILP solvers load only when an ILP is solved",
    "highspy": "the ILP solvers load only when an ILP is solved",
    "pyarrow": "slow to import; only a sweep's Parquet store needs it",
    "dask": "an optional extra (privlab[dask])",
    "distributed": "an optional extra (privlab[dask]): only a Dask cluster needs it",
    "ray": "an optional extra (privlab[ray])",
    "submitit": "an optional extra (a cluster executor)",
    "joblib": "loky's process pool loads only when a pool starts",
}


#: the floors of the house (CONTRIBUTING.md, "The house as it now is"): a module imports only from its own
#: floor and the floors below; the circle test keeps one floor free of circles
FLOORS = {
    0: ("privlab", "errors", "_lazy", "_pools", "_highs"),
    1: (
        "constraints", "relations", "validation", "_validation", "params", "stats", "claims", "store", "plots",
        "pages", "formulas", "overrides", "mechanisms", "figures", "datasets",
    ),
    2: ("bucketization", "cae", "isolation", "lpb", "multilevel"),  # the papers' libraries
    3: ("registry", "ledger", "audit", "audit_reading", "context"),
    # audit_coverage decides claims from references as check does: above check
    4: ("runner", "executors", "sweep_store", "sweep_plots", "reproduce_pool", "multirun"),
    5: ("app", "sweeps", "study", "report", "check", "testing", "scaffold", "audit_coverage", "errata"),
    6: ("launch", "cli"),
}  # fmt: skip


def floor(module: str) -> int:
    """The floor of a privlab module (a paper's modules share their package's)."""
    parts = module.split(".")
    name = parts[1] if len(parts) > 1 else parts[0]
    found = [f for f, names in FLOORS.items() if name in names]
    assert found, f"{module} has no floor: add it to FLOORS here and to CONTRIBUTING.md"
    return found[0]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The modules an import statement names (``from . import a, b``: both ``privlab.a`` and ``privlab.b``)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = module.split(".")
        if not MODULES[module].name == "__init__.py":
            base = base[:-1]
        base = base[: len(base) - (node.level - 1)]
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module or ""
    return [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in MODULES else prefix for a in node.names]


def _own(name: str) -> str | None:
    """The privlab module ``name`` is or lies in (None outside privlab)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


class _Imports(ast.NodeVisitor):
    def __init__(self, module: str) -> None:
        self.module, self.depth = module, 0
        self.found: list[tuple[int, bool, str]] = []  # (line, inside a function, target)

    def visit_FunctionDef(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_If(self, node: ast.If) -> None:
        # a module's script block (python -m privlab.audit) runs only as __main__: no import of the module
        test = node.test
        if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__":
            return
        self.generic_visit(node)

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        self.found += [(node.lineno, self.depth > 0, t) for t in _targets(self.module, node)]

    visit_Import = visit_ImportFrom = _import


def _imports() -> dict[str, list[tuple[int, bool, str]]]:
    out = {}
    for module, path in MODULES.items():
        visitor = _Imports(module)
        visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
        out[module] = visitor.found
    return out


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, found in _imports().items():
        for _, _, target in found:
            own = _own(target)
            if own is not None and own != module:
                graph[module].add(own)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of ``graph`` (its modules in import order), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def in_function_imports() -> list[tuple[str, int, str]]:
    """``(module, line, imported)`` for every import inside a function of privlab."""
    return [(m, line, t) for m, found in _imports().items() for line, inside, t in found if inside]


def _reason(path: Path, line: int) -> str | None:
    """The comment that says why the import at ``line`` sits in its function: on its line, or on the
    comment and import lines just above it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = line - 1
    while i >= 0:
        text = lines[i].strip()
        if "#" in text:
            return text[text.index("#") + 1 :].strip()
        if not text.startswith(("import ", "from ")) and i != line - 1:
            return None
        i -= 1
    return None


@pytest.mark.slow
def test_no_import_circle():
    cycle = _cycle(_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_circle_detector_finds_a_circle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


@pytest.mark.parametrize("module, line, target", in_function_imports(), ids=lambda v: str(v))
def test_in_function_import_is_heavy_with_its_reason(module, line, target):
    top = target.split(".")[0]
    assert top != "privlab", f"{module}:{line} imports {target} inside a function: import it at the top"
    assert top in HEAVY, f"{module}:{line} imports {target} inside a function; only {', '.join(sorted(HEAVY))} may"
    assert _reason(MODULES[module], line), f"{module}:{line}: say why {target} is imported here, in a comment"


@pytest.mark.slow
def test_every_module_imports_only_from_its_floor_and_below():
    upward = [
        f"{a} (floor {floor(a)}) imports {b} (floor {floor(b)})"
        for a, targets in _graph().items()
        for b in targets
        if floor(b) > floor(a)
    ]
    assert upward == []


@pytest.mark.slow
def test_the_papers_and_the_framework_have_no_late_privlab_import():
    late = [(m, line, t) for m, line, t in in_function_imports() if _own(t)]
    assert late == []


PAPERS = ("bucketization", "cae", "isolation", "lpb", "multilevel")
EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"


@pytest.mark.parametrize("paper", PAPERS)
def test_a_papers_face_is_small(paper):
    """``privlab/<paper>/__init__.py`` hands on the classes and the few functions a user calls."""
    tree = ast.parse((ROOT / paper / "__init__.py").read_text(encoding="utf-8"))
    body = tree.body[1:] if ast.get_docstring(tree) else tree.body
    code_lines = sum(node.end_lineno - node.lineno + 1 for node in body)
    assert code_lines <= 25, f"privlab/{paper}/__init__.py holds {code_lines} lines of code"
    names = next(node.value for node in body if isinstance(node, ast.Assign) and node.targets[0].id == "__all__")
    assert len(names.elts) <= 14


@pytest.mark.parametrize("paper", PAPERS)
def test_old_paths_still_resolve_for_one_release(paper):
    import importlib

    face = importlib.import_module(f"privlab.{paper}")
    for module in ("derivations",):
        assert importlib.import_module(f"privlab.{paper}.{module}") is getattr(face, module)
    with pytest.raises(AttributeError):
        face.no_such_name  # noqa: B018


def test_experiments_import_library_functions_from_their_module():
    """An experiment names ``privlab.<paper>.<module>.<function>``, not the face's copy of it."""
    import importlib

    faces = {paper: set(importlib.import_module(f"privlab.{paper}").__all__) for paper in PAPERS}
    for paper in PAPERS:  # a module of the package is its own home
        faces[paper] |= {p.stem for p in (ROOT / paper).glob("*.py")}
    through_face = []
    for path in sorted(EXPERIMENTS.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = {
            alias.asname or alias.name: alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == "privlab"
            for alias in node.names
            if alias.name in PAPERS
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in {f"privlab.{p}" for p in PAPERS}:
                paper = node.module.split(".")[1]
                through_face += [f"{path.name}: {a.name}" for a in node.names if a.name not in faces[paper]]
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
                if node.attr not in faces[aliases[node.value.id]]:
                    through_face.append(f"{path.name}:{node.lineno}: {node.value.id}.{node.attr}")
    assert through_face == []
