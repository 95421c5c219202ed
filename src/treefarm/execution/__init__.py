"""Where a study's evaluations run, and the workers that share a storage.

- :mod:`~treefarm.execution.base`: the one :class:`~treefarm.execution.base.Executor`
  interface evaluations run behind elsewhere; :mod:`~treefarm.execution.executors` puts what
  a caller passes behind it (:func:`~treefarm.execution.executors.as_executor`);
- :mod:`~treefarm.execution.futures`: a ``concurrent.futures`` pool behind it;
- :mod:`~treefarm.execution.dask`: a Dask cluster behind it (``connect``);
- :mod:`~treefarm.execution.ray`: a Ray cluster behind it (``connect``, ``executor="ray"``);
- :mod:`~treefarm.execution.by_value`: an objective carried to a cluster with its module's code;
- :mod:`~treefarm.execution.processes`: worker processes that die with the study;
- :mod:`~treefarm.execution.liveness`: who runs a trial, whether it is alive, its heartbeat.

What ``import treefarm`` loads from here needs only the standard library; Dask and Ray are
imported only when a cluster is used (``pip install 'treefarm[dask]'``, ``'treefarm[ray]'``).
"""
