"""A library that talks: a log line per trial, warnings on all-failed runs and stopping
rules, a progress bar chosen for the terminal or the notebook, all of it silenceable."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

import treefarm as tf
from treefarm import logs
from treefarm.cli.main import main
from treefarm.study.run import talk

SPACE = {"x": tf.Real(0.0, 1.0)}
QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "quickstart.py"


def _x(params: dict[str, float]) -> float:
    return params["x"]


def _bad(params: dict[str, float]) -> float:
    raise ValueError(f"no good at x={params['x']:.1f}")


def _lines(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name.startswith("treefarm") and r.levelno == level]


def test_one_info_line_per_finished_trial_with_state_value_and_best(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="treefarm")
    study = tf.Study.create(space=SPACE, algo="random", seed=3)
    study.optimize(_x, 6, progress=False)
    lines = _lines(caplog, logging.INFO)
    assert len(lines) == 6, lines
    best = study.best_trial
    assert lines[-1].startswith("trial 5 complete, value ")
    assert lines[-1].endswith(f"best {best.value!r} (trial {best.number})")


def test_failed_trials_are_logged_with_their_reason_and_an_all_failed_run_warned(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="treefarm")
    tf.Study.create(space=SPACE, algo="random", seed=0).optimize(_bad, 7, progress=False)
    infos = _lines(caplog, logging.INFO)
    assert infos[0].startswith("trial 0 failed: ValueError: no good at x=") and "best none yet" in infos[0]
    warnings = _lines(caplog, logging.WARNING)
    assert len(warnings) == 1, warnings  # once, after the fifth trial
    assert warnings[0].startswith("every trial so far failed (5 of 5): 'ValueError: no good at x=")


def test_a_short_run_that_only_failed_is_warned_at_its_end(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="treefarm")
    tf.Study.create(space=SPACE, seed=0).optimize(_bad, 2, progress=False)
    assert [w.split(":")[0] for w in _lines(caplog, logging.WARNING)] == [
        "every trial so far failed (2 of 2)"
    ]


@pytest.mark.parametrize(
    ("options", "rule"),
    [
        ({"patience": 3}, "patience: no better value in the last 3"),
        ({"target": 2.0}, "target reached: best value 1.0 <= target=2.0"),
    ],
)
def test_a_stopping_rule_ending_a_run_is_named(
    options: dict[str, float], rule: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="treefarm")
    tf.Study.create(space=SPACE, seed=0).optimize(lambda p: 1.0, 40, progress=False, **options)
    warnings = _lines(caplog, logging.WARNING)
    assert len(warnings) == 1 and rule in warnings[0], warnings


def test_a_timeout_ending_a_run_is_named(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="treefarm")
    tf.Study.create(space=SPACE, seed=0).optimize(lambda p: 1.0, None, timeout=0.05, progress=False)
    assert any(
        w.startswith("the run stopped after") and "timeout: " in w for w in _lines(caplog, logging.WARNING)
    )


def test_a_spent_budget_is_not_announced(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="treefarm")
    tf.Study.create(space=SPACE, seed=0).optimize(_x, 3, progress=False)
    assert _lines(caplog, logging.WARNING) == []


def test_a_call_with_nothing_left_to_run_says_so(caplog: pytest.LogCaptureFixture) -> None:
    """``n_trials`` and ``max_cost`` are the study's totals: a notebook cell run twice
    returns at once, and the warning says why and what runs more."""
    caplog.set_level(logging.INFO, logger="treefarm")
    study = tf.Study.create(space=SPACE, seed=0)
    study.optimize(_x, 3, progress=False)
    study.optimize(_x, 3, progress=False)
    assert len(study.trials) == 3
    assert _lines(caplog, logging.WARNING) == [
        "the study already has 3 trials and n_trials=3 is the study's total: this call runs none "
        "(n_trials=6 runs 3 more)"
    ]
    caplog.clear()
    study = tf.Study.create(space=SPACE, seed=0, fidelity=tf.Fidelity(1, 9))
    study.optimize(lambda p, trial: p["x"], max_cost=9, progress=False)
    spent = study.storage.spent_cost(study.study_id)
    study.optimize(lambda p, trial: p["x"], max_cost=9, progress=False)
    assert study.storage.spent_cost(study.study_id) == spent
    assert _lines(caplog, logging.WARNING) == [
        f"the study's trials have spent {spent:g} and max_cost=9 is the study's total: this call runs none "
        f"(max_cost={spent + 9:g} spends 9 more)"
    ]


def test_the_logging_level_silences_the_trial_lines(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="treefarm")
    tf.Study.create(space=SPACE, seed=0).optimize(_x, 3, progress=False)
    assert [r for r in caplog.records if r.name.startswith("treefarm")] == []


def test_progress_true_draws_a_bar_and_false_draws_none(capsys: pytest.CaptureFixture[str]) -> None:
    tf.minimize(_x, SPACE, max_evals=4, storage=None, seed=0, progress=True)
    err = capsys.readouterr().err
    assert "4/4" in err and "trial" in err, err
    tf.minimize(_x, SPACE, max_evals=4, storage=None, seed=0, progress=False)
    assert "4/4" not in capsys.readouterr().err


def test_progress_counts_what_the_study_total_leaves(capsys: pytest.CaptureFixture[str]) -> None:
    study = tf.Study.create(space=SPACE, seed=0)
    study.optimize(_x, 3, progress=False)
    study.optimize(_x, 5, progress=True)
    assert "2/2" in capsys.readouterr().err


def test_automatic_progress_follows_the_terminal_the_notebook_and_the_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Terminal:
        def isatty(self) -> bool:
            return True

    assert talk.show_progress(None) is False  # pytest's captured stderr is no terminal
    monkeypatch.setattr(talk.sys, "stderr", Terminal())
    assert talk.show_progress(None) is True
    assert talk.show_progress(False) is False
    monkeypatch.setattr(talk.multiprocessing, "parent_process", lambda: object())
    assert talk.show_progress(None) is False  # a worker process never draws
    assert talk.show_progress(True) is True
    with pytest.raises(tf.StudyError, match="progress must be True, False or None"):
        talk.show_progress("yes")  # type: ignore[arg-type]


def test_in_a_notebook_the_bar_is_tqdm_notebook_form(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ipywidgets", reason="tqdm's notebook bar needs ipywidgets (pip install ipywidgets)")
    from tqdm.notebook import tqdm as notebook_tqdm
    from tqdm.std import tqdm as text_tqdm

    assert talk.bar_class() is text_tqdm
    monkeypatch.setattr(talk, "in_notebook", lambda: True)
    assert talk.show_progress(None) is True
    assert talk.bar_class() is notebook_tqdm
    bar = talk.bar_class()(total=3, desc="study")
    bar.update(2)
    assert bar.container is not None and bar.n == 2  # the ipywidgets box a notebook renders
    bar.close()


def test_in_a_notebook_without_ipywidgets_the_text_bar_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from tqdm.std import tqdm as text_tqdm

    monkeypatch.setattr(talk, "in_notebook", lambda: True)
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # an import of it raises ImportError
    assert talk.bar_class() is text_tqdm


def test_the_default_handler_prints_only_without_a_logging_configuration(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    handler = next(h for h in logging.getLogger("treefarm").handlers if isinstance(h, logs.DefaultHandler))
    record = logging.LogRecord("treefarm.trials", logging.INFO, __file__, 1, "trial %d", (7,), None)
    handler.handle(record)  # pytest configured logging: the user's handlers print, not this one
    assert "trial 7" not in capsys.readouterr().err
    monkeypatch.setattr(logging.getLogger(), "handlers", [])
    handler.handle(record)
    assert "trial 7" in capsys.readouterr().err
    assert logging.getLogger("treefarm").getEffectiveLevel() <= logging.INFO


def test_the_command_line_keeps_its_own_lines(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.INFO, logger="treefarm")
    db = str(tmp_path / "q.db")
    assert main(["run", str(QUICKSTART), "--n-trials", "3", "--storage", db, "--seed", "0"]) == 0
    assert "trial 2:" in capsys.readouterr().err  # the command's line
    assert [r for r in caplog.records if r.name == "treefarm.trials"] == []
    assert logging.getLogger("treefarm.trials").level == logging.NOTSET  # put back afterwards
