"""The documentation site cannot go stale: every code block of docs/ and of the pages generated
from the repository (docs/hooks/privlab_docs.py) is run, or marked not run with a reason.

How a fenced block is treated, by its info string:

``bash``
    each line (``\\`` continuations joined) runs in bash, in a fresh working directory per page
    with ``PRIVLAB_RESULTS=<it>/results``; ``export`` lines carry over to the page's later
    lines. A line must exit with 0, or with the status its comment states (``# exit status 2``);
    a ``privlab`` line with status 0 prints no traceback, one with status 2 prints one line,
    ``privlab: error: ...``.
``text``
    the expected output of the last line run before it: each of its lines, with ``...``
    matching anything, must match a line of that output, in order.
``python``
    run in a fresh namespace in the page's working directory; with ``>>>`` prompts, as a doctest.
any language with ``title="PATH"``
    a file the page's later commands use: written to PATH in the working directory (Python is
    compiled, YAML parsed); with the single line ``--8<-- "PATH"`` it is the repository's own
    file, included by pymdownx.snippets.
anything else
    a failure, unless the line before it (blank lines aside) is
    ``<!-- not run in tests: REASON -->``; its ``privlab`` lines are still checked to parse and
    compose, as is every inline ```privlab ...``` command of the pages.

Each page runs in order, in one test; the four pages whose commands take more than ~15 s of CPU
(SLOW_PAGES) are marked slow: tests/core/test_registry_warner.py runs the tutorial's paper through
the conformance harness in the default suite, and test_tutorial_is_the_warner_example checks that
the page shows examples/warner's files exactly. The docstring examples
of the modules the API reference renders run as doctests. Run everything with
``python -m pytest tests/core/test_docs.py -m "slow or not slow"``.
"""

from __future__ import annotations

import doctest
import html
import importlib
import importlib.util
import os
import pkgutil
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# blocks marked not run, in all: set-up, the docs server, the paper profile, SLURM, Dask, CONTRIBUTING.md x2
NOT_RUN_MAX = 11  # the three cluster commands of guide/sweeps.md need a scheduler or SLURM (tests/core/test_cluster.py)
DOCSTRING_EXCERPTS_MAX = 3  # illustrative literal blocks (``::``) in the docstrings the API pages render
# pages whose commands take more than ~4 s (each privlab command starts in ~2 s); the default suite
# runs the others (tests/core/test_registry_warner.py runs the tutorial's paper, tests/core/test_faults.py and
# test_bad_input.py the behaviours of the faults page)
SLOW_PAGES = {
    "guide/sweeps.md": "two sweeps of three jobs",
    "guide/check.md": "six commands, three of them runs",
    "guide/faults.md": "seven commands",
    "tutorial/add-a-paper.md": "a whole paper, ten commands",
    "guide/run.md": "runs, a multirun and a report",
    "guide/reproduce.md": "a paper reproduced and checked",
    "guide/epsilon.md": "the epsilon tool on four inputs",
    "guide/setup.md": "the installed commands, each started",
}
MARKER = re.compile(r"^\s*<!--\s*not run in tests\s*(?::(?P<reason>.*?))?\s*-->\s*$")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*)$")
STATUS = re.compile(r"#.*\bexit status (\d+)")
INCLUDE = re.compile(r'^--8<--\s+"(?P<path>[^"]+)"$')


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


HOOK = _load("privlab_docs_hook", DOCS / "hooks" / "privlab_docs.py")


# ---------------------------------------------------------------------------------------
# pages and their blocks
# ---------------------------------------------------------------------------------------
@dataclass
class Block:
    page: str
    line: int  # 1-based line of the opening fence in the (expanded) page
    lang: str
    title: str
    text: str
    not_run: str | None = None  # the marker's reason; "" for a marker without one

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def kind(self) -> str:
        if self.not_run is not None:
            return "not run"
        if self.title and INCLUDE.match(self.text.strip()):
            return "included"
        if self.title:
            return "file"
        if self.lang in ("python", "py", "pycon"):
            return "doctest" if re.search(r"^\s*>>> ", self.text, re.M) else "python"
        if self.lang in ("bash", "sh", "shell"):
            return "bash"
        if self.lang == "text":
            return "output"
        return "unexecuted"


@dataclass
class Page:
    path: str
    markdown: str
    blocks: list[Block] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # markers without a block, unclosed fences


def parse(path: str, markdown: str) -> Page:
    page = Page(path, markdown)
    lines = markdown.splitlines()
    marker: tuple[int, str] | None = None
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if m:
            if marker:
                page.problems.append(f"{path}:{marker[0]}: a not-run marker not followed by a code block")
            marker = (i + 1, (m.group("reason") or "").strip())
            i += 1
            continue
        f = FENCE.match(lines[i])
        if not f:
            if marker and lines[i].strip():
                page.problems.append(f"{path}:{marker[0]}: a not-run marker not followed by a code block")
                marker = None
            i += 1
            continue
        indent, fence, info = len(f.group("indent")), f.group("fence"), f.group("info").strip()
        end = i + 1
        while end < len(lines) and not re.match(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$", lines[end]):
            end += 1
        if end == len(lines):
            page.problems.append(f"{path}:{i + 1}: a code block that is never closed")
        body = "\n".join(line[indent:] if not line[:indent].strip() else line.lstrip() for line in lines[i + 1 : end])
        title = re.search(r'title="([^"]*)"', info)
        page.blocks.append(
            Block(
                path,
                i + 1,
                info.split()[0] if info else "",
                title.group(1) if title else "",
                body,
                marker[1] if marker else None,
            )
        )
        marker = None
        i = end + 1
    if marker:
        page.problems.append(f"{path}:{marker[0]}: a not-run marker not followed by a code block")
    return page


def static_pages() -> list[str]:
    return sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md") if "hooks" not in p.relative_to(DOCS).parts)


def static_page(path: str) -> Page:
    return parse(path, HOOK.expand((DOCS / path).read_text()))


@pytest.fixture(scope="module")
def generated() -> list[Page]:
    return [parse(path, text) for path, text in HOOK.generated_pages().items()]


@pytest.fixture(scope="module")
def all_pages(generated) -> list[Page]:
    return [static_page(p) for p in static_pages()] + generated


# ---------------------------------------------------------------------------------------
# checking privlab commands without running them
# ---------------------------------------------------------------------------------------
def _is_placeholder(token: str) -> bool:
    return bool(re.fullmatch(r"[A-Z][A-Z0-9_]*(=.*)?|.*<[^>]+>.*|.*\.\.\..*|.*=[A-Z][A-Z_]*", token))


def _argv(command: str) -> list[str]:
    argv = shlex.split(command, comments=True)
    while argv and re.fullmatch(r"\w+=.*", argv[0]):  # VAR=value before the command
        argv.pop(0)
    return argv


def dry_check(command: str) -> None:
    """Parse and compose a privlab command without running it (raises on a bad one)."""
    from privlab import app, cli, executors, registry, runner

    argv = _argv(command)
    assert argv[:1] == ["privlab"] and len(argv) > 1, command
    rest = argv[1:]
    if len(rest) == 1 or any(_is_placeholder(t) for t in rest):  # `privlab epsilon`, `privlab compare A B`
        sub = next(a for a in cli.build_parser()._actions if a.dest == "command")
        assert rest[0] in (sub.choices or {}), f"{command}: no subcommand {rest[0]!r}"
        return
    if rest[0] == "run":
        exp = registry.get(rest[1])
        cluster, given = executors.pop_cluster(rest[2:])  # as privlab run takes --cluster out first
        _, args = app.parse(given)  # as privlab run parses them
        if cluster is not None:
            executors.check_cluster(cluster, sweep=bool(args.multirun), own=app.launcher(args.overrides) == "privlab")
        if args.cfg or args.info or args.help:
            return
        app.prevalidate(exp.id, args.overrides, bool(args.multirun))
        return
    args = cli.build_parser().parse_args(rest)
    if getattr(args, "profile", None) is not None:
        assert args.profile in runner.PROFILES, command
    if hasattr(args, "ids") or getattr(args, "paper", None):
        registry.select(getattr(args, "ids", []) or [], paper=getattr(args, "paper", None))


def inline_commands(page: Page) -> list[str]:
    """The ``privlab ...`` code spans of the page's prose (outside code blocks)."""
    prose, in_fence = [], ""
    for line in page.markdown.splitlines():
        f = FENCE.match(line)
        if f and not in_fence:
            in_fence = f.group("fence")
        elif in_fence and line.strip().startswith(in_fence):
            in_fence = ""
        elif not in_fence:
            prose.append(line)
    spans = re.findall(r"(?<!`)(`{1,2})(?!`)(.+?)(?<!`)\1(?!`)", "\n".join(prose))
    return [s.strip() for _, s in spans if s.strip().startswith("privlab ")]


# ---------------------------------------------------------------------------------------
# running a page
# ---------------------------------------------------------------------------------------
def bash_lines(text: str) -> list[str]:
    out, buf = [], ""
    for raw in text.splitlines():
        if raw.rstrip().endswith("\\"):
            buf += raw.rstrip()[:-1].strip() + " "
            continue
        line, buf = (buf + raw.strip()).strip(), ""
        if line and not line.startswith("#"):
            out.append(line)
    return out


def _is_privlab(line: str) -> bool:
    return bool(re.match(r"^(\w+=\S*\s+)*privlab\s", line))


def output_mismatch(expected: str, actual: str) -> str | None:
    lines = [line.rstrip() for line in actual.splitlines()]
    pos = 0
    for want in expected.splitlines():
        if not want.strip() or want.strip() == "...":
            continue
        pattern = re.compile(".*".join(re.escape(part) for part in want.rstrip().split("...")))
        while pos < len(lines) and not pattern.fullmatch(lines[pos]):
            pos += 1
        if pos == len(lines):
            return f"no line (after the ones matched before it) matches {want!r}"
        pos += 1
    return None


def environment(workdir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIVLAB_")}
    bindir = str(Path(sys.executable).parent)
    env.update(PRIVLAB_RESULTS=str(workdir / "results"), PATH=f"{bindir}{os.pathsep}{env.get('PATH', '')}")
    env.update(NO_MKDOCS_2_WARNING="1", PYTHONWARNINGS="ignore")
    return env


def run_page(page: Page, workdir: Path) -> tuple[list[str], dict[str, int]]:
    """Run the page's blocks in order; (failures, how many blocks of each kind ran)."""
    workdir.mkdir(parents=True, exist_ok=True)
    env = environment(workdir)
    prelude = (
        []
        if shutil.which("privlab", path=env["PATH"])
        else [f'privlab() {{ "{sys.executable}" -m privlab.cli "$@"; }}']
    )
    failures: list[str] = []
    ran: dict[str, int] = {}
    last: tuple[str, str] | None = None  # (command, its output)
    for block in page.blocks:
        kind = block.kind
        ran[kind] = ran.get(kind, 0) + 1
        if kind == "not run":
            continue
        if kind == "included":
            path = INCLUDE.match(block.text.strip()).group("path")  # type: ignore[union-attr]
            if not (ROOT / path).is_file() or path != block.title:
                failures.append(f"{block.where}: includes {path}, which is not the repository file {block.title}")
        elif kind == "file":
            target = workdir / block.title
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text + "\n")
            if block.lang == "python":
                compile(block.text, block.where, "exec")
            elif block.lang == "yaml":
                yaml.safe_load(block.text)
        elif kind in ("python", "doctest"):
            cwd = os.getcwd()
            os.chdir(workdir)
            try:
                if kind == "python":
                    exec(compile(block.text, block.where, "exec"), {"__name__": "__docs__"})
                else:
                    test = doctest.DocTestParser().get_doctest(block.text, {}, block.where, page.path, block.line)
                    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
                    report: list[str] = []
                    runner.run(test, out=report.append)
                    if runner.failures:
                        failures.append(f"{block.where}: doctest failed\n{''.join(report)}")
            except Exception as exc:
                failures.append(f"{block.where}: {type(exc).__name__}: {exc}")
            finally:
                os.chdir(cwd)
        elif kind == "bash":
            for line in bash_lines(block.text):
                status = STATUS.search(line)
                want = int(status.group(1)) if status else 0
                script = "\n".join([*prelude, *_exports_before(page, block, line), line])
                res = subprocess.run(
                    ["bash", "-c", script],
                    cwd=workdir,
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                    timeout=600,
                )
                last = (line, res.stdout)
                said = f"{block.where}: `{line}`"
                if res.returncode != want:
                    failures.append(f"{said} exited {res.returncode}, expected {want}:\n{res.stdout[-3000:]}")
                elif _is_privlab(line) and want == 0 and "Traceback" in res.stdout:
                    failures.append(f"{said} printed a traceback:\n{res.stdout[-3000:]}")
                elif _is_privlab(line) and want == 2:
                    shown = [x for x in res.stdout.splitlines() if x.strip()]
                    if len(shown) != 1 or not shown[0].startswith("privlab: error: "):
                        failures.append(f"{said}: bad input must print one line 'privlab: error: ...':\n{res.stdout}")
        elif kind == "output":
            if last is None:
                failures.append(f"{block.where}: an output block with no command run before it")
            else:
                wrong = output_mismatch(block.text, last[1])
                if wrong:
                    failures.append(
                        f"{block.where}: the output of `{last[0]}` differs: {wrong}\n--- it was:\n{last[1]}"
                    )
        else:
            failures.append(f"{block.where}: a ```{block.lang} block that no test runs")
    return failures, ran


def _exports_before(page: Page, block: Block, line: str) -> list[str]:
    """The ``export`` lines of the page before ``line`` (a reader's terminal keeps them)."""
    out = []
    for b in page.blocks:
        if b.kind != "bash":
            continue
        for x in bash_lines(b.text):
            if b is block and x == line:
                return out
            if x.startswith("export "):
                out.append(x)
    return out


# ---------------------------------------------------------------------------------------
# the tests
# ---------------------------------------------------------------------------------------
@pytest.mark.slow
def test_every_block_runs_or_is_marked_with_a_reason(all_pages):
    problems = [p for page in all_pages for p in page.problems]
    blocks = [b for page in all_pages for b in page.blocks]
    problems += [
        f"{b.where}: a ```{b.lang} block that no test runs (mark it not run, with a reason)"
        for b in blocks
        if b.kind == "unexecuted"
    ]
    problems += [f"{b.where}: a not-run marker without a reason" for b in blocks if b.not_run == ""]
    for page in all_pages:
        previous = None
        for b in page.blocks:
            if b.kind == "output" and (previous is None or previous.kind not in ("bash", "output")):
                problems.append(f"{b.where}: an output block must follow the bash block whose output it is")
            if b.kind == "file" and (b.title.startswith("/") or ".." in Path(b.title).parts):
                problems.append(f"{b.where}: a file block's title is a path inside the working directory")
            previous = b
    assert not problems, "\n".join(problems)
    not_run = [b for b in blocks if b.kind == "not run"]
    assert len(not_run) <= NOT_RUN_MAX, "too many blocks not run:\n" + "\n".join(
        f"{b.where}: {b.not_run}" for b in not_run
    )
    executed = [b for b in blocks if b.kind in ("bash", "python", "doctest", "output", "file", "included")]
    assert len(executed) >= 40, f"only {len(executed)} blocks run: were the pages parsed?"


def test_the_parser_finds_markers_and_blocks():
    page = parse(
        "x.md",
        "a\n<!-- not run in tests: slow -->\n\n```bash\nprivlab x\n```\n<!-- not run in tests -->\n"
        '```text\nout\n```\n```yaml title="a/b.yaml"\nk: 1\n```\n<!-- not run in tests: why -->\ntext\n',
    )
    assert [(b.kind, b.not_run, b.line) for b in page.blocks] == [
        ("not run", "slow", 4),
        ("not run", "", 8),
        ("file", None, 11),
    ]
    assert page.problems == ["x.md:14: a not-run marker not followed by a code block"]
    assert bash_lines("a \\\n  b  # c\n# d\n\nexport X=1") == ["a b  # c", "export X=1"]
    assert output_mismatch("x ... z\n...\nlast", "w\nx y z\nq\nlast") is None
    assert output_mismatch("b\na", "a\nb") is not None


@pytest.mark.slow
def test_inline_and_not_run_commands_parse_and_compose(all_pages):
    commands = [(page.path, c) for page in all_pages for c in inline_commands(page)]
    commands += [
        (b.where, line)
        for page in all_pages
        for b in page.blocks
        if b.kind == "not run"
        for line in bash_lines(b.text)
        if _is_privlab(line)
    ]
    assert len(commands) >= 20, commands
    failures = []
    for where, command in dict.fromkeys(commands):
        try:
            dry_check(command)
        except (Exception, SystemExit) as exc:
            failures.append(f"{where}: `{command}`: {type(exc).__name__}: {exc}")
    assert not failures, "\n".join(failures)


def test_reconstructed_and_ours_annotations_are_found(tmp_path):
    config = tmp_path / "x.yaml"
    config.write_text(
        "# @package _global_\n"
        "# Figure 9 [reconstructed axes]: what the figure shows\n"
        "# and more of it; [reconstructed] marks a lost symbol   (prose about the tag: not an annotation)\n"
        "grid: [1, 2]       # [reconstructed] the seed lost the grid\n"
        "                   # (a continuation)\n"
        "claims:\n"
        "  gap: 0.1         # [ours] a threshold\n"
        "mech:\n"
        "  # [reconstructed] the scale, on the line before it\n"
        "  scale: 2\n"
        "printed:\n"
        '  a: {claim: "x"}\n'
        '  b:\n    claim: "a statement [reconstructed]"\n'
    )
    found = [(a.key, a.value, a.comment) for a in HOOK.annotations(config, "reconstructed")]
    assert found == [
        ("", "", "Figure 9 [reconstructed axes]: what the figure shows"),
        ("grid", "[1, 2]", "[reconstructed] the seed lost the grid (a continuation)"),
        ("mech.scale", "2", "[reconstructed] the scale, on the line before it"),
        ("printed.b.claim", "", "a statement [reconstructed]"),
    ]
    assert [(a.key, a.value) for a in HOOK.annotations(config, "ours")] == [("claims.gap", "0.1")]


def _page_params():
    out = []
    for path in static_pages():
        marks = [pytest.mark.slow] if path in SLOW_PAGES else []
        out.append(pytest.param(path, marks=marks, id=path))
    return out


@pytest.mark.parametrize("path", _page_params())
def test_page_runs(path, tmp_path):
    page = static_page(path)
    failures, _ = run_page(page, tmp_path / "work")
    assert not failures, "\n\n".join(failures)


def test_generated_pages_run(generated, tmp_path):
    assert {p.path for p in generated} >= {"papers/index.md", "papers/lpb.md", "reference/core/registry.md"}
    for page in generated:
        failures, _ = run_page(page, tmp_path / page.path.replace("/", "_"))
        assert not failures, "\n\n".join(failures)


EXAMPLE = ROOT / "examples" / "warner"


def test_tutorial_is_the_warner_example():
    """The tutorial shows every source file of examples/warner, exactly, in the page itself (not an
    include a reader of the repository would see as a placeholder), and runs them."""
    page = static_page("tutorial/add-a-paper.md")
    shown = {b.title.removeprefix("warner/"): b.text for b in page.blocks if b.kind == "file"}
    sources = sorted(
        str(path.relative_to(EXAMPLE))
        for path in EXAMPLE.rglob("*")
        if path.is_file()
        and path.suffix in (".py", ".yaml", ".toml")
        and "egg-info" not in str(path)
        and not {"__pycache__", "build", "dist"} & set(path.relative_to(EXAMPLE).parts)  # pip's artefacts
    )
    assert sorted(shown) == sources
    for rel, text in shown.items():
        assert text == (EXAMPLE / rel).read_text().rstrip("\n"), f"the tutorial's {rel} is not examples/warner/{rel}"
    assert not [b for b in page.blocks if b.kind == "included"]


def _rendered_modules():
    """The modules whose docstrings the API pages render (and their submodules)."""
    names = [f"privlab.{m}" for m in HOOK.CORE_MODULES]
    names += [f"privlab.{p}" for p in HOOK.paper_packages()]
    seen = []
    for name in names:
        module = importlib.import_module(name)
        seen.append(module)
        if hasattr(module, "__path__"):
            for info in pkgutil.walk_packages(module.__path__, prefix=f"{name}."):
                seen.append(importlib.import_module(info.name))
    return seen


def test_docstring_examples_of_the_api_pages_run():
    finder = doctest.DocTestFinder(exclude_empty=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    excerpts, examples = [], 0
    for module in _rendered_modules():
        for test in finder.find(module):
            if test.docstring and re.search(r"::\n\s*\n", test.docstring):
                excerpts.append(test.name)
            if test.examples:
                examples += len(test.examples)
                runner.run(test)
    assert runner.failures == 0, f"{runner.failures} docstring example(s) failed (output above)"
    assert examples >= 1
    assert len(excerpts) <= DOCSTRING_EXCERPTS_MAX, f"illustrative docstring excerpts (not run): {excerpts}"


@pytest.mark.slow
def test_mkdocs_build_strict(tmp_path):
    """The site builds with --strict (.ci/run builds it too); skipped without the docs extra."""
    missing = [
        m
        for m in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python")
        if importlib.util.find_spec(m.split(".")[0]) is None
    ]
    if missing:
        pytest.skip(f"the docs extra is not installed ({', '.join(missing)}): pip install -e '.[docs]'")
    res = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=environment(tmp_path),
        timeout=600,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert (tmp_path / "site" / "papers" / "lpb" / "index.html").is_file()
    page = (tmp_path / "site" / "tutorial" / "add-a-paper" / "index.html").read_text()
    tutorial = html.unescape(re.sub(r"<[^>]+>", "", page))  # the text a reader sees: Pygments spans each token
    assert "def exact_variance" in tutorial and "warner/privlab_warner/experiments/__init__.py" in tutorial
