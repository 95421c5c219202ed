"""Nevergrad's NGOpt and Ax as peers: the same space as every other method, reproducible runs,
and a clean not-available row where Ax is missing."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from bench.harness.ax_worker import decoded
from bench.harness.methods import NotAvailableError
from bench.harness.nevergrad_ax import ax_params, distinct, run_ax
from bench.harness.problems import Param, all_problems

PARAMS = (
    Param("C", "real", 1e-3, 1e3, log=True),
    Param("k", "int", 1, 9),
    Param("kernel", "cat", choices=("rbf", "poly")),
    Param("gamma", "real", 1e-4, 1.0, log=True, when=("kernel", "rbf")),
    Param("gamma", "real", 1e-4, 1.0, log=True, when=("kernel", "poly")),
    Param("level", "cat", choices=(0.0, 0.5, 1.0)),
)


def test_a_parameter_declared_under_two_parents_is_searched_once() -> None:
    assert [p.name for p in distinct(PARAMS)] == ["C", "k", "kernel", "gamma", "level"]
    assert [p["name"] for p in ax_params(PARAMS)] == ["C", "k", "kernel", "gamma", "level"]


def test_an_ax_suggestion_gives_each_choice_back_as_the_problems_own_value() -> None:
    params = ax_params((Param("n", "cat", choices=(1, 2, 3)), Param("s", "cat", choices=("a", "b"))))
    assert decoded(params, {"n": "2", "s": "b", "x": 0.5}) == {"n": 2, "s": "b", "x": 0.5}
    assert decoded(params, {"n": 3, "s": "a"}) == {"n": 3, "s": "a"}


def test_nevergrads_space_keeps_bounds_integers_and_choices_and_its_seed() -> None:
    pytest.importorskip("nevergrad")
    from bench.harness.nevergrad_ax import nevergrad_space, plain

    def draws(seed: int) -> list[dict[str, object]]:
        space = nevergrad_space(PARAMS, seed)
        return [plain(space.sample().value) for _ in range(200)]

    values = draws(0)
    assert all(1e-3 <= v["C"] <= 1e3 and 1e-4 <= v["gamma"] <= 1.0 for v in values)
    assert all(isinstance(v["k"], int) and 1 <= v["k"] <= 9 for v in values)
    assert {v["kernel"] for v in values} == {"rbf", "poly"} and {v["level"] for v in values} == {0.0, 0.5, 1.0}
    logs = np.log10([v["C"] for v in values])
    assert np.mean(logs < 0) == pytest.approx(0.5, abs=0.12), "C is drawn uniformly on its log scale"
    assert draws(0) == values and draws(1) != values


def test_ngopt_finds_branins_basin_and_repeats_itself_from_a_seed() -> None:
    pytest.importorskip("nevergrad")
    from bench.harness.methods import run

    first = run("nevergrad-ngopt", all_problems()["branin"], 3, 60)
    assert first["losses"] == run("nevergrad-ngopt", all_problems()["branin"], 3, 60)["losses"]
    assert min(first["losses"]) < 2.0 and len(first["suggest_times"]) == 60


def test_axs_parameter_configs_are_log_scaled_ranges_and_unordered_choices() -> None:
    pytest.importorskip("ax")
    from bench.harness.ax_worker import parameter_configs

    configs = {c.name: c for c in parameter_configs(ax_params(PARAMS))}
    assert configs["C"].scaling == "log" and configs["C"].bounds == (1e-3, 1e3)
    assert configs["k"].parameter_type == "int" and configs["k"].bounds == (1, 9)
    assert configs["kernel"].parameter_type == "str" and configs["kernel"].is_ordered is False
    assert configs["level"].parameter_type == "float" and configs["level"].values == [0.0, 0.5, 1.0]


def test_ax_without_its_interpreter_is_a_not_available_row(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\necho \"ModuleNotFoundError: No module named 'ax'\" >&2\nexit 1\n")
    python.chmod(0o755)
    monkeypatch.setenv("TREEFARM_AX_PYTHON", str(python))
    with pytest.raises(NotAvailableError, match="TREEFARM_AX_PYTHON"):
        run_ax(all_problems()["branin"], 0, 5)
