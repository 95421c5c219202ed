"""Random search passes the optimizer conformance suite and honours the priors."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from scipy import stats

from treefarm import Choice, History, Optimizer, RandomSearch
from treefarm.testing.optimizer_suite import OptimizerSuite


class TestRandomSearch(OptimizerSuite):
    avoids_seen = False

    @pytest.fixture
    def optimizer_factory(self) -> Callable[[], Optimizer]:
        return RandomSearch


def test_random_search_follows_choice_weights() -> None:
    space = {"c": Choice("a", "b", weights=[3, 1])}
    configs = RandomSearch().suggest(space, History(), 4000, np.random.default_rng(0))  # type: ignore[arg-type]
    hits = sum(c["c"] == "a" for c in configs)
    assert stats.binomtest(hits, 4000, 0.75).pvalue > 1e-3
