"""waitress's connections, held in check for a LAN with no proxy in front (260 idle
connections that trickled a byte now and then kept every other phone out).

``meldcam serve`` sizes waitress for a room of phones (``webapp.cli.stream_threads``: 1,000
connections, idle ones closed after 30 s) and adds two checks waitress has no setting for
(``guard``):

- **A request's headers within ``HEADER_TIMEOUT_S``** (30 s) of its first byte, or the
  connection is closed. waitress's own timeout counts silence only, and a byte every few
  seconds is not silence: a trickled request held its connection for ever. A phone sends its
  headers in one packet; a slow upload's body is not timed (it is bounded by the upload limit).
- **At most ``PER_ADDRESS`` connections (64) from one address**: past that a new one is closed
  at once. A phone opens a handful (its pages' requests, one event stream per open live page),
  so one device cannot take the server's 1,000. Not with ``--proxy``: every player then comes
  from the proxy's address, and the proxy's own limits apply.

Someone with many addresses on the network can still fill the server: where the server is
reachable from a network you do not trust, put a reverse proxy in front (README, "Run it").
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

HEADER_TIMEOUT_S = 30.0
PER_ADDRESS = 64


def _servers(server: Any) -> list[Any]:
    """The listening servers behind what ``waitress.create_server`` returned (several when a
    name resolves to more than one address)."""
    from waitress.server import BaseWSGIServer

    if isinstance(server, BaseWSGIServer):
        return [server]
    return [each for each in server.map.values() if isinstance(each, BaseWSGIServer)]


def guard(server: Any, per_address: int | None, header_timeout: float = HEADER_TIMEOUT_S) -> None:
    """Hold ``server`` (``waitress.create_server``'s) to ``per_address`` connections per
    client address (None: no such limit) and ``header_timeout`` seconds per request's headers,
    checked at waitress's clean-up (every ``cleanup_interval``)."""
    for each in _servers(server):
        each.channel_class = _channel_class(each.channel_class, per_address)
        each.maintenance = _maintenance(each, each.maintenance, header_timeout)


def _channel_class(base: type, per_address: int | None) -> type:
    lock = threading.Lock()
    open_from: Counter[str] = Counter()

    class GuardedChannel(base):
        request_started: float | None = None
        counted: str | None = None

        def __init__(self, server: Any, sock: Any, addr: Any, adj: Any, map: Any = None):
            super().__init__(server, sock, addr, adj, map)
            if per_address is None:
                return
            address = str(addr[0] if isinstance(addr, tuple) else addr)
            with lock:
                open_from[address] += 1
                self.counted = address
                over = open_from[address] > per_address
            if over:
                self.handle_close()

        def del_channel(self, map: Any = None) -> None:
            with lock:
                if self.counted is not None:
                    open_from[self.counted] -= 1
                    if open_from[self.counted] <= 0:
                        del open_from[self.counted]
                    self.counted = None
            super().del_channel(map)

        def received(self, data: bytes) -> bool:
            if self.request is None and data:
                self.request_started = time.monotonic()
            done = bool(super().received(data))
            if self.request is None:
                self.request_started = None
            return done

    return GuardedChannel


def _maintenance(server: Any, original: Any, header_timeout: float) -> Any:
    def maintenance(now: float) -> None:
        original(now)
        cutoff = time.monotonic() - header_timeout
        for channel in list(server.active_channels.values()):
            started = getattr(channel, "request_started", None)
            request = channel.request
            unfinished = request is not None and not request.headers_finished
            if started is not None and started < cutoff and unfinished:
                channel.will_close = True  # headers trickled past the deadline

    return maintenance
