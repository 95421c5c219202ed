"""The conformance suite of :class:`treefarm.optimizers.Optimizer`: the contract as tests.

Subclass it with an ``optimizer_factory`` fixture returning a callable that
makes a fresh optimizer, and say whether it handles recursive spaces::

    class TestMyOptimizer(OptimizerSuite):
        supports_recursive = True

        @pytest.fixture
        def optimizer_factory(self) -> Callable[[], Optimizer]:
            return MyOptimizer

Every test asserts what the study relies on: valid configurations of flat,
conditional and (if supported) recursive spaces, from an empty history, a
long one with failures and pending trials, and one of failures only; a batch
of distinct configurations, none already seen where unseen ones remain; the
same generator state and history give the same suggestions, however often the
optimizer is called (it is stateless) and without changing the history; an
unsupported space is a clear error, never a wrong configuration.
"""

from __future__ import annotations

import copy
import hashlib
import operator
from collections.abc import Callable

import numpy as np
import pytest

from ..exceptions import SpaceError, StudyError
from ..optimizers import History, Observation, Optimizer
from ..space import Choice, Config, Int, Join, Real, Space, Var, op, sample, validate

__all__ = ["OptimizerSuite"]


def _grammar() -> Space:
    add = op(operator.add, name="add")
    mul = op(operator.mul, name="mul")
    G = Var("G", max_depth=4)
    G.define(add(G, G) | mul(G, G) | Int(1, 9))
    return G


SPACES: dict[str, Callable[[], Space]] = {
    "flat": lambda: {  # type: ignore[dict-item, return-value]
        "x": Real(-5, 5),
        "lr": Real(1e-5, 1e-1, log=True),
        "n": Int(1, 8),
        "width": Int(16, 1024, log=True),
        "act": Choice("relu", "tanh", "gelu"),
    },
    "conditional": lambda: {  # type: ignore[dict-item, return-value]
        "C": Real(1e-3, 1e3, log=True),
        "kernel": Join(
            rbf={"gamma": Real(1e-4, 1.0, log=True)},
            poly={"degree": Int(2, 5), "coef": Real(0, 1)},
            linear={},
        ),
    },
    "recursive": _grammar,
}


def _stable_hash(text: str) -> int:
    """A hash of ``text`` that is the same in every process (``hash()`` of a str is
    salted per process by PYTHONHASHSEED)."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def _loss(config: Config) -> float:
    """A deterministic pseudo-loss of any configuration, equal in every process."""
    total = 0.0
    for k, v in config.items():
        weight = _stable_hash(k) % 97
        total += weight * (v if isinstance(v, (int, float)) else 1.0 + _stable_hash(str(v)) % 7)
    return float(total % 13.7)


def _history(space: Space, n: int, seed: int = 0) -> History:
    configs = sample(space, seed, n=n + 6)
    complete = tuple(Observation(c, _loss(c)) for c in configs[:n])
    return History(complete=complete, failed=tuple(configs[n : n + 3]), pending=tuple(configs[n + 3 :]))


class OptimizerSuite:
    """Conformance tests; subclasses provide ``optimizer_factory``."""

    supports_recursive: bool = True
    #: Whether the optimizer reads the history to avoid repeats (random search does not:
    #: its draws are independent, and the study does not load the history for it).
    avoids_seen: bool = True
    #: History sizes to test with: empty, inside a typical start-up phase, past it.
    history_sizes: tuple[int, ...] = (0, 5, 30)

    @pytest.fixture
    def optimizer_factory(self) -> Callable[[], Optimizer]:
        raise NotImplementedError("subclasses provide optimizer_factory")

    def _spaces(self) -> list[str]:
        return [name for name in SPACES if name != "recursive" or self.supports_recursive]

    def test_suggestions_are_valid_configs(self, optimizer_factory: Callable[[], Optimizer]) -> None:
        for name in self._spaces():
            space = SPACES[name]()
            for n_history in self.history_sizes:
                optimizer = optimizer_factory()
                configs = optimizer.suggest(space, _history(space, n_history), 3, np.random.default_rng(0))
                assert len(configs) == 3, (name, n_history)
                for config in configs:
                    assert isinstance(config, Config)
                    assert validate(space, config) == config

    def test_same_rng_and_history_give_the_same_suggestions(
        self, optimizer_factory: Callable[[], Optimizer]
    ) -> None:
        for name in self._spaces():
            space = SPACES[name]()
            history = _history(space, max(self.history_sizes))
            optimizer = optimizer_factory()
            first = optimizer.suggest(space, history, 2, np.random.default_rng(11))
            again = optimizer.suggest(space, history, 2, np.random.default_rng(11))
            fresh = optimizer_factory().suggest(space, history, 2, np.random.default_rng(11))
            assert first == again == fresh, name

    def test_suggestions_avoid_seen_configurations_on_a_finite_space(
        self, optimizer_factory: Callable[[], Optimizer]
    ) -> None:
        """On a space of 12 points with 8 seen, the unseen ones are proposed
        (distinct within the batch) rather than the seen ones again."""
        if not self.avoids_seen:
            pytest.skip("the optimizer draws independently of the history")
        space: Space = {"a": Choice(0, 1, 2), "b": Choice("p", "q", "r", "s")}  # type: ignore[assignment]
        every = [validate(space, {"a": a, "b": b}) for a in (0, 1, 2) for b in "pqrs"]
        history = History(
            complete=tuple(Observation(c, _loss(c)) for c in every[:6]), failed=(every[6],), pending=(every[7],)
        )
        configs = optimizer_factory().suggest(space, history, 4, np.random.default_rng(5))
        assert set(configs) == set(every[8:]), configs

    def test_a_batch_is_distinct(self, optimizer_factory: Callable[[], Optimizer]) -> None:
        for name in self._spaces():
            space = SPACES[name]()
            for n_history in self.history_sizes:
                configs = optimizer_factory().suggest(space, _history(space, n_history), 4, np.random.default_rng(3))
                assert len(set(configs)) == 4, (name, n_history)

    def test_a_history_of_only_failures_still_gives_suggestions(
        self, optimizer_factory: Callable[[], Optimizer]
    ) -> None:
        for name in self._spaces():
            space = SPACES[name]()
            history = History(failed=tuple(sample(space, 7, n=25)))
            configs = optimizer_factory().suggest(space, history, 2, np.random.default_rng(0))
            assert all(validate(space, c) == c for c in configs), name

    def test_the_history_is_not_mutated(self, optimizer_factory: Callable[[], Optimizer]) -> None:
        for name in self._spaces():
            space = SPACES[name]()
            history = _history(space, max(self.history_sizes))
            before = copy.deepcopy(history)
            optimizer_factory().suggest(space, history, 3, np.random.default_rng(2))
            assert history == before, name

    def test_unsupported_recursive_space_is_a_clear_error(
        self, optimizer_factory: Callable[[], Optimizer]
    ) -> None:
        if self.supports_recursive:
            pytest.skip("the optimizer supports recursive spaces")
        space = SPACES["recursive"]()
        with pytest.raises((SpaceError, StudyError), match="recursive"):
            optimizer_factory().suggest(space, _history(space, 30), 1, np.random.default_rng(0))
