"""One BLAS thread for every test (the README test command runs without CI's environment).

The matrices here are small (tens to hundreds of rows), where BLAS threads
only add synchronization; on a shared, busy machine OpenBLAS's threads then
wait on each other and a 0.2 s fit takes 20 s (measured: LAPACK potri on a
100 x 100 factor, 0.75 ms on one thread, 160 ms on two under load).
threadpoolctl comes with scikit-learn (a test extra); without it nothing changes.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _one_blas_thread() -> Iterator[None]:
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    with threadpool_limits(1, user_api="blas"):
        yield
