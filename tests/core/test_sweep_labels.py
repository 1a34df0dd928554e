"""F12: a sweep plot of a list-valued parameter reads 0.55 on its category axis, not "[0.55]", in
the lists' natural order, and its axes name the quantity the experiment's figures give the column."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from privlab.sweep_plots import Metric, label, metric_plot, sorted_values
from privlab.sweeps import quantities


def test_list_values_read_as_their_elements_in_order():
    assert [label(v) for v in ("[0.55]", "[0.5, 0.6]", [0.7], 0.25, "abc")] == [
        "0.55",
        "0.5, 0.6",
        "0.7",
        "0.25",
        "abc",
    ]
    assert sorted_values(["[0.6]", "[0.55]", "[0.05]", "[0.5, 0.6]"]) == ["[0.05]", "[0.55]", "[0.6]", "[0.5, 0.6]"]


@pytest.mark.slow
def test_metric_plot_of_a_list_valued_parameter():
    frame = pd.DataFrame(
        {"job": [0, 1, 2], "ps": ["[0.6]", "[0.55]", "[0.05]"], "mc_variance": [0.1, 0.2, 0.3], "variance": [1, 2, 3]}
    )
    names = {"ps": "probability p", "mc_variance": "variance of the estimate"}
    fig = metric_plot(frame, "ps", Metric("mc_variance"), panels=None, categorical=[], title="t", names=names)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.05", "0.55", "0.6"]
    assert ax.get_xlabel() == "probability p" and ax.get_ylabel() == "variance of the estimate"
    plt.close(fig)


def test_quantities_come_from_the_experiments_figures():
    names = quantities("lpb/fig1_lambda")
    assert names and all(v and v != k for k, v in names.items())
    assert quantities(None) == {} and quantities("lpb/table1")["p"].startswith("posterior Pr[X = u")
