"""HEBO on a flat space, in HEBO's own venv, asked and told over pipes (see bench/notes/HEBO.md).

HEBO (Cowen-Rivers et al., "HEBO: Pushing The Limits of Sample-Efficient
Hyperparameter Optimisation", JAIR 2022: input warping, power-transformed
outputs, a multi-objective ensemble of acquisitions optimized by evolution)
needs PyTorch, which neither treefarm nor the benchmark's environment depends
on, so it runs here with HEBO's interpreter while the benchmark's process
evaluates the objective (BBOB's functions live there):

    python -m bench.harness.hebo_worker

reads one JSON line ``{"params": [...], "seed": s, "budget": n}`` (each param
``{"name", "kind": "real"|"int"|"cat", "low", "high", "log", "choices"}``), then
``budget`` times prints ``{"config": {...}}`` and reads ``{"loss": v}``, and at
the end prints ``{"suggest_times": [...], "suggest_cpu": [...], "version": ...}``:
the wall and CPU seconds of each ``suggest`` plus the ``observe`` before it.
Nothing from this repository is imported.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any


def design(params: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """HEBO's ``DesignSpace`` entries: ``pow`` / ``pow_int`` for log-scaled numbers."""
    out = []
    for p in params:
        if p["kind"] == "cat":
            out.append({"name": p["name"], "type": "cat", "categories": list(p["choices"])})
        elif p["kind"] == "int":
            out.append({"name": p["name"], "type": "pow_int" if p["log"] else "int", "lb": p["low"], "ub": p["high"]})
        else:
            out.append({"name": p["name"], "type": "pow" if p["log"] else "num", "lb": p["low"], "ub": p["high"]})
    return out


def _plain(value: Any) -> Any:
    """A NumPy scalar as the Python value JSON writes."""
    return value.item() if hasattr(value, "item") else value


def seed_pymoo() -> None:
    """Make HEBO's evolution reproducible under pymoo 0.6.2: HEBO calls pymoo's
    ``minimize`` without a seed, which pymoo 0.6.0 (HEBO's pin) drew from
    NumPy's global generator and 0.6.2 draws from the operating system's
    entropy; the seed is drawn from NumPy's global generator again."""
    import numpy as np
    from hebo.acq_optimizers import evolution_optimizer

    unseeded = evolution_optimizer.minimize

    def minimize(*args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("seed", int(np.random.randint(2**31 - 1)))
        return unseeded(*args, **kwargs)

    evolution_optimizer.minimize = minimize


def main() -> int:
    import numpy as np
    import torch
    from hebo.design_space.design_space import DesignSpace
    from hebo.optimizers.hebo import HEBO

    spec = json.loads(sys.stdin.readline())
    torch.set_num_threads(1)
    np.random.seed(spec["seed"])
    torch.manual_seed(spec["seed"])
    seed_pymoo()
    optimizer = HEBO(DesignSpace().parse(design(spec["params"])), scramble_seed=spec["seed"])
    walls: list[float] = []
    cpus: list[float] = []
    pending = None
    for _ in range(spec["budget"]):
        wall, cpu = time.perf_counter(), time.process_time()
        if pending is not None:
            optimizer.observe(*pending)
        suggestion = optimizer.suggest(n_suggestions=1)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        config = {k: _plain(v) for k, v in suggestion.iloc[0].to_dict().items()}
        print(json.dumps({"config": config}), flush=True)
        loss = float(json.loads(sys.stdin.readline())["loss"])
        pending = (suggestion, np.array([[loss if np.isfinite(loss) else 1e300]]))
    import hebo

    print(json.dumps({"suggest_times": walls, "suggest_cpu": cpus, "version": getattr(hebo, "__version__", "0.3.6")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
