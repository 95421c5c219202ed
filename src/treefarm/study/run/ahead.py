"""The optimize loop on a caller's executor (a Dask cluster): every worker kept busy,
the next trials prepared while the workers run.

A suggestion is made in the study's process, so with many workers the study can
become the bottleneck: 64 workers finishing 10-second trials need a new trial every
0.16 s, and while the study claims, suggests and records, a finished worker waits.
So while the workers run, a helper thread claims and suggests the next
:data:`AHEAD` trials (the history read as it stands, every running trial
pending); a worker that finishes gets a prepared trial at once, and only then is
its result recorded. Preparing ahead is the asynchronous, constant-liar-free
variant of the "fantasize the pending evaluations" rule of Ginsbourger et al.
(2010), *Kriging is well-suited to parallelize optimization*: the pending trials
are simply left out of the history, as they are without preparation.

Reproducibility: the helper runs only while the study's thread waits for an
evaluation, and the study's thread waits for the helper before it records
anything, so the history each suggestion reads is a function of the completion
order alone: the same seed and the same completion order give the same trials.
A prepared trial is asked before the completion that frees its worker, so it
does not see that result (nor, with ``AHEAD`` > 1, the ones before it); a study
whose optimizer reads no history (random search, a Sobol sequence, a grid) is
unaffected.

A prepared trial is claimed (RUNNING, counted in the budget) before a worker is
free for it; it is always sent to the next free worker, also after a rule
(timeout, target, patience, ``stop()``) said stop, so no claimed trial is left
unrun. On an error or Ctrl-C the helper is waited for, the evaluations are
cancelled, and the caller fails every trial this process holds, prepared ones
included (see :func:`.loop.optimize`); a suggestion that raised in the helper
failed its trial with the reason there and is raised here.
"""

from __future__ import annotations

import contextlib
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from ..tell.trial import Trial
from .parallel import Evaluator, budget_freed
from .steps import HostT, Run
from .stopping import Stopper

__all__ = ["AHEAD", "run_as_completed"]

AHEAD = 2
"""How many trials are kept prepared while the workers run. One covers a worker
finishing alone; a second covers two finishing together (common with hundreds of
workers) at the price of one more completion the later trial does not see."""

Prepared = tuple[list[Trial], bool]


def run_as_completed(run: Run[HostT], ev: Evaluator, *, ahead: int = AHEAD) -> None:
    """Keep the executor's capacity busy: a finished worker gets a prepared trial (or
    one asked then, with the others pending), so a long trial holds up one worker, not
    all of them. Trials finishing together are recorded in the order of their numbers.
    On an uncaught error the other evaluations are cancelled (their trials, and the
    prepared ones, are failed by the caller)."""
    running: dict[Any, Trial] = {}
    ready: deque[Trial] = deque()
    exhausted = False
    preparing: Future[Prepared] | None = None

    def collect() -> None:
        """Wait for the helper; its trials join ``ready`` (its error is raised here)."""
        nonlocal preparing, exhausted
        if preparing is not None:
            future, preparing = preparing, None
            trials, spent = future.result()
            ready.extend(trials)
            exhausted = exhausted or spent

    def send(trials: list[Trial]) -> None:
        for trial in trials:
            sent = ev.send(trial)
            if isinstance(sent, tuple):
                run.record([(trial, sent)])
            else:
                running[sent] = trial

    def stopping() -> bool:
        return exhausted or run.stopping()

    def prepare(size: int) -> Prepared:
        run.recover_due()
        return run.ask(size)

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="treefarm-ahead") as helper:
        try:
            while True:
                room = ev.batch_size() - len(running)
                send([ready.popleft() for _ in range(min(room, len(ready)))])
                if _room(ev, run.stopper, running, ready) > 0 and not stopping():
                    run.recover_due()
                while _room(ev, run.stopper, running, ready) > 0 and not stopping():
                    # one at a time, each sent as soon as it is asked: at the start the first
                    # worker does not wait for every other worker's suggestion
                    trials, spent = run.ask(1)
                    exhausted = exhausted or spent
                    send(trials)
                if not running:
                    if ready:
                        continue
                    if stopping():
                        return
                    continue
                size = min(ahead - len(ready), _room(ev, run.stopper, running, ready, free=ahead))
                if size > 0 and not stopping():
                    preparing = helper.submit(prepare, size)
                done = sorted(ev.finished(running), key=lambda f: running[f].number)
                returned = [(running.pop(f), f) for f in done]
                try:
                    collect()
                except BaseException:
                    # the results in hand are stored before the helper's error stops the study
                    run.record([(trial, ev.outcome(f, trial)) for trial, f in returned])
                    raise
                send([ready.popleft() for _ in range(min(ev.batch_size() - len(running), len(ready)))])
                # read once the helper is done: what the objectives wrote on their workers (a
                # cost given back) is written then, so no suggestion sees it half-way
                finished = [(trial, ev.outcome(f, trial)) for trial, f in returned]
                run.record(finished)
                exhausted = exhausted and not budget_freed(finished)  # a lost trial's re-run, or cost given back
        except BaseException:
            if preparing is not None:
                with contextlib.suppress(BaseException):
                    preparing.result()
            for future in running:
                future.cancel()
            raise


def _room(ev: Evaluator, stopper: Stopper, running: dict[Any, Trial], ready: deque[Trial], *, free: int = 0) -> int:
    """How many more trials may be claimed now: the executor's free capacity (plus
    ``free`` prepared beyond it), within what the run's ``n_new_trials`` leaves."""
    room = ev.batch_size() + free - len(running) - len(ready)
    remaining = stopper.remaining()
    return room if remaining is None else min(room, remaining - len(running) - len(ready))
