"""Bridges to other ecosystems: a scikit-learn ``SearchCV``, an Optuna sampler, pruning callbacks.

Each bridge lives in its own module and imports its library when that module
is imported, never at ``import treefarm``:

- :mod:`treefarm.integration.sklearn` (``pip install 'treefarm[sklearn]'``):
  :class:`~treefarm.integration.sklearn.TreefarmSearchCV`;
- :mod:`treefarm.integration.optuna` (``pip install 'treefarm[optuna]'``):
  :class:`~treefarm.integration.optuna.TreefarmSampler`;
- :mod:`treefarm.integration.lightgbm` (``pip install 'treefarm[lightgbm]'``):
  :class:`~treefarm.integration.lightgbm.LightGBMPruningCallback`;
- :mod:`treefarm.integration.xgboost` (``pip install 'treefarm[xgboost]'``):
  :class:`~treefarm.integration.xgboost.XGBoostPruningCallback`.
"""
