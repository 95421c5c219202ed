"""See a study: the data behind each plot, and matplotlib figures drawn from it.

The data functions (:mod:`.history`, :mod:`.params`, :mod:`.structures`,
:mod:`.posterior`) are pure NumPy over trial records, shared by the static
figures and the dashboard; the figures (:mod:`.figures`) import matplotlib
only when called (``pip install treefarm[plot]``).
"""

from .cost import anytime
from .figures import KINDS as _SINGLE_KINDS
from .figures import (
    plot_convergence,
    plot_gp_posterior,
    plot_importance,
    plot_intermediate,
    plot_parallel_coordinates,
    plot_slices,
    plot_structures,
)
from .front import front, hypervolume_history
from .front_figures import plot_cost, plot_hypervolume, plot_pareto_front
from .history import best_so_far, convergence, convergence_band, intermediate_curves
from .params import importance, parallel_coordinates, slices
from .posterior import gp_posterior
from .source import StudyData, as_study_data
from .structures import best_structures, config_expression, trial_expression

KINDS = {**_SINGLE_KINDS, "front": plot_pareto_front, "hypervolume": plot_hypervolume, "cost": plot_cost}
"""The plot kinds of ``treefarm plot --kind``."""

__all__ = [
    "KINDS",
    "StudyData",
    "anytime",
    "as_study_data",
    "best_so_far",
    "best_structures",
    "config_expression",
    "convergence",
    "convergence_band",
    "front",
    "gp_posterior",
    "hypervolume_history",
    "importance",
    "intermediate_curves",
    "parallel_coordinates",
    "plot_convergence",
    "plot_cost",
    "plot_gp_posterior",
    "plot_hypervolume",
    "plot_importance",
    "plot_intermediate",
    "plot_parallel_coordinates",
    "plot_pareto_front",
    "plot_slices",
    "plot_structures",
    "slices",
    "trial_expression",
]
