"""A large synthetic study written straight into a SQLite file, for dashboard tests and benchmarks.

Running 100,000 real trials through ``Study.tell`` takes minutes (one write
transaction each); the dashboard and the plots only read, so the rows are
bulk-inserted in one transaction through the SQL storage's own tables. The
study is a conditional space over a quadratic bowl with noise: ``lr``
(log-uniform), ``layers`` (integer), ``optimizer`` (a choice) and
``momentum`` (active only for ``optimizer="sgd"``); about 2% of the trials
failed, every 50th reports a learning curve of 10 steps, and times advance
by one second per trial.
"""

from __future__ import annotations

import json
import math
import os

import numpy as np

__all__ = ["write_large_study"]


def _rows(study_id: int, n: int, rng: np.random.Generator, t0: float) -> tuple[list[dict], list[dict]]:
    lr = np.exp(rng.uniform(math.log(1e-5), math.log(1e-1), n))
    layers = rng.integers(1, 9, n)
    optimizer = rng.choice(np.array(["adam", "sgd", "rmsprop"]), n)
    momentum = rng.uniform(0.0, 0.99, n)
    loss = (np.log10(lr) + 3.0) ** 2 + 0.1 * (layers - 4) ** 2 + rng.normal(0.0, 0.1, n)
    loss += np.where(optimizer == "sgd", 2.0 * (momentum - 0.9) ** 2, 0.3 * (optimizer == "rmsprop"))
    failed = rng.random(n) < 0.02
    trials, steps = [], []
    for i in range(n):
        params: dict[str, object] = {
            "lr": float(lr[i]),
            "layers": int(layers[i]),
            "optimizer": str(optimizer[i]),
        }
        if optimizer[i] == "sgd":
            params["momentum"] = float(momentum[i])
        system = {"fail_reason": "ValueError: diverged"} if failed[i] else {}
        trials.append(
            {
                "study_id": study_id,
                "number": i,
                "state": "failed" if failed[i] else "complete",
                "params": json.dumps(params),
                "value": None if failed[i] else float(loss[i]),
                "values": None if failed[i] else json.dumps([float(loss[i])]),
                "user_attrs": json.dumps({"seed": i}),
                "system_attrs": json.dumps(system),
                "started": t0 + i,
                "finished": t0 + i + 0.5,
                "heartbeat": t0 + i + 0.5,
            }
        )
        if i % 50 == 0 and not failed[i]:
            curve = loss[i] + 2.0 * np.exp(-0.5 * np.arange(10))
            steps += [
                {"study_id": study_id, "number": i, "step": s, "value": float(v)} for s, v in enumerate(curve)
            ]
    return trials, steps


def write_large_study(
    path: str | os.PathLike[str], *, name: str = "large", n_trials: int = 100_000, seed: int = 0
) -> int:
    """Create the study ``name`` with ``n_trials`` finished trials in the SQLite file ``path``
    (created if absent); returns its study id. Seconds for 100,000 trials, not minutes."""
    import sqlalchemy as sa

    from ..storage.sql import SQLStorage, intermediate, studies, trials

    storage = SQLStorage(f"sqlite:///{os.fspath(path)}")
    try:
        record = storage.create_study(name, direction="minimize", seed=seed, attrs={"space": "synthetic"})
        rows, steps = _rows(record.study_id, n_trials, np.random.default_rng(seed), t0=1.7e9)
        with storage.engine.connect() as connection, connection.begin():
            connection.execute(sa.insert(trials), rows)
            claimed = sa.update(studies).where(studies.c.study_id == record.study_id)
            connection.execute(claimed.values(n_claimed=studies.c.n_claimed + n_trials))
            if steps:
                connection.execute(sa.insert(intermediate), steps)
    finally:
        storage.close()
    return record.study_id
