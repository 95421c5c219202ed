"""Bridges to other ecosystems: a scikit-learn ``SearchCV``, an Optuna sampler and import,
pruning callbacks, trackers, a Ray Tune searcher and a Hydra sweeper.

Each bridge lives in its own module and imports its library when that module
is imported, never at ``import treefarm``:

- :mod:`treefarm.integration.sklearn` (``pip install 'treefarm[sklearn]'``):
  :class:`~treefarm.integration.sklearn.TreefarmSearchCV`;
- :mod:`treefarm.integration.optuna` (``pip install 'treefarm[optuna]'``):
  :class:`~treefarm.integration.optuna.TreefarmSampler`, and
  :func:`~treefarm.integration.optuna.import_study` to continue an Optuna study;
- :mod:`treefarm.integration.lightgbm` (``pip install 'treefarm[lightgbm]'``):
  :class:`~treefarm.integration.lightgbm.LightGBMPruningCallback`;
- :mod:`treefarm.integration.xgboost` (``pip install 'treefarm[xgboost]'``):
  :class:`~treefarm.integration.xgboost.XGBoostPruningCallback`;
- :mod:`treefarm.integration.lightning` (``pip install 'treefarm[lightning]'``):
  :class:`~treefarm.integration.lightning.LightningPruningCallback`;
- :mod:`treefarm.integration.keras` (``pip install 'treefarm[keras]'``):
  :class:`~treefarm.integration.keras.KerasPruningCallback`;
- :mod:`treefarm.integration.ray` (``pip install 'treefarm[ray]'``):
  :class:`~treefarm.integration.ray.TreefarmSearch`, a Ray Tune search algorithm;
- :mod:`treefarm.integration.hydra` (``pip install 'treefarm[hydra]'``): the Hydra
  sweeper ``hydra/sweeper=treefarm``;
- :mod:`treefarm.integration.mlflow` (``pip install 'treefarm[mlflow]'``):
  :class:`~treefarm.integration.mlflow.MLflowCallback`, one MLflow run per trial;
- :mod:`treefarm.integration.wandb` (``pip install 'treefarm[wandb]'``):
  :class:`~treefarm.integration.wandb.WandbCallback`, one W&B run per trial.
"""
