"""An Optuna study brought into treefarm: every trial readable, the best the same, and the
optimizer continuing from them; what treefarm cannot express is named, never dropped."""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

optuna = pytest.importorskip(
    "optuna", reason="the Optuna import needs optuna: pip install 'treefarm[optuna]'"
)

import treefarm as tf  # noqa: E402
from treefarm.cli.main import main  # noqa: E402
from treefarm.integration.optuna import import_study, imported_space  # noqa: E402
from treefarm.integration.optuna_import import OPTUNA_CONSTRAINTS_ATTR, _is_constraint_attr  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.ERROR)


def _loss(x: float, y: float, kind: str, depth: int | None, c: float | None) -> float:
    return (
        (x - 1.0) ** 2
        + (y + 0.5) ** 2
        + (0.3 * depth if kind == "tree" and depth else 0.0)
        + (0.1 if c else 0.0)
    )


def _optuna_objective(trial: Any) -> float:
    x = trial.suggest_float("x", -5, 5)
    y = trial.suggest_float("y", -5, 5)
    kind = trial.suggest_categorical("kind", ["tree", "svm"])
    depth = trial.suggest_int("depth", 1, 8) if kind == "tree" else None
    c = trial.suggest_float("c", 1e-3, 1e2, log=True) if kind == "svm" else None
    trial.set_user_attr("note", f"trial {trial.number}")
    loss = _loss(x, y, kind, depth, c)
    for step in range(3):
        trial.report(loss + 2 - step, step)
    if trial.number % 17 == 5:
        raise optuna.TrialPruned()
    if trial.number % 23 == 7:
        raise RuntimeError("diverged")
    return loss


def _tf_objective(params: dict[str, Any]) -> float:
    kind = params["kind"]
    return _loss(params["x"], params["y"], kind.option, kind.get("depth"), kind.get("c"))


@pytest.fixture(scope="module")
def source() -> Any:
    study = optuna.create_study(study_name="old", sampler=optuna.samplers.TPESampler(seed=0))
    study.optimize(_optuna_objective, n_trials=200, catch=(RuntimeError,))
    return study


def test_200_trials_imported_every_one_readable_and_the_best_the_same(source: Any) -> None:
    study = import_study(source, algo="tpe", seed=0)
    trials = study.trials
    assert len(trials) == 200
    states = {"COMPLETE": "complete", "PRUNED": "pruned", "FAIL": "failed"}
    for old, new in zip(source.trials, trials):
        assert new.system_attrs["optuna"]["number"] == old.number
        assert new.state.value == states[old.state.name]
        assert dict(new.intermediate) == old.intermediate_values
        assert new.user_attrs == old.user_attrs
        assert new.system_attrs["optuna"]["params"] == old.params
        assert new.params["x"] == old.params["x"] and new.params["kind"] == old.params["kind"]
        if old.state.name == "COMPLETE":
            assert new.value == old.value
    assert study.best_value == source.best_value
    assert {t.state.value for t in trials} == {"complete", "pruned", "failed"}
    built = study.best_params
    assert built["kind"].option == source.best_params["kind"]


def test_the_imported_trials_are_the_history_the_optimizer_continues_from(
    source: Any, tmp_path: Path
) -> None:
    db = tmp_path / "tf.db"
    study = import_study(source, storage=str(db), algo="tpe", seed=0)
    scored = [t for t in source.trials if t.state.name in ("COMPLETE", "PRUNED") and t.value is not None]
    assert len(study.history().complete) == len(scored)  # a pruned trial counts with its last value
    study.optimize(_tf_objective, 220)
    continued = [t.value for t in study.trials[200:] if t.value is not None]
    fresh = tf.Study.create("fresh", space=study.space, algo="tpe", seed=0)
    fresh.optimize(_tf_objective, 20)
    first = [t.value for t in fresh.trials if t.value is not None]
    assert len(study.trials) == 220
    # 200 trials of knowledge: the continued suggestions sit near the optimum, a fresh start's do not.
    assert np.median(continued) < 0.5 * np.median(first), (np.median(continued), np.median(first))
    reopened = tf.Study.load("old", space=imported_space(str(db), "old"), storage=str(db))
    assert len(reopened.trials) == 220 and reopened.best_value <= source.best_value


def test_a_parameter_drawn_from_two_distributions_is_refused_by_name() -> None:
    study = optuna.create_study()
    study.optimize(lambda t: t.suggest_float("lr", 0, 1 if t.number == 0 else 2), n_trials=2)
    with pytest.raises(tf.StudyError, match=r"one distribution in every trial.*name='lr'"):
        import_study(study)


def test_what_cannot_be_expressed_is_named(caplog: pytest.LogCaptureFixture) -> None:
    # seeded, and the branch holding "deep" enqueued: an unseeded study missed it about one run in 30
    study = optuna.create_study(study_name="odd", sampler=optuna.samplers.RandomSampler(seed=0))
    study.enqueue_trial({"a": "p", "b": "r"})

    def objective(trial: Any) -> float:
        a = trial.suggest_categorical("a", ["p", "q"])
        b = trial.suggest_categorical("b", ["r", "s"])
        trial.suggest_float("step", 0.0, 1.0, step=0.25)
        if a == "p" and b == "r":  # below two categoricals: no one join holds it
            trial.suggest_int("deep", 1, 3)
        return math.inf if trial.number == 3 else float(trial.number)

    study.optimize(objective, n_trials=12)
    study.ask()  # left running
    with caplog.at_level(logging.WARNING, logger="treefarm"):
        imported = import_study(study)
    text = caplog.text
    assert "'step': a range with step 0.25 is searched as a choice of its 5 values" in text
    assert "parameters ['deep']" in text
    assert "trials [12] are running or waiting" in text
    assert "trial 3: complete with the non-finite values [inf]" in text
    assert imported.space["step"].values == (0.0, 0.25, 0.5, 0.75, 1.0)  # type: ignore[index]
    assert imported.trials[3].state.value == "failed"
    notes = imported.storage.get_study("odd").attrs["imported_from"]["notes"]  # type: ignore[index]
    assert len(notes) == 4
    deep = [t for t in imported.trials if "deep" in t.system_attrs["optuna"]["params"]]  # kept, by trial
    assert deep and all("deep" not in t.params for t in deep)


def test_a_multi_objective_study_with_constraints_keeps_its_vectors() -> None:
    def objective(trial: Any) -> tuple[float, float]:
        x = trial.suggest_float("x", 0, 1)
        trial.set_constraint("x_at_most_half", x - 0.5)
        return x, x**2

    study = optuna.create_study(
        directions=["minimize", "maximize"], sampler=optuna.samplers.NSGAIISampler(seed=0)
    )
    study.optimize(objective, n_trials=8)
    imported = import_study(study)
    assert imported.directions == ("minimize", "maximize")
    for old, new in zip(study.trials, imported.trials):
        assert new.values == tuple(old.values)
        assert new.constraints == (old.params["x"] - 0.5,)
        assert new.system_attrs["optuna"]["constraint_names"] == ["x_at_most_half"]


@pytest.mark.filterwarnings("ignore:`constraints_func` has been deprecated:FutureWarning")
def test_the_constraints_a_constraints_func_stored_are_imported_by_position() -> None:
    """The list form (a sampler's ``constraints_func``, Optuna before 5): each value kept,
    named by its position, and not copied again among the system attributes."""
    sampler = optuna.samplers.NSGAIISampler(seed=0, constraints_func=lambda t: [t.params["x"] - 0.5, 1.0])
    study = optuna.create_study(sampler=sampler)
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=4)
    imported = import_study(study)
    for old, new in zip(study.trials, imported.trials):
        assert new.constraints == (old.params["x"] - 0.5, 1.0)
        assert new.system_attrs["optuna"]["constraint_names"] == ["0", "1"]
        assert not any(_is_constraint_attr(k) for k in new.system_attrs["optuna"]["system_attrs"])


@pytest.mark.filterwarnings("ignore:`constraints_func` has been deprecated:FutureWarning")
def test_optuna_keeps_constraints_under_the_key_the_import_leaves_out() -> None:
    """The one thing the import assumes of Optuna beyond its public API: where a trial's
    constraints sit among its system attributes (both forms)."""

    def objective(trial: Any) -> float:
        x = trial.suggest_float("x", 0, 1)
        trial.set_constraint("small", x - 0.5)
        return x

    study = optuna.create_study()
    study.optimize(objective, n_trials=1)
    listed = optuna.create_study(sampler=optuna.samplers.NSGAIISampler(seed=0, constraints_func=lambda t: [0.0]))
    listed.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=1)
    for trial in (study.trials[0], listed.trials[0]):
        keys = [k for k in trial.system_attrs if _is_constraint_attr(k)]
        assert len(keys) == 1 and keys[0].startswith(OPTUNA_CONSTRAINTS_ATTR)
    assert set(study.trials[0].system_attrs) == {f"{OPTUNA_CONSTRAINTS_ATTR}:small"}


def test_the_command_imports_and_ask_continues(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'optuna.db'}"
    source = optuna.create_study(study_name="old", storage=url, sampler=optuna.samplers.RandomSampler(seed=0))
    source.optimize(_optuna_objective, n_trials=12, catch=(RuntimeError,))
    db, space = tmp_path / "tf.db", tmp_path / "space.json"
    argv = [
        "import-optuna",
        url,
        "--study",
        "old",
        "--to",
        str(db),
        "--name",
        "new",
        "--space-out",
        str(space),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "into study 'new'" in out and "12 trials" in out and f"best value: {source.best_value!r}" in out
    assert json.loads(space.read_text())["kind"]["type"] == "join"
    assert main(["ask", str(db), "--study", "new", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["trial"] == 12
    assert main(["import-optuna", url, "--study", "missing", "--to", str(db)]) == 1
    assert "study='missing'" in capsys.readouterr().err
    # the treefarm storage is named by --storage, as in every other command
    assert main(["import-optuna", url, "--study", "old", "--storage", str(db), "--name", "again"]) == 0
    assert "into study 'again'" in capsys.readouterr().out
