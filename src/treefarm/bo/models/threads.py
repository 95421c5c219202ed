"""One BLAS thread while a model computes: the same numbers on every machine, and less CPU.

Why: the GP's matrices are small (n observations up to a few thousand), and
multi-threaded BLAS splits a Cholesky factorization or a matrix product
differently with the number of threads, so its last digits depend on the
machine. A study on a laptop with 8 cores and the same study resumed on a
one-core container then suggested different trials from the same history
(``auto`` on Hartmann-6, seed 0: the first difference at trial 7, between one
thread and two), and on a busy machine the threads spin: three times the CPU
per suggestion (0.066 s against 0.022 s, two cores). With one thread the
suggestions are a function of the history alone, as the optimizers promise.

The limit is process-wide while it holds (threadpoolctl sets the BLAS
libraries' thread count): NumPy code of the caller running in another thread
during a suggestion runs single-threaded too, and gets its threads back after.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["one_blas_thread"]


@functools.cache
def _controller() -> Any:
    """threadpoolctl's view of the loaded BLAS libraries, made once, after SciPy's
    linear algebra is loaded (NumPy and SciPy each bring their own OpenBLAS)."""
    import scipy.linalg  # noqa: F401  (loads SciPy's BLAS, so the controller sees it)
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the block with every BLAS library at one thread (then as before)."""
    with _controller().limit(limits=1, user_api="blas"):
        yield

