"""The Tree-structured Parzen Estimator, native on conditional and recursive spaces.

Bergstra, Bardenet, Bengio & Kégl (2011), "Algorithms for hyper-parameter
optimization": the completed trials are split at the quantile ``gamma`` of
their losses, the best make a density ``l(x)`` and the rest ``g(x)``, and
since maximizing expected improvement is maximizing ``l(x) / g(x)``, the
candidate drawn from ``l`` with the largest ratio wins. The first
``n_startup`` trials are prior draws.

Tree structure: ``l`` and ``g`` are products over the addresses a
configuration visits, ``l(x) = prod_a l_a(x_a)``, each ``l_a`` built only
from the trials in which address ``a`` was active; a join's option is one
more factor, so the parameters under an option are drawn only when that
option is. A recursive space is the same product over the positions of a
derivation tree, with the estimators of one grammar node pooled over every
position it takes (hierarchical pooling), since deep positions are reached
by few trials; there a long study's good trials can narrow the model onto
expressions already tried, and once its proposals keep repeating, a draw
from the prior takes their place (:func:`treefarm.optimizers.unseen.unseen`).
A candidate is a whole configuration (a
:func:`treefarm.space.walk` drawing each decision from ``l_a``), scored by
``sum_a log l_a(x_a) - log g_a(x_a)``; hyperopt's and Optuna's univariate
samplers keep each address's own best draw instead, which is greedier.

Densities are Parzen estimators mixing the prior (:mod:`treefarm.bo.models.parzen`);
bandwidths are the distance to the farther neighbour, clipped ("magic
clip"); observations are down-weighted by linear forgetting beyond the
``forget`` newest (hyperopt's code and Optuna's), so the start-up's verdict
on an option fades. The numeric estimators of ``l`` weigh their good trials
by rank as well (``rank_weights``: CMA-ES's recombination weights, Hansen
2016, cubed), so candidates are drawn mostly around the best few points at
the same bandwidths. Failed trials and, with ``constant_liar``, pending ones
count in ``g``, so parallel workers spread out. Every ``joint_every``-th
trial is a joint turn: one multivariate estimator over the numbers active in
every trial (Falkner, Klein & Hutter 2018, BOHB's KDE; Optuna's multivariate
TPE), which samples around whole good points where coordinates interact; with
few such numbers (``always_joint``, 5) every turn is.
With ``constraints="ctpe"`` each constraint the trials carry gets a density
ratio of its own and the candidate's score becomes c-TPE's
(:mod:`treefarm.optimizers.tpe.constraints`, Watanabe & Hutter 2023).
What was measured to choose each default is the design page
``docs/design/tpe.md``.

The package is laid out by concept: :mod:`.sampler` (the policy: start-up,
product and joint turns, the batch), :mod:`.split` (the good and the worse, as
columns), :mod:`.parzen` (the estimators at one address and the joint one),
:mod:`.proposal` (the candidates and the winner), :mod:`.constraints` (c-TPE)
and :mod:`.pooled` (a recursive space's pooled columns).
"""


from .sampler import TPE

__all__ = ["TPE"]
