"""Who may write through the dashboard: a token printed at start-up, and requests from its own page.

Writing is off unless the dashboard is started with ``--allow-writes``. Then
every write is a POST that must carry

* the start-up token in the ``X-Treefarm-Token`` header, compared in constant
  time (:func:`hmac.compare_digest`), as Jupyter's token guards a notebook
  server: a page of another site cannot read it, and a cross-site request
  cannot set a custom header without a CORS preflight this server never
  grants;
* an ``Origin`` header naming the dashboard itself, and a ``Host`` header
  naming the address it is bound to: a request from another site (CSRF) or
  through a rebound DNS name (DNS rebinding) is refused even before the token
  is looked at.

A dashboard bound beyond the loopback (``--host 0.0.0.0``) is reached by names
and addresses it cannot list (a DNS name, a NAT's address), and serves studies to
anyone who reaches it: there every API read needs a token too (:class:`ReadAccess`:
a read-only token printed at start-up, or the write token), in the header or as
``?token=`` (a download link), and the ``Host`` may be any name, the tokens doing the
guarding (a rebound DNS name has no token); a write's ``Origin`` must then name the
``Host`` it was sent to.

No cookie is used, so a browser never attaches a credential on its own. The
reasons for a refusal name what was missing, never the token.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from collections.abc import Collection, Mapping
from dataclasses import dataclass

__all__ = ["TOKEN_HEADER", "ReadAccess", "WriteAccess", "allowed_hosts", "is_loopback", "new_token"]

TOKEN_HEADER = "x-treefarm-token"
"""The request header that carries the token (the page sends it on every write)."""


def new_token() -> str:
    """A fresh random token: 32 bytes from the operating system's generator, URL-safe."""
    return secrets.token_urlsafe(32)


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _matches(given: str, tokens: Collection[str]) -> bool:
    """Whether ``given`` is one of ``tokens``, each compared in constant time."""
    return any(hmac.compare_digest(given.encode("utf-8", "replace"), token.encode()) for token in tokens)


def allowed_hosts(host: str, port: int) -> frozenset[str] | None:
    """The ``Host`` values a browser sends to the dashboard bound at ``host:port``
    (``localhost`` too when bound to a loopback address); None, any, beyond the
    loopback, where reads need a token (see the module docstring)."""
    if not is_loopback(host):
        return None
    names = {host, f"[{host}]"} if ":" in host else {host}
    if host in ("127.0.0.1", "::1", "localhost"):
        names |= {"127.0.0.1", "localhost", "[::1]"}
    return frozenset(f"{name}:{port}" for name in names)


@dataclass(frozen=True)
class WriteAccess:
    """What a write must show: ``token`` and a ``Host`` among ``hosts`` (``host:port``),
    with an ``Origin`` of ``http://`` one of them."""

    token: str
    hosts: Collection[str] | None

    def refusal(self, headers: Mapping[str, str]) -> str | None:
        """Why a request with ``headers`` (lower-case names) may not write, or None if it may."""
        host = headers.get("host", "")
        if self.hosts is not None and host not in self.hosts:
            return (
                f"the Host header must name the dashboard ({sorted(self.hosts)}), but got host={host[:100]!r}"
            )
        origin = headers.get("origin")
        if origin is None:
            return "a write must carry an Origin header (the dashboard's page sends one)"
        if origin not in {f"http://{h}" for h in (self.hosts if self.hosts is not None else [host])}:
            return f"a write must come from the dashboard's own page, but got origin={origin[:100]!r}"
        given = headers.get(TOKEN_HEADER)
        if given is None:
            return f"a write needs the token printed when the dashboard started (header {TOKEN_HEADER})"
        if not _matches(given, [self.token]):
            return "the token does not match the one printed when the dashboard started"
        return None


@dataclass(frozen=True)
class ReadAccess:
    """What a read of the API must show beyond the loopback: one of ``tokens`` (the
    read-only token first, then the write token if any), in the ``X-Treefarm-Token``
    header or the ``token`` query parameter. The page and its assets hold no data and
    are served to anyone."""

    tokens: tuple[str, ...]

    def refusal(self, path: str, headers: Mapping[str, str], query: Mapping[str, str]) -> str | None:
        """Why a request for ``path`` may not read, or None if it may."""
        if not path.startswith("/api/"):
            return None
        given = headers.get(TOKEN_HEADER) or query.get("token")
        if given is None:
            return (
                "this dashboard serves beyond its machine: reading needs the token printed when it started "
                "(open the URL it printed)"
            )
        if not _matches(given, self.tokens):
            return "the token does not match one printed when the dashboard started"
        return None
