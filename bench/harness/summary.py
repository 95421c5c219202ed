"""``bench/RESULTS.md`` and ``bench/plots/profile_*.png`` from the committed rows, reproducibly.

For each suite (:mod:`bench.suites`): a table of the final value's median
per problem and method with its 95 % percentile-bootstrap interval (Efron &
Tibshirani 1993, ch. 13; 2000 resamples of the seeds from a fixed seed, so the
text is the same on every run), then, against the suite's own method, each
method's wins and losses *beyond noise*: problems where the bootstrap interval
of the difference of medians (:func:`bench.harness.report.median_difference_interval`,
the screen's test) excludes 0; and the mean rank of the medians over the
problems every method ran (:func:`bench.harness.screen.mean_ranks`). One
figure per suite: the performance profile of Dolan & Moré (2002), the share of
problems on which a method's median is within a factor tau of the best
method's. The commits come from the rows, or for rows that record none, from
``bench/results/MANIFEST.json`` (the commit that committed the file).
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .paths import PLOTS, RESULTS, ROOT
from .report import median_difference_interval
from .screen import mean_ranks
from .suite import Finals, Suite, file_commits

MANIFEST = RESULTS / "MANIFEST.json"
N_BOOT = 2000
#: Medians below this are read as this in the performance profile (a solved problem has regret ~0).
FLOOR = 1e-8


def fmt(x: float) -> str:
    """Two significant digits: the seeds' noise is wider than a third one."""
    if not np.isfinite(x):
        return "–"
    if 1 <= abs(x) < 1e5:
        return f"{float(f'{x:.2g}'):g}"
    return f"{x:.2g}".replace("e-0", "e-").replace("e+0", "e").replace("e+", "e")


def median_interval(values: np.ndarray) -> tuple[float, float]:
    """95 % percentile-bootstrap interval of the median, from a fixed seed."""
    rng = np.random.default_rng(0)
    boot = np.median(rng.choice(values, size=(N_BOOT, len(values))), axis=1)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return float(lo), float(hi)


def verdict(finals: Finals, problem: str, method: str, ours: str) -> int:
    """-1 when ``method``'s median is lower than ``ours`` beyond noise, +1 when
    higher, 0 otherwise (or when fewer than 5 seeds each): the difference of
    medians' bootstrap interval over the seeds both ran (all seeds of each
    when fewer than 5 are common)."""
    a_seeds, b_seeds = finals[(problem, method)], finals[(problem, ours)]
    common = sorted(set(a_seeds) & set(b_seeds))
    if len(common) >= 5:
        a = np.array([a_seeds[s] for s in common])
        b = np.array([b_seeds[s] for s in common])
    else:
        a, b = np.array(list(a_seeds.values())), np.array(list(b_seeds.values()))
        if min(len(a), len(b)) < 5:
            return 0
    lo, hi = median_difference_interval(a, b, np.random.default_rng(0), n_boot=N_BOOT)
    return -1 if hi < 0 else 1 if lo > 0 else 0


def methods_of(suite: Suite, finals: Finals) -> list[str]:
    present = {m for _, m in finals}
    order = [m for m in suite.columns if m in present]
    return order + sorted(present - set(order))


def problems_of(finals: Finals) -> list[str]:
    """Named problems first, in natural order (``nguyen2`` before ``nguyen10``), then BBOB by dimension and function."""
    def key(p: str) -> tuple[int, int, list[tuple[str, int]]]:
        head, _, dim = p.partition(" ")
        if head[:1] == "f" and head[1:].isdigit():
            return (int(dim.removesuffix("-d") or 0), int(head[1:]), [])
        return (-1, 0, [(text, int(num or -1)) for text, num in re.findall(r"(\D*)(\d*)", p) if text or num])

    return sorted({p for p, _ in finals}, key=key)


def medians(finals: Finals) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for (p, m), seeds in finals.items():
        out.setdefault(p, {})[m] = float(np.median(list(seeds.values())))
    return out


def rank_set(methods: Sequence[str], meds: dict[str, dict[str, float]]) -> tuple[list[str], dict[str, dict[str, float]]]:
    """The methods to rank and the problems all of them ran: of the sets "every method with rows on
    at least k problems", the one with the most (method, problem) pairs (a peer run on two problems
    does not shrink everyone's ranks to those two; one run on most problems is kept)."""
    reach = {m: sum(m in by for by in meds.values()) for m in methods}
    best: tuple[int, int, list[str], dict[str, dict[str, float]]] = (0, 0, [], {})
    for k in sorted(set(reach.values())):
        ranked = [m for m in methods if reach[m] >= k]
        common = {p: {m: by[m] for m in ranked} for p, by in meds.items() if all(m in by for m in ranked)}
        if (len(ranked) * len(common), len(ranked)) > best[:2]:
            best = (len(ranked) * len(common), len(ranked), ranked, common)
    return best[2], best[3]


def table(suite: Suite, finals: Finals) -> str:
    """Medians [95 % interval], then wins/losses beyond noise against ``suite.ours`` and mean ranks.
    A column's header states its usual number of seeds; a cell with another number states its own."""
    methods, problems = methods_of(suite, finals), problems_of(finals)
    usual = {}
    for m in methods:
        counts = sorted(len(seeds) for (_, mm), seeds in finals.items() if mm == m)
        usual[m] = max(set(counts), key=lambda n: (counts.count(n), n))
    out = ["|problem|" + "|".join(f"{m} ({usual[m]})" for m in methods) + "|", "|---" * (len(methods) + 1) + "|"]
    counts_vs = {m: [0, 0, 0] for m in methods}
    hidden = 0
    for p in problems:
        cells = []
        resolved = False
        for m in methods:
            seeds = finals.get((p, m))
            if not seeds:
                cells.append("·")
                continue
            values = np.array(list(seeds.values()))
            cell = fmt(float(np.median(values)))
            if len(values) > 1:
                lo, hi = median_interval(values)
                cell += f" [{fmt(lo)},{fmt(hi)}]"
            if len(values) != usual[m]:
                cell += f" ({len(values)})"
            if m != suite.ours and (p, suite.ours) in finals:
                v = verdict(finals, p, m, suite.ours)
                counts_vs[m][0] += 1
                if v:
                    counts_vs[m][1 if v > 0 else 2] += 1
                    cell += " ▲" if v > 0 else " ▼"
                    resolved = True
            cells.append(cell)
        if suite.resolved_only and not resolved:
            hidden += 1
            continue
        out.append(f"|{p}|" + "|".join(cells) + "|")
    if hidden:
        out.append(f"|*{hidden} more, within noise*|" + "|" * len(methods))
    wins = [f"{counts_vs[m][1]} / {counts_vs[m][2]} of {counts_vs[m][0]}" if m != suite.ours else "–"
            for m in methods]
    out.append(f"|**{suite.ours} better / worse beyond noise**|" + "|".join(wins) + "|")
    ranked, common = rank_set(methods, medians(finals))
    if common and len(ranked) > 1:
        ranks = mean_ranks(common)
        out.append(f"|**mean rank ({len(common)} problems)**|" + "|".join(
            f"{ranks[m]:.2f}" if m in ranks else "–" for m in methods) + "|")
    return "\n".join(out)


def profile(suite: Suite, finals: Finals, out_dir: Path) -> Path:
    """The suite's performance profile (Dolan & Moré 2002) as a PNG: for each
    method, the share of problems where its median is within a factor tau of
    the best median (medians floored at :data:`FLOOR`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    meds = medians(finals)
    methods = methods_of(suite, finals)
    taus = np.logspace(0, 4, 200)
    fig, ax = plt.subplots(figsize=(6, 3.6))
    styles = ["-", "--", "-.", ":"]
    for i, m in enumerate(methods):
        ratios = []
        for by in meds.values():
            best = max(min(by.values()), FLOOR)
            ratios.append(max(by[m], FLOOR) / best if m in by else np.inf)
        share = [(np.array(ratios) <= t).mean() for t in taus]
        ax.step(taus, share, where="post", label=m, ls=styles[i // 10 % 4], lw=2.2 if m == suite.ours else 1.2)
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("tau: median within this factor of the best method's")
    ax.set_ylabel("share of problems")
    ax.set_title(f"{suite.title}: performance profile ({len(meds)} problems)", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"profile_{suite.name}.png"
    fig.savefig(path, dpi=80, metadata={"Software": None})
    plt.close(fig)
    return path


def manifest() -> dict[str, str]:
    """File -> the commit that last committed it (written by :func:`record_manifest`)."""
    return json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {}


def record_manifest(files: Sequence[str]) -> dict[str, str]:
    """Add to the manifest, once, the commit that last committed each of
    ``files`` not yet in it (``git log``), for rows that record no commit."""
    known = manifest()
    for f in files:
        if f in known:
            continue
        done = subprocess.run(["git", "log", "-1", "--format=%h", "--", f"bench/results/{f}"],
                              capture_output=True, text=True, cwd=ROOT, check=True)
        if done.stdout.strip():
            known[f] = done.stdout.strip()
    MANIFEST.write_text(json.dumps(dict(sorted(known.items())), indent=1) + "\n")
    return known


def provenance(suite: Suite) -> str:
    """Each file with the commits its rows measured (most rows first), or the commit that committed it."""
    committed = manifest()
    parts = []
    for f in suite.files:
        commits = file_commits(f)
        if commits:
            more = f" +{len(commits) - 3}" if len(commits) > 3 else ""
            parts.append(f"`{f}` {', '.join(commits[:3])}{more}")
        else:
            parts.append(f"`{f}` (committed {committed.get(f, 'unknown')})")
    return "; ".join(parts)


HEADER = """# Benchmark results

Generated by `python -m bench report` from the rows in `bench/results/`; do not edit (change a suite
in `bench/suites/` and regenerate). `python -m bench list` lists the suites, `python -m bench run
SUITE` reruns what a suite's rows lack. Every variant tried, and why the defaults are what they are,
is in `bench/notes/`.

**Reading a table.** A cell is the median over seeds of the final value (lower is better) and its
95 % bootstrap interval; the seeds are in the header, or in the cell where they differ. ▲: higher
than the first column's method beyond noise, ▼: lower beyond noise (the bootstrap interval of the
difference of medians, over the seeds both ran, excludes 0). Under each table: its files, each with
the commits its rows record, most rows first, or the commit that committed it (`MANIFEST.json`).
Machine: 2 shared cores; the peers in their own environments (`bench/requirements.txt`).
"""


def headline(suites: Sequence[Suite], loaded: dict[str, Finals]) -> str:
    """Mean ranks over the problems of the design suites and, apart, of the held-out ones."""
    out = ["## Headline: mean rank of each method across suites", ""]
    for held in (False, True):
        chosen = [s for s in suites if s.headline and s.held_out == held]
        if not chosen:
            continue
        meds: dict[str, dict[str, float]] = {}
        for s in chosen:
            meds.update(medians(loaded[s.name]))
        # the methods every chosen suite has, on the problems where all of them ran
        methods = sorted(set.intersection(*({m for _, m in loaded[s.name]} for s in chosen)))
        every = {p: {m: by[m] for m in methods} for p, by in meds.items() if set(methods) <= set(by)}
        ranks = mean_ranks(every)
        order = sorted(methods, key=lambda m: ranks[m])
        kind = "held out from the design decisions" if held else "the suites the defaults were chosen on"
        names = ", ".join(f"`{s.name}`" for s in chosen)
        out += [f"**{len(every)} problems, {kind}** ({names}; problems every method ran):", "",
                "| " + " | ".join(order) + " |", "|---" * len(order) + "|",
                "| " + " | ".join(f"{ranks[m]:.2f}" for m in order) + " |", ""]
    return "\n".join(out)


#: A suite of more commands than this lists them with ``--dry-run`` rather than in the report.
LISTED_COMMANDS = 2


def reproduce(s: Suite) -> str:
    """How to remake a suite's rows: its commands, or for a suite of many, the
    command that runs them all and the one that lists them (the report stays short)."""
    head = f"Reproduce (`python -m bench run {s.name}`"
    if len(s.commands) > LISTED_COMMANDS:
        return f"{head}; its {len(s.commands)} commands: `python -m bench run {s.name} --dry-run`)."
    commands = "\n".join(s.commands)
    return f"{head}):\n\n```bash\n{commands}\n```"


def _rows_of(s: Suite, sources: dict[str, str]) -> str:
    """``s``'s provenance, or, when an earlier suite of the report read the same files at the
    same commits, a pointer to it (the report stays short)."""
    text = provenance(s)
    first = sources.setdefault(text, s.name)
    return text if first == s.name else f"those of `{first}` above"


def render(suites: Sequence[Suite], plots: Path | None = PLOTS) -> str:
    """The whole of RESULTS.md (and, when ``plots`` is given, the figures written there)."""
    loaded = {s.name: s.load() for s in suites}
    parts = [HEADER, headline(suites, loaded)]
    sources: dict[str, str] = {}  # a suite's provenance -> the first suite that listed it
    for s in suites:
        finals = loaded[s.name]
        figure = not s.resolved_only  # a profile of rows the table does not show would not be read
        if plots is not None and figure:
            profile(s, finals, plots)
        parts += [
            f"## {s.title}: `{s.name}`", "", f"{s.about} Measure: {s.measure}.", "",
            table(s, finals), "",
            *([s.notes(finals), ""] if s.notes is not None else []),
            *([f"![performance profile](plots/profile_{s.name}.png)", ""] if figure else []),
            f"Rows: {_rows_of(s, sources)}. {reproduce(s)}", "",
        ]
    return "\n".join(parts).rstrip() + "\n"
