"""Pareto logic for several objectives and constraints: dominance, ranks,
crowding, hypervolume and the order in which trials count as better.

Every function takes losses as an array of shape ``(n, m)`` to *minimize*
(the study negates maximized objectives first) and constraint values of shape
``(n, k)`` where a trial is feasible when every value is ``<= 0`` (Optuna's
convention). Pure functions over NumPy arrays; no other dependency.
"""

from .dominance import crowding_distance, dominates, nondominated_mask, nondomination_ranks
from .feasibility import feasible_mask, violations
from .hypervolume import hypervolume, hypervolume_contributions, reference_point
from .order import pareto_order, ranking_losses

__all__ = [
    "crowding_distance",
    "dominates",
    "feasible_mask",
    "hypervolume",
    "hypervolume_contributions",
    "nondominated_mask",
    "nondomination_ranks",
    "pareto_order",
    "ranking_losses",
    "reference_point",
    "violations",
]
