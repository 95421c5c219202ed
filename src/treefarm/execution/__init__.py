"""Running evaluations elsewhere: Dask clusters (:mod:`treefarm.execution.dask`).

Nothing here is imported by ``import treefarm``; Dask itself is imported only
when a cluster is used (``pip install 'treefarm[dask]'``).
"""
