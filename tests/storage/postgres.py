"""A throwaway PostgreSQL cluster for the tests: initdb + pg_ctl in a temporary
folder, listening on a free port of 127.0.0.1 only, removed at the end.

``initdb`` refuses to run as root, so as root the cluster runs as the image's
``postgres`` user (the folder is chowned to it) through ``su``.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shlex
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

__all__ = ["Cluster", "pg_binaries", "postgres_cluster", "restartable_cluster"]


def pg_binaries() -> Path | None:
    """The newest folder holding ``initdb`` and ``pg_ctl``, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    on_path = shutil.which("initdb")
    if found:
        return Path(found[-1]).parent
    return Path(on_path).parent if on_path else None


def required_pg_binaries() -> Path:
    """:func:`pg_binaries`, or a skip of the calling test or fixture that names
    what is missing (psycopg, or the server's initdb and pg_ctl)."""
    pytest.importorskip("psycopg", reason="the postgres extra (psycopg 3) is not installed")
    bindir = pg_binaries()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    return bindir


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run(command: list[str], *, as_postgres: bool) -> None:
    line = shlex.join(command)
    argv = ["su", "postgres", "-s", "/bin/bash", "-c", line] if as_postgres else ["bash", "-c", line]
    subprocess.run(argv, check=True, capture_output=True, timeout=120)


@contextmanager
def postgres_cluster(bindir: Path) -> Iterator[str]:
    """Run a cluster; yields the URL of an empty ``treefarm`` database on it."""
    as_postgres = os.geteuid() == 0
    root = Path(tempfile.mkdtemp(prefix="treefarm-pg-"))
    data, port = root / "data", _free_port()
    if as_postgres:
        user = pwd.getpwnam("postgres")
        os.chown(root, user.pw_uid, user.pw_gid)

    def run(program: str, *args: str) -> None:
        _run([str(bindir / program), *args], as_postgres=as_postgres)

    run("initdb", "-D", str(data), "-U", "postgres", "-A", "trust", "--no-sync")
    options = f"-p {port} -h 127.0.0.1 -k {root} -F -c fsync=off -c full_page_writes=off"
    run("pg_ctl", "-D", str(data), "-l", str(root / "log"), "-w", "-o", options, "start")
    try:
        run("createdb", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "treefarm")
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/treefarm"
    finally:
        run("pg_ctl", "-D", str(data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(root, ignore_errors=True)


class Cluster:
    """A running throwaway cluster that a test may stop and start again."""

    def __init__(self, bindir: Path, root: Path, port: int, *, as_postgres: bool) -> None:
        self.bindir, self.root, self.port, self.as_postgres = bindir, root, port, as_postgres
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/treefarm"

    def _pg_ctl(self, *args: str) -> None:
        _run(
            [str(self.bindir / "pg_ctl"), "-D", str(self.root / "data"), *args], as_postgres=self.as_postgres
        )

    def start(self) -> None:
        options = f"-p {self.port} -h 127.0.0.1 -k {self.root} -F -c fsync=off -c full_page_writes=off"
        self._pg_ctl("-l", str(self.root / "log"), "-w", "-o", options, "start")

    def stop(self) -> None:
        """Stop the server at once, as a crash would (``-m immediate``)."""
        self._pg_ctl("-m", "immediate", "-w", "stop")


@contextmanager
def restartable_cluster(bindir: Path) -> Iterator[Cluster]:
    """Like :func:`postgres_cluster`, but yields the :class:`Cluster` to stop and restart."""
    as_postgres = os.geteuid() == 0
    root = Path(tempfile.mkdtemp(prefix="treefarm-pg-"))
    if as_postgres:
        user = pwd.getpwnam("postgres")
        os.chown(root, user.pw_uid, user.pw_gid)
    cluster = Cluster(bindir, root, _free_port(), as_postgres=as_postgres)
    _run(
        [str(bindir / "initdb"), "-D", str(root / "data"), "-U", "postgres", "-A", "trust", "--no-sync"],
        as_postgres=as_postgres,
    )
    cluster.start()
    try:
        _run(
            [
                str(bindir / "createdb"),
                "-h",
                "127.0.0.1",
                "-p",
                str(cluster.port),
                "-U",
                "postgres",
                "treefarm",
            ],
            as_postgres=as_postgres,
        )
        yield cluster
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            cluster.stop()
        shutil.rmtree(root, ignore_errors=True)
