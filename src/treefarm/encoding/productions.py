"""Configurations as bags of productions: features that do not depend on where in a tree they occur.

A derivation tree's addresses grow with its depth (``E.add.0.mul.1.sin.0``),
so an address-wise encoding (the GP's unit cube, TPE's per-address
estimators) cannot tell that ``sin(x)`` deep in one tree is the ``sin(x)``
at the root of another. Grammar-based genetic programming and kernels on
trees (Collins & Duffy, 2002, "Convolution kernels for natural language";
the Weisfeiler-Lehman subtree features of Shervashidze et al., 2011) compare
trees by the productions they use instead. Here each decision ``v`` at an
address whose last components are ``... p2.s2.p1.s1`` (the enclosing options
and argument slots) yields three features:

- ``v`` — the production itself (a unigram);
- ``p1.s1>v`` — it in slot ``s1`` of its parent ``p1`` (a parent-child edge);
- ``p2.s2.p1.s1>v`` — with its grandparent too;

a number contributes the same three with ``v`` its quartile on the unit
scale (``~0`` to ``~3``), so a constant's rough size is a feature too. On a
flat space the "context" is simply the parameter's name.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ..space import Choice, Config, Int, Join, Real, Space, trace
from .unit import numeric_unit

__all__ = ["feature_matrix", "productions"]

#: Quantile bins of a number's unit position.
BINS = 4


def _token(node: Real | Int | Choice | Join, value: object) -> str:
    if isinstance(node, (Real, Int)):
        u = numeric_unit(node, float(value))  # type: ignore[arg-type]
        return f"~{min(int(u * BINS), BINS - 1)}"
    return repr(value)


def productions(space: Space, config: Config) -> frozenset[str]:
    """The features of ``config`` (see the module docstring)."""
    out: set[str] = set()
    for address, node in trace(space, config):
        token = _token(node, config[address])
        parts = address.split(".")
        out.add(token)
        out.add(".".join(parts[-2:]) + ">" + token)
        out.add(".".join(parts[-4:]) + ">" + token)
    return frozenset(out)


def feature_matrix(bags: Sequence[Iterable[str]], vocabulary: dict[str, int]) -> np.ndarray:
    """Binary matrix (len(bags), len(vocabulary)): which features each bag holds
    (features outside the vocabulary are ignored)."""
    X = np.zeros((len(bags), len(vocabulary)), dtype=bool)
    for i, bag in enumerate(bags):
        cols = [vocabulary[f] for f in bag if f in vocabulary]
        X[i, cols] = True
    return X
