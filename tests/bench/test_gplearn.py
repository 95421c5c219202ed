"""The gplearn peer records the losses of the programs it evaluates, and only those."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("gplearn")

from bench.harness.methods import _gplearn
from bench.harness.problems import FRESH, SYMBOLIC


def test_gplearn_losses_are_its_programs_in_the_order_evaluated() -> None:
    """make_fitness calls the metric once on dummy arrays (MSE 1, loss log 2): that
    call was recorded as the run's first evaluation, so every run's best was at
    most log 2, however badly its programs fit (Livermore-18's target lies near -5)."""
    result = _gplearn(SYMBOLIC["nguyen1"], seed=0, budget=40)
    assert len(result["losses"]) == 40
    assert result["losses"][0] != pytest.approx(math.log(2.0))
    far = _gplearn(FRESH["livermore18"], seed=0, budget=40)
    assert len(far["losses"]) == 40 and min(far["losses"]) > 2.0
