"""scikit-learn parameter grids as treefarm spaces.

``TreefarmSearchCV`` takes its search space in three forms:

- a dict ``{parameter: space}``: each value is a treefarm space, a list
  (a choice among its items, as in ``RandomizedSearchCV``; items that are
  spaces make a join, so a list of estimators built by ``op`` searches each
  one's own parameters), or any other value (a constant);
- a list of such dicts: a join, one option per dict (each dict is a
  separate sub-grid, as in ``GridSearchCV``);
- any treefarm space that builds a dict of parameters, such as a join of
  dicts that choose a pipeline step together with that step's own
  parameters (conditional parameters).

The space builds, per configuration, the ``**params`` of ``set_params``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..exceptions import ConfigError, SpaceError
from ..space import Choice, Int, Join, Real, Space, convert

__all__ = ["check_params", "grid_to_space"]


def _distribution_space(name: str, dist: Any) -> Space:
    """A frozen ``scipy.stats`` distribution of ``RandomizedSearchCV``'s
    ``param_distributions`` as the treefarm space with the same support and
    prior shape: ``uniform(loc, scale)``, ``loguniform(a, b)`` (also named
    ``reciprocal``) and ``randint(low, high)`` (``high`` excluded)."""
    kind = getattr(dist.dist, "name", type(dist.dist).__name__)
    low, high = (float(b) for b in dist.support())
    if kind == "uniform":
        return Real(low, high)
    if kind in ("loguniform", "reciprocal"):
        return Real(low, high, log=True)
    if kind == "randint":
        return Int(int(low), int(high))  # scipy's support is already [low, high - 1]
    raise SpaceError(
        "a scipy.stats distribution must be uniform, loguniform or randint (or write a treefarm "
        f"space: Real, Int, Choice), but got {name}={kind}{dist.args}"
    )


def _value_space(value: Any, name: str = "value") -> Space:
    if hasattr(value, "rvs") and hasattr(value, "dist") and hasattr(value, "support"):
        return _distribution_space(name, value)
    if isinstance(value, list):
        if not value:
            raise SpaceError(f"a list of parameter values must not be empty, but got value={value!r}")
        if any(isinstance(v, Space) for v in value):
            return Join(*value)
        return Choice(*value)
    return convert(value)


def _dict_space(grid: Mapping[Any, Any]) -> Space:
    for key in grid:
        if not isinstance(key, str) or not key:
            raise SpaceError(f"a parameter name must be a non-empty string, but got key={key!r}")
    return convert({key: _value_space(value, key) for key, value in grid.items()})


def grid_to_space(search_spaces: Any) -> Space:
    """The treefarm space of ``search_spaces`` (see the module docstring)."""
    if isinstance(search_spaces, Space):
        return search_spaces
    if isinstance(search_spaces, Mapping):
        return _dict_space(search_spaces)
    if (
        isinstance(search_spaces, list)
        and search_spaces
        and all(isinstance(g, Mapping) for g in search_spaces)
    ):
        return Join(*[_dict_space(g) for g in search_spaces])
    raise SpaceError(
        "search_spaces must be a dict of parameter spaces, a non-empty list of such dicts "
        f"or a treefarm space, but got search_spaces={search_spaces!r:.200}"
    )


def check_params(value: Any) -> dict[str, Any]:
    """The built value of a configuration as ``set_params`` keyword arguments."""
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise ConfigError(
            f"the search space must build a dict of estimator parameters, but got value={value!r:.200}"
        )
    return dict(value)
