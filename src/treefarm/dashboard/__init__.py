"""A live web dashboard of the studies in a storage, where a person can also steer them.

``treefarm dashboard runs.db`` (``pip install treefarm[dashboard]``): the
studies; per study a trials table paged, sorted and filtered by the storage;
interactive plots drawn by the vendored uPlot from the data of
:mod:`treefarm.viz` (importance, two parameters, studies compared); each
trial in full with the GP's posterior at it; updates within two seconds
while a study runs. Read-only unless started with ``--allow-writes``: then
hints, enqueued configurations, notes and hand-measured results go through
the Study API, guarded by a start-up token (:mod:`.security`, :mod:`.writes`).
Starlette and uvicorn are imported only when serving.
"""

from .app import DashboardAPI, create_app
from .readonly import open_read_only
from .serve import is_loopback, serve

__all__ = ["DashboardAPI", "create_app", "is_loopback", "open_read_only", "serve"]
