"""scikit-learn integration: ``from treefarm.sklearn import TreefarmSearchCV``.

Needs scikit-learn (``pip install 'treefarm[sklearn]'``); see
:mod:`treefarm.integration.sklearn`.
"""

from .integration.sklearn import TreefarmSearchCV

__all__ = ["TreefarmSearchCV"]
