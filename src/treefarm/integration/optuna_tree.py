"""The conditional structure that Optuna's define-by-run trials reveal, as a treefarm space.

An Optuna objective such as ::

    kind = trial.suggest_categorical("kind", ["svm", "forest"])
    if kind == "svm":
        c = trial.suggest_float("c", 1e-3, 1e3, log=True)
    else:
        depth = trial.suggest_int("depth", 1, 12)

declares no space up front; the completed trials show it. A parameter every
completed trial has is a *top* parameter. A parameter ``p`` that is present
in a completed trial exactly when a top categorical ``c`` takes one value
``v`` (every trial with ``p`` has ``c == v``, every trial with ``c == v`` has
``p``) is a *child* of ``(c, v)``. The treefarm space is then a family of the
top parameters in which each categorical with children becomes a join over
its choices, option ``k`` holding the children of its ``k``-th choice
(``Join(**{"0": [c], "1": [depth]})`` above), so the optimizer models ``c``
only in the trials that chose ``"svm"`` (one level of nesting; deeper or
unexplained parameters are left to independent sampling).

Addresses: top parameter ``i`` is at ``"i"``; a categorical with children
records the label ``"k"`` of its choice there, and its ``j``-th child of
choice ``k`` is at ``"i.k.j"``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from optuna.distributions import BaseDistribution, CategoricalDistribution
from optuna.trial import FrozenTrial

from ..space import Config, Family, Join, Space
from .optuna_space import from_decision, to_decision, to_space

__all__ = ["Tree", "consistent_union", "infer_tree"]


@dataclass(frozen=True)
class Tree:
    """Top parameters, and per categorical top parameter the children of each choice index."""

    distributions: Mapping[str, BaseDistribution]
    top: tuple[str, ...]
    children: Mapping[str, Mapping[int, tuple[str, ...]]] = field(default_factory=dict)

    @classmethod
    def flat(cls, search_space: Mapping[str, BaseDistribution]) -> Tree:
        """Every parameter of ``search_space`` at the top (no conditional structure)."""
        return cls(dict(search_space), tuple(search_space))

    def names(self) -> list[str]:
        """Every parameter the tree covers: the top ones, then the children."""
        below = [p for by_choice in self.children.values() for names in by_choice.values() for p in names]
        return [*self.top, *below]

    def _join(self, name: str) -> Join:
        """The join replacing categorical ``name``: option ``k`` holds the children of choice ``k``."""
        n_choices = len(self.distributions[name].choices)  # type: ignore[attr-defined]
        by_choice = self.children[name]
        options: dict[str, Any] = {
            str(k): Family([to_space(self.distributions[p]) for p in by_choice.get(k, ())], kind="list")
            for k in range(n_choices)
        }
        return Join(**options)

    def space(self) -> Space:
        """The treefarm space (see the module docstring for its addresses)."""
        return Family(
            [self._join(n) if n in self.children else to_space(self.distributions[n]) for n in self.top],
            kind="list",
        )

    def _fits(self, trial: FrozenTrial, name: str) -> bool:
        return trial.distributions.get(name) == self.distributions[name]

    def config(self, trial: FrozenTrial) -> Config | None:
        """The trial's decisions, or None if it lacks a parameter the tree asks of
        it (or drew one from another distribution)."""
        decisions: dict[str, Any] = {}
        for i, name in enumerate(self.top):
            if not self._fits(trial, name):
                return None
            decision = to_decision(self.distributions[name], trial.params[name])
            if name not in self.children:
                decisions[str(i)] = decision
                continue
            decisions[str(i)] = str(decision)
            for j, child in enumerate(self.children[name].get(int(decision), ())):
                if not self._fits(trial, child):
                    return None
                decisions[f"{i}.{decision}.{j}"] = to_decision(self.distributions[child], trial.params[child])
        return Config.trusted(decisions)

    def params(self, config: Config) -> dict[str, Any]:
        """The parameter values (Optuna's external form) of a configuration of :meth:`space`."""
        out: dict[str, Any] = {}
        for i, name in enumerate(self.top):
            decision = config[str(i)]
            if name in self.children:
                k = int(str(decision))
                for j, child in enumerate(self.children[name].get(k, ())):
                    out[child] = from_decision(self.distributions[child], config[f"{i}.{k}.{j}"])
                decision = k
            out[name] = from_decision(self.distributions[name], decision)
        return out


def consistent_union(trials: Iterable[FrozenTrial]) -> dict[str, BaseDistribution]:
    """Every parameter of ``trials`` drawn from one distribution only (not single-valued), sorted by name."""
    seen: dict[str, BaseDistribution] = {}
    mixed: set[str] = set()
    for trial in trials:
        for name, distribution in trial.distributions.items():
            if seen.setdefault(name, distribution) != distribution:
                mixed.add(name)
    return {n: d for n, d in sorted(seen.items()) if n not in mixed and not d.single()}


def _parent(
    name: str, top: Sequence[str], space: Mapping[str, BaseDistribution], trials: Sequence[FrozenTrial]
) -> tuple[str, int] | None:
    """The top categorical and choice index whose trials are exactly those having ``name``."""
    having = [t for t in trials if name in t.params]
    for c in top:
        distribution = space[c]
        if not isinstance(distribution, CategoricalDistribution):
            continue
        values = {distribution.to_internal_repr(t.params[c]) for t in having}
        if len(values) != 1:
            continue
        (k,) = values
        if all(name in t.params for t in trials if distribution.to_internal_repr(t.params[c]) == k):
            return c, int(k)
    return None


def infer_tree(search_space: Mapping[str, BaseDistribution], completed: Sequence[FrozenTrial]) -> Tree:
    """The tree of ``search_space`` that the ``completed`` trials reveal (see the module docstring)."""
    fitting = [t for t in completed if all(t.distributions.get(n, d) == d for n, d in search_space.items())]
    top = tuple(n for n in search_space if fitting and all(n in t.params for t in fitting))
    children: dict[str, dict[int, list[str]]] = {}
    for name in search_space:
        if name in top:
            continue
        parent = _parent(name, top, search_space, fitting)
        if parent is not None:
            children.setdefault(parent[0], {}).setdefault(parent[1], []).append(name)
    frozen = {c: {k: tuple(v) for k, v in by.items()} for c, by in children.items()}
    return Tree(dict(search_space), top, frozen)
