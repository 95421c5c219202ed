"""Fitting the GP's hyperparameters: maximum a-posteriori by L-BFGS-B.

Notation (shapes):
    n points, d columns, p kernel parameters
    phi     (p + 2,) = [theta (p), log s2_noise, mu0]: what is optimized
    v       (n,) each observation's own noise variance on the model scale (fixed data)
    C       (n, n) = k(X, X) + s2_noise I + diag(v),  L = chol(C),  r = y - mu0,  alpha = C^{-1} r
    W       (n, n) = alpha alpha^T - C^{-1}

Log marginal likelihood and its gradient (Rasmussen & Williams 2006, eq. 5.8-5.9):

    lml = -1/2 r^T alpha - sum log diag L - n/2 log 2 pi
    d lml / d theta_p      = 1/2 sum_ab W_ab dK_ab/d theta_p     (Kernel.gram)
    d lml / d log s2_noise = 1/2 s2_noise trace(W)     (dC / d log s2_noise = s2_noise I, whatever v is)
    d lml / d mu0          = sum alpha

plus the log priors of :mod:`.priors`. One evaluation costs a Cholesky and
the inverse from it, O(n^3), and the contractions, O(n^2 d). Restarts from
prior draws guard against the local optima the likelihood is known for; a
warm start from the previous fit's parameters replaces the prior-mode start.
Many points: hyperparameters from a random subset, refined on all (``fit_gp``).
"""

from __future__ import annotations

import math

import numpy as np

from ....exceptions import TreefarmError
from ..domain import Domain
from ..lbfgsb import minimize_box
from .hyperpriors import LENGTH_SCALE_SIGMA, NOISE_LOC, NOISE_SCALE, length_scale_location, log_normal
from .kernels import Kernel, make_kernel
from .regressor import GaussianProcess, GPParams, add_diagonal, cholesky, noise_diagonal, solve
from .transform import OutputTransform

__all__ = [
    "NOISE_FLOOR",
    "OUTPUTS",
    "POLISH_STEPS",
    "SUBSET",
    "fit_gp",
    "gp_with_params",
    "kendall_tau",
    "log_posterior",
    "loo_means",
    "loo_rank",
]

#: Output transforms of ``fit_gp``: "warp" (robust scaling and Yeo-Johnson, for heavy tails),
#: "standard" (mean and standard deviation) or "auto" (both fitted; see :func:`loo_rank`).
OUTPUTS = ("auto", "warp", "standard")
#: The smallest noise variance on the model's (standardized) scale.
NOISE_FLOOR = 1e-6
#: L-BFGS-B steps of one run of the fit, and its projected-gradient tolerance: Optuna's
#: 1e-2 (ours was scipy's 1e-5) reaches the same log posterior to 1e-3 with 10-15% fewer
#: evaluations (30-200 points in 3-10 dimensions, 5 data sets, 3 starts each).
MAX_STEPS = 200
GRADIENT_TOLERANCE = 1e-2
#: Past this many points the hyperparameters are first fitted on a random subset this large,
SUBSET = 200
#: then refined on all points by at most this many steps.
POLISH_STEPS = 10


def _log_prior(kernel: Kernel, phi: np.ndarray, d: int) -> tuple[float, np.ndarray]:
    grad = np.zeros_like(phi)
    total = 0.0
    for s in kernel.length_scale_slices(d):
        value, g = log_normal(phi[s], length_scale_location(d), LENGTH_SCALE_SIGMA)
        total, grad[s] = total + value, g
    for i in kernel.amplitude_indices(d):
        value, g = log_normal(phi[i : i + 1], 0.0, 1.0)
        total, grad[i] = total + value, g[0]
    value, g = log_normal(phi[-2:-1], NOISE_LOC, NOISE_SCALE)
    total, grad[-2] = total + value, g[0]
    value, g = log_normal(phi[-1:], 0.0, 1.0)
    return total + value, grad + np.concatenate([np.zeros(len(phi) - 1), g])


def log_posterior(
    kernel: Kernel, phi: np.ndarray, X: np.ndarray, y: np.ndarray, v: np.ndarray | None = None
) -> tuple[float, np.ndarray]:
    """Log marginal likelihood plus log prior of ``phi`` and its gradient (X
    rounded; ``v`` (n,) the observations' own noise variances, none by default)."""
    n, d = X.shape
    theta, noise, mu0 = phi[:-2], math.exp(phi[-2]), phi[-1]
    K, contract = kernel.gram(theta, X)
    L, _ = cholesky(add_diagonal(K, noise if v is None else noise_diagonal(noise, v)))
    r = y - mu0
    alpha = solve(L, r)
    lml = -0.5 * float(r @ alpha) - float(np.log(np.diag(L)).sum()) - 0.5 * n * math.log(2 * math.pi)
    W = _inverse(L)
    trace = float(alpha @ alpha) - float(np.trace(W))
    W *= -1.0
    W += np.multiply.outer(alpha, alpha)
    grad = np.concatenate([0.5 * contract(W), [0.5 * noise * trace, alpha.sum()]])
    prior, prior_grad = _log_prior(kernel, phi, d)
    return lml + prior, grad + prior_grad


def _inverse(L: np.ndarray) -> np.ndarray:
    """C^{-1} from its Cholesky factor L by LAPACK potri (a third of the work
    of two triangular solves against the identity); L has zeros above the
    diagonal, so ``L^T`` is the upper factor in Fortran order, with no copy.
    It is the one inverse we form: the gradient's trace term
    ``trace(C^{-1} dK/dtheta)`` has no cheaper exact form."""
    from scipy.linalg import lapack

    upper, _ = lapack.dpotri(L.T, lower=0)
    full = upper + upper.T
    full.flat[:: len(L) + 1] *= 0.5
    return full


def _checked_var(y_var: np.ndarray | None, n: int) -> np.ndarray | None:
    """``y_var`` as an (n,) float array of finite variances >= 0, or a clear error."""
    if y_var is None:
        return None
    v = np.asarray(y_var, dtype=float)
    if v.shape != (n,) or not (np.isfinite(v).all() and (v >= 0.0).all()):
        raise TreefarmError(
            "y_var must be (n,) finite variances >= 0 with n the points, "
            f"but got y_var.shape={v.shape}, n={n}, min={float(np.min(v)) if v.size else None}"
        )
    return v


def _checked(X: np.ndarray, y: np.ndarray, domain: Domain) -> tuple[np.ndarray, np.ndarray]:
    """X and y as float arrays, or a clear error instead of a silently NaN model."""
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    if X.ndim != 2 or X.shape[1] != domain.dim or y.shape != (len(X),) or len(X) == 0:
        raise TreefarmError(
            "X must be (n, d) with d the domain's columns and y (n,) with n >= 1, "
            f"but got X.shape={X.shape}, y.shape={y.shape}, d={domain.dim}"
        )
    if not (np.isfinite(X).all() and np.isfinite(y).all()):
        raise TreefarmError(
            "X and y must be finite, "
            f"but got non-finite X rows={int((~np.isfinite(X)).any(1).sum())}, y={int((~np.isfinite(y)).sum())}"
        )
    return X, y


def _bounds(kernel: Kernel, d: int, deterministic: bool) -> list[tuple[float, float]]:
    bounds = [(-7.0, 7.0)] * kernel.n_params(d)
    for i in kernel.amplitude_indices(d):
        bounds[i] = (math.log(1e-3), math.log(1e2))
    floor = math.log(NOISE_FLOOR)
    noise = (floor, floor) if deterministic else (floor, math.log(2.0))
    return [*bounds, noise, (-5.0, 5.0)]


def _starts(
    kernel: Kernel,
    d: int,
    warm: GPParams | None,
    n_restarts: int,
    rng: np.random.Generator,
    deterministic: bool,
) -> list[np.ndarray]:
    """The warm start (when it fits this kernel) or else the prior modes, then
    ``n_restarts`` draws of the length scales around the prior mode."""
    noise = math.log(NOISE_FLOOR) if deterministic else NOISE_LOC
    default = np.concatenate([kernel.default_theta(d), [noise, 0.0]])
    first = warm.vector() if warm is not None and len(warm.vector()) == len(default) else default
    starts = [first]
    for _ in range(n_restarts):
        phi = default.copy()
        for s in kernel.length_scale_slices(d):
            phi[s] = rng.normal(length_scale_location(d), LENGTH_SCALE_SIGMA / 2, size=s.stop - s.start)
        starts.append(phi)
    return starts


def _maximize(
    kernel: Kernel,
    X: np.ndarray,
    t: np.ndarray,
    v: np.ndarray | None,
    starts: list[np.ndarray],
    bounds: list[tuple[float, float]],
    max_steps: int,
) -> tuple[np.ndarray, float]:
    """The best of the L-BFGS-B runs of the log posterior from ``starts``, and its log posterior."""

    def objective(phi: np.ndarray) -> tuple[float, np.ndarray]:
        try:
            value, grad = log_posterior(kernel, phi, X, t, v)
        except TreefarmError:
            return 1e25, np.zeros_like(phi)
        return -value, -grad

    low, high = np.array(bounds).T
    results = [
        minimize_box(objective, phi0, low, high, max_iter=max_steps, gtol=GRADIENT_TOLERANCE)
        for phi0 in starts
    ]
    x, value = min(results, key=lambda r: r[1])
    return x, -value


def gp_with_params(
    X: np.ndarray,
    y: np.ndarray,
    domain: Domain,
    params: GPParams,
    transform: OutputTransform,
    *,
    kernel: str | Kernel = "matern52",
    y_var: np.ndarray | None = None,
) -> GaussianProcess:
    """The GP on ``(X, y)`` (and the raw variances ``y_var``, as in
    :func:`fit_gp`) with the hyperparameters and output transform of an
    earlier :func:`fit_gp` (on a subset of these points, say): nothing is
    optimized. Cost: one O(n^3) Cholesky."""
    X, y = _checked(X, y, domain)
    v = _checked_var(y_var, len(y))
    return GaussianProcess.build(
        make_kernel(kernel),
        params,
        domain,
        domain.round(X),
        transform(y),
        transform,
        None if v is None else transform.variance(y, v),
    )


def fit_gp(
    X: np.ndarray,
    y: np.ndarray,
    domain: Domain,
    *,
    kernel: str | Kernel = "matern52",
    deterministic: bool = False,
    warm_start: GPParams | None = None,
    n_restarts: int = 2,
    y_var: np.ndarray | None = None,
    output: str = "auto",
    rng: np.random.Generator,
) -> GaussianProcess:
    """The GP on ``(X, y)`` with MAP hyperparameters (see the module docstring).

    ``y`` are raw losses; they are mapped to the model scale by a fitted
    :class:`OutputTransform`. ``y_var`` (n,), if given, are the variances of
    the raw losses as estimates (a mean over k folds with sample variance
    s^2: s^2 / k), carried to the model scale by the transform's slope and
    added to the diagonal on top of the fitted noise
    (:meth:`OutputTransform.variance`). ``deterministic`` fixes the fitted
    noise at the floor (``y_var`` still counts).
    Starts: ``warm_start`` (the previous fit's ``params``; then 0-1 restarts
    suffice) or the prior modes, plus ``n_restarts`` random ones.

    ``output``: the transforms of :data:`OUTPUTS`; with ``"auto"`` the second
    (plain standardization) is fitted from the first's hyperparameters, one
    run, and the model :func:`loo_rank` prefers is returned.

    Cost: ``1 + n_restarts`` L-BFGS-B runs of O(n^3) steps (one more with
    ``output="auto"``, and an O(n^3) inverse per transform). Past
    :data:`SUBSET` points the runs use a random subset of that size (cheap;
    skipped when warm-started), and their best is refined on all points by
    at most :data:`POLISH_STEPS` steps: the hyperparameters of a few hundred
    points are close to those of all of them, so a few full O(n^3) steps
    finish the job (1,000 points in 20 dimensions, one core: ~3 s cold and
    ~2 s warm, against ~24 s for full runs, at a log posterior within ~1%).
    """
    k = make_kernel(kernel)
    X, y = _checked(X, y, domain)
    raw_var = _checked_var(y_var, len(y))
    if output not in OUTPUTS:
        raise TreefarmError(f"output must be one of {OUTPUTS}, but got output={output!r}")
    Xr = domain.round(X)
    n, d = Xr.shape
    bounds = _bounds(k, d, deterministic)
    starts = _starts(k, d, warm_start, n_restarts, rng, deterministic)
    subset = np.sort(rng.choice(n, SUBSET, replace=False)) if n > SUBSET and warm_start is None else None
    transforms = _transforms(y, output)
    best: tuple[float, GaussianProcess] | None = None
    for transform in transforms:
        t = transform(y)
        v = None if raw_var is None else transform.variance(y, raw_var)
        if n <= SUBSET:
            phi, _ = _maximize(k, Xr, t, v, starts, bounds, MAX_STEPS)
        else:
            first = starts
            if subset is not None:
                v_subset = None if v is None else v[subset]
                first = [_maximize(k, Xr[subset], t[subset], v_subset, starts, bounds, MAX_STEPS)[0]]
            phi, _ = _maximize(k, Xr, t, v, first[:1], bounds, POLISH_STEPS)
        model = GaussianProcess.build(k, GPParams.from_vector(phi), domain, Xr, t, transform, v)
        starts, subset = [phi], None  # the next transform's fit starts from this one
        score = loo_rank(model, y) if len(transforms) > 1 else 0.0
        if best is None or score > best[0]:
            best = (score, model)
    assert best is not None
    return best[1]


def loo_means(model: GaussianProcess) -> np.ndarray:
    """The posterior mean at each training point (n,) when that point is left
    out and the hyperparameters kept, on the model scale (Rasmussen &
    Williams 2006, eq. 5.12): ``mu_-i = t_i - alpha_i / [C^-1]_ii``. Cost: one
    O(n^3) inverse from the Cholesky factor."""
    inv_diag = np.diag(solve(model.L, np.eye(len(model.y))))
    return np.asarray(model.y - model.alpha / inv_diag)


def loo_rank(model: GaussianProcess, y: np.ndarray) -> float:
    """How well ``model`` orders the better half of its own points when each
    is left out: Kendall's tau between the leave-one-out posterior means and
    the raw losses ``y`` (n,) over the ``max(5, n // 2)`` lowest, -1 when
    undefined (constant means; :func:`loo_means`).

    Why this decides the output transform: the two models describe the data
    differently (the warp compresses the upper tail; plain standardization
    keeps the objective's shape), and their likelihoods reward describing
    all of it; a minimizer needs the good region ordered right. On an
    ill-conditioned quadratic (BBOB f10, condition 1e6) the warp's bounded
    upper tail makes unexplored corners look promising and the plain model
    wins; on Rosenbrock's heavy tail the warp wins; this score picks each
    (``docs/design/gp.md``, "Output transform").
    """
    loo = loo_means(model)
    good = np.argsort(y, kind="stable")[: max(5, len(y) // 2)]
    tau = kendall_tau(loo[good], y[good])
    return tau if math.isfinite(tau) else -1.0


def kendall_tau(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b of the pairs (x_i, y_i), ties counted as in
    ``scipy.stats.kendalltau`` (to the bit; importing ``scipy.stats`` costs
    0.3 s of CPU):

        tau_b = (n_c - n_d) / sqrt(n_0 - n_x) / sqrt(n_0 - n_y)

    with n_c / n_d the concordant / discordant pairs, n_0 = n (n - 1) / 2 and
    n_x / n_y the pairs tied in x / y; NaN when a value is NaN, fewer than two
    pairs exist or every pair is tied in x or in y. O(n^2) memory and time:
    meant for the few hundred points of a GP's leave-one-out ranking."""
    x = np.asarray(x, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    if len(x) != len(y):
        raise ValueError(f"x and y must have equal lengths, but got {len(x)} and {len(y)}")
    if len(x) < 2 or np.isnan(x).any() or np.isnan(y).any():
        return math.nan
    upper = np.triu_indices(len(x), k=1)
    sx = _signs(x)[upper]
    sy = _signs(y)[upper]
    total = len(sx)
    x_ties = int(np.count_nonzero(sx == 0))
    y_ties = int(np.count_nonzero(sy == 0))
    if x_ties == total or y_ties == total:
        return math.nan
    difference = int((sx * sy).sum())
    return float(np.clip(difference / np.sqrt(total - x_ties) / np.sqrt(total - y_ties), -1.0, 1.0))


def _signs(x: np.ndarray) -> np.ndarray:
    """(n, n) sign(x_i - x_j) by comparison (infinities tie with themselves)."""
    return (x[:, None] > x[None, :]).astype(np.int64) - (x[:, None] < x[None, :]).astype(np.int64)


def _transforms(y: np.ndarray, output: str) -> list[OutputTransform]:
    """The output transforms ``fit_gp`` tries (see :data:`OUTPUTS`)."""
    warp = OutputTransform.fit(y)
    if output == "warp" or (output == "auto" and warp.lam is None):
        return [warp]
    if output == "standard":
        return [OutputTransform.standard(y)]
    return [warp, OutputTransform.standard(y)]
