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

No cookie is used, so a browser never attaches a credential on its own. The
reasons for a refusal name what was missing, never the token.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Collection, Mapping
from dataclasses import dataclass

__all__ = ["TOKEN_HEADER", "WriteAccess", "allowed_hosts", "new_token"]

TOKEN_HEADER = "x-treefarm-token"
"""The request header that carries the token (the page sends it on every write)."""


def new_token() -> str:
    """A fresh random token: 32 bytes from the operating system's generator, URL-safe."""
    return secrets.token_urlsafe(32)


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The ``Host`` values a browser sends to the dashboard bound at ``host:port``
    (``localhost`` too when bound to a loopback address)."""
    names = {host, f"[{host}]"} if ":" in host else {host}
    if host in ("127.0.0.1", "::1", "localhost"):
        names |= {"127.0.0.1", "localhost", "[::1]"}
    return frozenset(f"{name}:{port}" for name in names)


@dataclass(frozen=True)
class WriteAccess:
    """What a write must show: ``token`` and a ``Host`` among ``hosts`` (``host:port``),
    with an ``Origin`` of ``http://`` one of them."""

    token: str
    hosts: Collection[str]

    def refusal(self, headers: Mapping[str, str]) -> str | None:
        """Why a request with ``headers`` (lower-case names) may not write, or None if it may."""
        host = headers.get("host", "")
        if host not in self.hosts:
            return (
                f"the Host header must name the dashboard ({sorted(self.hosts)}), but got host={host[:100]!r}"
            )
        origin = headers.get("origin")
        if origin is None:
            return "a write must carry an Origin header (the dashboard's page sends one)"
        if origin not in {f"http://{h}" for h in self.hosts}:
            return f"a write must come from the dashboard's own page, but got origin={origin[:100]!r}"
        given = headers.get(TOKEN_HEADER)
        if given is None:
            return f"a write needs the token printed when the dashboard started (header {TOKEN_HEADER})"
        if not hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode()):
            return "the token does not match the one printed when the dashboard started"
        return None
