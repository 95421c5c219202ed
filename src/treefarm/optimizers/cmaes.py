"""CMA-ES with restarts, replayed from the history.

Hansen (2016), "The CMA Evolution Strategy: A Tutorial" (arXiv:1604.00772):
the strategy parameters of its Table 1 (with the negative, "active" weights),
the updates of its Figure 6, the clipping of injected solutions of its
Appendix (``c_y = sqrt(n) + 2n / (n + 2)``) and the termination criteria of
its Appendix B.3. Restarts with a doubled population (IPOP-CMA-ES, Auger &
Hansen 2005) or alternating with small populations and step sizes
(BIPOP-CMA-ES, Hansen 2009).

Notation (shapes): ``d`` numbers searched, ``lam`` the population,
``m`` (d,) the mean, ``sigma`` the step size, ``C`` (d, d) the covariance
``= B diag(D)^2 B^T``, ``p_s``/``p_c`` (d,) the evolution paths,
``X`` (lam, d) a generation's points, ``f`` (lam,) their losses.

How it fits a stateless optimizer:

- **Numbers** (every :class:`~treefarm.space.Real` and
  :class:`~treefarm.space.Int` address of the space, over all branches) are
  searched in the unit cube of :mod:`treefarm.encoding.unit` (the logarithm
  for ``log=True``); integers are rounded when decoded.
- **The state is replayed**: the completed trials, in the order of their
  numbers, are cut into generations of ``lam``, and each full generation
  updates the state from the points as stored (so a rounded integer or a
  mirrored point updates it where it was evaluated; every step is clipped as an
  injected solution is). A trial that failed, or whose loss is not finite,
  is left out: its place in the generation is taken by the next trial
  (re-sampled, in effect). Trials still pending are in flight: a new
  suggestion is drawn from the current state, as a further member of the
  generation being evaluated. A resumed study, or a second worker, replays
  the same generations and suggests what an uninterrupted one would. The
  replayed state is kept between calls only to save time (it is checked
  against the history's prefix).
- **Restarts** when a run stagnates (Appendix B.3: ``tolfun``, ``tolx``,
  no effect of an axis or a coordinate, a covariance's condition above 1e14,
  no improvement of the best and median losses over ``120 + 30 d / lam``
  generations, and a flat fitness: best and 70 %-quantile equal in three
  generations in a row); a restart's mean is a uniform point of the cube and
  its draws (the mean, BIPOP's ``U``) come from the study seed and the
  restart's index (:mod:`treefarm.optimizers.seeds`), so a replay makes the
  same restarts. The first run starts at the centre of the cube, or at ``mean0``.
- **Bounds**: a draw outside the cube is drawn again (Hansen's resampling), up
  to ``RESAMPLES`` times; then it is mirrored into the cube.
- **Choices and join options** are not searched by CMA-ES: each is drawn with
  probability proportional to its prior weight times one plus how often it
  was taken in the better half of the completed trials (where it was
  active): a smoothed frequency rule.
- **Conditional numbers**: a number inactive in a trial takes the mean's
  coordinate in that trial's step (a zero step), so it moves only on the trials
  that used it. Recursive spaces (unboundedly many numbers) are refused.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ..encoding.unit import numeric_unit, numeric_value
from ..exceptions import ConfigError
from ..space import Choice, Config, Int, Join, Real, Space, convert, walk
from ..space.config import ROOT_ADDRESS, Decision, Scalar
from ..validation import check_int, check_positive, check_range
from .base import History, Observation, Optimizer
from .scope import fixed_addresses
from .seeds import design_seed
from .unseen import unseen

__all__ = ["CMAES", "Params", "State", "strategy_params"]

#: Draws of one point before a point outside the cube is mirrored into it.
RESAMPLES = 10
#: Termination thresholds of Hansen (2016), Appendix B.3 (``tolx`` in the unit cube).
TOLFUN, TOLX, MAX_CONDITION = 1e-12, 1e-11, 1e14
#: Generations in a row of a flat fitness (best equal to the 70 % quantile) before a restart.
FLAT_GENERATIONS = 3
#: Population doublings of IPOP at most (Auger & Hansen 2005 allow nine restarts).
MAX_DOUBLINGS = 9


@dataclass(frozen=True)
class Params:
    """Strategy parameters for ``d`` numbers and population ``lam`` (Hansen 2016, Table 1)."""

    d: int
    lam: int
    mu: int
    weights: np.ndarray  # (lam,) positive for the best mu, negative (active) for the rest
    mu_eff: float
    c_sigma: float
    d_sigma: float
    c_c: float
    c_1: float
    c_mu: float
    chi_n: float


def strategy_params(d: int, lam: int) -> Params:
    """The defaults of Hansen (2016), Table 1, with ``alpha_cov = 2`` and ``c_m = 1``."""
    raw = math.log((lam + 1) / 2) - np.log(np.arange(1, lam + 1))
    mu = lam // 2
    pos, neg = raw[:mu], raw[mu:]
    mu_eff = pos.sum() ** 2 / (pos**2).sum()
    c_1 = 2.0 / ((d + 1.3) ** 2 + mu_eff)
    c_mu = min(1 - c_1, 2.0 * (mu_eff - 2 + 1 / mu_eff) / ((d + 2) ** 2 + mu_eff))
    weights = np.concatenate([pos / pos.sum(), neg])
    if neg.size and c_mu > 0:
        mu_eff_neg = neg.sum() ** 2 / (neg**2).sum()
        scale = min(1 + c_1 / c_mu, 1 + 2 * mu_eff_neg / (mu_eff + 2), (1 - c_1 - c_mu) / (d * c_mu))
        weights[mu:] = scale * neg / np.abs(neg).sum()
    else:
        weights[mu:] = 0.0
    c_sigma = (mu_eff + 2) / (d + mu_eff + 5)
    return Params(
        d=d,
        lam=lam,
        mu=mu,
        weights=weights,
        mu_eff=mu_eff,
        c_sigma=c_sigma,
        d_sigma=1 + 2 * max(0.0, math.sqrt((mu_eff - 1) / (d + 1)) - 1) + c_sigma,
        c_c=(4 + mu_eff / d) / (d + 4 + 2 * mu_eff / d),
        c_1=c_1,
        c_mu=c_mu,
        chi_n=math.sqrt(d) * (1 - 1 / (4 * d) + 1 / (21 * d**2)),
    )


def default_population(d: int) -> int:
    """``4 + floor(3 ln d)`` (Hansen 2016, Table 1)."""
    return 4 + int(3 * math.log(max(d, 1)))


@dataclass(frozen=True)
class State:
    """One run's distribution and bookkeeping; ``B``, ``D`` the eigen-decomposition of ``C``."""

    params: Params
    m: np.ndarray
    sigma: float
    C: np.ndarray
    B: np.ndarray
    D: np.ndarray
    p_s: np.ndarray
    p_c: np.ndarray
    sigma0: float
    generation: int = 0
    run: int = 0
    #: The best and the median loss of each generation of this run.
    bests: tuple[float, ...] = ()
    medians: tuple[float, ...] = ()
    flat: int = 0
    #: Evaluations of the runs before, with a small (BIPOP) and a large population; large doublings so far.
    spent: tuple[int, int] = (0, 0)
    doublings: int = 0
    #: Whether this run is one of BIPOP's small-population runs.
    small: bool = False


def initial_state(params: Params, m: np.ndarray, sigma: float) -> State:
    """A run's start: mean ``m``, step ``sigma``, ``C = I``, paths at 0."""
    d = params.d
    eye = np.eye(d)
    return State(params, m, sigma, eye, eye, np.ones(d), np.zeros(d), np.zeros(d), sigma)


def clipped_steps(state: State, X: np.ndarray) -> np.ndarray:
    """(lam, d) steps ``y = (x - m) / sigma``, each clipped to a Mahalanobis length
    of at most ``c_y = sqrt(d) + 2d / (d + 2)`` (Hansen 2016, injected solutions);
    a NaN coordinate (an inactive number) is a zero step."""
    d = state.params.d
    Y = np.nan_to_num((X - state.m) / state.sigma, nan=0.0)
    lengths = np.linalg.norm((Y @ state.B) / state.D, axis=1)
    c_y = math.sqrt(d) + 2 * d / (d + 2)
    return Y * np.minimum(1.0, c_y / np.maximum(lengths, 1e-300))[:, None]


def update(state: State, X: np.ndarray, f: np.ndarray) -> State:
    """The state after one generation ``X`` (lam, d) with losses ``f`` (lam,) (Hansen 2016, Fig. 6)."""
    p = state.params
    order = np.argsort(f, kind="stable")
    Y = clipped_steps(state, X)[order]
    y_w = p.weights[: p.mu] @ Y[: p.mu]
    m = state.m + state.sigma * y_w
    inv_sqrt = state.B @ np.diag(1 / state.D) @ state.B.T
    p_s = (1 - p.c_sigma) * state.p_s + math.sqrt(p.c_sigma * (2 - p.c_sigma) * p.mu_eff) * inv_sqrt @ y_w
    g = state.generation + 1
    threshold = (1.4 + 2 / (p.d + 1)) * p.chi_n
    h_s = float(np.linalg.norm(p_s) / math.sqrt(1 - (1 - p.c_sigma) ** (2 * g)) < threshold)
    p_c = (1 - p.c_c) * state.p_c + h_s * math.sqrt(p.c_c * (2 - p.c_c) * p.mu_eff) * y_w
    w = p.weights.copy()
    negative = w < 0
    if negative.any():
        norms = np.linalg.norm(Y[negative] @ inv_sqrt, axis=1) ** 2
        w[negative] *= p.d / np.maximum(norms, 1e-300)
    delta = (1 - h_s) * p.c_c * (2 - p.c_c)
    C = (1 + p.c_1 * delta - p.c_1 - p.c_mu * p.weights.sum()) * state.C
    C = C + p.c_1 * np.outer(p_c, p_c) + p.c_mu * (Y.T * w) @ Y
    C = (C + C.T) / 2
    sigma = state.sigma * math.exp(min(1.0, p.c_sigma / p.d_sigma * (np.linalg.norm(p_s) / p.chi_n - 1)))
    D2, B = np.linalg.eigh(C)
    D = np.sqrt(np.maximum(D2, 1e-300))
    sf = np.sort(f)
    flat = state.flat + 1 if sf[0] == sf[min(len(sf) - 1, math.ceil(0.7 * len(sf)))] else 0
    return replace(
        state,
        m=m,
        sigma=sigma,
        C=C,
        B=B,
        D=D,
        p_s=p_s,
        p_c=p_c,
        generation=g,
        bests=(*state.bests, float(sf[0])),
        medians=(*state.medians, float(np.median(f))),
        flat=flat,
    )


def should_restart(state: State) -> bool:
    """Whether the run has stagnated (Hansen 2016, Appendix B.3; see the module docstring)."""
    p, g = state.params, state.generation
    window = 10 + math.ceil(30 * p.d / p.lam)
    if g >= window and max(state.bests[-window:]) - min(state.bests[-window:]) < TOLFUN:
        return True
    if state.sigma * max(np.max(np.abs(state.p_c)), np.max(np.sqrt(np.diag(state.C)))) < TOLX:
        return True
    if (state.D.max() / state.D.min()) ** 2 > MAX_CONDITION or state.flat >= FLAT_GENERATIONS:
        return True
    i = g % p.d
    if np.all(state.m == state.m + 0.1 * state.sigma * state.D[i] * state.B[:, i]):
        return True
    if np.any(state.m == state.m + 0.2 * state.sigma * np.sqrt(np.diag(state.C))):
        return True
    return _stagnated(state)


def _stagnated(state: State) -> bool:
    """No improvement of the median of the best nor of the median losses between the first and
    the last 30 % of the last ``120 + 30 d / lam`` (at most 20,000) generations."""
    p = state.params
    span = min(20_000, max(120 + math.ceil(30 * p.d / p.lam), math.ceil(0.2 * state.generation)))
    if state.generation < span:
        return False
    k = max(1, math.ceil(0.3 * span))
    bests, medians = np.array(state.bests[-span:]), np.array(state.medians[-span:])
    return bool(
        np.median(bests[-k:]) >= np.median(bests[:k]) and np.median(medians[-k:]) >= np.median(medians[:k])
    )


def mirror(x: np.ndarray) -> np.ndarray:
    """``x`` reflected into [0, 1] at its faces (period 2)."""
    r = np.mod(x, 2.0)
    return np.where(r > 1.0, 2.0 - r, r)


def draw(state: State, rng: np.random.Generator) -> np.ndarray:
    """(d,) a point of ``N(m, sigma^2 C)`` in the cube: resampled, then mirrored (module docstring)."""
    for _ in range(RESAMPLES):
        x = state.m + state.sigma * (state.B @ (state.D * rng.standard_normal(state.params.d)))
        if np.all((x >= 0.0) & (x <= 1.0)):
            return x
    return mirror(x)


@dataclass
class _Replay:
    """The replayed state after ``configs`` (the finite-loss completed trials consumed)."""

    state: State
    configs: list[Config] = field(default_factory=list)
    losses: list[float] = field(default_factory=list)


class CMAES(Optimizer):
    """CMA-ES with restarts on the numbers of a space (see the module docstring).

    Parameters
    ----------
    population:
        The first run's population ``lam``; ``None`` for ``4 + floor(3 ln d)``.
        Larger on a multimodal objective or with many parallel workers.
    sigma0:
        The first step size, in the unit cube (a quarter of every range by
        default): smaller to search near ``mean0``.
    restarts:
        ``"ipop"`` (double the population at each restart), ``"bipop"``
        (alternate with small populations, Hansen 2009; for objectives with
        both broad and narrow basins) or ``"none"`` (one run: a stagnated run
        keeps its state).
    mean0:
        The first run's mean in the unit cube, one coordinate in [0, 1] per
        number of the space (in the order of :func:`treefarm.space.addresses`);
        ``None`` for the centre. Set it to start from a known good point (as
        ``algo="auto"`` does when it hands a long study over from the GP).
    """

    def __init__(
        self,
        *,
        population: int | None = None,
        sigma0: float = 0.25,
        restarts: str = "ipop",
        mean0: Sequence[float] | None = None,
    ) -> None:
        check_int("population", population, minimum=2, or_none=True)
        check_positive("sigma0", sigma0)
        if restarts not in ("ipop", "bipop", "none"):
            raise ConfigError(f"restarts must be 'ipop', 'bipop' or 'none', but got restarts={restarts!r}")
        if mean0 is not None:
            for j, x in enumerate(mean0):
                check_range(f"mean0[{j}]", x, 0.0, 1.0)
        self.population = population
        self.sigma0 = float(sigma0)
        self.restarts = restarts
        self.mean0 = None if mean0 is None else tuple(float(x) for x in mean0)
        self._cache: tuple[Space, int, _Replay] | None = None

    def suggest(self, space: Space, history: History, n: int, rng: np.random.Generator) -> list[Config]:
        root = convert(space)
        decisions = fixed_addresses(root, "cmaes")
        numbers = [(a, node) for a, node in decisions if isinstance(node, (Real, Int))]
        complete = [o for o in history.complete if math.isfinite(o.loss)]
        state = self.replay(space, numbers, complete, design_seed(rng, "cmaes")) if numbers else None
        freqs = _frequencies(decisions, complete)
        columns = {a: j for j, (a, _) in enumerate(numbers)}
        seen = history.seen()
        out: list[Config] = []

        def propose() -> Config:
            x = draw(state, rng) if state is not None else np.zeros(0)
            return _decode(root, columns, x, freqs, rng)

        for _ in range(n):
            out.append(unseen(root, propose, seen | set(out), rng))
        return out

    def replay(
        self,
        space: Space,
        numbers: Sequence[tuple[str, Real | Int]],
        complete: Sequence[Observation],
        seed: int,
    ) -> State:
        """The state after every full generation of ``complete`` (module docstring)."""
        cached = self._cache
        replay: _Replay | None = None
        if cached is not None and cached[0] is space and cached[1] == seed:
            k = len(cached[2].configs)
            prefix = complete[:k]
            if (
                len(prefix) == k
                and [o.loss for o in prefix] == cached[2].losses
                and [o.config for o in prefix] == cached[2].configs
            ):
                replay = cached[2]
        if replay is None:
            replay = _Replay(self._start(len(numbers), seed, run=0, spent=(0, 0), doublings=0))
        while len(complete) - len(replay.configs) >= replay.state.params.lam:
            lam = replay.state.params.lam
            batch = complete[len(replay.configs) : len(replay.configs) + lam]
            X = _encode(numbers, batch)
            f = np.array([o.loss for o in batch])
            state = update(replay.state, X, f)
            if self.restarts != "none" and should_restart(state):
                state = self._restart(state, len(numbers), seed)
            replay.state = state
            replay.configs.extend(o.config for o in batch)
            replay.losses.extend(f.tolist())
        self._cache = (space, seed, replay)
        return replay.state

    def _start(
        self, d: int, seed: int, *, run: int, spent: tuple[int, int], doublings: int, small: bool = False
    ) -> State:
        """Run ``run``'s first state: ``mean0`` (by default the centre of the cube) for
        the first, else a uniform point from the study seed and the run's index; BIPOP's small runs draw their
        population and step size (Hansen 2009, with ``U`` from the same stream)."""
        lam0 = self.population or default_population(d)
        draws = np.random.default_rng([seed, run])
        m = self._first_mean(d) if run == 0 else draws.random(d)
        lam, sigma = lam0 * 2**doublings, self.sigma0
        if small:
            u = float(draws.random())
            lam = max(2, int(lam0 * (0.5 * lam / lam0) ** (u**2)))
            sigma = self.sigma0 * 10 ** (-2 * u)
        start = initial_state(strategy_params(d, lam), m, sigma)
        return replace(start, run=run, spent=spent, doublings=doublings, small=small)

    def _first_mean(self, d: int) -> np.ndarray:
        if self.mean0 is None:
            return np.full(d, 0.5)
        if len(self.mean0) != d:
            raise ConfigError(
                f"mean0 must have one coordinate per number of the space ({d}), but got mean0={list(self.mean0)!r}"
            )
        return np.array(self.mean0)

    def _restart(self, state: State, d: int, seed: int) -> State:
        """The next run's state: IPOP doubles the population; BIPOP runs a small one
        whenever the small runs have spent fewer evaluations than the large ones."""
        used = state.generation * state.params.lam
        spent = (
            (state.spent[0] + used, state.spent[1])
            if state.small
            else (state.spent[0], state.spent[1] + used)
        )
        if self.restarts == "bipop" and spent[0] < spent[1]:
            return self._start(d, seed, run=state.run + 1, spent=spent, doublings=state.doublings, small=True)
        doublings = min(state.doublings + 1, MAX_DOUBLINGS)
        return self._start(d, seed, run=state.run + 1, spent=spent, doublings=doublings)


def _encode(numbers: Sequence[tuple[str, Real | Int]], batch: Sequence[Observation]) -> np.ndarray:
    """(len(batch), d) unit-cube positions of the numbers; NaN where a number is inactive."""
    X = np.full((len(batch), len(numbers)), math.nan)
    for i, o in enumerate(batch):
        for j, (a, node) in enumerate(numbers):
            value = o.config.get(a)
            if isinstance(value, (int, float)):
                X[i, j] = numeric_unit(node, float(value))
    return X


def _frequencies(
    decisions: Sequence[tuple[str, Decision]], complete: Sequence[Observation]
) -> dict[str, np.ndarray]:
    """Per choice or join address, its options' weights: prior weight times one plus
    the option's count in the better half of ``complete`` (module docstring)."""
    categorical = [
        (a, node)
        for a, node in decisions
        if isinstance(node, Join) or (isinstance(node, Choice) and len(node.values) > 1)
    ]
    better = sorted(complete, key=lambda o: o.loss)[: math.ceil(len(complete) / 2)] if categorical else []
    out: dict[str, np.ndarray] = {}
    for address, node in categorical:
        if isinstance(node, (Choice, Join)):
            labels = node.decisions() if isinstance(node, Choice) else node.labels
            prior = np.ones(len(labels)) if node.weights is None else np.asarray(node.weights, dtype=float)
            counts = np.zeros(len(labels))
            for o in better:
                if address in o.config:
                    index = node.index_of(o.config[address])
                    counts[index or 0] += 1
            out[address] = prior * (1 + counts)
    return out


def _decode(
    root: Space,
    columns: dict[str, int],
    x: np.ndarray,
    freqs: dict[str, np.ndarray],
    rng: np.random.Generator,
) -> Config:
    """The configuration with the numbers at ``x`` (rounded for integers) and the choices and
    join options drawn by their frequency weights."""

    def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        key = address or ROOT_ADDRESS
        if isinstance(node, (Real, Int)):
            return numeric_value(node, float(x[columns[key]]))
        if key not in freqs:
            return node.decisions()[0] if isinstance(node, Choice) else node.labels[allowed[0]]
        weights = freqs[key]
        options = list(range(len(weights))) if isinstance(node, Choice) else list(allowed)
        w = weights[options]
        pick = options[int(rng.choice(len(options), p=w / w.sum()))]
        return node.decisions()[pick] if isinstance(node, Choice) else node.labels[pick]

    return walk(root, decide)[0]
