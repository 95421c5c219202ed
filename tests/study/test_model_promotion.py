"""Which paused configuration a rung of a declared fidelity continues: `auto`'s model picks
it (its tuned ``promotions="model"``, the default), by expected improvement at the top, among
every configuration paused at the rung; ASHA's pick where the model does not propose."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

import treefarm as tf
from treefarm import GP, Auto, Config, History, Observation, Real
from treefarm.optimizers.base import variant
from treefarm.optimizers.fidelity import FidelityGP
from treefarm.pruners.promotion import Point, next_evaluation

SPACE = {"x": Real(0.0, 1.0), "y": Real(0.0, 1.0)}
RUNGS = (1 / 9, 1 / 3, 1.0)


def _top(config: Config | dict) -> float:
    return (config["x"] - 0.3) ** 2 + (config["y"] - 0.6) ** 2


def _history(at_rung: Callable[[float, float], float], n: int = 15, promoted: int = 3) -> tuple[History, list[Config]]:
    """``n`` configurations at the lowest rung, the first five of them (the checks) at the
    top too, and ``promoted`` more at the middle rung; the configurations paused at the
    lowest rung (evaluated there only), each valued by ``at_rung(top loss, rung)``."""
    rng = np.random.default_rng(0)
    configs = [Config({"x": float(x), "y": float(y)}) for x, y in rng.random((n, 2))]
    complete = [Observation(c, at_rung(_top(c), RUNGS[0]), fidelity=RUNGS[0]) for c in configs]
    complete += [Observation(c, at_rung(_top(c), 1.0), fidelity=1.0) for c in configs[:5]]
    complete += [Observation(c, at_rung(_top(c), RUNGS[1]), fidelity=RUNGS[1]) for c in configs[5 : 5 + promoted]]
    history = History(tuple(complete), max_fidelity=1.0, min_fidelity=RUNGS[0])
    return history, configs[5 + promoted :]


def _like_the_top(top: float, rung: float) -> float:
    return top + 0.3 * (1.0 - rung)  # every rung ranks configurations exactly as the top


def _model() -> FidelityGP:
    return FidelityGP(gp=GP(n_candidates=64, n_local=32, n_starts=2))


def test_where_the_lowest_rung_ranks_like_the_top_the_model_continues_the_best_predicted_at_the_top() -> None:
    history, paused = _history(_like_the_top)
    shuffled = [paused[i] for i in np.random.default_rng(1).permutation(len(paused))]
    chosen = _model().promotion(SPACE, history, shuffled)
    assert chosen is not None
    assert shuffled[chosen] == min(paused, key=_top)


def test_the_models_pick_is_a_function_of_the_history() -> None:
    history, paused = _history(_like_the_top)
    picks = {_model().promotion(SPACE, history, paused) for _ in range(3)}
    assert len(picks) == 1 and None not in picks


def test_the_model_leaves_the_pick_to_asha_when_the_rungs_mislead_or_before_its_start() -> None:
    reverse, paused = _history(lambda top, rung: top if rung == 1.0 else -top)
    assert _model().promotion(SPACE, reverse, paused) is None  # the rungs rank in reverse
    few, paused = _history(_like_the_top, n=6, promoted=0)
    assert _model().promotion(SPACE, few, paused) is None  # before the space-filling start is done
    history, paused = _history(_like_the_top)
    assert Auto().promotion(SPACE, history, paused) is not None  # auto's default: the model picks
    assert variant(Auto, {"promotions": "asha"}).promotion(SPACE, history, paused) is None
    assert tf.TPE().promotion(SPACE, history, paused) is None  # only a model across fidelities picks


def test_a_rung_offers_every_paused_configuration_and_promotes_the_pick_within_ashas_share() -> None:
    rungs = (1.0, 3.0, 9.0)
    points = [Point(f"c{i}", 1.0, float(i)) for i in range(7)] + [Point("c0", 3.0, 0.0)]
    offered: list[list[object]] = []

    def last(paused: Sequence[object]) -> int:
        offered.append(list(paused))
        return len(paused) - 1

    # seven at the lowest rung: ASHA's share is two promotions (7 // 3), one is made (c0)
    assert next_evaluation(points, [], rungs, 3, choose=last) == (3.0, "c6")
    assert offered == [["c1", "c2", "c3", "c4", "c5", "c6"]]  # ASHA's pick first, c0 went on
    # the share spent (c6 running above): the model's pick waits, where ASHA would promote c1
    assert next_evaluation(points, [("c6", 3.0)], rungs, 3, choose=last) == (1.0, None)
    assert next_evaluation(points, [("c6", 3.0)], rungs, 3) == (3.0, "c1")
    # no pick from the model: ASHA's rule
    assert next_evaluation(points, [("c6", 3.0)], rungs, 3, choose=lambda paused: None) == (3.0, "c1")
    assert next_evaluation(points, [], rungs, 3, choose=lambda paused: None) == (3.0, "c1")
    # nothing due by either rule: the model is not asked
    asked = len(offered)
    assert next_evaluation(points, [("c1", 3.0)], rungs, 3, choose=last) == (1.0, None)
    assert len(offered) == asked


def _objective(config: dict, trial: tf.Trial) -> float:
    return _top(config) + 0.3 * (1.0 - (trial.fidelity or 1.0))


def _trials(study: tf.Study) -> list[tuple[object, ...]]:
    return [(tuple(sorted(t.params.items())), t.system_attrs["fidelity"]) for t in study.trials]


def _model_study(**kwargs: object) -> tf.Study:
    algo = variant(Auto, {"promotions": "model"}, gp=GP(n_candidates=64, n_local=32, n_starts=2))
    fidelity = tf.Fidelity(1 / 9, 1.0, cost=lambda f: 0.05 + 0.95 * f**2)
    return tf.Study.create(space=SPACE, fidelity=fidelity, seed=2, algo=algo, **kwargs)


def test_a_study_whose_model_picks_the_promotions_repeats_itself_and_resumes_as_if_uninterrupted(
    tmp_path: Path,
) -> None:
    first, second = _model_study(), _model_study()
    for study in (first, second):
        study.optimize(_objective, max_cost=6.0, progress=False)
    assert _trials(first) == _trials(second)
    evaluations = Counter(_trials(first))
    assert max(evaluations.values()) == 1  # no configuration twice at a rung
    assert Counter(f for _, f in _trials(first))[1 / 3] >= 2  # the rungs did promote

    storage = f"sqlite:///{tmp_path}/resumed.db"
    for budget in (3.0, 6.0):
        resumed = _model_study(name="resumed", storage=storage, load_if_exists=True)
        resumed.optimize(_objective, max_cost=budget, progress=False)
    assert _trials(resumed) == _trials(first)
