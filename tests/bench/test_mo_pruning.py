"""The several-objectives pruning bench: its comparison at equal epochs and its arguments."""

from __future__ import annotations

import pytest
from bench.suites.mo_pruning import anytime, at_equal_steps, front_curves, main


def _rows(seeds: int) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    off = [{"seed": s, "epochs": 100, "hypervolume": 2.0} for s in range(seeds)]
    on = [
        {"seed": s, "anytime": [[20, 1.0], [50, 1.9 + 0.01 * s], [90, 2.5], [140, 3.0]]} for s in range(seeds)
    ]
    return on, off


def test_the_front_is_read_where_the_pruned_run_had_spent_that_share_of_the_epochs() -> None:
    on, off = _rows(8)
    half = at_equal_steps(on, off, 0.5)
    assert half is not None and "median hypervolume 1.9350 against 2.0000" in half and "lower beyond noise" in half
    whole = at_equal_steps(on, off, 1.0)
    assert whole is not None and "median hypervolume 2.5000" in whole and "higher beyond noise" in whole
    assert at_equal_steps(*_rows(4), 0.5) is None, "fewer than 5 seeds is no verdict"


def test_a_run_that_ended_under_the_budget_keeps_its_final_front() -> None:
    on, off = _rows(6)
    for r in on:
        r["anytime"] = [[20, 1.0], [40, 2.2]]
    line = at_equal_steps(on, off, 1.0)
    assert line is not None and "median hypervolume 2.2000" in line


def test_anytime_counts_the_epochs_of_every_trial_and_the_front_of_the_complete_ones() -> None:
    class T:
        def __init__(self, steps: int, state: str, values: list[float] | None) -> None:
            self.intermediate = dict.fromkeys(range(1, steps + 1), 0.0)
            self.state = type("S", (), {"name": state})()
            self.values = values

    trials = [T(27, "COMPLETE", [0.5, 2.0]), T(3, "PRUNED", [0.9, 1.0]), T(27, "COMPLETE", [0.2, 2.5])]
    curve = anytime(trials, [1.0, 3.0])
    assert [spent for spent, _ in curve] == [27, 30, 57]
    assert curve[0][1] == pytest.approx(0.5 * 1.0) and curve[1][1] == curve[0][1], "a pruned trial adds no front"
    assert curve[2][1] == pytest.approx(0.5 * 1.0 + 0.3 * 0.5)


@pytest.mark.parametrize("flag", ["--seeds", "--trials", "--pruned-trials", "--min-resource"])
def test_a_count_below_one_is_an_error_naming_the_value(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", flag, "0"])
    assert f"argument {flag}: expected an integer >= 1, got '0'" in capsys.readouterr().err


def test_front_names_the_smallest_front_trial_and_its_rivals_at_epoch_3() -> None:
    (line,) = front_curves("curves", seeds=1, trials=8)
    assert line.startswith("seed 0: hypervolume ") and "at epochs 1/3/9/27: [" in line
    assert "trials of its size lower at epoch 3" in line
