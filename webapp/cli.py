"""``meldcam serve``: the web app on waitress (a production WSGI server), printing its URL;
``meldcam db upgrade|current|revision``: the database's schema (``webapp.schema``).

``--https`` says the app is reached over HTTPS (a TLS terminator in front): links are https and
the session cookie is ``Secure``. Links name the address the server listens on (its LAN
address with ``--host 0.0.0.0``), never a ``Host`` a request made up, or ``--public-url``
(``webapp.hosts``). ``--proxy ADDRESS`` trusts that reverse proxy's (or load
balancer's) ``X-Forwarded-For`` / ``-Proto`` / ``-Host`` headers, so rate limits count each
player, not the proxy, a request that came over HTTPS is known as such, and links name the
address the players use. The ``Server`` header names no version.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import socket
import sys
import threading
from typing import Any


def lan_address() -> str | None:
    """This machine's address on the LAN (no packet is sent), or None without a network."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 1))
        address = str(probe.getsockname()[0])
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") else address


def urls(host: str, port: int, scheme: str = "http") -> list[str]:
    if host in {"0.0.0.0", "::", ""}:
        found = [f"{scheme}://127.0.0.1:{port}/"]
        lan = lan_address()
        if lan:
            found.append(f"{scheme}://{lan}:{port}/")
        return found
    shown = f"[{host}]" if ":" in host else host
    return [f"{scheme}://{shown}:{port}/"]


def _warm_recogniser(app: Any) -> None:
    """Load the tile reader in the background so the first photo does not wait for it."""
    from webapp import photos

    with app.app_context():
        try:
            photos.get_recogniser("tiles")
        except Exception as error:  # a missing model only means photos must be tapped in
            print(f"meldcam: photo reader not loaded: {error}", file=sys.stderr)
    gc.freeze()


def settle(app: Any) -> None:
    """Before serving: compile every template (the first page would wait ~0.1 s for it), then
    move what is loaded for good out of the garbage collector's sight, so its full collections
    walk only what requests make (a few ms instead of 40-80 ms with every thread stopped;
    ``benchmarks.live_streams``). The tile reader, loaded in the background, does the same."""
    for name in app.jinja_env.list_templates():
        app.jinja_env.get_template(name)
    gc.collect()
    gc.freeze()


SERVER_NAME = "waitress"  # the Server header: no version (to look up flaws for) after the name


def server_options(args: argparse.Namespace) -> dict[str, Any]:
    """waitress's settings for these command-line arguments."""
    options: dict[str, Any] = {
        "host": args.host,
        "port": args.port,
        "threads": args.threads,
        "ident": SERVER_NAME,
    }
    if getattr(args, "https", False):
        options["url_scheme"] = "https"
    if getattr(args, "proxy", None):
        options.update(
            trusted_proxy=args.proxy,
            trusted_proxy_count=1,
            trusted_proxy_headers={"x-forwarded-for", "x-forwarded-proto", "x-forwarded-host"},
            clear_untrusted_proxy_headers=True,
        )
    return options


# Connections, sized for a LAN with no proxy in front (``run.sh --host 0.0.0.0``). An idle
# connection costs waitress a socket and a few KB, no thread, so the limit is set far above
# what a room of phones opens (each keeps a few: its page's requests, its event stream) rather
# than near it: at 204, 260 idle connections that trickled a byte now and then kept every other
# phone out. Idle connections (no request in progress: a stream is never idle) close after
# CHANNEL_TIMEOUT_S of silence, checked every CLEANUP_INTERVAL_S; a request's headers must come
# within 30 s, and one address holds at most 64 connections (``webapp.connections``). Against
# someone with many addresses on the network, put a reverse proxy in front (README;
# docs/choices/webapp.md, "Hostile input").
CONNECTION_LIMIT = 1000
CHANNEL_TIMEOUT_S = 30
CLEANUP_INTERVAL_S = 5


def stream_threads(args: argparse.Namespace, app: Any) -> dict[str, Any]:
    """waitress answers each request on one of its threads, and an open live page's event
    stream (``webapp.events``) keeps its thread: ``EVENT_STREAMS`` more threads than
    ``--threads``, so ordinary requests always find a free one, and room for their
    connections (``CONNECTION_LIMIT``). waitress keeps reading a connection whose request is
    being answered (``channel_request_lookahead``): that is how it sees a stream's client hang
    up, and the stream then frees its place at once."""
    streams = int(app.config["EVENT_STREAMS"])
    return {
        "threads": args.threads + streams,
        "connection_limit": max(CONNECTION_LIMIT, args.threads + streams + 100),
        "channel_timeout": CHANNEL_TIMEOUT_S,
        "cleanup_interval": CLEANUP_INTERVAL_S,
        "channel_request_lookahead": 1,
    }


def guard_connections(server: Any, args: argparse.Namespace) -> None:
    """A request's headers within 30 s, and at most 64 connections from one address unless a
    proxy sends them all (``webapp.connections``)."""
    from webapp.connections import PER_ADDRESS, guard

    guard(server, None if getattr(args, "proxy", None) else PER_ADDRESS)


def enough_files(connections: int) -> None:
    """Raise this process's open-file limit (soft, up to the hard one) so that ``connections``
    sockets, the database's files and the models fit: many systems start at 1024."""
    try:
        import resource
    except ImportError:  # not Unix
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = connections + 256
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


M_ARENA_MAX = -8  # mallopt(3), <malloc.h>
MALLOC_ARENAS = 2


def cap_malloc_arenas() -> bool:
    """Before the server's threads start: at most ``MALLOC_ARENAS`` glibc malloc arenas, as
    ``MALLOC_ARENA_MAX=2`` in the environment would (that setting, when given, wins: this does
    nothing). glibc gives threads that allocate at once arenas of their own, up to 8 per core,
    and a freed photo's memory stays in its arena: with waitress's 104 threads the server held
    ~300 MB more after each 7000 x 7000 PNG (2.5 GB after 8, 6 GB after a flood). Photos are
    decoded on one thread of their own and the freed memory handed back
    (``webapp.photos.on_photo_thread``); the cap bounds what every other thread's arena
    keeps. Set here, not by re-running the command with the variable or in run.sh: it holds
    however the server is started, and the call is made before any other thread exists. glibc
    only (Linux); elsewhere nothing. True when the cap was set."""
    import ctypes
    import os

    if "MALLOC_ARENA_MAX" in os.environ:
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError):  # not glibc
        return False
    return bool(mallopt(M_ARENA_MAX, MALLOC_ARENAS))


def _serve(args: argparse.Namespace) -> int:
    from sqlalchemy.exc import OperationalError
    from waitress.server import create_server  # types-waitress lacks waitress.create_server

    from webapp import ConfigurationError, create_app

    cap_malloc_arenas()
    try:
        https = getattr(args, "https", False) or getattr(args, "tls", False)
        app = create_app({"HTTPS": True} if https else None)
    except ConfigurationError as error:
        print(f"meldcam: {error}", file=sys.stderr)
        return 2
    except OperationalError as error:  # the database is down or the URL is wrong
        print(f"meldcam: cannot open the database: {error.orig}", file=sys.stderr)
        return 2
    # waitress cuts a body over 4x the app's upload limit before spooling it all to disk (its own
    # limit is 1 GB); up to there the app answers a clear 413
    limit = 4 * int(app.config["MAX_CONTENT_LENGTH"])
    public, front = args, None
    if getattr(args, "tls", False):  # HTTPS here, the app behind it on the loopback
        from webapp import tls

        if args.processes > 1:
            print("meldcam: --tls serves with one process", file=sys.stderr)
            return 2
        lan = lan_address() if args.host in {"0.0.0.0", "::", ""} else None
        try:
            front, args = tls.front(args, app.instance_path, lan)
        except OSError as error:
            print(f"meldcam: cannot listen on {args.host}:{args.port}: {error}", file=sys.stderr)
            return 2
    options = {**server_options(args), **stream_threads(args, app)}
    enough_files(int(options["connection_limit"]) * max(1, args.processes))
    if args.processes > 1:
        return _serve_processes(args, app, options, limit)
    try:
        server = create_server(app, **options, max_request_body_size=limit)
    except OSError as error:
        print(f"meldcam: cannot listen on {args.host}:{args.port}: {error}", file=sys.stderr)
        return 2
    guard_connections(server, args)
    # one host and port: a TcpWSGIServer, not the MultiSocketServer of several; its
    # effective_port (set once bound) is missing from types-waitress
    port = int(server.effective_port)  # type: ignore[union-attr]
    if front is not None:
        front.start(port)
        port = front.port
    own_hosts(app, public, port)
    settle(app)
    _announce(public, port)
    try:
        _run(app, server)
    finally:
        server.close()
        if front is not None:
            front.close()
    return 0


def public_url(text: str) -> str:
    """``--public-url``: http(s)://host[:port], nothing after."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(text.strip())
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError:
        parts = None
    if (
        parts is None
        or parts.scheme not in {"http", "https"}
        or not parts.hostname
        or parts.path not in {"", "/"}
        or parts.query
        or parts.fragment
        or parts.username
    ):
        raise argparse.ArgumentTypeError(f"not an http(s)://host[:port] address: {text!r}")
    return f"{parts.scheme}://{parts.netloc}"


def own_hosts(app: Any, args: argparse.Namespace, port: int) -> None:
    """The names links may be built from (``webapp.hosts``): ``--public-url``, else where the
    server listens (with ``--proxy``, the proxy's ``X-Forwarded-Host``)."""
    from webapp.hosts import served_hosts

    if getattr(args, "public_url", None):
        app.config["PUBLIC_URL"] = args.public_url
    if not app.config["PUBLIC_URL"]:
        lan = lan_address() if args.host in {"0.0.0.0", "::", ""} else None
        app.config.update(served_hosts(args.host, port, lan, bool(getattr(args, "proxy", None))))


def _announce(args: argparse.Namespace, port: int, detail: str = "") -> None:
    for url in urls(args.host, port, "https" if getattr(args, "tls", False) else "http"):
        print(f"meldcam: serving on {url}{detail}", flush=True)
    if args.host in {"127.0.0.1", "localhost"}:
        print("meldcam: for phones on the LAN, run with --host 0.0.0.0", flush=True)


def _run(app: Any, server: Any) -> None:
    """Serve until interrupted, the tile reader loading in the background meanwhile."""
    if not app.config["REDIS_URL"]:  # with recognition workers, they hold the models
        threading.Thread(target=_warm_recogniser, args=(app,), daemon=True).start()
    with contextlib.suppress(KeyboardInterrupt):
        server.run()


def _serve_processes(
    args: argparse.Namespace, app: Any, options: dict[str, Any], limit: int
) -> int:
    """``--processes N``: N server processes (forked, Linux) accepting on one listening socket.
    Whichever process is free takes the next connection, so a request does not wait while
    another process is busy (a photo being read, or its interpreter's lock held by other
    threads); photos take their turns across the processes as within one
    (``webapp.photos.share_turns``). Games and events live in the database, so every
    process serves every game. Rate-limit counts in memory are per process, so each process
    allows 1/N of each limit (``split_limits``) unless ``MELDCAM_RATELIMIT_STORAGE_URI`` shares
    them (as with several nodes: docs/deploy.md)."""
    import os
    import signal

    from waitress.server import create_server  # types-waitress lacks waitress.create_server

    from webapp.photos import share_turns
    from webapp.throttle import split_limits

    try:
        listener = socket.create_server(
            (args.host, args.port),
            family=socket.AF_INET6 if ":" in args.host else socket.AF_INET,
            backlog=1024,
        )
    except OSError as error:
        print(f"meldcam: cannot listen on {args.host}:{args.port}: {error}", file=sys.stderr)
        return 2
    options = {k: v for k, v in options.items() if k not in {"host", "port"}}
    own_hosts(app, args, int(listener.getsockname()[1]))
    split_limits(app, args.processes)
    share_turns(app)
    settle(app)  # once, before the fork: the children share what it compiled and froze
    children: list[int] = []
    parent = os.getpid()
    for _ in range(args.processes):
        pid = os.fork()
        if pid == 0:  # a server process: its own connections, threads and event hub
            _die_with_parent(parent)
            signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
            from webapp.db import EXTENSION_KEY

            app.extensions[EXTENSION_KEY].kw["bind"].dispose(close=False)  # the parent's pool
            server = create_server(app, sockets=[listener], **options, max_request_body_size=limit)
            guard_connections(server, args)
            try:
                _run(app, server)
            finally:
                os._exit(0)
        children.append(pid)
    _announce(args, int(listener.getsockname()[1]), f" ({args.processes} processes)")

    def stop(*_: Any) -> None:
        for child in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGTERM)

    signal.signal(signal.SIGTERM, lambda *_: stop())
    try:
        while children:  # a process that dies takes the others down: one exit, one status
            pid, _status = os.wait()
            if pid in children:
                children.remove(pid)
                stop()
    except KeyboardInterrupt:
        stop()
        for child in children:
            os.waitpid(child, 0)
    return 0


PR_SET_PDEATHSIG = 1  # prctl(2), <linux/prctl.h>


def _die_with_parent(parent: int) -> None:
    """In a forked server process: have the kernel kill it when the parent dies, however it
    dies (``kill -9`` runs no handler to stop the children, which then kept the port and
    answered, and the next ``meldcam serve`` found the address in use). SIGKILL: with the
    parent gone there is no one to report to, and it cannot wait on a busy interpreter. A
    parent that died before the call is seen as a new parent process id. Linux only
    (``prctl``); elsewhere nothing changes."""
    import ctypes
    import os
    import signal

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (AttributeError, OSError):  # not Linux
        return
    if prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
        return
    if os.getppid() != parent:  # the parent died between the fork and the call
        os._exit(0)


def _database_engine() -> Any:
    """The engine for the app's configured database (as ``meldcam serve`` would open it)."""
    from webapp import configured_app
    from webapp.db import make_engine

    app = configured_app()
    return make_engine(app.config["DATABASE_URL"]), app


def _db(args: argparse.Namespace) -> int:
    from pathlib import Path

    from webapp import schema

    engine, app = _database_engine()
    if args.action == "upgrade":
        schema.upgrade(engine, Path(app.instance_path) / "photos")
    if args.action == "revision":
        if not args.message:
            print("meldcam: db revision needs -m 'what the migration changes'", file=sys.stderr)
            return 2
        for path in schema.new_revision(args.message, engine):
            print(f"meldcam: wrote {path}: check it, then commit it", file=sys.stderr)
    with engine.connect() as connection:
        found = sorted(schema.current(connection))
    print(json.dumps({"database": engine.url.render_as_string(), "revision": found}))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    serve = subparsers.add_parser("serve", help="serve the web app (waitress)")
    serve.add_argument("--host", default="127.0.0.1", help="0.0.0.0 for phones on the LAN")
    serve.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    serve.add_argument("--threads", type=int, default=4, help="waitress worker threads")
    serve.add_argument(
        "--processes",
        type=int,
        default=1,
        help="server processes sharing the port (Linux): one per core answers steadily under load",
    )
    serve.add_argument(
        "--https", action="store_true", help="reached over HTTPS: Secure cookies, https links"
    )
    serve.add_argument(
        "--tls",
        action="store_true",
        help="HTTPS here, with a self-signed certificate made on first use (phones' cameras)",
    )
    serve.add_argument(
        "--proxy", metavar="ADDRESS", help="a reverse proxy's address whose X-Forwarded-* to trust"
    )
    serve.add_argument(
        "--public-url",
        metavar="URL",
        type=public_url,
        help="the address players use (https://scores.example.org): every link names it",
    )
    serve.set_defaults(handler=_serve)
    database = subparsers.add_parser(
        "db",
        help="the database schema: upgrade (what every start does too), current, revision",
        description="Database schema migrations (Alembic) for MELDCAM_DATABASE_URL, or the "
        "instance folder's SQLite database. See docs/deploy.md.",
    )
    database.add_argument("action", choices=("upgrade", "current", "revision"))
    database.add_argument("-m", "--message", help="revision: what the new migration changes")
    database.set_defaults(handler=_db)
