"""A live, read-only web dashboard of the studies in a storage.

``treefarm dashboard runs.db`` (``pip install treefarm[dashboard]``): the
studies; per study a trials table paged, sorted and filtered by the storage;
interactive plots drawn by the vendored uPlot from the data of
:mod:`treefarm.viz`; each trial in full; updates within two seconds while a
study runs. Starlette and uvicorn are imported only when serving.
"""

from .app import create_app
from .readonly import open_read_only
from .serve import is_loopback, serve

__all__ = ["create_app", "is_loopback", "open_read_only", "serve"]
