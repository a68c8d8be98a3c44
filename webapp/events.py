"""Live games: every change of a game is a numbered event in the database, streamed to the open
pages as Server-Sent Events (``GET /api/games/<id>/events``).

A write logs its change with ``record(session, game_id, kind, ...)`` in its own transaction:
the game's next version (1, 2, 3... per game) in ``game_events``, kept or lost with the write.
The events come from the database, not from this process's memory, so with several nodes a
page connected to one node hears of a hand saved through another.

Each process has one ``Hub``: a thread that, while streams are open, reads the newest version
of every watched game in one query every ``EVENTS_POLL_S`` (0.2 s) and wakes the streams of
the games that changed; each stream then reads its new events (a short session, never held
while it waits). A stream holds a server thread while it is open (waitress answers each
request on one thread), so at most ``EVENT_STREAMS`` are open at once per process (and
``EVENT_STREAMS_PER_CLIENT`` per client address) and ``meldcam serve`` adds that many threads
to those for other requests; past a cap a stream is refused with 503 and ``Retry-After`` (the
page tries again). A client that hangs up frees its place and thread at once: waitress keeps
reading a stream's connection (``channel_request_lookahead``, set by ``meldcam serve``) and so
sees it close, and the hub checks each open stream's ``waitress.client_disconnected`` at every
poll and wakes the streams whose client is gone (before, a place stayed taken until the next
heartbeat: 600 connect-and-hang-up requests kept a phone out for 13 s). A stream sends a
comment every ``EVENTS_HEARTBEAT_S`` (under a server that cannot tell a hang-up, a phone that
went away frees its thread at the next one) and ends after ``EVENTS_STREAM_S``; the browser's
EventSource reconnects by itself with ``Last-Event-ID`` (or the page with ``?since=``), and the
events it missed come first.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from flask import Flask
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from webapp.db import Game, GameEvent, reading

EXTENSION_KEY = "meldcam_events"  # settings EVENTS_* and EVENT_STREAMS*: webapp.settings
RETRY_MS = 1000  # how soon the browser's EventSource reconnects after a stream ends
IN_CHUNK = 500  # game ids per poll query
IDLE_STOP_S = 30.0  # the hub's thread ends after this long without a stream


def lock_game(session: Session, game_id: str) -> None:
    """Make the writes to one game take turns from here to the commit: a write to the game's
    row takes its row lock on PostgreSQL (SQLite's write transactions hold the database's
    write lock from their start: ``webapp.db``), so what is read next is the newest."""
    session.execute(update(Game).where(Game.id == game_id).values(game=Game.game))


def record(session: Session, game_id: str, kind: str, **detail: Any) -> int:
    """Log a change of ``game_id`` (``kind``: hand-added, hand-edited, hand-undone, rack,
    seat-joined, seat-revoked) in the caller's transaction; returns the game's new version.
    Two writes to one game number their changes one after the other, never both the same."""
    lock_game(session, game_id)
    newest = session.scalar(
        select(func.coalesce(func.max(GameEvent.version), 0)).where(GameEvent.game_id == game_id)
    )
    version = int(newest or 0) + 1
    session.add(GameEvent(game_id=game_id, version=version, kind=kind, detail=detail))
    session.flush()
    return version


def latest_version(session: Session, game_id: str) -> int:
    newest = session.scalar(select(func.max(GameEvent.version)).where(GameEvent.game_id == game_id))
    return int(newest or 0)


def events_after(session: Session, game_id: str, after: int, limit: int = 200) -> list[GameEvent]:
    return list(
        session.scalars(
            select(GameEvent)
            .where(GameEvent.game_id == game_id, GameEvent.version > after)
            .order_by(GameEvent.version)
            .limit(limit)
        )
    )


def event_text(event: GameEvent) -> str:
    """One Server-Sent Event: ``id`` is the version, so a reconnect says where it was."""
    data = {"version": event.version, "kind": event.kind, **(event.detail or {})}
    return f"id: {event.version}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class Hub:
    """This process's watcher of the games that have open streams (see the module's text)."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.lock = threading.Lock()
        # one condition per watched game, all on ``lock``: a change wakes only that game's
        # streams, not every open stream's thread (a herd that stalled other requests)
        self.changed: dict[str, threading.Condition] = {}
        self.watched: Counter[str] = Counter()
        self.versions: dict[str, int] = {}
        self.thread: threading.Thread | None = None
        self.slots = int(app.config["EVENT_STREAMS"])
        self.per_client = int(app.config["EVENT_STREAMS_PER_CLIENT"])
        self.open: Counter[str] = Counter()  # open streams per client address
        # per watched game, its open streams' "has the client hung up?" (waitress's)
        self.hangups: dict[str, list[Callable[[], bool]]] = {}
        self.polls = 0  # how many times the database was asked (the load benchmark reads it)
        self.stopped = threading.Event()

    def stop(self) -> None:
        """End the hub's thread and every open stream at its next wake-up (a node shutting
        down: a thread left polling a database that is gone logs an error a second)."""
        self.stopped.set()
        with self.lock:
            for changed in self.changed.values():
                changed.notify_all()

    def admit(self, client: str) -> bool:
        """Take a stream's place for ``client``, or False when the process has no place left
        or this client holds its share (one client cannot take every thread)."""
        with self.lock:
            if sum(self.open.values()) >= self.slots or self.open[client] >= self.per_client:
                return False
            self.open[client] += 1
            return True

    def leave(self, client: str) -> None:
        with self.lock:
            self.open[client] -= 1
            if self.open[client] <= 0:
                del self.open[client]

    @contextmanager
    def watching(self, game_id: str, gone: Callable[[], bool] | None = None) -> Iterator[None]:
        """Watch ``game_id`` for a stream; ``gone`` (waitress's ``client_disconnected``), when
        given, is checked at each poll: a stream whose client hung up is woken at once."""
        with self.lock:
            self.watched[game_id] += 1
            self.changed.setdefault(game_id, threading.Condition(self.lock))
            if gone is not None:
                self.hangups.setdefault(game_id, []).append(gone)
            if not self.stopped.is_set() and (self.thread is None or not self.thread.is_alive()):
                self.thread = threading.Thread(target=self._run, name="meldcam-events", daemon=True)
                self.thread.start()
        try:
            yield
        finally:
            with self.lock:
                if gone is not None:
                    self.hangups[game_id].remove(gone)
                    if not self.hangups[game_id]:
                        del self.hangups[game_id]
                self.watched[game_id] -= 1
                if self.watched[game_id] <= 0:
                    del self.watched[game_id]
                    del self.changed[game_id]
                    self.versions.pop(game_id, None)

    def wait(
        self, game_id: str, after: int, timeout: float, gone: Callable[[], bool] | None = None
    ) -> int:
        """Block until ``game_id`` is past version ``after``, ``timeout`` passes or ``gone()``
        (the client hung up); the newest version known."""
        with self.lock:
            changed = self.changed.get(game_id)
            if changed is not None:  # watched: the caller is inside ``watching(game_id)``
                changed.wait_for(
                    lambda: (
                        self.stopped.is_set()
                        or self.versions.get(game_id, 0) > after
                        or (gone is not None and gone())
                    ),
                    timeout,
                )
            return self.versions.get(game_id, 0)

    def _wake_hung_up(self) -> None:
        """Wake the streams of the games where a client hung up (they end and free their
        place); called with ``lock`` held."""
        for game_id, checks in self.hangups.items():
            if any(check() for check in checks):
                self.changed[game_id].notify_all()

    def _run(self) -> None:
        poll = float(self.app.config["EVENTS_POLL_S"])
        idle_since = time.monotonic()
        while not self.stopped.wait(poll):
            with self.lock:
                self._wake_hung_up()
                games = list(self.watched)
                if not games:
                    if time.monotonic() - idle_since > IDLE_STOP_S:
                        self.thread = None
                        return
                    continue
            idle_since = time.monotonic()
            try:
                found = self._read(games)
            except Exception:  # the database is away: the streams keep their heartbeat
                self.app.logger.exception("live events: the games' versions could not be read")
                self.stopped.wait(1.0)
                continue
            with self.lock:
                for game_id, version in found.items():
                    if game_id in self.watched and version > self.versions.get(game_id, 0):
                        self.versions[game_id] = version
                        self.changed[game_id].notify_all()

    def _read(self, games: list[str]) -> dict[str, int]:
        found: dict[str, int] = {}
        with reading(self.app) as session:
            for start in range(0, len(games), IN_CHUNK):
                chunk = games[start : start + IN_CHUNK]
                rows = session.execute(
                    select(GameEvent.game_id, func.max(GameEvent.version))
                    .where(GameEvent.game_id.in_(chunk))
                    .group_by(GameEvent.game_id)
                )
                found.update({game_id: int(version) for game_id, version in rows})
        self.polls += 1
        return found


def init_events(app: Flask) -> Hub:
    hub = Hub(app)
    app.extensions[EXTENSION_KEY] = hub
    return hub


def hub_of(app: Flask) -> Hub:
    hub: Hub = app.extensions[EXTENSION_KEY]
    return hub


def stream(
    app: Flask, game_id: str, after: int, gone: Callable[[], bool] | None = None
) -> Iterator[str]:
    """The event stream of ``game_id`` from version ``after`` on: the missed events first, then
    each change as the hub sees it, a heartbeat comment when quiet, until ``EVENTS_STREAM_S``
    or, sooner, until ``gone()`` says the client hung up (the hub checks it at each poll)."""
    hub = hub_of(app)
    hung_up = gone or (lambda: False)
    heartbeat = float(app.config["EVENTS_HEARTBEAT_S"])
    deadline = time.monotonic() + float(app.config["EVENTS_STREAM_S"])
    # the padding lets a proxy or browser that buffers the first bytes pass the stream on at once
    yield f"retry: {RETRY_MS}\n: {' ' * 2048}\n\n"
    with hub.watching(game_id, gone):
        while not hung_up():
            with reading(app) as session:
                missed = events_after(session, game_id, after)
            for event in missed:
                yield event_text(event)
                after = event.version
            if not missed:  # a game deleted meanwhile: nothing to read, nothing to wait for
                after = max(after, hub.wait(game_id, after, 0))
            left = deadline - time.monotonic()
            if left <= 0 or hub.stopped.is_set():
                return
            newest = hub.wait(game_id, after, min(heartbeat, left), gone)
            if newest <= after and not hub.stopped.is_set() and not hung_up():
                yield ": still here\n\n"
