"""Studies (privlab.study): named robustness questions. Every paper has one, every reconstructed
config value a claim depends on is moved by one, every study's grid composes and holds its
baseline, robustness says where each verdict held, and every study runs at the quick scale."""

from __future__ import annotations

import importlib.util
import os
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest

from privlab import PrivlabError, multirun, registry, report, study, sweeps

ROOT = Path(__file__).resolve().parents[2]
STUDIES = [s.id for s in study.studies()]
# reconstructed config values no study moves, and why (the test below keeps this list complete)
NOT_SWEPT = {
    "printed.": "a reconstructed formula, worked-example instance or claim text: the formula audit and the "
    "worked examples check it; there is no value to sweep",
    "instance.s": "the formula audit's instance (s = 50), not a parameter of an experiment",
    "independent": "multilevel/example_domain sweeps independent.domain_size, the value this block reconstructs",
    "": "a whole reconstructed figure: its values are swept by the studies of that experiment",
}


def _hook():
    spec = importlib.util.spec_from_file_location(
        "privlab_docs_hook_studies", ROOT / "docs" / "hooks" / "privlab_docs.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_every_paper_has_a_study():
    assert {s.paper for s in study.studies()} == set(registry.papers())


def test_every_reconstructed_value_is_swept_by_a_study():
    """Each config value marked [reconstructed] is moved by some study's grid (matched by its key), or
    is listed in NOT_SWEPT with the reason."""
    hook = _hook()
    moved = {k for s in study.studies() for scale in study.SCALES for k in s.keys(scale)}
    unswept = []
    for paper in registry.papers():
        for path in hook.paper_configs(paper):
            for a in hook.annotations(path, "reconstructed"):
                key = a.key or ""
                if any(key.startswith(p) if p else key == "" for p in NOT_SWEPT if p != "") or key == "":
                    continue
                if key.startswith("printed.") and key not in moved:
                    continue
                if not any(m == key or m.endswith("." + key) or m.startswith(key + ".") for m in moved):
                    unswept.append(f"{a.file}: {key}")
    assert unswept == []


# each study composes its grid (~1 s): the first in the default tier, the others slow
@pytest.mark.parametrize(
    "study_id", [pytest.param(s, marks=[pytest.mark.slow] if i else []) for i, s in enumerate(STUDIES)]
)
def test_study_grid_composes_and_holds_its_baseline(study_id):
    s = study.get(study_id)
    s.check()
    for scale in study.SCALES:
        configs = multirun.compose_jobs(s.experiment, s.jobs(scale))
        assert len(configs) == len(s.jobs(scale)) > 1
        assert all(c["profile"] == scale for c in configs)


@pytest.mark.slow
def test_study_list_and_bad_input(cli, capsys, monkeypatch):
    for name in ("PRIVLAB_MAIN_PID", "PYTHONWARNINGS"):  # main() sets them; restored by monkeypatch
        monkeypatch.setenv(name, os.environ.get(name, ""))
    monkeypatch.setattr(sys, "stdout", sys.stdout)  # main() may wrap it
    listed = cli("study", "list")  # the real command line once
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()[1:]] == STUDIES
    from privlab import cli as cli_mod

    for args, message in [
        (["study", "run", "lpb/nope"], "unknown study 'lpb/nope'; known studies: "),
        (["study", "run", "lpb/rho2", "--profile", "huge"], "--profile must be one of quick, paper"),
        (["study", "run", "lpb/rho2", "--profile", "paper", "--update"], "--update rewrites the committed"),
        (["study", "list", "--paper", "xyz"], "--paper must be one of"),
    ]:
        with pytest.raises(SystemExit) as exit_, warnings.catch_warnings():
            cli_mod.main(args)
        lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
        assert exit_.value.code == 2 and len(lines) == 1 and lines[0].startswith(f"privlab: error: {message}"), args


def test_bad_study_files_are_one_line(paper_root):
    toy = {
        "toy/__init__.py": """
            import pandas as pd
            from privlab.params import Real
            from privlab.registry import Paper, experiment

            PAPER = Paper("Toy")

            @experiment(artifact="T", summary="s", keys=("x",), params={"b": Real(0, 1)})
            def t(cfg, ctx):
                return pd.DataFrame({"x": [cfg.b]})
        """,
        "toy/conf/experiment/toy/t.yaml": "# @package _global_\nb: 0.5\n",
        "toy/conf/study/toy/nobase.yaml": "experiment: toy/t\nquestion: q\nprobes: unstated\n"
        "grid: {quick: {b: [0.1, 0.2]}, paper: {b: [0.1, 0.5]}}\n",
        "toy/conf/study/toy/typo.yaml": "experiment: toy/t\nquestion: q\nprobes: unstated\ngrid: {quick: {b: [0.5]}}\n",
    }
    paper_root(toy)
    with pytest.raises(PrivlabError, match=r"study toy/nobase: its quick grid of b \(0.1, 0.2\) must hold .* 0.5"):
        study.get("toy/nobase").check()
    with pytest.raises(PrivlabError, match="study toy/typo: grid must give the values of each scale, quick and paper"):
        study.get("toy/typo")


# ---------------------------------------------------------------------------------------
# robustness
# ---------------------------------------------------------------------------------------
def _claims(rows: list[tuple[str, float, str, str]], key: str = "b") -> pd.DataFrame:
    return pd.DataFrame([{"job": j, key: v, "claim": c, "verdict": verdict} for j, v, c, verdict in rows])


def test_robustness_one_key():
    grid = [0.0, 0.01, 0.02, 0.03, 0.05, 0.1]
    verdicts = ["disagree", "agree", "agree", "agree", "disagree", "disagree"]
    rows = [(str(i), v, "eligible", verdict) for i, (v, verdict) in enumerate(zip(grid, verdicts))]
    rows += [(str(i), v, "always", "agree") for i, v in enumerate(grid)]
    rows += [(str(i), v, "note", "info") for i, v in enumerate(grid)]
    rows += [(str(i), v, "alone", "agree" if v == 0.02 else "disagree") for i, v in enumerate(grid)]
    found = {c.claim: c for c in study.robustness(_claims(rows), {"b": 0.02})}
    eligible = found["eligible"]
    assert (eligible.baseline_verdict, eligible.held) == ("agree", "0.01 <= b <= 0.03")
    assert eligible.flips == "disagree where b = 0 or b >= 0.05" and eligible.n_held == 3
    assert found["always"].held == "the whole grid" and not found["always"].flipped
    assert found["always"].line() == "agree at the baseline, held over the whole grid"
    assert not found["note"].checkable
    assert found["alone"].held == "b = 0.02 only" and found["alone"].flips == "disagree where b <= 0.01 or b >= 0.03"


def test_robustness_two_keys_and_absent_claims():
    rows = []
    for j, (a, b) in enumerate([(1, "x"), (1, "y"), (2, "x"), (2, "y")]):
        rows.append({"job": str(j), "a": a, "b": b, "claim": "c", "verdict": "agree" if a == 1 else "disagree"})
        if j != 3:
            rows.append({"job": str(j), "a": a, "b": b, "claim": "d", "verdict": "agree"})
    found = {c.claim: c for c in study.robustness(pd.DataFrame(rows), {"a": 1, "b": "x"})}
    assert found["c"].held == "a = 1" and found["c"].flips == "disagree where a = 2"
    assert found["d"].flips == "" and found["d"].other == "not stated at (a=2, b=y)" and found["d"].n_held == 3


def test_robustness_needs_its_baseline():
    with pytest.raises(PrivlabError, match="no job of the study is at the baseline"):
        study.robustness(_claims([("0", 0.1, "c", "agree")]), {"b": 0.5})


# ---------------------------------------------------------------------------------------
# running studies
# ---------------------------------------------------------------------------------------
def _run(study_id: str, results: Path, workers: int = 2) -> study.StudyOutcome:
    assert study.run_study(study_id, workers=workers, results=str(results)) == 0
    s = study.get(study_id)
    return study.outcome(s, s.sweep_dir(results, "quick") / sweeps.CLAIMS_CSV, "quick")


def _same_as_committed(study_id: str, results: Path) -> None:
    s = study.get(study_id)
    ran = pd.read_csv(s.sweep_dir(results, "quick") / sweeps.CLAIMS_CSV, dtype=str, keep_default_na=False)
    committed = pd.read_csv(s.reference_path(), dtype=str, keep_default_na=False)
    columns = ["job", *[k for k in s.keys() if k in ran.columns], "claim"]
    columns += [] if s.timing else ["verdict"]  # wall-clock claims may flip with the machine's load
    pd.testing.assert_frame_equal(ran[columns], committed[columns])


@pytest.mark.slow
def test_a_study_runs_and_the_report_has_its_robustness(results, capsys):
    """bucketization/offset_b at the quick scale: its committed outcome again, then report.html's section."""
    found = _run("bucketization/offset_b", results, workers=1)  # in this process: no pool to start
    out = capsys.readouterr().out
    assert "claim: OCC: thetas where l-diversity is eligible (Section 7.1): agree at the baseline" in out
    _same_as_committed("bucketization/offset_b", results)
    eligible = next(c for c in found.claims if c.claim.startswith("OCC: thetas where"))
    assert eligible.flipped and eligible.held == "0.02 <= offset <= 0.04"  # the config's note: b in [0.0193, 0.0481)
    report.write_report(results)
    page = (results / report.HTML_NAME).read_text()
    assert 'id="robustness"' in page and 'id="study-bucketization-offset_b-quick"' in page
    assert page.count('<tr class="robust') == sum(c.checkable for c in found.claims)
    markdown = (results / report.MARKDOWN_NAME).read_text()
    assert "## Robustness" in markdown and "| bucketization | OCC: thetas where l-diversity is eligible" in markdown
    again = study.run_study("bucketization/offset_b", workers=1, results=str(results))  # resumed: all skipped
    assert again == 0 and capsys.readouterr().out.count("skipped") == len(
        study.get("bucketization/offset_b").jobs("quick")
    )


@pytest.mark.slow
def test_docs_page_says_which_conclusions_depend_on_a_reconstruction():
    text = study.docs_section("bucketization")
    assert "## Which conclusions depend on a reconstruction" in text
    assert "`bucketization/offset_b` moves the offset b" in text
    assert (
        "OCC: thetas where l-diversity is eligible (Section 7.1): agree at privlab's value, held for 0.02 <= offset"
        in text
    )


@pytest.mark.slow  # every study at the quick scale: 10 s to 2 min each
@pytest.mark.parametrize("study_id", STUDIES)
def test_every_study_runs_at_the_quick_scale(study_id, results):
    found = _run(study_id, results)
    assert found.n_jobs == len(study.get(study_id).jobs("quick"))
    assert any(c.checkable for c in found.claims)
    _same_as_committed(study_id, results)


@pytest.mark.slow
def test_the_robustness_section_shows_the_shipped_studies_without_a_run(tmp_path):
    (tmp_path / "lpb").mkdir()  # a paper with results, none of its studies run here
    found = report._robustness(tmp_path)
    ids = {o.study.id for o in found}
    shipped = {s.id for s in study.studies("lpb") if s.reference_path().is_file()}
    assert shipped and ids == shipped
    assert all(o.shipped and o.scale == "quick" and o.claims for o in found)
    assert report._robustness(tmp_path / "nothing") == []  # no results: no section
