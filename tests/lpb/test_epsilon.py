"""privlab epsilon: LPB's rule on a user's own column, one code path with the reproduction."""

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlab import PrivlabError, lpb
from privlab.testing import run_cli

ROOT = Path(__file__).resolve().parents[2]


def privlab(*args, cwd=ROOT):
    return run_cli("epsilon", *args, cwd=cwd, timeout=300)


@pytest.mark.slow
def test_reproduces_table_ii_setting_and_prints_the_breach_check(tmp_path):
    res = privlab(
        "--data",
        "adult",
        "--column",
        "age",
        "--query",
        "mean",
        "--rho1",
        "0.05",
        "--rho2",
        "0.5",
        "--json",
        "--plot",
        str(tmp_path / "lambda.png"),
    )
    assert res.returncode == 0, res.stderr
    (row,) = json.loads(res.stdout)
    fig1 = pd.read_csv(ROOT / "experiments" / "lpb" / "reference" / "quick" / "fig1_lambda" / "result.csv")
    ref = fig1[(fig1.attribute == "age") & np.isclose(fig1.rho1, 0.05)].iloc[0]
    assert row["lambda"] == pytest.approx(ref["lambda"], rel=1e-12)  # Figure 1 / Table II's sensitivity
    assert row["sensitivity"] == pytest.approx(73 / 48842) and row["universe_size"] == 74
    assert row["worst_posterior"] == pytest.approx(0.5, abs=1e-9)  # LPB's bound is tight, never exceeded
    assert (tmp_path / "lambda.png").stat().st_size > 1000
    text = privlab("--data", "adult", "--column", "age,hours-per-week", "--rho1", "0.05", "--rho2", "0.5")
    assert text.returncode == 0 and "worst-case posterior at this epsilon 0.5000" in text.stdout
    assert text.stdout.count("column ") == 2 and "differential identifiability" in text.stdout


BAD_INPUT = [
    (["--column", "nope"], "--column 'nope' is not a column of adult"),
    (["--column", "workclass"], "--column workclass is not numeric"),
    (["--column", "age", "--rho1", "0.6"], "--rho1 must be smaller than rho2"),
    (["--column", "age", "--query", "median"], "argument --query: invalid choice"),
    (["--column", "const"], "--column const holds fewer than two distinct values"),
]


# each case starts the tool (~4 s): the first in the default tier, the others slow
@pytest.mark.parametrize(
    "args, message", [pytest.param(*c, marks=[pytest.mark.slow] if i else []) for i, c in enumerate(BAD_INPUT)]
)
def test_bad_input_one_line(tmp_path, args, message):
    data = "adult"
    if "const" in args:
        (tmp_path / "d.csv").write_text("const,x\n3,1\n3,2\n")
        data = str(tmp_path / "d.csv")
    base = {"--data": data, "--rho1": "0.05", "--rho2": "0.5"}
    for i in range(0, len(args), 2):
        base[args[i]] = args[i + 1]
    res = privlab(*[x for kv in base.items() for x in kv])
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.returncode == 2 and len(lines) == 1 and message in lines[0], res.stderr


@pytest.mark.slow
def test_csv_sum_and_count_by_hand(tmp_path):
    values = np.array([1.0, 4.0, 2.0, 7.0, 3.0])
    (tmp_path / "d.csv").write_text("v\n" + "\n".join(map(str, values)) + "\n")
    res = json.loads(
        privlab(
            "--data",
            str(tmp_path / "d.csv"),
            "--column",
            "v",
            "--query",
            "sum",
            "--rho1",
            "0.2",
            "--rho2",
            "0.6",
            "--json",
        ).stdout
    )[0]
    assert res["sensitivity"] == 6.0 and res["statistic"] == 17.0  # universe 1..7 (integers)
    assert res["lambda"] == pytest.approx(6.0 / math.log(0.6 * 0.8 / (0.2 * 0.4)))
    count = lpb.advise(values, query="count", rho1=0.2, rho2=0.6, threshold=3.0)
    assert count["statistic"] == 3 and count["sensitivity"] == 1.0 and count["universe_size"] == 2
    with pytest.raises(PrivlabError, match="threshold 100 leaves every record on one side"):
        lpb.advise(values, query="count", rho1=0.2, rho2=0.6, threshold=100)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=3, max_size=40), st.floats(0.01, 0.3), st.floats(0.05, 0.6))
def test_worst_posterior_never_exceeds_rho2(values, rho1, gap):
    values = np.asarray(values, float)
    if np.unique(values).size < 2:
        return
    rho2 = min(rho1 + gap, 0.95)
    for query in ("mean", "sum"):
        res = lpb.advise(values, query=query, rho1=rho1, rho2=rho2)
        assert res["worst_posterior"] <= rho2 + 1e-9
        assert res["worst_posterior"] == pytest.approx(rho2, abs=1e-9)  # the two-point prior makes it tight
