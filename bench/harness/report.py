"""Markdown tables and convergence plots from a results file.

Measures, per problem and method, over seeds:
- simple regret ``best loss so far - optimum`` at several budgets: median
  and inter-quartile range; the optimum is the known global minimum for the
  synthetic functions (the loss of the true formula for symbolic
  regression) and the best loss any method reached in the file for the
  others (or where it is lower than the known one);
- the optimizer's own time per suggestion: the median over runs of each
  run's mean (start-up draws included, as a user pays them), wall clock and,
  for runs that recorded it, CPU time of the run's process (the machine was
  shared, so the wall figure includes waiting for a core);
- peak resident memory of the run's process (interpreter and imports included);
- across problems: the mean rank of the final median regret, and a normalized
  score, 100 (1 - regret / regret of treefarm's random search): random
  search's median scores 0, the optimum 100;
- for a pair of methods, whether a difference of medians is larger than the
  seeds' noise: a percentile bootstrap of the difference of medians (Efron &
  Tibshirani 1993, ch. 13) and the one-sided Mann-Whitney U test.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .problems import all_problems
from .runner import key_of

Rows = list[dict[str, Any]]


def _curves(rows: Rows) -> dict[tuple[str, str], np.ndarray]:
    """(problem, method) -> (seeds, budget) best-so-far losses."""
    by: dict[tuple[str, str], list[np.ndarray]] = defaultdict(list)
    for r in rows:
        if r["status"] == "ok" and r.get("losses"):
            by[(r["problem"], r["method"])].append(np.minimum.accumulate(np.array(r["losses"], dtype=float)))
    out = {}
    for k, curves in by.items():
        n = min(len(c) for c in curves)
        out[k] = np.array([c[:n] for c in curves])
    return out


def _optimum(problem: str, curves: dict[tuple[str, str], np.ndarray]) -> float:
    """The known optimum, or the best loss found where none is known or a
    method beat it (a noisy data fit may beat the true formula)."""
    known = all_problems()[problem].optimum if problem in all_problems() else None
    found = float(min((c.min() for (p, _), c in curves.items() if p == problem), default=np.inf))
    return found if known is None else min(known, found)


def _fmt(x: float) -> str:
    return f"{x:.3g}" if np.isfinite(x) else "–"


def problem_table(rows: Rows, problem: str) -> str:
    curves = _curves(rows)
    optimum = _optimum(problem, curves)
    methods = sorted({r["method"] for r in rows if r["problem"] == problem})
    budget = max((c.shape[1] for (p, _), c in curves.items() if p == problem), default=0)
    marks = sorted({max(budget // 4, 1), max(budget // 2, 1), budget})
    head = "| method | seeds | " + " | ".join(f"regret @{b} median [IQR]" for b in marks)
    lines = [head + " | ms/suggestion wall | CPU | peak MB |", "|" + "---|" * (len(marks) + 5)]
    for m in methods:
        mine = [r for r in rows if r["problem"] == problem and r["method"] == m]
        ok = [r for r in mine if r["status"] == "ok"]
        if not ok:
            reason = mine[0].get("error", mine[0]["status"]).splitlines()[0][:80]
            lines.append(f"| {m} | 0 | {reason} |" + " |" * (len(marks) + 2))
            continue
        c = curves[(problem, m)] - optimum
        cells = []
        for b in marks:
            if b <= c.shape[1]:
                q1, med, q3 = np.percentile(c[:, b - 1], [25, 50, 75])
                cells.append(f"{_fmt(med)} [{_fmt(q1)}, {_fmt(q3)}]")
            else:
                cells.append("–")
        ms = 1000 * np.median([np.mean(r["suggest_times"]) for r in ok])
        cpu = [np.mean(r["suggest_cpu"]) for r in ok if r.get("suggest_cpu")]
        cpu_ms = f"{1000 * np.median(cpu):.1f}" if cpu else "–"
        mb = np.median([r.get("peak_rss_mb", np.nan) for r in ok])
        lines.append(f"| {m} | {len(ok)} | " + " | ".join(cells) + f" | {ms:.1f} | {cpu_ms} | {mb:.0f} |")
    return "\n".join(lines)


def summary_table(rows: Rows, problems: list[str], baseline: str = "tf-random") -> str:
    curves = _curves(rows)
    methods = sorted({m for (p, m) in curves if p in problems})
    finals: dict[str, dict[str, float]] = defaultdict(dict)
    for (p, m), c in curves.items():
        if p in problems:
            finals[p][m] = float(np.median(c[:, -1])) - _optimum(p, curves)
    ranks: dict[str, list[float]] = defaultdict(list)
    scores: dict[str, list[float]] = defaultdict(list)
    for by_method in finals.values():
        names = sorted(by_method, key=by_method.get)  # type: ignore[arg-type]
        values = np.array([by_method[n] for n in names])
        for n in names:
            ranks[n].append(
                1 + float((values < by_method[n]).sum()) + 0.5 * float((values == by_method[n]).sum() - 1)
            )
            base = by_method.get(baseline)
            if base is not None and base > 0:
                scores[n].append(100 * (1 - by_method[n] / base))
    lines = ["| method | problems | mean rank | mean normalized score |", "|---|---|---|---|"]
    for m in sorted(methods, key=lambda n: np.mean(ranks[n])):
        score = f"{np.mean(scores[m]):.0f}" if scores[m] else "–"
        lines.append(f"| {m} | {len(ranks[m])} | {np.mean(ranks[m]):.2f} | {score} |")
    return "\n".join(lines)


def select(rows: Rows, commit: str | Mapping[str, str] | None) -> Rows:
    """One row per key (the last), treefarm's rows only from ``commit`` when
    given: a peer's rows do not depend on treefarm's code, treefarm's do.
    ``commit`` is one commit for every treefarm method, or a mapping from
    method to commit whose ``"*"`` entry is the default (an optimizer rerun
    after a change, the others kept from the commit they were run on)."""
    wanted = {"*": commit} if isinstance(commit, str) else dict(commit or {})

    def kept(r: dict[str, Any]) -> bool:
        if not wanted or not r["method"].startswith("tf-"):
            return True
        return r.get("commit") == wanted.get(r["method"], wanted.get("*"))

    by_key = {key_of(r): r for r in rows if kept(r)}
    return list(by_key.values())


def parse_commits(values: Sequence[str] | None) -> dict[str, str]:
    """``--commit`` arguments: ``C`` (every treefarm method) or ``METHOD=C``."""
    out: dict[str, str] = {}
    for value in values or ():
        method, _, commit = value.rpartition("=")
        out[method or "*"] = commit
    return out


def coverage_table(rows: Rows, problems: list[str]) -> str:
    """Successful seeds per (problem, method); ``cannot`` where a library cannot express the space."""
    methods = sorted({r["method"] for r in rows})
    lines = ["| problem | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
    for p in problems:
        cells = []
        for m in methods:
            mine = [r for r in rows if r["problem"] == p and r["method"] == m]
            ok = sum(r["status"] == "ok" for r in mine)
            cells.append("cannot" if any(r["status"] == "cannot" for r in mine) else str(ok) if mine else "·")
        lines.append(f"| {p} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def versus_table(rows: Rows, problems: list[str], ours: str, peers: list[str]) -> str:
    """Final median regret of ``ours`` against each peer per problem (seeds in
    parentheses), and on how many of the problems both ran ours is no worse."""
    curves = _curves(rows)
    cols = [ours, *peers]
    lines = ["| problem | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    wins, compared = dict.fromkeys(peers, 0), dict.fromkeys(peers, 0)
    for p in problems:
        optimum = _optimum(p, curves)
        finals = {m: curves[(p, m)][:, -1] - optimum for m in cols if (p, m) in curves}
        cells = [
            f"{_fmt(float(np.median(finals[m])))} ({len(finals[m])})" if m in finals else "·" for m in cols
        ]
        lines.append(f"| {p} | " + " | ".join(cells) + " |")
        for m in peers:
            if ours in finals and m in finals:
                wins[m] += int(np.median(finals[ours]) <= np.median(finals[m]))
                compared[m] += 1
    counts = " | ".join(f"{wins[m]}/{compared[m]}" for m in peers)
    lines.append(f"| {ours} no worse on | – | {counts} |")
    return "\n".join(lines)


def median_difference_interval(
    a: np.ndarray, b: np.ndarray, rng: np.random.Generator, *, n_boot: int = 2000
) -> tuple[float, float]:
    """95% percentile-bootstrap interval of ``median(a) - median(b)``, each
    sample resampled with replacement ``n_boot`` times."""
    boot_a = np.median(rng.choice(a, size=(n_boot, len(a))), axis=1)
    boot_b = np.median(rng.choice(b, size=(n_boot, len(b))), axis=1)
    lo, hi = np.percentile(boot_a - boot_b, [2.5, 97.5])
    return float(lo), float(hi)


def gap_table(rows: Rows, problems: list[str], ours: str, peer: str, *, n_boot: int = 2000) -> str:
    """Per problem: the final median regret of ``ours`` and ``peer``, a 95%
    bootstrap interval of ``median(ours) - median(peer)`` (each method's seeds
    resampled with replacement, ``n_boot`` times, from a fixed seed, so the
    table is reproducible), and the one-sided Mann-Whitney p-value of "ours is
    worse". The verdict says "worse" or "better" only when the interval
    excludes 0: a median comparison alone cannot tell a gap from seed noise."""
    from scipy.stats import mannwhitneyu

    curves = _curves(rows)
    rng = np.random.default_rng(0)
    lines = [
        f"| problem | {ours} | {peer} | difference (95% interval) | p ({ours} worse) | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for p in problems:
        if (p, ours) not in curves or (p, peer) not in curves:
            continue
        optimum = _optimum(p, curves)
        a, b = curves[(p, ours)][:, -1] - optimum, curves[(p, peer)][:, -1] - optimum
        lo, hi = median_difference_interval(a, b, rng, n_boot=n_boot)
        verdict = "worse" if lo > 0 else "better" if hi < 0 else "not resolved"
        p_worse = float(mannwhitneyu(a, b, alternative="greater").pvalue)
        lines.append(
            f"| {p} | {_fmt(float(np.median(a)))} ({len(a)}) | {_fmt(float(np.median(b)))} ({len(b)}) "
            f"| {_fmt(float(np.median(a) - np.median(b)))} [{_fmt(lo)}, {_fmt(hi)}] | {p_worse:.3f} | {verdict} |"
        )
    return "\n".join(lines)


def plot(rows: Rows, problems: list[str], out_dir: Path) -> list[Path]:
    """One PNG per problem: median best-so-far regret against evaluations."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .methods import METHODS

    curves = _curves(rows)
    colors = dict(zip(METHODS, plt.get_cmap("tab20").colors))
    paths = []
    for p in problems:
        fig, ax = plt.subplots(figsize=(6, 4))
        optimum = _optimum(p, curves)
        for (pp, m), c in sorted(curves.items()):
            if pp != p:
                continue
            regret = np.maximum(c - optimum, 1e-12)
            x = np.arange(1, regret.shape[1] + 1)
            ax.plot(
                x,
                np.median(regret, axis=0),
                label=m,
                color=colors.get(m),
                ls="-" if m.startswith("tf-") else "--",
            )
        ax.set_yscale("log")
        ax.set_xlabel("evaluations")
        ax.set_ylabel("median simple regret")
        ax.set_title(p)
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = out_dir / f"convergence_{p}.png"
        fig.savefig(path, dpi=90)
        plt.close(fig)
        paths.append(path)
    return paths
