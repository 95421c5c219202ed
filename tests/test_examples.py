"""The examples a newcomer reads first run and build what they promise."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import treefarm as tf

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_example_spaces_sample_and_build() -> None:
    ex = load("spaces")
    net = tf.build(ex.network, tf.sample(ex.network, 0))
    assert set(net) == {"learning_rate", "batch_size", "layers", "dropout", "weight_decay"}
    kernels = {tf.build(ex.svm, c)["kernel"]["kernel"] for c in tf.sample(ex.svm, 0, n=60)}
    assert kernels == {"rbf", "poly", "linear"}
    for c in tf.sample(ex.svm, 1, n=30):
        assert ("kernel.poly.degree" in c) == (c["kernel"] == "poly")
    assert all(tf.build(ex.G, c) >= 1 for c in tf.sample(ex.G, 2, n=30))
    kernel_strings = {str(tf.build(ex.K, c)) for c in tf.sample(ex.K, 3, n=50)}
    assert any("+" in s for s in kernel_strings) and any("*" in s for s in kernel_strings)


def test_import_is_light() -> None:
    code = "import sys, treefarm; print('scipy' in sys.modules, 'sqlalchemy' in sys.modules)"
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_data_subset_example_spends_its_budget_and_finds_a_good_svm() -> None:
    study = load("data_subset").main(max_cost=2.0)
    assert 2.0 <= study.storage.spent_cost(study.study_id) < 3.0
    assert study.best_value < 0.1  # a tenth of the digits misread at most, on all the data


def test_boosting_rounds_example_stops_at_its_budget_of_rounds() -> None:
    study = load("boosting_rounds").main(max_cost=300)
    assert 300 <= study.storage.spent_cost(study.study_id) <= 310  # one report of ten rounds at most beyond
    assert study.best_value < 0.3


def test_epochs_resume_example_continues_promotions_as_if_never_paused(tmp_path: Path) -> None:
    """The same seeded study resuming and training again makes the same trials with the
    same values (a model resumed is the model trained straight through), and the trials
    cost less resumed: a promotion pays only the epochs it adds."""
    ex = load("epochs_resume")
    resumed = ex.main(max_cost=60, storage=str(tmp_path / "resumed.db"))
    again = ex.main(max_cost=60, resume=False, storage=str(tmp_path / "again.db"))
    assert 60 <= resumed.storage.spent_cost(resumed.study_id) < 60 + 27
    promoted = [t for t in resumed.trials if t.system_attrs.get("continues") is not None]
    assert promoted and all(t.system_attrs["resumed"] is True for t in promoted)
    same = resumed.trials[: len(again.trials)]
    assert [(dict(t.params), t.system_attrs["fidelity"], t.value) for t in same] == [
        (dict(t.params), t.system_attrs["fidelity"], t.value) for t in again.trials
    ]
    assert sum(t.cost for t in same) < sum(t.cost for t in again.trials)
