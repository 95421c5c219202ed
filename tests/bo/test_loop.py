"""The one suggestion loop over a view: batches of unseen points, the kriging
believer between them, explores that try swaps first, and the two views agreeing."""

from __future__ import annotations

import numpy as np
import pytest

from treefarm import Choice, Config, Int, Join, Real, sample
from treefarm.bo.acquisition import make_acquisition
from treefarm.bo.loop import Rules, collapsed, suggest_batch
from treefarm.bo.models.domain import Domain
from treefarm.bo.models.gp import Matern52, fit_gp, gp_with_params
from treefarm.bo.protocols import Acquisition, Model
from treefarm.bo.views import EncodedView, Scene, TreeView, encoded_domain
from treefarm.encoding import TreeColumns, UnitEncoding
from treefarm.space import convert

SPACE = convert({"x": Real(-2.0, 2.0), "k": Int(0, 4), "c": Choice("a", "b")})


def _loss(config: Config) -> float:
    return (float(config["x"]) - 0.5) ** 2 + 0.1 * int(config["k"]) + (config["c"] == "b")


def _history(n: int, seed: int = 0) -> tuple[list[Config], np.ndarray]:
    configs = sample(SPACE, np.random.default_rng(seed), n=n)
    return configs, np.array([_loss(c) for c in configs])


def _model_on(losses: np.ndarray):
    def model_on(X: np.ndarray, domain: Domain) -> Model:
        return fit_gp(X, losses, domain, rng=np.random.default_rng(0))

    return model_on


def _rules(rng: np.random.Generator, **changes) -> Rules:
    def acquire(model: Model, best: float, Xc: np.ndarray) -> Acquisition:
        return make_acquisition("logei", model, best=best, n_observed=len(model.y), rng=rng, candidates=Xc)

    settings = {
        "acquire": acquire,
        "n_starts": 3,
        "candidates_only": False,
        "explores": lambda i: False,
        "swaps": list,
        "draw_unseen": lambda seen: sample(SPACE, rng, n=1)[0],
    }
    settings.update(changes)
    return Rules(**settings)


def _encoded_view(configs, losses, pending=(), n_candidates=64, seed=1):
    candidates = sample(SPACE, np.random.default_rng(seed), n=n_candidates)
    return EncodedView(
        UnitEncoding(SPACE), configs, list(pending), candidates, len(candidates), _model_on(losses)
    )


def test_a_batch_is_distinct_unseen_and_grows_the_seen_set() -> None:
    configs, losses = _history(12)
    seen = set(configs)
    out = suggest_batch(
        _encoded_view(configs, losses), _rules(np.random.default_rng(2)), 4, seen, np.random.default_rng(3)
    )
    assert len(out) == 4 and len(set(out)) == 4, (
        f"a batch of 4 should hold 4 distinct configurations, got {out}"
    )
    assert not set(out) & set(configs), "no suggestion may repeat an evaluated configuration"
    assert set(out) <= seen, "each suggestion joins the seen set"


def test_each_chosen_point_joins_the_model_at_its_posterior_mean() -> None:
    configs, losses = _history(10)
    view = _encoded_view(configs, losses, pending=_history(2, seed=5)[0])
    before = view.scene()
    assert len(before.model.X) == 12, "the model holds the 10 observations and the 2 pending points"
    chosen = sample(SPACE, np.random.default_rng(7), n=1)[0]
    Z = before.encode([chosen])
    mean = before.model.predict(Z)[0]
    view.add(chosen)
    after = view.scene()
    assert len(after.model.X) == 13
    np.testing.assert_allclose(after.model.predict(Z)[0], mean, atol=1e-8)
    assert after.model.predict(Z)[1][0] < before.model.predict(Z)[1][0], "the chosen point's variance shrinks"
    assert after.best == before.best, (
        "the incumbent is the observations' and the pending points', not the batch's"
    )


def test_an_explore_tries_the_untried_swaps_before_a_thompson_draw() -> None:
    configs, losses = _history(12)
    swap = sample(SPACE, np.random.default_rng(11), n=1)[0]
    rng = np.random.default_rng(2)
    # the candidates are the observations: the best of them is an evaluated point, so it collapses
    view = EncodedView(UnitEncoding(SPACE), configs, [], configs, len(configs), _model_on(losses))
    rules = _rules(rng, candidates_only=True, explores=lambda i: True, swaps=lambda: [swap, configs[0]])
    out = suggest_batch(view, rules, 2, set(configs), np.random.default_rng(3))
    assert out[0] == swap, f"the first explore should take the untried swap {swap}, got {out[0]}"
    assert out[1] != swap and out[1] not in configs, "the second explore has no swap left: a fresh point"


def test_a_proposal_has_collapsed_within_one_percent_of_the_cube() -> None:
    X = np.array([[0.2, 0.4], [0.9, 0.1]])
    assert collapsed(np.array([0.205, 0.4]), X)
    assert not collapsed(np.array([0.25, 0.4]), X)
    assert not collapsed(np.array([0.2, 0.4]), np.empty((0, 2))), (
        "nothing evaluated: nothing to collapse onto"
    )
    assert collapsed(np.array([0.25, 0.4]), X, width=2500), (
        "more columns, all equal elsewhere: a smaller distance"
    )


@pytest.mark.parametrize("seed", [0, 1])
def test_on_a_conditional_space_both_views_score_candidates_alike(seed: int) -> None:
    """The tree view's narrowed columns keep every distance, so the
    acquisition over the candidates is the full encoding's."""
    space = convert({"opt": Join(a={"lr": Real(0.0, 1.0)}, b={"lr": Real(0.0, 1.0), "m": Int(1, 8)})})
    rng = np.random.default_rng(seed)
    configs = sample(space, rng, n=10)
    losses = rng.random(10)
    candidates = sample(space, rng, n=40)
    full = UnitEncoding.for_configs(space, [*configs, *candidates])
    params = fit_gp(
        full.encode(configs)[0],
        losses,
        encoded_domain(full),
        kernel=Matern52(ard=False),
        rng=np.random.default_rng(0),
    )

    def model_on(X: np.ndarray, domain: Domain) -> Model:
        return gp_with_params(X, losses, domain, params.params, params.transform, kernel=Matern52(ard=False))

    encoded = EncodedView(full, configs, [], candidates, 40, model_on).scene()
    tree = TreeView(
        TreeColumns(space, [*configs, *candidates]), configs, [], candidates, 40, model_on
    ).scene()

    def log_ei(scene: Scene) -> np.ndarray:
        return make_acquisition("logei", scene.model, best=scene.best, n_observed=10, rng=rng)(
            scene.Xc, grad=False
        )[0]

    np.testing.assert_allclose(log_ei(tree), log_ei(encoded), rtol=1e-6, atol=1e-6)
