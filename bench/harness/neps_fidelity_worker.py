"""NePS's Hyperband and PriorBand on a multi-fidelity problem (run in NePS's own venv).

``python -m bench.harness.neps_fidelity_worker`` reads one JSON line on stdin:
``{"method": "neps-hyperband" | "neps-priorband", "params": [{"name", "kind",
"low", "high", "log"}, ...], "seed": int, "max_steps": int, "eta": int}``.
Then, for every suggestion, it writes ``{"config": {...}, "step": int,
"resumed_from": int}`` (``resumed_from``: the fidelity of the trial NePS
promoted this one from, 0 for a new configuration) and reads back
``{"loss": float}``, or ``{"stop": true}`` once the caller's cost budget is
spent; then it writes ``{"suggest_ms": [...], "version": str}`` (the wall time
of each ``ask`` plus its ``tell``) and exits. The caller
(:func:`bench.harness.fidelity_methods.run_neps`) evaluates and pays for every
suggestion, so NePS's rows are made by the same ledger as every other method's.

The space is NePS's classic ``SearchSpace``: each parameter an ``HPOFloat`` or
``HPOInteger`` of the same bounds, and the fidelity an ``HPOInteger(1,
max_steps, is_fidelity=True)``; with ``eta=3`` and 27 steps NePS's brackets use
the rungs 1, 3, 9 and 27, the other methods' rungs. PriorBand (Mallik et al.,
"PriorBand: Practical Hyperparameter Optimization in the Age of Deep
Learning", 2023) needs a prior: each parameter's prior is NePS's own centre of
its range (``HPOFloat.center``, the geometric centre on a log scale) with NePS's
default confidence (``"low"``), what a user who must name a prior but knows
nothing about the problem would give.

It imports nothing from treefarm: only NePS (and PyTorch, NumPy) are needed.
"""

from __future__ import annotations

import json
import random
import sys
import time
from typing import Any

METHODS = ("neps-hyperband", "neps-priorband")


def hpo_parameter(spec: dict[str, Any], *, prior: bool) -> Any:
    """The NePS parameter of one benchmark parameter; with ``prior``, its prior at NePS's centre of the range."""
    import neps

    kind = neps.HPOFloat if spec["kind"] == "real" else neps.HPOInteger
    low, high = (float(spec["low"]), float(spec["high"])) if spec["kind"] == "real" else (int(spec["low"]),
                                                                                         int(spec["high"]))
    plain = kind(lower=low, upper=high, log=bool(spec.get("log", False)))
    if not prior:
        return plain
    return kind(lower=low, upper=high, log=bool(spec.get("log", False)), prior=plain.center, prior_confidence="low")


def search_space(params: list[dict[str, Any]], max_steps: int, *, prior: bool) -> Any:
    """The problem's parameters and the fidelity ``step`` (1..``max_steps``) as NePS's ``SearchSpace``."""
    import neps

    space = {p["name"]: hpo_parameter(p, prior=prior) for p in params}
    space["step"] = neps.HPOInteger(lower=1, upper=max_steps, is_fidelity=True)
    return neps.SearchSpace(space)


def optimizer(method: str, space: Any, eta: int) -> Any:
    """NePS's Hyperband (uniform sampling) or PriorBand (on Hyperband's brackets, NePS's default base)."""
    import neps

    if method == "neps-hyperband":
        return neps.algorithms.hyperband(space, eta=eta)
    if method == "neps-priorband":
        return neps.algorithms.priorband(space, eta=eta)
    raise ValueError(f"method must be one of {METHODS}, but got method={method!r}")


def serve(spec: dict[str, Any], read: Any, write: Any) -> dict[str, Any]:
    """Suggest, read back the loss, tell; until the caller says stop. Returns the closing line."""
    import neps
    import numpy as np
    import torch

    seed = int(spec["seed"])
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    space = search_space(spec["params"], int(spec["max_steps"]), prior=spec["method"] == "neps-priorband")
    ask_tell = neps.AskAndTell(optimizer(spec["method"], space, int(spec["eta"])))
    laps: list[float] = []
    while True:
        start = time.perf_counter()
        trial = ask_tell.ask()
        lap = time.perf_counter() - start
        config = {k: v for k, v in trial.config.items() if k != "step"}
        previous = trial.metadata.previous_trial_id
        resumed_from = int(ask_tell.trials[previous].config["step"]) if previous in ask_tell.trials else 0
        write({"config": config, "step": int(trial.config["step"]), "resumed_from": resumed_from})
        answer = read()
        if answer.get("stop"):
            break
        start = time.perf_counter()
        ask_tell.tell(trial, float(answer["loss"]))
        laps.append(lap + time.perf_counter() - start)
    return {"suggest_ms": [round(1000 * t, 2) for t in laps], "version": _version("neural-pipeline-search")}


def _version(distribution: str) -> str:
    from importlib.metadata import version

    return version(distribution)


def main() -> int:
    def read() -> dict[str, Any]:
        line = sys.stdin.readline()
        return json.loads(line) if line else {"stop": True}

    def write(message: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    write(serve(read(), read, write))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
