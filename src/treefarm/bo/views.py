"""Views: a suggestion's observations and candidates as encoded rows, and back.

The suggestion loop (:mod:`treefarm.bo.loop`) sees configurations only
through a view. A view encodes the completed configurations (``X``), the
candidates (``Xc``) and what the acquisition maximizer may move in each
(``free``); builds the model on them, conditioned on the pending
configurations at their posterior mean (the kriging believer, Ginsbourger
et al. 2010, so parallel workers diverge) and then on the batch's chosen
points; and decodes a row back to a configuration. Two views exist:

- :class:`EncodedView`, one fixed encoding (:class:`UnitEncoding`) for every
  row: the columns of a flat or conditional space, or of every address the
  observed, pending and candidate trees of a recursive space use. The model
  is conditioned on each chosen point as it is chosen.
- :class:`TreeView`, for recursive spaces (grammars), on narrowed columns
  (:class:`treefarm.encoding.TreeColumns`): the addresses of the
  observations, the pending and chosen points and of a few ``extra``
  candidates, plus one column that stands for all the others and keeps each
  candidate's distances to those rows, so an acquisition that depends only
  on distances scores every candidate as on all the columns, up to rounding.
  Encoded over every address the candidates use, a depth-5 expression
  grammar at 60 trials has 28,000 columns, of which the observations use
  1,600. The loop first scores the candidates there, then asks for a scene
  with the best-scoring ones as ``extra``, where the maximizer tunes their
  numbers; the model is rebuilt for each scene.

Inactive columns hold a constant outside [0, 1] (:data:`treefarm.encoding.INACTIVE`),
so configurations on different branches are far apart in the kernel, and two
on the same branch are compared on the columns they share (Lévesque et al.
2017, "Bayesian optimization for conditional hyperparameter spaces").

Notation (shapes): n completed configurations, c candidates, d columns;
X (n, d), Xc (c, d), free (c, d).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..encoding import TreeColumns, UnitEncoding
from ..space import Config, Join
from .protocols import Model

if TYPE_CHECKING:
    from .models.domain import Domain

__all__ = [
    "NOISY",
    "EncodedView",
    "ModelOn",
    "Scene",
    "TreeView",
    "View",
    "encoded_domain",
    "incumbent",
    "is_noisy",
    "join_columns",
]

#: Fitted noise variance (on the model's standardized scale) above which an
#: objective counts as noisy: about 3% of the observed spread in standard
#: deviation, where a single lucky observation starts to mislead.
NOISY = 1e-3

#: ``model_on(X, domain)``: the surrogate on the completed configurations' rows X (n, d).
ModelOn = Callable[[np.ndarray, "Domain"], Model]


@dataclass(frozen=True)
class Scene:
    """One state of a view: the model (conditioned on the pending and chosen
    points), the completed rows ``X``, the candidates' rows ``Xc`` and the
    columns the maximizer may move in each (``free``), the maximizer's
    ``domain``, the incumbent ``best`` on the model's scale, and the
    encoding's two directions."""

    model: Model
    X: np.ndarray
    Xc: np.ndarray
    free: np.ndarray
    domain: Domain
    best: float
    encode: Callable[[Sequence[Config]], np.ndarray]
    decode: Callable[[np.ndarray], Config]


class View(Protocol):
    """A suggestion's observations and candidates, encoded (see the module docstring).

    Call order: :meth:`scene`, any number of times, then :meth:`add` with
    the point the loop chose, for each point of a batch. ``narrows`` says
    whether :meth:`scene`'s ``extra`` candidates change its columns (then
    the loop asks for a scene with its starting candidates); ``width`` is
    the number of columns distances are measured over (``None``: all of
    ``X``'s); the first ``n_cover`` candidates cover the space."""

    @property
    def candidates(self) -> Sequence[Config]: ...

    @property
    def n_cover(self) -> int: ...

    @property
    def narrows(self) -> bool: ...

    @property
    def width(self) -> int | None: ...

    def scene(self, extra: Sequence[Config] = ()) -> Scene:
        """The current scene, with columns for ``extra`` candidates where the view narrows."""
        ...

    def add(self, config: Config) -> None:
        """Condition the next scenes on ``config``, chosen for the batch, at its posterior mean."""
        ...


def is_noisy(model: Model) -> bool:
    """Whether the fitted noise, or some observation's own, is significant (:data:`NOISY`)."""
    return bool(model.noise_var >= NOISY or np.any(model.v >= NOISY))


def incumbent(model: Model, X: np.ndarray) -> float:
    """The value to improve on, on the model's scale: the best observation,
    or for a noisy model the best posterior mean at an observed point (an
    observation's luck is not an improvement target; Picheny et al. 2013,
    "A benchmark of kriging-based infill criteria for noisy optimization")."""
    if not is_noisy(model):
        return float(np.min(model.y))
    return float(np.min(model.predict(X)[0]))


def join_columns(encoding: UnitEncoding) -> np.ndarray:
    """(d,) True for the one-hot columns of join decisions."""
    return np.array([isinstance(c.node, Join) for c in encoding.columns], dtype=bool)


def encoded_domain(encoding: UnitEncoding, *, joins: bool = True, outside: bool = False) -> Domain:
    """The model's view of the columns; without join groups for the
    acquisition maximizer, which must not switch a branch (that would
    activate columns the start does not have); with ``outside``, one more
    continuous column (:meth:`TreeColumns.outside`)."""
    from .models.domain import Domain

    join = join_columns(encoding)
    groups = [g for g in encoding.categorical_groups() if joins or not join[g[0]]]
    return Domain(
        continuous=np.append(encoding.continuous(), [True] if outside else []).astype(bool),
        integer_levels=np.append(encoding.integer_levels(), [0] if outside else []).astype(int),
        categorical_groups=tuple(groups),
    )


def _condition(model: Model, Z: np.ndarray) -> Model:
    """``model`` conditioned on the rows Z at its posterior mean there."""
    return model.condition_on(Z, model.predict(Z)[0])


def encoded_scene(encoding: UnitEncoding, model: Model, X: np.ndarray, candidates: Sequence[Config], best: float) -> Scene:
    """The scene of rows X (n, d) and ``candidates`` on one encoding, improving on ``best``."""
    Xc, Ac = encoding.encode(candidates)
    return Scene(
        model=model,
        X=X,
        Xc=Xc,
        free=Ac & ~join_columns(encoding)[None, :],
        domain=encoded_domain(encoding, joins=False),
        best=best,
        encode=lambda configs: encoding.encode(configs)[0],
        decode=encoding.decode,
    )


class EncodedView:
    """Every row on one encoding (see the module docstring)."""

    narrows = False
    width = None

    def __init__(
        self,
        encoding: UnitEncoding,
        configs: Sequence[Config],
        pending: Sequence[Config],
        candidates: Sequence[Config],
        n_cover: int,
        model_on: ModelOn,
    ) -> None:
        self.encoding = encoding
        self.candidates = candidates
        self.n_cover = n_cover
        X, _ = encoding.encode(configs)
        model = model_on(X, encoded_domain(encoding))
        if pending:
            model = _condition(model, encoding.encode(pending)[0])
        self._scene = encoded_scene(encoding, model, X, candidates, incumbent(model, X))

    def scene(self, extra: Sequence[Config] = ()) -> Scene:
        """The scene; ``extra`` changes nothing (every candidate has its columns)."""
        return self._scene

    def add(self, config: Config) -> None:
        """Condition the model on ``config`` at its posterior mean."""
        self._scene = replace(self._scene, model=_condition(self._scene.model, self._scene.encode([config])))


class TreeView:
    """A recursive space's rows on narrowed columns (see the module docstring)."""

    narrows = True

    def __init__(
        self,
        trees: TreeColumns,
        configs: Sequence[Config],
        pending: Sequence[Config],
        candidates: Sequence[Config],
        n_cover: int,
        model_on: ModelOn,
    ) -> None:
        self.trees = trees
        self.configs = configs
        self.pending = pending
        self.candidates = candidates
        self.n_cover = n_cover
        self.model_on = model_on
        self.chosen: list[Config] = []

    @property
    def width(self) -> int:
        """The columns of every address the trees use: distances are over these."""
        return self.trees.width

    def scene(self, extra: Sequence[Config] = ()) -> Scene:
        """The model on the columns of the observations, the pending and chosen
        points and ``extra``, conditioned on the pending points and then the
        chosen ones at their posterior mean (the incumbent taken in between,
        as :class:`EncodedView` does), and the candidates on those columns."""
        trees = self.trees
        encoding = trees.encoding([*self.configs, *self.pending, *self.chosen, *extra])
        # every row the model sees here is an encoded tree or a start moved in
        # its numbers only: its join columns are one-hot already, and the
        # kernel need not round them (most of the columns)
        domain = encoded_domain(encoding, joins=False, outside=True)
        X, _ = trees.encode(encoding, self.configs)
        model = self.model_on(X, domain)
        if self.pending:
            model = _condition(model, trees.encode(encoding, self.pending)[0])
        best = incumbent(model, X)
        if self.chosen:
            model = _condition(model, trees.encode(encoding, self.chosen)[0])
        Xc, Ac = trees.encode(encoding, self.candidates)
        return Scene(
            model=model,
            X=X,
            Xc=Xc,
            free=Ac & ~np.append(join_columns(encoding), False)[None, :],
            domain=domain,
            best=best,
            encode=lambda configs: trees.encode(encoding, configs)[0],
            decode=lambda x: encoding.decode(x[:-1]),
        )

    def add(self, config: Config) -> None:
        """Remember ``config``: the next scenes condition on it."""
        self.chosen.append(config)
