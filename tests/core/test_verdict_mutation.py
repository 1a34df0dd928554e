"""Verdict mutation: every rule could have come out the other way.

For every experiment, its claims are decided on the committed quick reference read back as
``check`` reads it (no rerun). Each claim decided on a number exposes its `Comparison`: the
test moves that number just past its declared margin and checks that an ``agree`` becomes
``disagree`` or ``inconclusive``, and that a ``disagree`` can be moved inside the margin to
``agree``. A rule no value can flip is a defect, and the test names it.
"""

from __future__ import annotations

import pytest

from privlab import check, claims, registry

EXPERIMENTS = registry.all_experiments()


def _decided(exp_id):
    exp = registry.get(exp_id)
    return check.audited_claims(exp, "quick")


@pytest.mark.parametrize("exp_id", [e.id for e in EXPERIMENTS])
def test_every_rule_flips(exp_id):
    rigid, wrong = [], []
    for c in _decided(exp_id):
        cmp = c.comparison
        if cmp is None or c.verdict not in (*claims.CHECKED, "inconclusive"):
            continue
        if cmp.decide(cmp.value) != c.verdict:  # the exposed rule must be the one that decided
            wrong.append(f"{c.claim}: exposed rule says {cmp.decide(cmp.value)}, the claim {c.verdict}")
            continue
        if c.verdict == "agree":
            moved = cmp.reaching(["disagree", "inconclusive"])
        elif c.verdict == "disagree":
            moved = cmp.reaching(["agree"])
        else:  # an undecided claim is decided once its interval narrows: some value decides it either way
            moved = cmp.reaching(["agree", "disagree"])
        if moved is None:
            rigid.append(f"{c.claim} ({c.rule}): {cmp.text()}")
    assert wrong == []
    assert rigid == [], "rules that cannot flip"


def test_mutation_finds_a_rule_that_cannot_flip():
    # a coincide claim whose interval can never be narrow enough: no value makes it agree
    c = claims.coincide("x", [0.1], [0.0], [10.0], margin=0.01)
    assert c.verdict == "inconclusive"
    assert c.comparison.reaching(["agree"]) is None
    assert c.comparison.reaching(["disagree"]) is not None
    # a bound flips exactly at its bound
    c = claims.at_most("y", 0.5, 1.0)
    assert c.verdict == "agree" and c.comparison.decide(c.comparison.reaching(["disagree"])) == "disagree"
    assert 1.0 < c.comparison.reaching(["disagree"]) < 1.0 + 1e-5


def test_claims_audit_prints_rule_margin_and_flip_point(capsys):
    from privlab import cli

    assert cli.main(["claims", "--audit", "isolation/bad_sanitizer"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("isolation/bad_sanitizer (quick reference)")
    # 1 of 1,000 against 1/1000: undecided, and the values that would decide it either way
    assert "[inconclusive] with one disguised attribute" in out
    assert "becomes agree at value 0.0023" in out and "becomes disagree at value -0.0023" in out
    assert "no single value to move" in out  # a statement says it exposes no value


@pytest.mark.slow  # a few seconds: every column of lpb/table1 moved ~12 ways
def test_robustness_audit_counts_each_agree_claim_once(capsys):
    import runpy
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "audit_verdicts.py"
    main = runpy.run_path(str(script))["main"]
    assert main(["--only", "lpb/table1", "--examples", "0"]) == 0
    out = capsys.readouterr().out
    agree = sum(c.verdict == "agree" for c in _decided("lpb/table1"))
    assert f"agree claims by the smallest move that flips them ({agree})" in out
    rows = [line.split() for line in out.splitlines() if line.strip().endswith(("5%", "x2", "s.e.", "never"))]
    either = [int(r[2]) for r in rows if r[0] != "-"]
    assert sum(either) == agree and len(either) == 5
    assert int(rows[0][2]) > 0  # Table I's means move with their columns: some claim flips within 5%
