"""Issue 70, items 6 and 8, against a real waitress server set up as ``meldcam serve`` sets it
(``webapp.cli.server_options`` and ``stream_threads``), in a thread of the test:

- an event stream's place is freed as soon as its client hangs up, not at its next heartbeat
  (15 s), so a new phone gets a stream at once after a burst of connect-and-hang-up requests;
- hundreds of idle, trickling connections do not keep an ordinary request out; one address
  holds at most 64 connections, and a request's headers trickled past their deadline lose
  theirs (``webapp.connections``).
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from meldcam.cli import build_parser
from webapp import cli, connections, create_app, events

pytestmark = pytest.mark.servers


def run_until_closed(server: Any) -> None:
    with contextlib.suppress(OSError, ValueError):
        server.run()


@contextlib.contextmanager
def served(app: Flask, *arguments: str, header_timeout: float | None = None) -> Iterator[int]:
    """``app`` on waitress with ``meldcam serve``'s settings for ``arguments``; its port.
    ``header_timeout``: that instead of 30 s, checked every second."""
    from waitress import create_server

    args = build_parser().parse_args(["serve", "--port", "0", *arguments])
    options = {**cli.server_options(args), **cli.stream_threads(args, app), "port": 0}
    if header_timeout is None:
        server = create_server(app, **options)
        cli.guard_connections(server, args)
    else:
        server = create_server(app, **{**options, "cleanup_interval": 1})
        connections.guard(server, connections.PER_ADDRESS, header_timeout)
    threading.Thread(target=run_until_closed, args=(server,), daemon=True).start()
    try:
        yield int(server.effective_port)  # type: ignore[union-attr]
    finally:
        server.close()
        events.hub_of(app).stop()


def new_game(app: Flask) -> str:
    answer = app.test_client().post("/api/games", json={"game": "rummikub", "players": ["A", "B"]})
    assert answer.status_code == 201
    return str(answer.json["id"])


def open_stream(port: int, game_id: str, address: str) -> tuple[socket.socket, bytes]:
    """A raw connection asking for the game's events as ``address`` (through the trusted
    proxy); the socket and the answer's first bytes (its status line at least)."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=10)
    connection.sendall(
        (
            f"GET /api/games/{game_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"X-Forwarded-For: {address}\r\nAccept: text/event-stream\r\n\r\n"
        ).encode()
    )
    return connection, connection.recv(4096)


STREAMS = 6


def all_freed(hub: events.Hub) -> float:
    """Seconds until every stream's place is free again (at most 5)."""
    started = time.monotonic()
    while sum(hub.open.values()) and time.monotonic() - started < 5:
        time.sleep(0.02)
    return time.monotonic() - started


@pytest.fixture
def stream_app(tmp_path: Path) -> Flask:
    return create_app(
        {
            "INSTANCE_PATH": str(tmp_path),
            "EVENT_STREAMS": STREAMS,
            "EVENT_STREAMS_PER_CLIENT": STREAMS,
            "EVENTS_HEARTBEAT_S": 15.0,
        }
    )


def test_a_stream_whose_client_hangs_up_frees_its_place_at_once(stream_app: Flask):
    """Rounds of connect-and-hang-up that take every place; right after each, a phone on
    another address gets a stream (a place used to stay taken until the heartbeat, 15 s)."""
    game_id = new_game(stream_app)
    hub = events.hub_of(stream_app)
    with served(stream_app, "--proxy", "127.0.0.1") as port:
        for round_ in range(3):
            taken = [open_stream(port, game_id, f"192.0.2.{i + 1}") for i in range(STREAMS)]
            assert all(first.startswith(b"HTTP/1.1 200") for _, first in taken), round_
            full, first = open_stream(port, game_id, "198.51.100.7")
            assert first.startswith(b"HTTP/1.1 503")  # every place is taken
            full.close()
            for connection, _ in taken:
                connection.close()  # the phones hang up
            freed_in = all_freed(hub)
            assert freed_in < 1.5, f"round {round_}: the places were freed after {freed_in:.1f} s"
            phone, first = open_stream(port, game_id, "203.0.113.9")
            assert first.startswith(b"HTTP/1.1 200"), first[:40]
            phone.close()
            assert all_freed(hub) < 1.5


def connect_from(address: str, port: int) -> socket.socket:
    """A connection to the server from ``address`` (any of 127.0.0.0/8 on Linux)."""
    return socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(address, 0))


def answers_at_once(port: int) -> bool:
    started = time.monotonic()
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        client.request("GET", "/api/catalogue")
        answer = client.getresponse()
        answer.read()
    finally:
        client.close()
    return answer.status == 200 and time.monotonic() - started < 2


def closed_by_server(connection: socket.socket) -> bool:
    connection.settimeout(0.05)
    try:
        return connection.recv(1) == b""
    except TimeoutError:
        return False
    except ConnectionError:
        return True


def test_hundreds_of_idle_trickling_connections_do_not_keep_others_out(tmp_path: Path):
    """300 connections from 5 addresses that each sent half a request and then a byte now
    and then (more than waitress's old limit of 204): an ordinary request still answers at
    once."""
    app = create_app({"INSTANCE_PATH": str(tmp_path)})
    idle: list[socket.socket] = []
    with served(app, "--host", "127.0.0.1") as port:
        try:
            for i in range(300):
                connection = connect_from(f"127.0.0.{2 + i % 5}", port)
                connection.sendall(f"GET /api/catalogue HTTP/1.1\r\nHost: x\r\nX-{i}: ".encode())
                idle.append(connection)
            for connection in idle:  # the trickle: one more byte each, the request never done
                connection.sendall(b"a")
            assert answers_at_once(port)
            assert not any(closed_by_server(connection) for connection in idle[:10])
        finally:
            for connection in idle:
                connection.close()


def test_one_address_holds_at_most_64_connections(tmp_path: Path):
    app = create_app({"INSTANCE_PATH": str(tmp_path)})
    held: list[socket.socket] = []
    with served(app, "--host", "127.0.0.1") as port:
        try:
            for _ in range(connections.PER_ADDRESS + 16):
                held.append(connect_from("127.0.0.9", port))
                held[-1].sendall(b"GET / HTTP/1.1\r\n")
            time.sleep(0.5)
            closed = [closed_by_server(connection) for connection in held]
            assert closed.count(False) == connections.PER_ADDRESS, closed.count(False)
            assert answers_at_once(port)  # another address is served as ever
        finally:
            for connection in held:
                connection.close()


def test_headers_trickled_past_the_deadline_are_cut_off(tmp_path: Path):
    """A request whose headers are not all in within the deadline loses its connection, however
    often it sends a byte; one that sent nothing yet (a browser's spare connection) is left to
    waitress's idle timeout."""
    app = create_app({"INSTANCE_PATH": str(tmp_path)})
    with served(app, "--host", "127.0.0.1", header_timeout=1.0) as port:
        trickle = connect_from("127.0.0.1", port)
        spare = connect_from("127.0.0.1", port)
        try:
            trickle.sendall(b"GET /api/catalogue HTTP/1.1\r\nHost: x\r\n")
            started = time.monotonic()
            cut = False
            while not cut and time.monotonic() - started < 6:
                with contextlib.suppress(OSError):
                    trickle.sendall(b"X")  # a byte every 0.2 s: never silent
                time.sleep(0.2)
                cut = closed_by_server(trickle)
            assert cut, "a trickled request kept its connection"
            assert not closed_by_server(spare)
        finally:
            trickle.close()
            spare.close()


def test_serve_sizes_connections_for_a_lan(tmp_path: Path):
    app = create_app({"INSTANCE_PATH": str(tmp_path)})
    args = build_parser().parse_args(["serve"])
    options = cli.stream_threads(args, app)
    assert options["connection_limit"] >= 1000
    assert options["channel_timeout"] <= 60  # idle connections do not linger two minutes
    assert options["channel_request_lookahead"] >= 1  # how a hang-up is seen during a stream
