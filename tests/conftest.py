"""One BLAS thread for every test (the README test command runs without CI's environment); Ctrl-C as in a terminal.

The matrices here are small (tens to hundreds of rows), where BLAS threads
only add synchronization; on a shared, busy machine OpenBLAS's threads then
wait on each other and a 0.2 s fit takes 20 s (measured: LAPACK potri on a
100 x 100 factor, 0.75 ms on one thread, 160 ms on two under load).
Processes the tests start (the CLI, workers, Dask's) get one thread through the
environment, so that a result computed in a child and here round alike.

Ctrl-C: a shell starts a background command (``pytest ... &``, nohup) with
SIGINT ignored, and Python then keeps ignoring it, as do the processes it
starts; the tests of what a Ctrl-C does need Python's own handler, as in a
terminal, so it is put back.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _one_blas_thread() -> Iterator[None]:
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1, user_api="blas"):
        yield


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The URL of a database on a throwaway cluster (one per test session), skipped
    only where PostgreSQL is absent."""
    from .storage.postgres import postgres_cluster, required_pg_binaries

    with postgres_cluster(required_pg_binaries()) as url:
        yield url
