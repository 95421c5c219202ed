"""The integration examples run and do what they say."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import treefarm as tf

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_lightgbm_example_prunes_some_runs() -> None:
    pytest.importorskip("lightgbm")
    pytest.importorskip("sklearn")
    spec = importlib.util.spec_from_file_location("example_lightgbm_pruning", EXAMPLES / "lightgbm_pruning.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    study = module.main(n_trials=12)
    states = [t.state for t in study.trials]
    assert tf.TrialState.PRUNED in states and study.best_value < 0.2, states
