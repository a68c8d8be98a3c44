"""The address that links name: never one a request made up.

Links in API answers (a new game's read and edit links) and on pages (the game's links, the
seats' links and QR codes) are absolute, built by Flask from the request's ``Host``. Anyone can
send any ``Host``: a spoofed one showed up in both, so a link handed on from such an
answer, or a QR code drawn from it, would send players elsewhere. Here the ``Host`` is checked
before the app sees the request (a WSGI wrapper, ``init_hosts``), and one that is not the
server's own is replaced, so every link, whoever builds it, names the server:

- ``PUBLIC_URL`` (``meldcam serve --public-url``, ``MELDCAM_PUBLIC_URL``): the address players
  use, e.g. ``https://scores.example.org``; every request is taken as made to it (its scheme
  too), whatever its ``Host``. What to give behind a reverse proxy.
- ``ALLOWED_HOSTS``: the ``host:port`` names the server answers as. ``meldcam serve`` sets them
  from where it listens (``served_hosts``): the address it serves on, and with ``--host
  0.0.0.0`` this machine's LAN address, ``127.0.0.1``, ``localhost`` and its host name, with
  the port. A request naming another gets links that name the first of them (the LAN address):
  an address the players' phones reach in any case. ``ALLOW_OWN_ADDRESSES`` (set by ``serve``
  on all interfaces) also takes any IP address of this machine's own (another network card).
- Neither (an app made by ``create_app`` alone, as in tests; or ``meldcam serve --proxy``
  without ``--public-url``): the ``Host`` is used as sent. Behind a proxy waitress takes it from
  the trusted proxy's ``X-Forwarded-Host``: the proxy must send only its own names, or give
  ``--public-url``.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from flask import Flask

DEFAULT_PORTS = {"http": 80, "https": 443}


def split_host(host: str, scheme: str) -> tuple[str, int] | None:
    """``Host`` as (lower-case name, port), the scheme's default port when none is given;
    None when it is not a host name at all."""
    try:
        parts = urlsplit(f"//{host.strip()}")
        port = parts.port
    except ValueError:  # a port that is not a number, brackets that do not close...
        return None
    name = (parts.hostname or "").rstrip(".")
    if not name or parts.username is not None or parts.path or parts.query or parts.fragment:
        return None
    return name, port if port is not None else DEFAULT_PORTS.get(scheme, 80)


@lru_cache(maxsize=256)
def own_address(name: str) -> bool:
    """Whether ``name`` is an IP address of this machine (one it can listen on)."""
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((str(address), 0))
        except OSError:
            return False
    return not address.is_unspecified and not address.is_multicast


def netloc(name: str, port: int, scheme: str) -> str:
    shown = f"[{name}]" if ":" in name else name
    return shown if DEFAULT_PORTS.get(scheme) == port else f"{shown}:{port}"


def trusted_host(config: Any, host: str, scheme: str) -> str | None:
    """The ``Host`` a request should be taken as made to: ``host`` itself when it is the
    server's own, else the server's own address (see the module's text); None to leave the
    request as it is (nothing configured)."""
    public = config["PUBLIC_URL"]
    if public:
        return urlsplit(str(public)).netloc
    allowed = list(config["ALLOWED_HOSTS"] or ())
    if not allowed:
        return None
    sent = split_host(host, scheme)
    known = [found for found in (split_host(entry, scheme) for entry in allowed) if found]
    if sent is not None and (
        sent in known
        or (
            config["ALLOW_OWN_ADDRESSES"]
            and sent[1] in {port for _, port in known}
            and own_address(sent[0])
        )
    ):
        return host
    return netloc(*known[0], scheme) if known else None


def init_hosts(app: Flask) -> None:
    """Check each request's ``Host`` before the app sees it (``trusted_host``)."""
    inner: Callable[..., Any] = app.wsgi_app

    def checked(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        scheme = str(environ.get("wsgi.url_scheme", "http"))
        public = app.config["PUBLIC_URL"]
        if public:
            scheme = urlsplit(str(public)).scheme or scheme
            environ["wsgi.url_scheme"] = scheme
        sent = str(environ.get("HTTP_HOST") or environ.get("SERVER_NAME") or "")
        host = trusted_host(app.config, sent, scheme)
        if host is not None and host != sent:
            environ["HTTP_HOST"] = host
            found = split_host(host, scheme)
            if found is not None:
                environ["SERVER_NAME"], port = found
                environ["SERVER_PORT"] = str(port)
        return inner(environ, start_response)

    # Flask's way to wrap its WSGI callable (a method, which mypy will not see assigned)
    app.wsgi_app = checked  # type: ignore[method-assign]


def served_hosts(host: str, port: int, lan: str | None, proxied: bool) -> dict[str, Any]:
    """The config ``meldcam serve`` sets for where it listens (``host``, ``port``; ``lan``:
    this machine's LAN address, if any). Behind a proxy (``--proxy``) the names players use are
    the proxy's, which only it knows: nothing is set (give ``--public-url``)."""
    if proxied:
        return {}
    everywhere = host in {"0.0.0.0", "::", ""}
    names = [lan] if everywhere and lan else []
    if everywhere or host in {"127.0.0.1", "localhost", "::1"}:
        names += ["127.0.0.1", "localhost", "::1"]
    if everywhere:
        with contextlib.suppress(OSError):
            machine = socket.gethostname().lower()
            names += [machine, f"{machine}.local"]
    if not everywhere and host not in names:
        names.insert(0, host)
    allowed = [netloc(name, port, "") for name in dict.fromkeys(n for n in names if n)]
    return {"ALLOWED_HOSTS": allowed, "ALLOW_OWN_ADDRESSES": everywhere}
