"""The CAE paper's figures, declared as specs over the experiments' result tables (presentation only).

Where the paper names a line's colour (Section 6: "blue line in Figure (a)" is sampling 50%,
"red line in Figure (c)" is query-set size 8), the figures use it.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from privlab.figures import (
    Axis,
    FigureSpec,
    Interval,
    Layer,
    Panel,
    Reading,
    Reference,
    config_value,
    figure,
    gap_label,
    style_map,
)

__all__ = ["example", "salary_examples", "sdc_vs_sk", "noise_vs_sk_and_amount", "legend", "PAPER_COLOURS"]

# how a line of each technique is labelled, and what its repetitions are
_LEGEND = {"sampling": "sample {:g}%", "query_restriction": "Q = {:g}", "noise": "noise {:g}%"}
# the seed's panel letters of Figure 2 (H0, Area) per technique
_LETTERS = {"sampling": ("a", "b"), "query_restriction": ("c", "d"), "noise": ("e", "f")}
_NAMES = {
    "sampling": ("sampling", "repetitions"),
    "query_restriction": ("query restriction", "shuffles"),
    "noise": ("noise addition", "perturbed files"),
}
# Section 6: "sampling with size 50% and query restriction with query set size 8 ... (blue line in
# Figure (a) and red line in Figure (c))"
PAPER_COLOURS = {"sample 50%": "blue", "Q = 8": "red"}
COMPARED = ("sample 50%", "Q = 8")  # the comparison of Section 6 (sec6.similar, sec6.area_sk0): its gap is drawn
SK = Axis("intruder's SK (number of known attributes)", integer=True)
MEASURES = (("H0", Axis("initial entropy $H_0$", "bits")), ("area", Axis("Area A", "bits × value units")))


def legend(technique: str, param: float) -> str:
    """A result line's label: "sample 50%", "Q = 8", "noise 10%" (``<technique> <param>`` otherwise)."""
    return _LEGEND.get(technique, technique.replace("_", " ") + " {:g}").format(param)


@figure(ledger=("fig3",))
def example(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Figure 3: H(eps) of the worked example, its area shaded and the printed values."""
    rows = df.assign(series=f"H(ε), area A = {df.area[0]:.3f}")
    styles = style_map(list(rows.series))
    layers = (
        Layer("H", kind="step", fill=True, marker=""),
        Layer("printed_H", name="printed in the Appendix", kind="points", marker="x", markersize=8),
    )
    panel = Panel(rows, "eps", Axis("window length ε", "value units"), Axis("H(ε)", "bits"), layers)
    title = f"Figure 3: our security measure for the numerical example (H0 = {df.H0[0]:.3f})"
    return FigureSpec(title, (panel,), styles, panel_size=(6.0, 3.6))


@figure(ledger=("fig1", "sec3.one_bit", "sec3.ranges", "intro.contribution"))
def salary_examples(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Figure 1: H(eps) of Section 3's two examples, one step curve each, their areas shaded."""
    rows = df.sort_values(["example", "eps"], kind="stable")
    names = {}
    for ex, g in rows.groupby("example", sort=False):
        low, high = g[["low", "high"]].iloc[0]
        names[ex] = f"{g.label.iloc[0]}: ({low:g}, {high:g}), A = {g.area.iloc[0]:g}"
    rows = rows.assign(series=rows.example.map(names))
    order = list(dict.fromkeys(df.example.map(names)))
    panel = Panel(
        rows,
        "eps",
        Axis("window length ε", "thousands"),
        Axis("H(ε)", "bits", limits=(-0.05, 1.25)),
        (Layer("H", kind="step", fill=True, marker=""),),
    )
    return FigureSpec(
        "Figure 1: H(ε) of the two salary examples (Table 1)", (panel,), style_map(order), panel_size=(6.4, 3.6)
    )


def _styles(labels: list[str], dashed: set[str]) -> dict:
    fixed = dict(PAPER_COLOURS)  # also where the line is absent: its colour means that line only
    gaps = [gap_label(*COMPARED)] if all(c in labels for c in COMPARED) else []
    return style_map([*labels, *gaps], fixed=fixed, linestyles={lbl: "--" for lbl in dashed})


def sdc_vs_sk(figure_name: str) -> Any:
    """H0 and Area vs SK size, one line per parameter of the table's first technique (±2 s.e.) and
    the other techniques' lines dashed, as the comparison the paper draws; one row of panels per data
    set, lettered as the seed's Figure 2 ((a), (b) sampling, (c), (d) query restriction, (e), (f)
    noise addition). Where the table holds both lines of Section 6's comparison (sampling 50% against
    query-set size 8), their gap is drawn in a difference panel."""

    @figure(
        ledger=(
            "fig2",
            "sec6.rises",
            "sec6.declines",
            "sec6.sharp",
            "sec6.similar",
            "sec6.faster",
            "sec6.flat",
            "sec6.area_sk0",
            "sec6.area_faster",
        )
    )
    def build(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
        technique = df.technique.iloc[0]
        name, reps = _NAMES.get(technique, (technique.replace("_", " "), "repetitions"))
        letters = _LETTERS.get(technique, ("", ""))
        rows = df.sort_values(["technique", "param", "sk_size"], kind="stable")
        rows = rows.assign(series=[legend(t, p) for t, p in zip(rows.technique, rows.param)])
        own = [legend(technique, p) for p in sorted(df[df.technique == technique].param.unique())]
        others = [lbl for lbl in dict.fromkeys(rows.series) if lbl not in own]
        styles = _styles([*own, *others], set(others))
        panels = []
        for ds in dict.fromkeys(df.dataset):
            d = rows[rows.dataset == ds]
            labels = set(d.series)
            gaps = (COMPARED,) if all(c in labels for c in COMPARED) else ()
            for (measure, axis), letter in zip(MEASURES, letters):
                layer = Layer(measure, interval=Interval("se", se=f"{measure}_se"), dodge=0.06)
                title = f"{f'({letter}) ' if letter else ''}{name}: {measure.replace('area', 'Area')} vs SK ({ds})"
                readings, references = _readings(d, measure, styles, cfg) if gaps else ((), ())
                panels.append(
                    Panel(
                        d,
                        "sk_size",
                        SK,
                        axis,
                        (layer,),
                        title=title,
                        gaps=gaps,
                        readings=readings,
                        references=references,
                    )
                )
        paper = {k: v for k, v in PAPER_COLOURS.items() if k in styles}
        notes = (
            (f"mean of {reps}, ±2 s.e.; dashed: the line the paper compares with",)
            if others
            else (f"mean of {reps}, ±2 s.e.",)
        )
        return FigureSpec(
            f"{figure_name}: {name}",
            tuple(panels),
            styles,
            ncols=2,
            panel_size=(5.2, 3.4),
            notes=notes,
            paper_colours=paper,
        )

    return build


def _readings(d: pd.DataFrame, measure: str, styles: dict, cfg: Any) -> tuple[tuple, tuple]:
    """The words of Section 6's comparison as the claims read them (``claims.similar_rel``,
    ``claims.flat_rel``), on the panel of ``measure``: "similar H0" at SK 0, |a - b| at most that
    share of the larger, is the band from -share x b to share / (1 - share) x b on the difference
    panel (b = Q = 8); "slightly above" (Area) its upper edge; "remains flat", Q = 8's H0 at most
    that share below its value at SK 0, a line under Q = 8's H0."""
    similar, flat = config_value(cfg, "claims.similar_rel"), config_value(cfg, "claims.flat_rel")
    readings: tuple = ()
    references: tuple = ()
    if similar is not None:
        share = float(similar)
        # one legend entry: H0's band and Area's upper edge are one reading of two words
        label = f"reading of 'similar' (H0) and 'slightly above' (Area), SK 0: within {share:.0%} of the larger"
        upper = Reading(COMPARED, share / (1 - share), label, True)
        readings = (upper, Reading(COMPARED, -share, label, True)) if measure == "H0" else (upper,)
    q = d[d.series == COMPARED[1]].sort_values("sk_size")
    if flat is not None and measure == "H0" and not q.empty:
        level = (1 - float(flat)) * float(q.H0.iloc[0])
        label = f"reading of 'flat': {float(flat):.0%} below {COMPARED[1]} at SK 0"
        references = (Reference(label, y=level, color=styles[COMPARED[1]].color, linestyle="--"),)
    return readings, references


@figure(ledger=("fig4.amount", "sec6.declines", "sec6.sharp"))
def noise_vs_sk_and_amount(df: pd.DataFrame, cfg: Any = None) -> FigureSpec:
    """Figure 4: (a), (b) H0 and area vs SK per noise amount; (c), (d) vs the noise amount per SK size;
    two rows of panels per data set. Every noise amount has its own colour and marker; the SK sizes
    of (c), (d) are dashed with open markers, so that the two families never share a style."""
    technique = df.technique.iloc[0]
    rows = df[df.technique == technique].sort_values(["param", "sk_size"], kind="stable")
    by_noise = rows.assign(series=[legend(technique, p) for p in rows.param])
    by_sk = rows.assign(series=[f"SK {s}" for s in rows.sk_size])
    noise_labels = [legend(technique, p) for p in sorted(rows.param.unique())]
    sk_labels = [f"SK {s}" for s in sorted(rows.sk_size.unique())]
    styles = style_map([*noise_labels, *sk_labels], linestyles=dict.fromkeys(sk_labels, "--"), hollow=sk_labels)
    amount = Axis("noise amount", "% of |D| − 1") if technique == "noise" else Axis(f"{technique} parameter")
    families = ((by_noise, "sk_size", SK, "ab", "SK"), (by_sk, "param", amount, "cd", "noise amount"))
    panels = [
        Panel(
            data[data.dataset == ds],
            x,
            xaxis,
            axis,
            (Layer(measure),),
            title=f"({letter}) {measure.replace('area', 'Area')} vs {against} ({ds})",
        )
        for ds in dict.fromkeys(rows.dataset)
        for data, x, xaxis, letters, against in families
        for (measure, axis), letter in zip(MEASURES, letters)
    ]
    return FigureSpec(
        "Figure 4: noise addition (mean over perturbed files)", tuple(panels), styles, ncols=2, panel_size=(5.2, 3.4)
    )
