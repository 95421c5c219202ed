"""Ax's ``Client`` with its default generation strategy, asked and told over pipes.

Ax (a Sobol design, then BoTorch's GP with qLogNEI; see
:mod:`bench.harness.nevergrad_ax`) needs PyTorch and pins BoTorch and GPyTorch,
so it runs with Ax's interpreter while the benchmark's process evaluates:

    python -m bench.harness.ax_worker

reads one JSON line ``{"params": [...], "seed": s, "budget": n, "batch": k}``
(each param ``{"name", "kind": "real"|"int"|"cat", "low", "high", "log",
"choices"}``), then until ``budget`` evaluations are told prints
``{"configs": [...]}`` (up to ``k`` suggestions, what ``get_next_trials``
gives) and reads ``{"losses": [...]}``, and at the end prints
``{"suggest_times": [...], "suggest_cpu": [...], "version": ...}``: the wall
and CPU seconds of each round's ``get_next_trials`` plus the
``complete_trial`` calls before it, spread evenly over the round's
suggestions. The loss is minimized (objective ``-loss``); a choice is
unordered (``is_ordered=False``), as every other method reads a choice.
Nothing from this repository is imported.
"""

from __future__ import annotations

import json
import logging
import math
import sys
import time
from typing import Any

#: Ax's type name of a choice's values.
TYPES = {bool: "bool", int: "int", float: "float", str: "str"}


def parameter_configs(params: list[dict[str, Any]]) -> list[Any]:
    """Ax's parameter configs: a range (log-scaled when the param is), or an unordered choice."""
    from ax.api.configs import ChoiceParameterConfig, RangeParameterConfig

    out: list[Any] = []
    for p in params:
        if p["kind"] == "cat":
            kinds = {type(c) for c in p["choices"]}
            kind = "float" if kinds == {int, float} else TYPES[kinds.pop()] if len(kinds) == 1 else "str"
            values = [float(c) if kind == "float" else c if kind != "str" else str(c) for c in p["choices"]]
            out.append(ChoiceParameterConfig(name=p["name"], values=values, parameter_type=kind,
                                             is_ordered=False))
        else:
            kind = "int" if p["kind"] == "int" else "float"
            bounds = (int(p["low"]), int(p["high"])) if kind == "int" else (float(p["low"]), float(p["high"]))
            out.append(RangeParameterConfig(name=p["name"], bounds=bounds, parameter_type=kind,
                                            scaling="log" if p["log"] else "linear"))
    return out


def decoded(params: list[dict[str, Any]], config: dict[str, Any]) -> dict[str, Any]:
    """A suggestion with each choice given back as the problem's own value (Ax's ``str`` choices
    are the values' text)."""
    out = dict(config)
    for p in params:
        if p["kind"] == "cat" and p["name"] in out:
            out[p["name"]] = next((c for c in p["choices"] if c == out[p["name"]] or str(c) == out[p["name"]]),
                                  out[p["name"]])
    return out


def quiet() -> None:
    """Ax's and BoTorch's log lines at warnings only (every trial is logged at INFO)."""
    for name in ("ax", "botorch", "gpytorch", "pyro"):
        logging.getLogger(name).setLevel(logging.WARNING)
    import warnings

    warnings.simplefilter("ignore")


def main() -> int:
    import torch
    from ax.api.client import Client

    spec = json.loads(sys.stdin.readline())
    torch.set_num_threads(1)
    quiet()
    client = Client(random_seed=spec["seed"])
    client.configure_experiment(parameters=parameter_configs(spec["params"]))
    client.configure_optimization(objective="-loss")
    quiet()
    walls: list[float] = []
    cpus: list[float] = []
    told: list[tuple[int, float]] = []
    done, budget, batch = 0, spec["budget"], spec.get("batch", 1)
    while done < budget:
        wall, cpu = time.perf_counter(), time.process_time()
        for index, loss in told:
            client.complete_trial(trial_index=index, raw_data={"loss": loss if math.isfinite(loss) else 1e300})
        trials = client.get_next_trials(max_trials=min(batch, budget - done))
        if not trials:
            raise RuntimeError(f"Ax gave no trial after {done} evaluations")
        walls += [(time.perf_counter() - wall) / len(trials)] * len(trials)
        cpus += [(time.process_time() - cpu) / len(trials)] * len(trials)
        indices = list(trials)
        print(json.dumps({"configs": [decoded(spec["params"], trials[i]) for i in indices]}), flush=True)
        losses = json.loads(sys.stdin.readline())["losses"]
        told = list(zip(indices, (float(v) for v in losses)))
        done += len(indices)
    import ax

    print(json.dumps({"suggest_times": walls, "suggest_cpu": cpus, "version": getattr(ax, "__version__", "1.3")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
