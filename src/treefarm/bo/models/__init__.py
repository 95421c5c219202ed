"""Surrogate models over encoded configurations: arrays in, arrays out.

``domain`` describes the columns of the unit-cube encoding; ``gp`` holds the
Gaussian process; ``parzen`` and ``bernoulli`` the densities of the
Tree-structured Parzen Estimator and of grammar search; ``lbfgsb`` the box-
constrained minimizer both the GP's fit and the acquisition maximizer use.
Nothing here knows configurations, studies or storage.
"""
