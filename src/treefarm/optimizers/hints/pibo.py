"""The hints' prior over encoded points, for the GP's prior-weighted acquisition (πBO).

πBO (Hvarfner et al., "πBO: Augmenting Acquisition Functions with User
Beliefs for Bayesian Optimization", ICLR 2022) maximizes

    a(x) * pi(x) ** (beta / n)

after n observations: the person's belief pi first steers the search, then
fades as evidence accumulates. Here the belief is made of the hints'
windows, credibility scaling the exponent as the search-hint reading asks
("a power that decays with the number of observations, credibility
scaling it"):

    log pi(x) = c_good * log( sum_good c_h w_h(x) / sum_good c_h )
              + sum_bad log( max(1 - c_h w_h(x), FLOOR) )

with c_good the largest credibility of a good hint, and w_h the hint's
window with a floor: per hinted address, 1 at the hinted value and s (the
spread) far from it,

    w_h(x) = prod over hinted numbers a   (s + (1 - s) exp(-(u_a(x) - u_a(h))^2 / (2 s^2)))
           * prod over hinted choices a   (1 if x_a == h_a else s)

the choices' factor as in :func:`treefarm.optimizers.hints.hint_kernel`;
the numbers' is that kernel's Gaussian on a floor of s (each hinted value
is near the optimum, or anywhere, with odds 1 - s to s). The floor bounds
what a misleading hint costs: log pi >= c (#addresses) log s, where the
plain Gaussian gives -c d^2 / (2 s^2), -50 c per address at distance 1
with s = 0.1. A good hint raises its window; a bad one multiplies the
acquisition by (1 - c_h w_h)^(beta / n): at its centre 1 - c_h (a bad hint
of credibility 1 all but forbids it), far from it 1 - c_h s^k for k hinted
addresses, nearly 1. A hint of credibility 0 contributes exactly 0.

With ``judged`` (the default), a good hint's c_h in the formula is kappa_h =
j_h^2, the square of its *judged* credibility j_h = min(1, 2 c_h r_h), with
r_h the evidence rule of :func:`treefarm.optimizers.hints.hint_reliability`
(the same share the window draws use): c_h^2 before any trial was made in
the window, towards min(1, 2 c_h)^2 when the window's trials are among the
better half, towards 0 when they are not; so several good hints weigh in
the mixture as their kappa (0.8 against 0.4: 4 to 1). A bad hint's c_h is
j_h itself. Squared, so that a weak guess pulls little until its trials
judge it, while a hint of credibility 1 pulls as before (the measurements
that chose the floor and the square are on the design page
``docs/design/hints.md``). Plain πBO (``judged=False``) keeps c_h and fades
only as beta / n.

Notation (shapes): m points, d encoded columns (:class:`treefarm.encoding.UnitEncoding`);
X (m, d) encoded points, inactive entries negative.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ...encoding import UnitEncoding, numeric_unit
from ...space import Choice, Config, Int, Real
from .windows import FLOOR, Hint, hint_reliability

__all__ = ["BETA", "HintWindow", "hint_log_density", "hint_windows", "judged_credibility", "log_window"]

BETA = 10.0
"""πBO's beta: SMAC3 and the paper use N / 10 for a budget of N evaluations; an
optimizer here does not know N, so beta is that default for N = 100."""


@dataclass(frozen=True)
class HintWindow:
    """A hint compiled against an encoding: numeric columns and their centres,
    one-hot groups and the hinted option, and how many hinted addresses have no
    column (each counts as outside the window)."""

    credibility: float
    weight: int
    spread: float
    numeric: np.ndarray
    centres: np.ndarray
    groups: tuple[tuple[int, int, int], ...]
    missing: int


def hint_windows(
    encoding: UnitEncoding,
    hints: Sequence[Hint],
    complete: Sequence[tuple[Config, float]],
    *,
    judged: bool = True,
) -> list[HintWindow]:
    """The credible hints compiled against ``encoding``; with ``judged``, each
    credibility replaced by :func:`judged_credibility` on ``complete``
    (configuration, loss) pairs, oldest first, and squared for a good hint
    (kappa, see the module docstring)."""
    out = []
    for hint in hints:
        if hint.credibility <= 0:
            continue
        c = hint.credibility
        if judged:
            c = judged_credibility(encoding, hint, complete) ** (2 if hint.weight > 0 else 1)
        out.append(_compile(encoding, hint, c))
    return out


def judged_credibility(encoding: UnitEncoding, hint: Hint, complete: Sequence[tuple[Config, float]]) -> float:
    """min(1, 2 c r): the credibility as the evidence in the hint's window judges it
    (the window draws' share; a good hint's pull takes its square)."""
    return min(1.0, 2.0 * hint.credibility * hint_reliability(encoding.space, hint, complete))


def _compile(encoding: UnitEncoding, hint: Hint, credibility: float) -> HintWindow:
    numeric: list[int] = []
    centres: list[float] = []
    groups: list[tuple[int, int, int]] = []
    missing = 0
    for address, value in hint.config.items():
        node = encoding.nodes.get(address)
        if node is None:
            missing += 1
        elif isinstance(node, (Real, Int)):
            numeric.append(encoding.start[address])
            centres.append(numeric_unit(node, float(value)))  # type: ignore[arg-type]
        elif not (isinstance(node, Choice) and len(node.values) == 1):
            width = len(node.values) if isinstance(node, Choice) else len(node.options)
            groups.append((encoding.start[address], width, int(node.index_of(value) or 0)))
    return HintWindow(
        credibility,
        hint.weight,
        hint.spread,
        np.array(numeric, dtype=int),
        np.array(centres),
        tuple(groups),
        missing,
    )


def log_window(window: HintWindow, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log w_h at the rows of X (m,) and its gradient in the window's numeric
    columns (m, k), with (see the module docstring)

        log w_h(x) = sum over hinted numeric columns j  log(s + (1 - s) exp(-(x_j - u_j)^2 / (2 s^2)))
                   + log s for each inactive hinted column, one-hot group whose
                     largest entry is not the hinted option, or address without a column

    (one-hot columns are not moved by gradients: their derivative is 0)."""
    s = window.spread
    value = np.full(len(X), window.missing * math.log(s))
    U = X[:, window.numeric]
    active = U >= 0
    D = np.where(active, U - window.centres[None, :], 0.0)
    bump = (1.0 - s) * np.exp(-(D**2) / (2.0 * s**2))
    value += np.where(active, np.log(s + bump), math.log(s)).sum(axis=1)
    for start, width, index in window.groups:
        block = X[:, start : start + width]
        hit = (block[:, 0] >= 0) & (np.argmax(block, axis=1) == index)
        value += np.where(hit, 0.0, math.log(s))
    return value, np.where(active, -bump / (s + bump) * D / s**2, 0.0)


LogDensity = Callable[..., tuple[np.ndarray, np.ndarray]]


def hint_log_density(windows: Sequence[HintWindow]) -> LogDensity:
    """``log_pi(X, grad=True)``: log pi (m,) at X (m, d) and its gradient (m, d),
    zeros when ``grad`` is False (see the module docstring); 0 everywhere when no
    window has a positive credibility."""
    good = [w for w in windows if w.weight > 0 and w.credibility > 0]
    bad = [w for w in windows if w.weight < 0 and w.credibility > 0]
    c = np.array([w.credibility for w in good])

    def log_pi(X: np.ndarray, *, grad: bool = True) -> tuple[np.ndarray, np.ndarray]:
        value, dvalue = np.zeros(len(X)), np.zeros_like(X)
        if good:
            logs, grads = zip(*(log_window(w, X) for w in good))
            L = np.stack(logs, axis=1) + np.log(c / c.sum())[None, :]
            top = L.max(axis=1, keepdims=True)
            share = np.exp(L - top)
            total = share.sum(axis=1, keepdims=True)
            value += c.max() * (top[:, 0] + np.log(total[:, 0]))
            responsibility = share / total
            for h, (w, g) in enumerate(zip(good, grads)):
                if grad and len(w.numeric):
                    dvalue[:, w.numeric] += c.max() * responsibility[:, h : h + 1] * g
        for w in bad:
            log_k, g = log_window(w, X)
            k = np.exp(log_k)
            rest = 1.0 - w.credibility * k
            value += np.log(np.maximum(rest, FLOOR))
            if grad and len(w.numeric):
                slope = np.where(rest <= FLOOR, 0.0, -w.credibility * k / np.maximum(rest, FLOOR))
                dvalue[:, w.numeric] += slope[:, None] * g
        return value, dvalue

    return log_pi
