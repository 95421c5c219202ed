"""``import treefarm`` stays fast: no optimizer, model, plot, dashboard or
integration module, and no SciPy, until one is used."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import treefarm as tf

LAZY = ("treefarm.bo", "treefarm.viz", "treefarm.dashboard", "treefarm.integration", "scipy")


def _modules_after(code: str) -> list[str]:
    """The modules loaded by a fresh interpreter after ``code``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env)
    return list(json.loads(out.stdout.strip().splitlines()[-1]))


def test_importing_treefarm_loads_no_optimizer_model_plot_dashboard_or_integration() -> None:
    loaded = _modules_after("import treefarm")
    optimizers = {f"treefarm.optimizers.{algo}" for algo in tf.optimizers.available()}
    assert not optimizers & set(loaded)
    assert [m for m in loaded if m.split(".")[0] == "scipy" or m.startswith(LAZY)] == []
    # what the study needs of the optimizers: the protocol, the registry and the hints
    kept = {m for m in loaded if m.startswith("treefarm.optimizers.")}
    assert kept <= {"treefarm.optimizers.base", "treefarm.optimizers.registry"} | {
        m for m in kept if m.startswith("treefarm.optimizers.hints")
    }, kept


def test_naming_an_optimizer_imports_its_module_only() -> None:
    loaded = _modules_after("import treefarm\ntreefarm.RandomSearch()")
    assert "treefarm.optimizers.random" in loaded
    assert not {"treefarm.optimizers.gp", "treefarm.optimizers.tpe", "treefarm.bo"} & set(loaded)


@pytest.mark.parametrize("name", ["CMAES", "GP", "NSGA2", "QMC", "TPE", "Anneal", "Auto", "GrammarSearch", "Grid", "RandomSearch"])
def test_every_optimizer_is_there_by_name(name: str) -> None:
    cls = getattr(tf, name)
    assert cls is getattr(tf.optimizers, name) and cls.__name__ == name
    assert issubclass(cls, tf.Optimizer) and name in dir(tf) and name in tf.__all__


def test_a_missing_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="'treefarm' has no attribute 'Nope'"):
        tf.Nope  # noqa: B018
    with pytest.raises(AttributeError, match=r"'treefarm\.optimizers' has no attribute 'Nope'"):
        tf.optimizers.Nope  # noqa: B018
    assert not hasattr(tf, "Nope")


def test_a_star_import_brings_every_public_name() -> None:
    namespace: dict[str, object] = {}
    exec("from treefarm import *", namespace)
    assert set(tf.__all__) <= set(namespace) and namespace["GP"] is tf.GP
