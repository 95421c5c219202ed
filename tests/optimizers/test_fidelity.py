"""The GP across fidelities in auto: it learns from every reported value, drops misleading rungs, repeats itself."""

from __future__ import annotations

import math

import numpy as np
import pytest

import treefarm as tf
from treefarm import GP, Auto, Config, History, Observation, Real
from treefarm.exceptions import ConfigError
from treefarm.optimizers.fidelity import FidelityGP, fidelity_points, has_low_fidelity, rung_agreement

SPACE = {"x": Real(0.0, 1.0), "y": Real(0.0, 1.0)}
STEPS = (1.0, 3.0, 9.0, 27.0)


def _target(x: float, y: float) -> float:
    return (x - 0.3) ** 2 + (y - 0.6) ** 2


def _history(n: int, *, low_is_noise: bool, seed: int = 0) -> History:
    """``n`` configurations, every third run to 27 steps and the others stopped at
    step 1, 3 or 9; a curve's value at step s is the target plus 1/s (informative)
    or, below 27, uniform noise (misleading)."""
    rng = np.random.default_rng(seed)
    complete = []
    for i in range(n):
        x, y = rng.random(2)
        full = i % 3 == 0
        end = 27.0 if full else STEPS[i % 3 - 1 + (i // 3) % 2]
        curve = tuple(
            (s, float(rng.random()) if low_is_noise and s < 27 else _target(x, y) + 1.0 / s)
            for s in STEPS
            if s <= end
        )
        complete.append(
            Observation(
                Config({"x": float(x), "y": float(y)}),
                curve[-1][1],
                fidelity=None if full else end,
                curve=curve,
            )
        )
    return History(tuple(complete), max_fidelity=27.0, min_fidelity=1.0)


def test_points_keep_each_curve_at_its_rungs_and_its_end() -> None:
    history = _history(6, low_is_noise=False)
    points = fidelity_points(history)
    assert len(points.configs) == 6
    full = points.resources[points.ids == 0]
    np.testing.assert_array_equal(full, STEPS)
    assert points.at_target.sum() == 2
    assert points.losses[points.at_target][0] == history.complete[0].loss


def test_rung_agreement_is_high_when_cheap_values_rank_well_and_low_when_they_are_noise() -> None:
    good = rung_agreement(_history(40, low_is_noise=False))
    noise = rung_agreement(_history(40, low_is_noise=True))
    assert good is not None and good > 0.9
    assert noise is not None and noise < 0.3
    assert rung_agreement(_history(6, low_is_noise=False)) is None
    assert rung_agreement(History(_history(40, low_is_noise=False).complete)) is None


def test_without_a_target_fidelity_there_are_no_low_fidelities() -> None:
    history = _history(12, low_is_noise=False)
    assert has_low_fidelity(history)
    assert not has_low_fidelity(History(history.complete))


def test_misleading_rungs_are_dropped_the_gp_sees_the_target_points_alone() -> None:
    history = _history(40, low_is_noise=True)
    gp = GP(n_candidates=64, n_local=32, n_starts=2)
    ours = FidelityGP(gp=gp).suggest(SPACE, history, 2, np.random.default_rng(3))
    top = tuple(o for o in history.complete if o.fidelity is None)
    below = tuple(o.config for o in history.complete if o.fidelity is not None)
    alone = GP(n_candidates=64, n_local=32, n_starts=2).suggest(
        SPACE, History(top, failed=below, max_fidelity=27.0), 2, np.random.default_rng(3)
    )
    assert ours == alone


def test_informative_cheap_values_lead_to_the_target_optimum() -> None:
    history = _history(40, low_is_noise=False)
    (config,) = FidelityGP(gp=GP(n_candidates=256, n_local=64)).suggest(
        SPACE, history, 1, np.random.default_rng(0)
    )
    assert math.dist((config["x"], config["y"]), (0.3, 0.6)) < 0.15


def test_auto_uses_the_model_with_fidelities_and_is_reproducible() -> None:
    history = _history(30, low_is_noise=False)
    auto = lambda: Auto(gp=GP(n_candidates=64, n_local=32, n_starts=2))  # noqa: E731
    first = auto().suggest(SPACE, history, 3, np.random.default_rng(7))
    again = auto().suggest(SPACE, history, 3, np.random.default_rng(7))
    assert first == again and len(set(first)) == 3
    seen = {o.config for o in history.complete}
    assert not seen & set(first)
    plain = auto().suggest(SPACE, History(history.complete), 3, np.random.default_rng(7))
    assert plain != first  # without a target fidelity, auto is the GP on the final values


def test_options_are_checked() -> None:
    with pytest.raises(ConfigError, match=r"kernel=.nope."):
        FidelityGP(kernel="nope")
    with pytest.raises(ConfigError, match="agreement_floor=2"):
        FidelityGP(agreement_floor=2)


def _curve_objective(p: dict, trial: tf.Trial) -> float:
    value = math.inf
    for step in range(1, 10):
        value = _target(p["x"], p["y"]) + 1.0 / step
        trial.report(step, -value)
        if trial.should_prune():
            raise tf.TrialPruned()
    return -value


def test_a_study_with_hyperband_hands_auto_the_curves_and_resumes_as_if_uninterrupted(tmp_path) -> None:
    def run(storage: str, stops: tuple[int, ...]) -> list[dict]:
        for n in stops:
            study = tf.Study.create(
                name="mf",
                storage=storage,
                space=SPACE,
                algo="auto",
                seed=5,
                direction="maximize",
                pruner=tf.HyperbandPruner(min_resource=1, max_resource=9),
                load_if_exists=True,
            )
            study.optimize(_curve_objective, n_trials=n)
        history = study.history()
        assert history.max_fidelity == 9.0 and history.min_fidelity == 1.0
        pruned = [o for o in history.complete if o.fidelity is not None]
        assert pruned and all(o.curve[-1] == (o.fidelity, o.loss) for o in pruned)
        assert all(loss > 0 for o in history.complete for _, loss in o.curve)  # maximized: losses negated
        return [dict(t.params) for t in study.trials]

    whole = run(f"sqlite:///{tmp_path / 'a.db'}", (24,))
    resumed = run(f"sqlite:///{tmp_path / 'b.db'}", (15, 24))
    assert whole == resumed


def test_only_a_budget_setting_pruner_gives_the_study_a_target_fidelity() -> None:
    from treefarm.study.tell.pruning import fidelity_range

    assert fidelity_range(tf.HyperbandPruner(min_resource=2, max_resource=50)) == (2.0, 50.0)
    assert fidelity_range(tf.SuccessiveHalvingPruner(min_resource=1, max_resource=9)) == (1.0, 9.0)
    assert fidelity_range(tf.SuccessiveHalvingPruner(min_resource=1)) is None
    assert fidelity_range(tf.MedianPruner()) is None
    assert fidelity_range(None) is None


def test_a_stored_auto_without_the_fidelity_option_reopens_without_the_model() -> None:
    from treefarm.optimizers.registry import from_spec, spec_of

    spec = spec_of(Auto())
    del spec["options"]["fidelity"], spec["options"]["agreement_floor"]
    reopened = from_spec(spec)
    assert isinstance(reopened, Auto) and reopened.fidelity is None
    history = _history(30, low_is_noise=False)
    plain = Auto(fidelity=None, gp=GP(n_candidates=64, n_local=32, n_starts=2))
    assert plain.suggest(SPACE, history, 2, np.random.default_rng(1)) == GP(
        n_candidates=64, n_local=32, n_starts=2
    ).suggest(SPACE, history, 2, np.random.default_rng(1))
