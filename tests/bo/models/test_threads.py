"""The GP computes with one BLAS thread: the same trials on every machine, the caller's threads restored."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

import treefarm as tf
from treefarm.bo.models.threads import one_blas_thread

STUDY = """
import json, math, treefarm as tf
space = {f"x{i}": tf.Real(0.0, 1.0) for i in range(6)}
def f(v):
    x = [v[f"x{i}"] for i in range(6)]
    return sum((a - 0.3 + 0.1 * i) ** 2 * (1 + i) for i, a in enumerate(x)) + 0.1 * math.sin(9 * x[0] * x[1])
study = tf.Study.create(space=space, algo="gp", seed=3)
study.optimize(f, 16)
print(json.dumps([t.params for t in study.trials]))
"""


def _trials(threads: int) -> list[dict[str, float]]:
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "OPENBLAS_NUM_THREADS": str(threads)}
    out = subprocess.run([sys.executable, "-c", STUDY], capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout)


def test_a_gp_study_suggests_the_same_trials_with_one_or_several_blas_threads() -> None:
    assert _trials(1) == _trials(4)


def test_the_callers_blas_threads_come_back_after_a_suggestion() -> None:
    import scipy.linalg  # noqa: F401  (both NumPy's and SciPy's BLAS loaded)
    from threadpoolctl import threadpool_info, threadpool_limits

    def blas_threads() -> list[int]:
        return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]

    space = {"x": tf.Real(0.0, 1.0), "y": tf.Real(0.0, 1.0)}
    history = tf.History(complete=[tf.Observation(c, float(sum(c.values()))) for c in tf.sample(space, 0, n=12)])
    with threadpool_limits(limits=2, user_api="blas"):
        with one_blas_thread():
            assert set(blas_threads()) == {1}
        tf.GP().suggest(space, history, 1, np.random.default_rng(0))
        assert set(blas_threads()) == {2}
