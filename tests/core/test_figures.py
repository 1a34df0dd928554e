"""Figures as checked artifacts: every registered figure is drawn from a declared spec, and the drawn
figure, read back artist by artist, is faithful to its committed result table (`privlab.figures.audit`).

The second half puts each kind of defect the audit knows back into a small figure and checks that
the audit names it: a test that cannot fail would be a defect itself.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from privlab import check, figures, ledger, registry, runner
from privlab.figures import Axis, FigureSpec, Interval, Layer, Panel, Reference, audit, render, style_map

FIGURES = [(e, name) for e in registry.all_experiments() for name in e.figures]
CAPTIONED = {"cae", "lpb", "multilevel"}


def _case(profile: str, slow: bool = False) -> list:
    # at the quick profile the first figure of each paper is in the default tier, the others slow
    # (each audit draws its figure, ~1-3 s)
    first = {e.paper: f"{e.id}:{name}" for e, name in reversed(FIGURES)}
    return [
        pytest.param(
            e.id,
            name,
            profile,
            id=f"{e.id}:{name}",
            marks=[pytest.mark.slow] if slow or f"{e.id}:{name}" not in first.values() else [],
        )
        for e, name in FIGURES
    ]


def _reference(exp: registry.Experiment, profile: str) -> pd.DataFrame:
    return pd.read_csv(check.reference_path(exp, profile))


@pytest.mark.parametrize("exp_id,name", [(e.id, n) for e, n in FIGURES])
def test_every_figure_is_declared(exp_id, name):
    drawn = registry.get(exp_id).figures[name]
    assert isinstance(drawn, figures.Drawn), f"{exp_id}:{name} is not drawn from a FigureSpec"


@pytest.mark.parametrize("exp_id,name,profile", _case("quick") + _case("paper", slow=True))
def test_figure_is_faithful_to_its_table(exp_id, name, profile):
    """The conformance check over every experiment's figures, on its committed reference table."""
    exp = registry.get(exp_id)
    cfg = runner.compose(exp_id, profile=profile)
    assert exp.figures[name].audit(_reference(exp, profile), cfg) == []


@pytest.mark.parametrize("exp_id,name", [(e.id, n) for e, n in FIGURES])
def test_figure_names_its_ledger_items(exp_id, name):
    """A figure stands beside the paper's caption: its ledger ids exist; the paper's own figure
    items come with a caption, and a figure of privlab's own says so."""
    exp = registry.get(exp_id)
    drawn = exp.figures[name]
    items = {i.id: i for i in ledger.load(exp.paper) or []}
    assert drawn.ledger or drawn.about, f"{exp_id}:{name} names no ledger item and no description"
    unknown = [i for i in drawn.ledger if i not in items]
    assert unknown == [], f"{exp_id}:{name} names unknown ledger items {unknown}"
    own = [items[i] for i in drawn.ledger[:1] if items[i].kind == "figure"]
    assert own or drawn.about, f"{exp_id}:{name} names no figure item of the ledger and says nothing of its own"
    if exp.paper in CAPTIONED:  # seeds that print their captions (the bucketization seed lost them)
        assert all(i.caption for i in own), f"{exp_id}:{name}: its figure item {own[0].id} has no caption"


# ---------------------------------------------------------------------------------------
# the audit finds each defect when it is put back
# ---------------------------------------------------------------------------------------
def _rates() -> pd.DataFrame:
    """Two panels of isolation-like rates: panel B lacks T = 1, some cells have no success."""
    rows = []
    for san in ("A", "B"):
        for T in (1, 2, 5):
            if san == "B" and T == 1:
                continue
            for c, k in zip((1.0, 2.0, 4.0), (400, 40 * T, 0)):
                rows.append(
                    {
                        "san": san,
                        "T": T,
                        "c": c,
                        "successes": k,
                        "trials": 1000,
                        "rate": k / 1000,
                        "upper": 3.84 / 1003.84,
                    }
                )
    df = pd.DataFrame(rows)
    return df.assign(series=[f"T = {t}" for t in df["T"]])


def _rate_spec(df: pd.DataFrame) -> FigureSpec:
    layer = Layer(
        "rate",
        interval=Interval("wilson", successes="successes", trials="trials"),
        successes="successes",
        upper="upper",
        dodge=0.05,  # the T's upper bounds at one c side by side
    )
    panels = tuple(
        Panel(
            df[df.san == s],
            "c",
            Axis("ball-radius factor c", scale="log2"),
            Axis("isolation success rate", scale="log", probability=True),
            (layer,),
            title=s,
        )
        for s in ("A", "B")
    )
    return FigureSpec("rates", panels, style_map(["T = 1", "T = 2", "T = 5"]), ncols=2)


def _audited(spec: FigureSpec, spoil=None) -> list[str]:
    fig = render(spec)
    try:
        if spoil is not None:
            spoil(fig)
        return audit(fig, spec)
    finally:
        plt.close(fig)


def _lines(ax, label):
    return [line for line in ax.lines if line.get_label() == label]


def test_a_faithful_figure_passes():
    assert _audited(_rate_spec(_rates())) == []


def test_a_colour_cycle_that_restarts_per_panel_is_caught():
    """isolation_vs_c_T's defect: in a panel without T = 1, T = 2 drawn in T = 1's colour."""

    def restart(fig):
        ax = fig.axes[1]
        for i, label in enumerate(("T = 2", "T = 5")):
            for line in _lines(ax, label):
                line.set_color(figures.PALETTE[i])
                line.set_marker(figures.MARKERS[i])
                line.set_markerfacecolor(figures.PALETTE[i])

    found = _audited(_rate_spec(_rates()), restart)
    assert any("'T = 1' draws rows that are not 'T = 1''s" in p for p in found), found


@pytest.mark.slow
def test_zero_successes_drawn_as_a_point_or_without_band_are_caught():
    df = _rates()
    spec = _rate_spec(df)

    def no_band(fig):
        for p in list(fig.axes[0].patches):
            if "below resolution" in str(p.get_label()):
                p.remove()

    assert any("below resolution" in p for p in _audited(spec, no_band))

    def as_point(fig):
        ax = fig.axes[0]
        ax.plot([4.0], [3.84 / 1003.84], "o", color=figures.PALETTE[0])

    assert any(
        "no upper-bound marker" in p or "drawn as a point" in p or "not its rows" in p for p in _audited(spec, as_point)
    )


def test_intervals_of_a_probability_outside_zero_one_are_caught():
    spec = _rate_spec(_rates())
    assert any("leave [0, 1]" in p for p in _audited(spec, lambda fig: fig.axes[0].vlines([1.0], [-0.1], [0.5])))


def test_unlabelled_axes_and_code_names_are_caught():
    spec = _rate_spec(_rates())

    def spoil(fig):
        fig.axes[0].set_ylabel("")
        fig.axes[1].set_title("hist_perturb_len_side")

    found = _audited(spec, spoil)
    assert any("the y axis has no label" in p for p in found)
    assert any("code name" in p and "hist_perturb_len_side" in p for p in found)


def _lines_df(ys: dict[str, list[float]], x=(1.0, 2.0, 3.0, 4.0)) -> pd.DataFrame:
    return pd.concat([pd.DataFrame({"x": x, "y": y, "series": k}) for k, y in ys.items()], ignore_index=True)


def _line_spec(df, **panel) -> FigureSpec:
    p = Panel(df, "x", Axis("x value"), Axis("y value"), (Layer("y"),), **panel)
    labels = list(dict.fromkeys(df.series))
    extra = [figures.gap_label(a, b) for a, b in panel.get("gaps", ())]
    return FigureSpec("lines", (p,), style_map([*labels, *extra]))


def test_coinciding_series_must_differ_and_be_annotated():
    df = _lines_df({"Q = 8": [4.3, 4.3, 4.3, 4.3], "Q = 16": [4.3, 4.3, 4.3, 4.3], "Q = 2": [3, 2, 1, 0]})
    spec = _line_spec(df)
    assert _audited(spec) == []

    def same_marker_no_note(fig):
        ax = fig.axes[0]
        for line in _lines(ax, "Q = 16"):
            line.set_marker(_lines(ax, "Q = 8")[0].get_marker())
        ax.set_title("")

    found = _audited(spec, same_marker_no_note)
    assert any("same marker, fill and line" in p for p in found) and any("nothing says so" in p for p in found)


def test_a_missing_difference_panel_is_caught():
    df = _lines_df({"MultiSize": [0.9, 0.7, 0.5, 0.3], "Optimal": [0.89, 0.69, 0.495, 0.29]})
    spec = _line_spec(df, gaps=(("MultiSize", "Optimal"),))
    assert _audited(spec) == []

    def drop(fig):
        for ax in fig.axes:
            if str(ax.get_gid()).startswith("difference"):
                ax.remove()

    assert any("no difference panel draws" in p for p in _audited(spec, drop))


def test_a_silently_missing_point_is_caught():
    df = _lines_df({"Optimal": [0.9, 0.7, np.nan, 0.3], "TwoSize": [1.0, 0.9, 0.8, 0.7]}).assign(status="optimal")
    df.loc[df.y.isna(), "status"] = "timed out"
    p = Panel(df, "x", Axis("x value"), Axis("y value"), (Layer("y", missing="status"),))
    spec = FigureSpec("lines", (p,), style_map(["Optimal", "TwoSize"]))
    assert _audited(spec) == []

    def unmark(fig):
        for line in list(fig.axes[0].lines):
            if line.get_gid() == "missing":
                line.remove()

    assert any("does not mark it" in p for p in _audited(spec, unmark))


def test_paper_colours_are_checked():
    df = _lines_df({"sample 50%": [4, 3, 2, 1], "sample 5%": [4.5, 4.4, 4.3, 4.2]})
    good = FigureSpec(
        "lines",
        _line_spec(df).panels,
        style_map(list(dict.fromkeys(df.series)), fixed={"sample 50%": "blue"}),
        paper_colours={"sample 50%": "blue"},
    )
    assert _audited(good) == []
    bad = FigureSpec(
        "lines",
        good.panels,
        style_map(["sample 5%", "sample 50%"], fixed={"sample 5%": "blue"}),
        paper_colours={"sample 50%": "blue"},
    )
    assert any("the paper draws 'sample 50%' in blue" in p for p in _audited(bad))


@pytest.mark.slow
def test_look_alike_colours_are_caught():
    import matplotlib.cm as cm
    from matplotlib.colors import to_hex

    labels = [f"{p}%" for p in range(0, 60, 5)]
    df = _lines_df({lbl: list(np.arange(4) + i) for i, lbl in enumerate(labels)})
    viridis = {lbl: figures.Style(to_hex(cm.viridis(i / 11)), "o", "-") for i, lbl in enumerate(labels)}
    spec = FigureSpec("lines", _line_spec(df).panels, viridis)
    assert any("hard to tell apart" in p for p in _audited(spec))
    assert not any("hard to tell apart" in p for p in _audited(_line_spec(df)))


def test_a_legend_over_the_data_and_crowded_ticks_are_caught():
    df = _lines_df({"a": [1, 2, 3, 4], "b": [4, 3, 2, 1]}, x=(100000.0, 200000.0, 300000.0, 500000.0))
    spec = _line_spec(df)

    def spoil(fig):
        ax = fig.axes[0]
        ax.legend(loc="center", fontsize=30)
        ax.set_xticks([100000, 110000, 120000], ["100000", "110000", "120000"])

    found = _audited(spec, spoil)
    assert any("legend covers" in p for p in found) and any("tick labels run together" in p for p in found)


def test_bars_on_a_log_axis_and_points_outside_the_view_are_caught():
    df = _lines_df({"a": [1, 2, 3, 4]})
    spec = _line_spec(df)

    def spoil(fig):
        ax = fig.axes[0]
        ax.set_ylim(0.5, 2.5)
        ax.bar([1], [1])
        ax.set_yscale("log")

    found = _audited(spec, spoil)
    assert any("bars on a log axis" in p for p in found) and any("outside the panel's view" in p for p in found)


def test_one_x_value_gets_a_view_and_a_collapsed_view_is_caught():
    """A panel whose rows sit at one x, with an interval and an exact layer (diffinf at the paper
    profile: one a1 with a noisy denominator at or below 0), autoscaled to a view a few ulps wide
    with its points on the frame: render gives it a decade each side, and the audit catches a
    view that collapsed anyway."""
    x = 10.0
    df = pd.DataFrame({"x": [x], "y": [2e-5], "exact": [3e-5], "se": [0.5e-5], "series": "a"})
    simulated = Layer("y", interval=Interval("se", se="se", clip=(0.0, 1.0)))
    p = Panel(
        df, "x", Axis("x value", scale="log"), Axis("y value", scale="log"), (simulated, Layer("exact", name="exact"))
    )
    spec = FigureSpec("one x", (p,), style_map(["a"]))
    with warnings.catch_warnings(record=True) as caught:  # widened by render, not by matplotlib's warning
        warnings.simplefilter("always")
        fig = render(spec)
    assert [str(w.message) for w in caught] == []
    try:
        lo, hi = fig.axes[0].get_xlim()
        assert lo == pytest.approx(1.0) and hi == pytest.approx(100.0)
    finally:
        plt.close(fig)
    assert _audited(spec) == []

    def collapse(fig):
        fig.axes[0].set_xlim(x * (1 - 1e-14), x * (1 + 1e-14))

    assert any("points lie on the frame" in p for p in _audited(spec, collapse))


def test_a_reference_line_left_out_is_caught():
    df = _lines_df({"p-value": [0.5, 0.2, 0.8, 0.01]})
    p = Panel(
        df,
        "x",
        Axis("x value"),
        Axis("p-value", scale="log"),
        (Layer("y"),),
        references=(Reference("α / 4 = 0.0125", y=0.0125),),
    )
    spec = FigureSpec("lines", (p,), style_map(["p-value"]))
    assert _audited(spec) == []

    def drop(fig):
        for line in list(fig.axes[0].lines):
            if line.get_label().startswith("α"):
                line.remove()

    assert any("is not drawn" in q for q in _audited(spec, drop))


def test_unresolved_cells_must_be_marked():
    df = pd.DataFrame({"x": [1.0, 2.0], "p": [0.5, 0.5], "k": [7, 13], "n": [20, 20], "series": "MC"})
    layer = Layer("p", interval=Interval("wilson", successes="k", trials="n"), resolution=("n", 400))
    p = Panel(df, "x", Axis("value x"), Axis("posterior", probability=True), (layer,))
    spec = FigureSpec("posterior", (p,), style_map(["MC"]))
    assert _audited(spec) == []
    found = _audited(spec, lambda fig: fig.axes[0].set_title(""))
    assert any("not marked unresolved" in q for q in found)


def test_a_symlog_axis_switching_where_the_quartiles_sit_is_caught():
    df = pd.DataFrame(
        {
            "x": ["0.1", "0.2"],
            "q1": [-2e-6, -1e-5],
            "med": [0.0, 0.0],
            "q3": [2e-6, 1e-5],
            "lo": [-6e-6, -3e-5],
            "hi": [6e-6, 3e-5],
            "series": "sim",
        }
    )
    box = Layer({"q1": "q1", "med": "med", "q3": "q3", "lo": "lo", "hi": "hi"}, kind="box")
    good = Axis("noise ratio", scale="symlog", linthresh=5e-7)
    bad = Axis("noise ratio", scale="symlog", linthresh=2e-6)
    for axis, fails in ((good, False), (bad, True)):
        spec = FigureSpec("boxes", (Panel(df, "x", Axis("ρ2", scale="category"), axis, (box,)),), style_map(["sim"]))
        assert any("switches scale" in q for q in _audited(spec)) == fails


def test_the_title_must_be_the_specs():
    spec = _line_spec(_lines_df({"a": [1, 2, 3, 4]}))
    assert any("title says" in p for p in _audited(spec, lambda fig: fig.suptitle("Adult numeric columns")))


def test_whiskers_from_zero_at_cells_without_success_are_caught():
    """fig5_collusion's defect: a Wilson interval at a value no trial hit, drawn from 0 to its bound."""
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0], "k": [5, 0, 0], "n": [14, 14, 14], "series": "MC"})
    df = df.assign(p=df.k / df.n, upper=figures.wilson_bounds(df.k, df.n)[1])
    whiskers = Layer("p", interval=Interval("wilson", successes="k", trials="n"))
    bounds = Layer("p", interval=Interval("wilson", successes="k", trials="n"), successes="k", upper="upper")

    def spec(layer):
        panel = Panel(df, "x", Axis("x"), Axis("p", probability=True), (layer,))
        return FigureSpec("p", (panel,), style_map(["MC"]))

    assert any("2 whisker(s) from 0" in q for q in _audited(spec(whiskers)))
    assert _audited(spec(bounds)) == []


def test_overlapping_intervals_of_series_at_one_x_are_caught_and_dodging_clears_them():
    """fig5_re's defect: the ±2 s.e. bars of two methods on top of each other."""
    df = pd.DataFrame({"x": [1.0, 2.0] * 2, "y": [0.2, 0.3, 0.21, 0.31], "se": 0.02, "series": ["A", "A", "B", "B"]})

    def spec(dodge):
        layer = Layer("y", interval=Interval("se", se="se"), dodge=dodge)
        return FigureSpec("y", (Panel(df, "x", Axis("x"), Axis("y"), (layer,)),), style_map(["A", "B"]))

    assert any("overlap at x = 1" in q for q in _audited(spec(0.0)))
    assert _audited(spec(0.05)) == []


def test_stacked_upper_bounds_are_caught():
    """bad_sanitizer's defect: the upper bounds of several series at one point hide each other."""
    df = _rates()
    layer = Layer(
        "rate",
        interval=Interval("wilson", successes="successes", trials="trials"),
        successes="successes",
        upper="upper",
    )
    panel = Panel(
        df[df.san == "A"], "c", Axis("c", scale="log2"), Axis("rate", scale="log", probability=True), (layer,)
    )
    found = _audited(FigureSpec("rates", (panel,), style_map(["T = 1", "T = 2", "T = 5"])))
    assert any("stacked at x = 4" in q for q in found)


@pytest.mark.slow
def test_minor_tick_labels_of_a_log_axis_are_caught():
    """fig6's defect: 2x10^-2, 3x10^-2, ... written at the minor ticks of a log axis."""
    from matplotlib.ticker import FuncFormatter

    spec = _rate_spec(_rates())
    assert _audited(spec) == []
    found = _audited(spec, lambda fig: fig.axes[0].yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:.0e}")))
    assert any("labels minor ticks of a log scale" in q for q in found)


def test_unresolved_shading_must_be_in_the_legend():
    """fig5_collusion's defect: a shaded panel the legend does not explain."""
    df = pd.DataFrame({"x": [1.0, 2.0], "p": [0.5, 0.5], "k": [7, 13], "n": [20, 20], "series": "MC"})
    layer = Layer("p", interval=Interval("wilson", successes="k", trials="n"), resolution=("n", 400))
    spec = FigureSpec("p", (Panel(df, "x", Axis("value x"), Axis("p", probability=True), (layer,)),), style_map(["MC"]))
    assert _audited(spec) == []
    found = _audited(spec, lambda fig: fig.legends[0].remove())
    assert any("shading (too few trials) is not explained" in q for q in found)
