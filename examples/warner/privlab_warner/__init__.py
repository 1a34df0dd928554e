"""Warner (1965), "Randomized response: a survey technique for eliminating evasive answer bias"
(JASA 60:63-69), reproduced with privlab: the library (`privlab_warner.randomized_response`) and,
in `privlab_warner.experiments`, the paper's experiment unit that privlab finds through the
entry point ``warner`` of group ``privlab.papers``."""

from .randomized_response import (
    estimate,
    exact_variance,
    simulate_surveys,
    survey_summary,
    variance,
    variance_of_variance,
    yes_probability,
)

__all__ = [
    "estimate",
    "exact_variance",
    "simulate_surveys",
    "survey_summary",
    "variance",
    "variance_of_variance",
    "yes_probability",
]
