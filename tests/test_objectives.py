"""The objectives value: one rule for the arguments, one sign convention, and the
best-of and front-of helpers every layer compares values by; a study with named
objectives shows the names where values are read (show, exports, plots, repr)."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import numpy as np
import pytest

import treefarm as tf
from treefarm.cli.main import main
from treefarm.exceptions import ConfigError, StorageError, StudyError
from treefarm.objectives import Objectives
from treefarm.pareto import nondominated_mask

SRC = Path(__file__).resolve().parents[1] / "src" / "treefarm"


@pytest.mark.parametrize(
    ("direction", "directions", "expected"),
    [
        ("maximize", None, Objectives(("maximize",))),
        (None, ["minimize", "maximize"], Objectives(("minimize", "maximize"))),
        (None, ("minimize",), Objectives(("minimize",))),
        (None, {"error": "minimize", "size": "maximize"}, Objectives(("minimize", "maximize"), ("error", "size"))),
        (None, None, None),
    ],
)
def test_the_arguments_a_user_gives_become_one_value(direction: object, directions: object, expected: object) -> None:
    assert Objectives.parse(direction, directions) == expected


def test_another_librarys_direction_flags_become_unnamed_objectives() -> None:
    assert Objectives.of_maximized([False, True]) == Objectives(("minimize", "maximize"))
    assert Objectives.of_maximized([True]) == Objectives.single("maximize")


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"direction": "minimize", "directions": ["minimize"]}, "not both"),
        ({"direction": "up"}, "direction='up'"),
        ({"directions": "minimize"}, "directions='minimize'"),
        ({"directions": []}, r"directions=\[\]"),
        ({"directions": ["minimize", 1]}, r"directions\[1\]=1"),
        ({"directions": {"error": "least"}}, r"directions\['error'\]='least'"),
        ({"directions": {" ": "minimize"}}, r"names\[0\]=' '"),
    ],
)
def test_bad_arguments_are_refused_naming_them_in_the_callers_error(kwargs: dict, named: str) -> None:
    for error in (StudyError, StorageError, ConfigError):
        with pytest.raises(error, match=named):
            Objectives.parse(**kwargs, error=error)


def test_a_study_and_a_storage_refuse_direction_and_directions_together(tmp_path: Path) -> None:
    with pytest.raises(StudyError, match="not both"):
        tf.Study.create("s", space={"x": tf.Real(0, 1)}, direction="minimize", directions=["minimize"])
    with pytest.raises(StorageError, match="not both"):
        tf.InMemoryStorage().create_study("s", direction="minimize", directions=["minimize"], seed=1, attrs={})


def test_the_value_refuses_what_parse_would() -> None:
    with pytest.raises(ConfigError, match="directions"):
        Objectives(("sideways",))
    with pytest.raises(ConfigError, match="names must hold one name per objective"):
        Objectives(("minimize", "minimize"), ("a",))
    with pytest.raises(ConfigError, match="must differ"):
        Objectives(("minimize", "minimize"), ("a", "a"))


def test_a_loss_is_sign_times_value_and_better_is_a_lower_loss() -> None:
    o = Objectives(("minimize", "maximize"))
    assert o.signs.tolist() == [1.0, -1.0] and (o.sign(0), o.sign(1)) == (1.0, -1.0)
    np.testing.assert_array_equal(o.losses([[1.0, 2.0], [3.0, -4.0]]), [[1.0, -2.0], [3.0, 4.0]])
    assert o.better(1.0, 2.0, 0) and not o.better(1.0, 2.0, 1) and o.better(2.0, 1.0, 1)
    assert not o.better(1.0, 1.0, 0), "a tie is not better"
    assert o.maximizes(1) and not o.maximizes(0)


def test_best_of_values_ignores_nan_and_keeps_the_first_of_ties() -> None:
    up, down = Objectives.single("maximize"), Objectives.single()
    values = [3.0, float("nan"), 5.0, 1.0, 5.0]
    assert (up.best(values), down.best(values)) == (5.0, 1.0)
    assert (up.best_index(values), down.best_index(values)) == (2, 3)
    assert np.isnan(up.best([float("nan")])) and up.best_index([]) is None
    np.testing.assert_array_equal(up.running_best([1.0, 3.0, 2.0, 4.0]), [1.0, 3.0, 3.0, 4.0])
    np.testing.assert_array_equal(down.running_best([1.0, 3.0, 0.5]), [1.0, 1.0, 0.5])


def test_the_front_is_pareto_dominance_on_losses_by_two_routes() -> None:
    rng = np.random.default_rng(0)
    o = Objectives(("minimize", "maximize", "minimize"))
    V = rng.normal(size=(60, 3))
    V[5, 1] = np.nan
    mask = o.front(V)
    ok = np.all(np.isfinite(V), axis=1)
    expected = np.zeros(60, dtype=bool)
    expected[ok] = nondominated_mask(V[ok] * [1.0, -1.0, 1.0])
    np.testing.assert_array_equal(mask, expected)
    assert not mask[5], "a row holding NaN is never on the front"
    for i in np.flatnonzero(mask):  # no row beats a front row in every objective
        L = o.losses(V[ok])
        assert not np.any(np.all(o.losses(V[i]) >= L, axis=1) & np.any(o.losses(V[i]) > L, axis=1))


def test_labels_name_each_objective_for_a_person() -> None:
    assert Objectives.single().labels == ("value",) and Objectives.single().describe() == "minimize"
    assert Objectives(("minimize", "maximize")).labels == ("value 0", "value 1")
    named = Objectives(("minimize", "maximize"), ("error", "size"))
    assert named.describe() == "error (minimize), size (maximize)"
    assert named.argument == {"error": "minimize", "size": "maximize"} and named.pick(1) == Objectives(("maximize",), ("size",))
    assert json.loads(json.dumps(named.as_json()))["names"] == ["error", "size"]


def _named_study(path: Path) -> tf.Study:
    study = tf.Study.create(
        "named", space={"x": tf.Real(0, 1)}, storage=str(path), directions={"error": "minimize", "size": "maximize"},
        algo="random", seed=0,
    )
    study.optimize(lambda p: [p["x"], p["x"] ** 2], 12)
    return study


def test_a_study_keeps_its_objectives_names_and_reopens_with_them(tmp_path: Path) -> None:
    path = tmp_path / "n.db"
    study = _named_study(path)
    assert study.objectives.names == ("error", "size") and study.directions == ("minimize", "maximize")
    assert "directions={'error': 'minimize', 'size': 'maximize'}" in repr(study)
    frame_columns = list(study.to_dataframe().columns) if _has_pandas() else ["values.error", "values.size"]
    assert {"values.error", "values.size"} <= set(frame_columns)
    study.storage.close()
    again = tf.Study.load("named", space={"x": tf.Real(0, 1)}, storage=str(path))
    assert again.objectives == study.objectives
    again.storage.close()
    with pytest.raises(StudyError, match="directions"):
        tf.Study.create("named", space={"x": tf.Real(0, 1)}, storage=str(path), load_if_exists=True,
                        directions={"loss": "minimize", "size": "maximize"})


def _has_pandas() -> bool:
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


def test_show_studies_and_export_read_values_under_their_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "n.db"
    study = _named_study(path)
    front = {t.number for t in study.best_trials}
    study.storage.close()
    capsys.readouterr()
    assert main(["studies", str(path)]) == 0
    assert "named\terror (minimize), size (maximize)\t12 trials" in capsys.readouterr().out
    assert main(["show", str(path), "--study", "named"]) == 0
    shown = capsys.readouterr().out
    assert re.search(r"number\s+state\s+values\.error\s+values\.size", shown)
    assert "Pareto front (error (minimize), size (maximize))" in shown
    assert {int(n) for n in re.findall(r"  trial (\d+): error=", shown)} == front
    out = tmp_path / "t.csv"
    assert main(["export", str(path), "--study", "named", "--output", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert float(rows[3]["values.size"]) == pytest.approx(float(rows[3]["values.error"]) ** 2)


def test_the_cli_takes_named_directions(tmp_path: Path) -> None:
    from treefarm.cli.arguments import directions_list

    assert directions_list("error=minimize, size=maximize") == {"error": "minimize", "size": "maximize"}
    assert directions_list("minimize,maximize") == ["minimize", "maximize"]
    for bad in ("up", "a=minimize,a=maximize", "a=minimize,maximize", ""):
        with pytest.raises(Exception, match="expected comma-separated"):
            directions_list(bad)


COMPARED = re.compile(
    r"""[!=]=\s*["'](min|max)imize["']|["'](min|max)imize["']\s*[!=]=|in\s*\(\s*["']minimize["']"""
    r"""|["'](min|max)imize["']\s+if\b|\belse\s+["'](min|max)imize["']"""
)


def test_directions_are_compared_in_the_objectives_module_only() -> None:
    """No module compares a direction string or picks one by a condition: each asks
    :class:`Objectives` (another library's flags through :meth:`Objectives.of_maximized`),
    which compares its own constants."""
    comparing = sorted(
        str(p.relative_to(SRC)) for p in SRC.rglob("*.py") if COMPARED.search(p.read_text(encoding="utf-8"))
    )
    assert comparing == []
    assert 'MAXIMIZE = "maximize"' in (SRC / "objectives.py").read_text(encoding="utf-8")
