"""The GP's cost with L-BFGS-B through SciPy's public ``minimize`` against another driver.

``treefarm.bo.models.lbfgsb.minimize_box`` calls ``scipy.optimize.minimize``;
until it did, it drove SciPy's compiled routine through the private
``scipy.optimize._lbfgsb``, skipping SciPy's per-evaluation wrapper. This
screen puts a module with another ``minimize_box`` (``--other``, e.g. that
driver taken from git) in its place, alternately with the public one, seed by
seed: a 60-trial GP study on a 5-d sum of a quadratic and sines, the CPU
seconds of the whole study and its best value (equal when both drivers
iterate alike). One JSON line per seed and driver appends to ``--out``.

    git show 33c2e22:src/treefarm/bo/models/lbfgsb.py > /tmp/lbfgsb_direct.py
    python -m bench.screens.lbfgsb_driver --other /tmp/lbfgsb_direct.py --seeds 10 \\
        --out bench/results/lbfgsb_driver.jsonl
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import time
from pathlib import Path
from types import ModuleType

import numpy as np

import treefarm as tf
import treefarm.bo.maximize.search as search
import treefarm.bo.models.gp.fit as fit
from treefarm.bo.models import lbfgsb

SPACE = {f"x{i}": tf.Real(0, 1) for i in range(5)}


def objective(params: dict[str, float]) -> float:
    x = np.array([params[f"x{i}"] for i in range(5)])
    return float(np.sum((x - 0.3) ** 2) + 0.1 * np.sin(10 * x).sum())


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("lbfgsb_other", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", type=Path, required=True, help="a module defining minimize_box")
    parser.add_argument("--label", default="direct", help="the other driver's name in the rows")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    drivers = {args.label: load(args.other), "public": lbfgsb}
    rows = []
    for seed in range(args.seeds):
        for name, module in drivers.items():
            search.minimize_box = fit.minimize_box = module.minimize_box  # type: ignore[attr-defined]
            start = time.process_time()
            result = tf.minimize(objective, SPACE, algo="gp", max_evals=60, storage=None, seed=seed, progress=False)
            rows.append({"driver": name, "seed": seed, "cpu": time.process_time() - start, "best": result.best_value})
            with args.out.open("a") as handle:
                handle.write(json.dumps(rows[-1]) + "\n")
    ratios = [p["cpu"] / o["cpu"] for o, p in zip(rows[::2], rows[1::2])]
    print(f"public / {args.label} CPU seconds per study: median {statistics.median(ratios):.3f} "
          f"(min {min(ratios):.3f}, max {max(ratios):.3f}) over {len(ratios)} seeds; "
          f"same best values: {all(o['best'] == p['best'] for o, p in zip(rows[::2], rows[1::2]))}")


if __name__ == "__main__":
    main()
