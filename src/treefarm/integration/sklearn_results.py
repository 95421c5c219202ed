"""How :class:`~treefarm.integration.sklearn.TreefarmSearchCV` cross-validates its
candidates: each (candidate, split) pair fitted and scored by scikit-learn's public
``cross_validate`` on that split alone (all pairs of a batch in parallel), the
record of each, and the ``cv_results_`` built from the records, laid out as
scikit-learn's own searches lay it.

One record per candidate and split (a dict, stored as JSON with its trial so a
later ``fit`` restores it): ``test_scores`` (a float, or a dict ``{metric:
float}`` with several metrics), ``train_scores`` when asked, ``fit_time``,
``score_time``, ``n_test_samples`` and ``fit_error`` (None, or the traceback of
a fit that failed, whose scores are then ``error_score``).

``cv_results_`` has, in scikit-learn's order: ``mean_fit_time``,
``std_fit_time``, ``mean_score_time``, ``std_score_time``, one masked array
``param_<name>`` per parameter (masked where a candidate lacks it), ``params``,
then per metric ``split<k>_test_<metric>``, ``mean_test_<metric>``,
``std_test_<metric>``, ``rank_test_<metric>`` and, with
``return_train_score``, ``split<k>_train_<metric>``, ``mean_train_<metric>``,
``std_train_<metric>``. Ranks go by mean test score, ties share the lowest
rank, and a candidate whose mean is NaN ranks last.
"""

from __future__ import annotations

import math
import numbers
import time
import traceback
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import cross_validate
from sklearn.utils.parallel import Parallel, delayed

__all__ = [
    "SCORE_KEYS",
    "Fitting",
    "SplitJob",
    "best_index",
    "check_fits",
    "cv_results",
    "decode_split",
    "encode_split",
    "failed_split",
    "fill_failed",
    "fit_split",
    "metric_names",
    "split_record",
]

#: The keys of a record that hold scores.
SCORE_KEYS = ("test_scores", "train_scores")
#: The metric name of a single-metric search (``mean_test_score``).
SINGLE = "score"


def _encode_score(score: Any) -> Any:
    """A score as JSON: a non-finite float as its text ("nan", "inf")."""
    if isinstance(score, Mapping):
        return {k: _encode_score(v) for k, v in score.items()}
    value = float(score)
    return value if math.isfinite(value) else str(value)


def _decode_score(score: Any) -> Any:
    if isinstance(score, Mapping):
        return {k: _decode_score(v) for k, v in score.items()}
    return float(score)


def encode_split(out: Mapping[str, Any]) -> dict[str, Any]:
    """One split's record as JSON."""
    row = {k: v for k, v in out.items() if k in ("fit_error", "n_test_samples", "fit_time", "score_time")}
    row["n_test_samples"] = int(row["n_test_samples"])
    row["fit_time"], row["score_time"] = float(row["fit_time"]), float(row["score_time"])
    for key in SCORE_KEYS:
        if key in out:
            row[key] = _encode_score(out[key])
    return row


def decode_split(row: Mapping[str, Any]) -> dict[str, Any]:
    """The inverse of :func:`encode_split`."""
    out = dict(row)
    for key in SCORE_KEYS:
        if key in out:
            out[key] = _decode_score(out[key])
    return out


def _scores(got: Mapping[str, Any], prefix: str, multimetric: bool) -> float | dict[str, float]:
    scores = {k.removeprefix(prefix): float(np.asarray(v)[0]) for k, v in got.items() if k.startswith(prefix)}
    if not multimetric and set(scores) == {SINGLE}:
        return scores[SINGLE]
    return scores


def split_record(got: Mapping[str, Any], n_test: int, *, multimetric: bool, train: bool) -> dict[str, Any]:
    """The record of one split from ``cross_validate``'s result on that split alone;
    ``multimetric`` keeps the scores a dict even when their one name is ``score``."""
    row: dict[str, Any] = {
        "fit_time": float(got["fit_time"][0]),
        "score_time": float(got["score_time"][0]),
        "n_test_samples": int(n_test),
        "fit_error": None,
        "test_scores": _scores(got, "test_", multimetric),
    }
    if train:
        row["train_scores"] = _scores(got, "train_", multimetric)
    return row


def failed_split(fit_time: float, n_test: int, error: str) -> dict[str, Any]:
    """The record of a split whose fit (or scoring) raised ``error`` (a traceback);
    its scores are set by :func:`fill_failed` once the metric names are known."""
    return {"fit_time": fit_time, "score_time": 0.0, "n_test_samples": int(n_test), "fit_error": error}


def metric_names(rows: Sequence[Mapping[str, Any]]) -> list[str] | None:
    """The metric names of the first record with scores: ``[]`` for a single metric,
    None when no record has scores yet."""
    for row in rows:
        scores = row.get("test_scores")
        if isinstance(scores, Mapping):
            return list(scores)
        if scores is not None:
            return []
    return None


def fill_failed(
    rows: Sequence[dict[str, Any]], names: Sequence[str], error_score: float, *, train: bool
) -> None:
    """Give the failed records ``error_score`` for every metric (``names``; ``[]`` for one)."""
    for row in rows:
        if row["fit_error"] is not None and row.get("test_scores") is None:
            score: float | dict[str, float] = (
                {n: float(error_score) for n in names} if names else float(error_score)
            )
            row["test_scores"] = score
            if train:
                row["train_scores"] = score


def check_fits(rows: Sequence[Mapping[str, Any]], error_score: Any, warning: type[Warning]) -> None:
    """Warn (``warning``) when some fits failed, raise ``ValueError`` when all did,
    with scikit-learn's message and its summary of the distinct errors."""
    errors = [row["fit_error"] for row in rows if row["fit_error"] is not None]
    if not errors:
        return
    summary = "\n".join(
        f"\n{'-' * 80}\n{count} fits failed with the following error:\n{error}"
        for error, count in Counter(errors).items()
    )
    if len(errors) == len(rows):
        raise ValueError(
            f"\nAll the {len(rows)} fits failed.\nIt is very likely that your model is misconfigured.\n"
            "You can try to debug the error by setting error_score='raise'.\n\n"
            f"Below are more details about the failures:\n{summary}"
        )
    warnings.warn(
        f"\n{len(errors)} fits failed out of a total of {len(rows)}.\n"
        "The score on these train-test partitions for these parameters will be set to "
        f"{error_score}.\nIf these failures are not expected, you can try to debug them by "
        f"setting error_score='raise'.\n\nBelow are more details about the failures:\n{summary}",
        warning,
        stacklevel=3,
    )


@dataclass(frozen=True)
class Fitting:
    """What each split's fit needs besides the data (sent to every worker)."""

    scoring: Any
    error_score: Any
    train: bool
    multimetric: bool
    params: dict[str, Any]  # the estimator's fit parameters (and, routed, the scorers')
    verbose: int


def fit_split(
    estimator: Any, candidate: dict[str, Any], X: Any, y: Any, split: tuple[Any, Any], fitting: Fitting
) -> dict[str, Any]:
    """Fit and score a clone of ``estimator`` with the ``candidate`` parameters on one
    ``(train, test)`` split, by scikit-learn's ``cross_validate`` on that split alone;
    a fit or scoring that raises is a failed record (with its traceback) unless
    ``error_score`` is ``"raise"``."""
    estimator = clone(estimator).set_params(**clone(candidate, safe=False))
    start = time.perf_counter()
    try:
        got = cross_validate(
            estimator,
            X,
            y,
            cv=[split],
            scoring=fitting.scoring,
            params=fitting.params or None,
            return_train_score=fitting.train,
            error_score="raise",
        )
    except Exception:
        if fitting.error_score == "raise":
            raise
        row = failed_split(time.perf_counter() - start, len(split[1]), traceback.format_exc())
    else:
        row = split_record(got, len(split[1]), multimetric=fitting.multimetric, train=fitting.train)
    if fitting.verbose > 1:
        shown = ", ".join(f"{k}={v!r:.40}" for k, v in candidate.items())
        outcome = "failed" if row["fit_error"] is not None else f"score={row['test_scores']!r:.80}"
        print(f"[CV] END {shown}; {outcome} total time={time.perf_counter() - start:.1f}s")
    return row


@dataclass(frozen=True)
class SplitJob:
    """The data, splits and settings every candidate of one ``fit`` is cross-validated with."""

    estimator: Any
    X: Any
    y: Any
    splits: list[tuple[Any, Any]]
    fitting: Fitting

    def run(self, parallel: Parallel, candidates: Sequence[dict[str, Any]]) -> list[list[dict[str, Any]]]:
        """Each candidate's records, one per split; all (candidate, split) pairs in parallel."""
        out = parallel(
            delayed(fit_split)(self.estimator, candidate, self.X, self.y, split, self.fitting)
            for candidate in candidates
            for split in self.splits
        )
        n = len(self.splits)
        return [list(out[i * n : (i + 1) * n]) for i in range(len(candidates))]


def _param_columns(candidates: Sequence[Mapping[str, Any]]) -> Iterator[tuple[str, np.ma.MaskedArray]]:
    """One masked array per parameter, masked where a candidate lacks it; strings and
    values that are not scalars are kept as objects (as scikit-learn keeps them)."""
    columns: dict[str, dict[int, Any]] = defaultdict(dict)
    for index, params in enumerate(candidates):
        for name, value in params.items():
            columns[f"param_{name}"][index] = value
    for key, column in columns.items():
        try:
            probe = np.array(list(column.values()))
        except ValueError:  # sequences of different lengths
            dtype = np.dtype(object)
        else:
            dtype = probe.dtype if probe.dtype.kind != "U" and probe.ndim == 1 else np.dtype(object)
        array = np.ma.MaskedArray(np.empty(len(candidates), dtype=dtype), mask=True)
        for index, value in column.items():
            array[index] = value
        yield key, array


def _rank(means: np.ndarray) -> np.ndarray:
    """Rank 1 for the highest mean, ties sharing the lowest rank; NaN ties with the worst
    (all NaN: all rank 1)."""
    from scipy.stats import rankdata

    if np.isnan(means).all():
        return np.ones_like(means, dtype=np.int32)
    filled = np.nan_to_num(means, nan=np.nanmin(means) - 1)
    return rankdata(-filled, method="min").astype(np.int32, copy=False)


def _store(
    results: dict[str, Any], key: str, values: np.ndarray, *, splits: bool = False, rank: bool = False
) -> None:
    """The split columns, mean, std (and rank) of ``values`` (candidates x splits) under ``key``."""
    if splits:
        for split in range(values.shape[1]):
            results[f"split{split}_{key}"] = values[:, split]
    means = values.mean(axis=1)
    results[f"mean_{key}"] = means
    if key.startswith(("train_", "test_")) and not np.isfinite(means).all():
        warnings.warn(
            f"One or more of the {key.split('_')[0]} scores are non-finite: {means}",
            UserWarning,
            stacklevel=4,
        )
    results[f"std_{key}"] = np.sqrt(((values - means[:, np.newaxis]) ** 2).mean(axis=1))
    if rank:
        results[f"rank_{key}"] = _rank(means)


def _score_table(rows: Sequence[Mapping[str, Any]], key: str, n_splits: int) -> dict[str, np.ndarray]:
    """``{metric: candidates x splits}`` of the records' ``key`` scores."""
    first = rows[0][key]
    names = list(first) if isinstance(first, Mapping) else [SINGLE]
    table = {}
    for name in names:
        values = [row[key][name] if isinstance(row[key], Mapping) else row[key] for row in rows]
        table[name] = np.asarray(values, dtype=np.float64).reshape(-1, n_splits)
    return table


def cv_results(
    candidates: Sequence[dict[str, Any]], rows: Sequence[Mapping[str, Any]], n_splits: int, *, train: bool
) -> dict[str, Any]:
    """``cv_results_`` of ``candidates`` from their records (``n_splits`` per candidate, in order)."""
    results: dict[str, Any] = {}
    for key in ("fit_time", "score_time"):
        _store(results, key, np.asarray([row[key] for row in rows], dtype=np.float64).reshape(-1, n_splits))
    results.update(_param_columns(candidates))
    results["params"] = list(candidates)
    tests = _score_table(rows, "test_scores", n_splits)
    trains = _score_table(rows, "train_scores", n_splits) if train else {}
    for name, values in tests.items():
        _store(results, f"test_{name}", values, splits=True, rank=True)
        if train:
            _store(results, f"train_{name}", trains[name], splits=True)
    return results


def best_index(
    refit: bool | str | Callable[[dict[str, Any]], Any], metric: str, results: dict[str, Any]
) -> int:
    """The candidate ``refit`` chooses: the index a callable returns, else the best
    mean test score of ``metric``."""
    if not callable(refit):
        return int(np.argmin(results[f"rank_test_{metric}"]))
    index = refit(results)
    if not isinstance(index, numbers.Integral):
        raise TypeError(f"refit must return the index of a candidate (an integer), but got index={index!r}")
    if not 0 <= int(index) < len(results["params"]):
        raise IndexError(
            f"refit must return an index in [0, {len(results['params'])}), but got index={index!r}"
        )
    return int(index)
