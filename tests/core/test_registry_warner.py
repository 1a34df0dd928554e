"""The example paper of the repository, examples/warner, takes the road every paper takes: found
through its pyproject's entry point (here as a PRIVLAB_PATH project, as while it is written; .ci/run
installs it from its pyproject beside the built wheel), it passes the conformance harness with 2
workers against the references it ships."""

from __future__ import annotations

from pathlib import Path

import pytest

from privlab import registry, testing

WARNER = Path(__file__).resolve().parents[2] / "examples" / "warner"


@pytest.fixture()
def warner(monkeypatch):
    monkeypatch.setenv("PRIVLAB_PATH", str(WARNER))
    registry.reload()
    yield registry.papers()["warner"]
    monkeypatch.undo()
    registry.reload()


def test_warner_is_found_like_any_paper(warner):
    assert warner.folder == WARNER / "privlab_warner" / "experiments"
    assert [e.id for e in registry.select(paper="warner")] == ["warner/survey_mc", "warner/variance_exact"]
    exp = registry.get("warner/survey_mc")
    assert exp.figures and registry.paper_of(exp).ledger_path.is_file()
    for profile in ("quick", "paper"):
        assert (warner.reference_dir / profile / "survey_mc" / "result.csv").is_file()
    assert (warner.reference_dir / "studies" / "n.csv").is_file()


@pytest.mark.slow
def test_warner_conforms_with_two_workers(warner):
    testing.conformance("warner", workers=2)
