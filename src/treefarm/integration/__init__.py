"""Bridges to other ecosystems: a scikit-learn ``SearchCV`` and an Optuna sampler.

Each bridge lives in its own module and imports its library when that module
is imported, never at ``import treefarm``:

- :mod:`treefarm.integration.sklearn` (``pip install 'treefarm[sklearn]'``):
  :class:`~treefarm.integration.sklearn.TreefarmSearchCV`;
- :mod:`treefarm.integration.optuna` (``pip install 'treefarm[optuna]'``):
  :class:`~treefarm.integration.optuna.TreefarmSampler`.
"""
