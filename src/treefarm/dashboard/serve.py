"""Serving the dashboard: ``treefarm dashboard STORAGE`` runs this with uvicorn.

Read-only by default (the storage is opened read-only). With ``allow_writes``
the storage is opened for writing and a fresh token is printed in the URL to
open (``http://127.0.0.1:8080/?token=...``, as Jupyter prints its own); the
page keeps it for its writes (see :mod:`.security`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from .readonly import artifact_root, open_for_writes, open_read_only
from .security import is_loopback

__all__ = ["is_loopback", "serve"]


def _one_blas_thread() -> None:
    """Limit BLAS to one thread in this process: the GP plot's matrices are small, and
    threaded BLAS on a busy machine only waits on itself (a 200-point GP posterior
    measured 92 s with OpenBLAS's default threads on a loaded 2-core machine, 6 s with one)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    threadpool_limits(1, user_api="blas")


def _preload() -> None:
    """Import what the views compute with (SciPy's ranks, the GP) before serving: the first
    request of a view then costs its computation only (importing scipy.stats alone took
    1.5 s on a loaded 2-core machine)."""
    import scipy.stats  # noqa: F401

    from ..bo.models import gp  # noqa: F401


def serve(
    storage: str | os.PathLike[str],
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    allow_writes: bool = False,
    spaces: Sequence[Any] = (),
    artifacts: str | None = None,
    stream: TextIO | None = None,
) -> None:
    """Serve the studies of ``storage`` at http://host:port until interrupted: read-only,
    or with ``allow_writes`` acting through the studies opened on ``spaces`` (matched by
    fingerprint) for whoever holds the printed token. Binding to another host than the
    loopback prints a warning: the pages can be read by anyone who reaches it. Trials'
    artifacts are served from ``artifacts`` (default: where the studies keep them)."""
    import uvicorn

    from ..exceptions import StorageError
    from ..validation import check_bool
    from .app import create_app
    from .security import ReadAccess, WriteAccess, allowed_hosts, new_token
    from .writes import Writer

    check_bool("allow_writes", allow_writes, error=StorageError)
    stream = sys.stderr if stream is None else stream
    _one_blas_thread()
    _preload()
    store = open_for_writes(storage) if allow_writes else open_read_only(storage)
    writer, access, reads, url = None, None, None, f"http://{host}:{port}/"
    token = new_token()
    if allow_writes:
        writer, access = Writer(store, spaces), WriteAccess(token, allowed_hosts(host, port))
    if not is_loopback(host):
        reads = ReadAccess((new_token(), *([token] if allow_writes else [])))
        print(
            f"treefarm dashboard: serving on host={host!r}, beyond this machine: reading needs the token; "
            f"read-only, open\n    {url}?token={reads.tokens[0]}",
            file=stream,
        )
    if allow_writes:
        print(
            f"treefarm dashboard: writes allowed to holders of the token; open\n    {url}?token={token}",
            file=stream,
        )
    elif reads is None:
        print(f"treefarm dashboard: {url} (read-only; Ctrl-C stops)", file=stream)
    try:
        root = artifact_root(storage) if artifacts is None else artifacts
        app = create_app(store, writer=writer, access=access, artifacts=root, reads=reads)
        uvicorn.run(app, host=host, port=port, log_level="warning")
    finally:
        if writer is not None:
            writer.close()
        store.close()
