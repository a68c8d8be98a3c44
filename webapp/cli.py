"""``meldcam serve``: the web app on waitress (a production WSGI server), printing its URL."""

from __future__ import annotations

import argparse
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


def urls(host: str, port: int) -> list[str]:
    if host in {"0.0.0.0", "::", ""}:
        found = [f"http://127.0.0.1:{port}/"]
        lan = lan_address()
        if lan:
            found.append(f"http://{lan}:{port}/")
        return found
    shown = f"[{host}]" if ":" in host else host
    return [f"http://{shown}:{port}/"]


def _warm_recogniser(app: Any) -> None:
    """Load the tile reader in the background so the first photo does not wait for it."""
    from webapp import photos

    with app.app_context():
        try:
            photos.get_recogniser("tiles")
        except Exception as error:  # a missing model only means photos must be tapped in
            print(f"meldcam: photo reader not loaded: {error}", file=sys.stderr)


def _serve(args: argparse.Namespace) -> int:
    from waitress import create_server

    from webapp import create_app

    app = create_app()
    try:
        server = create_server(app, host=args.host, port=args.port, threads=args.threads)
    except OSError as error:
        print(f"meldcam: cannot listen on {args.host}:{args.port}: {error}", file=sys.stderr)
        return 2
    port = int(server.effective_port)  # type: ignore[union-attr]
    for url in urls(args.host, port):
        print(f"meldcam: serving on {url}", flush=True)
    if args.host in {"127.0.0.1", "localhost"}:
        print("meldcam: for phones on the LAN, run with --host 0.0.0.0", flush=True)
    threading.Thread(target=_warm_recogniser, args=(app,), daemon=True).start()
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    serve = subparsers.add_parser("serve", help="serve the web app (waitress)")
    serve.add_argument("--host", default="127.0.0.1", help="0.0.0.0 for phones on the LAN")
    serve.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    serve.add_argument("--threads", type=int, default=4, help="waitress worker threads")
    serve.set_defaults(handler=_serve)
