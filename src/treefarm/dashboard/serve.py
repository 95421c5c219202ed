"""Serving the dashboard: ``treefarm dashboard STORAGE`` runs this with uvicorn."""

from __future__ import annotations

import ipaddress
import os
import sys
from typing import TextIO

from .readonly import open_read_only

__all__ = ["is_loopback", "serve"]


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _one_blas_thread() -> None:
    """Limit BLAS to one thread in this process: the GP plot's matrices are small, and
    threaded BLAS on a busy machine only waits on itself (a 200-point GP posterior
    measured 92 s with OpenBLAS's default threads on a loaded 2-core machine, 6 s with one)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    threadpool_limits(1, user_api="blas")


def serve(
    storage: str | os.PathLike[str],
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    stream: TextIO | None = None,
) -> None:
    """Serve the studies of ``storage`` (opened read-only) at http://host:port until interrupted.
    Binding to another host than the loopback prints a warning: the dashboard has no login."""
    import uvicorn

    from .app import create_app

    stream = sys.stderr if stream is None else stream
    _one_blas_thread()
    store = open_read_only(storage)
    if not is_loopback(host):
        print(
            f"warning: serving on host={host!r} shows every study in {os.fspath(storage)} to anyone who can "
            "reach this machine; the dashboard has no authentication (read-only)",
            file=stream,
        )
    print(f"treefarm dashboard: http://{host}:{port}/ (read-only; Ctrl-C stops)", file=stream)
    try:
        uvicorn.run(create_app(store), host=host, port=port, log_level="warning")
    finally:
        store.close()
