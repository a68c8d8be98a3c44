"""Every phone at the table (issue 27), on the server: seat links and their rights, racks sent
from the seats' phones, and the games' event stream (a real threaded server, read as a browser's
EventSource reads it). The pages are driven in chromium by ``test_live_phones.py``."""

from __future__ import annotations

import base64
import http.client
import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from webapp import create_app, events
from webapp.events import hub_of

ON_POSTGRESQL = True  # the seats, racks and change log on PostgreSQL too (tests/webapp/conftest.py)
HAND = {"winner": "Cy", "racks": {"Ana": ["red-5"], "Ben": ["blue-9", "blue-10"], "Cy": []}}


@pytest.fixture
def game(client: FlaskClient) -> dict[str, Any]:
    made = client.post("/api/games", json={"game": "rummikub", "players": ["Ana", "Ben", "Cy"]})
    assert made.status_code == 201
    game = dict(made.json)
    seats = client.get(
        f"/api/games/{game['id']}/seats", headers={"X-Edit-Token": game["edit_token"]}
    )
    assert seats.status_code == 200
    game["seat_links"] = [seat["link"] for seat in seats.json]
    game["seat_tokens"] = [link.rsplit("/", 1)[1] for link in game["seat_links"]]
    return game


def seat(token: str) -> dict[str, str]:
    return {"X-Seat-Token": token}


def test_seat_links_are_unguessable_and_differ_per_seat(game: dict[str, Any]) -> None:
    tokens = game["seat_tokens"]
    assert len(set(tokens)) == 3
    for token in tokens:
        assert len(base64.urlsafe_b64decode(token + "==")) * 8 >= 96
    assert all(f"/g/{game['id']}/join/" in link for link in game["seat_links"])


def test_a_seat_link_is_refused_save_undo_edit_and_other_seats_racks(
    client: FlaskClient, game: dict[str, Any]
) -> None:
    gid, ana = game["id"], game["seat_tokens"][0]
    host = {"X-Edit-Token": game["edit_token"]}
    assert client.post(f"/api/games/{gid}/hands", json=HAND, headers=host).status_code == 201
    refusals = {
        "save": client.post(f"/api/games/{gid}/hands", json=HAND, headers=seat(ana)),
        "edit": client.put(f"/api/games/{gid}/hands/1", json=HAND, headers=seat(ana)),
        "undo": client.delete(f"/api/games/{gid}/hands/last", headers=seat(ana)),
        "other seat's rack": client.put(
            f"/api/games/{gid}/racks/1", json={"hand": 2, "pieces": ["red-1"]}, headers=seat(ana)
        ),
        "revoke": client.post(f"/api/games/{gid}/seats/1/revoke", headers=seat(ana)),
        "seat links": client.get(f"/api/games/{gid}/seats", headers=seat(ana)),
    }
    for what, answer in refusals.items():
        assert answer.status_code == 403, (what, answer.json)
        assert answer.json["error"], what
    own = client.put(
        f"/api/games/{gid}/racks/0", json={"hand": 2, "pieces": ["red-1"]}, headers=seat(ana)
    )
    assert own.status_code == 200, own.json
    assert len(client.get(f"/api/games/{gid}").json["hands"]) == 1  # nothing else changed


def test_a_seated_browser_gets_no_edit_rights_on_the_pages(
    client: FlaskClient, app: Flask, game: dict[str, Any], csrf
) -> None:
    gid = game["id"]
    phone = app.test_client()
    assert phone.get(game["seat_links"][0]).status_code == 302
    page = phone.get(f"/g/{gid}").get_data(as_text=True)
    assert 'id="my-rack"' in page and game["edit_token"] not in page
    assert 'id="edit-link"' not in page and 'id="phones"' not in page
    assert game["seat_tokens"][1] not in page  # nor another seat's link
    token = csrf(phone, "/")
    assert phone.get(f"/g/{gid}/hand").status_code == 403
    assert phone.post(f"/g/{gid}/undo", data={"csrf_token": token}).status_code == 403
    form = {"csrf_token": token, "hand": json.dumps(HAND)}
    assert phone.post(f"/g/{gid}/hands", data=form).status_code == 403
    assert phone.post(f"/g/{gid}/seats/1/revoke", data={"csrf_token": token}).status_code == 403


def test_a_revoked_seat_is_refused_at_once(
    client: FlaskClient, app: Flask, game: dict[str, Any]
) -> None:
    gid, ana = game["id"], game["seat_tokens"][0]
    phone = app.test_client()
    assert phone.get(game["seat_links"][0]).status_code == 302
    revoked = client.post(
        f"/api/games/{gid}/seats/0/revoke", headers={"X-Edit-Token": game["edit_token"]}
    )
    assert revoked.status_code == 200
    assert revoked.json["link"] != game["seat_links"][0]
    rack = {"hand": 1, "pieces": ["red-1"]}
    answer = client.put(f"/api/games/{gid}/racks/0", json=rack, headers=seat(ana))
    assert answer.status_code == 403 and "new one" in answer.json["error"]
    assert phone.get(game["seat_links"][0]).status_code == 403
    page = phone.get(f"/g/{gid}").get_data(as_text=True)
    assert 'id="my-rack"' not in page and 'id="seat-revoked"' in page
    new_token = revoked.json["link"].rsplit("/", 1)[1]
    again = client.put(f"/api/games/{gid}/racks/0", json=rack, headers=seat(new_token))
    assert again.status_code == 200


def test_racks_for_the_hand_being_scored_only_and_sent_once(
    client: FlaskClient, game: dict[str, Any]
) -> None:
    gid, ben = game["id"], game["seat_tokens"][1]
    url = f"/api/games/{gid}/racks/1"
    stale = client.put(url, json={"hand": 2, "pieces": ["red-1"]}, headers=seat(ben))
    assert stale.status_code == 409 and "hand 1" in stale.json["error"]
    wrong = client.put(url, json={"hand": 1, "pieces": ["green-1"]}, headers=seat(ben))
    assert wrong.status_code == 400
    key = {**seat(ben), "Idempotency-Key": "rack-of-ben-hand-1"}
    first = client.put(url, json={"hand": 1, "pieces": ["blue-9", "blue-10"]}, headers=key)
    again = client.put(url, json={"hand": 1, "pieces": ["blue-9", "blue-10"]}, headers=key)
    assert first.status_code == again.status_code == 200
    assert again.headers.get("Idempotent-Replayed") == "true"
    racks = client.get(f"/api/games/{gid}/racks").json
    assert racks["hand"] == 1
    assert [s["rack"]["pieces"] if s["rack"] else None for s in racks["seats"]] == [
        None,
        ["blue-9", "blue-10"],
        None,
    ]
    host = {"X-Edit-Token": game["edit_token"]}
    assert client.post(f"/api/games/{gid}/hands", json=HAND, headers=host).status_code == 201
    after = client.get(f"/api/games/{gid}/racks").json
    assert after["hand"] == 2 and all(s["rack"] is None for s in after["seats"])


def test_the_host_page_shows_a_qr_code_per_seat(client: FlaskClient, game: dict[str, Any]) -> None:
    assert client.get(game["links"]["edit"]).status_code == 302
    page = client.get(f"/g/{game['id']}").get_data(as_text=True)
    assert len(re.findall(r'<svg [^>]*class="qr"', page)) == 3
    for link in game["seat_links"]:
        assert link in page
    panel = re.search(r'<section class="card" id="phones">.*?</section>', page, re.S)
    assert panel and "style=" not in panel[0]  # the page's CSP allows no inline style


# -- the event stream, on a real threaded server ------------------------------------------------


def start_node(tmp_path: Path, database_url: str | None, **settings: Any) -> tuple[str, Flask, Any]:
    """One node: an app on the database (SQLite in ``tmp_path`` or PostgreSQL) behind a threaded
    server; several started on one database serve the same games, as nodes do."""
    from werkzeug.serving import make_server

    config: dict[str, Any] = {
        "INSTANCE_PATH": str(tmp_path / "live"),
        "RATELIMIT_ENABLED": False,
        "EVENT_STREAMS": 3,
        "SECRET_KEY": "the same secret on every node",
    }
    if database_url:
        config["DATABASE_URL"] = database_url
    app = create_app({**config, **settings})
    http_server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=http_server.serve_forever, daemon=True).start()
    return f"127.0.0.1:{http_server.server_port}", app, http_server


def stop_node(app: Flask, http_server: Any) -> None:
    """Stop the node's hub first: a stream the test closed is seen only at its next write, and
    until then the hub would poll a database the next test has dropped."""
    hub_of(app).stop()
    http_server.shutdown()


@pytest.fixture
def nodes(tmp_path: Path, database_url: str | None) -> Iterator[list[tuple[str, Flask]]]:
    """Two nodes on one database."""
    started = [start_node(tmp_path, database_url) for _ in range(2)]
    try:
        yield [(host, app) for host, app, _http in started]
    finally:
        for _host, app, http_server in started:
            stop_node(app, http_server)


@pytest.fixture
def server(nodes: list[tuple[str, Flask]]) -> tuple[str, Flask]:
    return nodes[0]


def call(host: str, method: str, path: str, body: Any = None, headers: Any = None) -> Any:
    connection = http.client.HTTPConnection(host, timeout=10)
    sent = {"Content-Type": "application/json", **(headers or {})}
    connection.request(method, path, None if body is None else json.dumps(body), sent)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    assert response.status < 300, (response.status, data)
    return json.loads(data)


class EventReader:
    """Reads a ``text/event-stream`` as EventSource does: events end at a blank line."""

    def __init__(self, host: str, path: str, last_event_id: str | None = None) -> None:
        self.connection = http.client.HTTPConnection(host, timeout=10)
        headers = {"Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        self.connection.request("GET", path, headers=headers)
        self.socket = self.connection.sock  # the response keeps reading it after this
        self.response = self.connection.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("Content-Type", "").startswith("text/event-stream")

    def next_event(self, timeout: float) -> dict[str, Any]:
        """The next event (its id and data); comments and the retry line are skipped."""
        self.socket.settimeout(timeout)  # type: ignore[union-attr]
        fields: dict[str, str] = {}
        while True:
            line = self.response.fp.readline().decode().rstrip("\n")
            if line == "":
                if "data" in fields:
                    return {"id": fields.get("id"), **json.loads(fields["data"])}
                fields = {}
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields[name] = value.lstrip(" ")

    def close(self) -> None:
        self.response.close()
        self.connection.close()


@pytest.mark.servers
def test_events_arrive_within_a_second_and_again_after_a_reconnect(
    server: tuple[str, Flask],
) -> None:
    host, _app = server
    game = call(host, "POST", "/api/games", {"game": "rummikub", "players": ["Ana", "Ben", "Cy"]})
    gid, edit = game["id"], {"X-Edit-Token": game["edit_token"]}
    stream = EventReader(host, f"/api/games/{gid}/events")
    time.sleep(0.3)  # the stream is open and waiting
    started = time.monotonic()
    call(host, "POST", f"/api/games/{gid}/hands", HAND, edit)
    event = stream.next_event(timeout=1.0)
    took = time.monotonic() - started
    assert took < 1.0, took
    assert event["kind"] == "hand-added" and event["hand"] == 1
    assert event["id"] == str(event["version"])
    last = event["id"]
    stream.close()
    # while no stream is open: a hand edited and one more saved
    call(host, "PUT", f"/api/games/{gid}/hands/1", HAND, edit)
    call(host, "POST", f"/api/games/{gid}/hands", HAND, edit)
    stream = EventReader(host, f"/api/games/{gid}/events", last_event_id=last)
    missed = [stream.next_event(timeout=1.0) for _ in range(2)]
    assert [(e["kind"], e["hand"]) for e in missed] == [("hand-edited", 1), ("hand-added", 2)]
    assert [int(e["id"]) for e in missed] == [int(last) + 1, int(last) + 2]
    time.sleep(0.3)
    started = time.monotonic()
    call(host, "DELETE", f"/api/games/{gid}/hands/last", None, edit)
    event = stream.next_event(timeout=1.0)
    assert time.monotonic() - started < 1.0
    assert event["kind"] == "hand-undone" and int(event["id"]) == int(last) + 3
    stream.close()


@pytest.mark.servers
def test_a_rack_sent_and_a_seat_revoked_are_events_too(server: tuple[str, Flask]) -> None:
    host, _app = server
    game = call(host, "POST", "/api/games", {"game": "rummikub", "players": ["Ana", "Ben"]})
    gid, edit = game["id"], {"X-Edit-Token": game["edit_token"]}
    links = call(host, "GET", f"/api/games/{gid}/seats", None, edit)
    stream = EventReader(host, f"/api/games/{gid}/events?since=0")
    token = links[1]["link"].rsplit("/", 1)[1]
    call(host, "PUT", f"/api/games/{gid}/racks/1", {"hand": 1, "pieces": ["red-3"]}, seat(token))
    call(host, "POST", f"/api/games/{gid}/seats/1/revoke", None, edit)
    kinds = [stream.next_event(timeout=1.0) for _ in range(2)]
    assert [(e["kind"], e["seat"]) for e in kinds] == [("rack", 1), ("seat-revoked", 1)]
    stream.close()


@pytest.mark.servers
def test_streams_past_the_cap_are_turned_away_with_retry_after(server: tuple[str, Flask]) -> None:
    host, _app = server
    game = call(host, "POST", "/api/games", {"game": "rummikub", "players": ["Ana", "Ben"]})
    path = f"/api/games/{game['id']}/events"
    open_streams = [EventReader(host, path) for _ in range(3)]  # EVENT_STREAMS = 3
    connection = http.client.HTTPConnection(host, timeout=10)
    connection.request("GET", path)
    refused = connection.getresponse()
    assert refused.status == 503 and refused.getheader("Retry-After")
    assert "error" in json.loads(refused.read())
    for reader in open_streams:
        reader.close()
    bad = http.client.HTTPConnection(host, timeout=10)
    bad.request("GET", path, headers={"Last-Event-ID": "soon"})
    assert bad.getresponse().status == 400
    missing = http.client.HTTPConnection(host, timeout=10)
    missing.request("GET", "/api/games/no-such-game/events")
    assert missing.getresponse().status == 404


@pytest.mark.servers
def test_two_phones_sending_at_once_store_one_rack_each(server: tuple[str, Flask]) -> None:
    """The page opened twice on one phone, and two phones, all sending at the same moment: one
    rack per seat is kept, every send answered 200, each change its own version."""
    host, _app = server
    game = call(host, "POST", "/api/games", {"game": "rummikub", "players": ["Ana", "Ben", "Cy"]})
    gid, edit = game["id"], {"X-Edit-Token": game["edit_token"]}
    tokens = [
        s["link"].rsplit("/", 1)[1]
        for s in call(host, "GET", f"/api/games/{gid}/seats", None, edit)
    ]
    sends = [(0, ["red-1"]), (0, ["red-1"]), (1, ["blue-2"]), (1, ["blue-2"]), (0, ["red-1"])]
    answers: list[Any] = [None] * len(sends)
    start = threading.Barrier(len(sends))

    def send(index: int) -> None:
        seat_index, pieces = sends[index]
        start.wait()
        answers[index] = call(
            host, "PUT", f"/api/games/{gid}/racks/{seat_index}", {"hand": 1, "pieces": pieces},
            seat(tokens[seat_index]),
        )  # fmt: skip

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(sends))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(a["version"] for a in answers) == list(range(1, len(sends) + 1))
    racks = call(host, "GET", f"/api/games/{gid}/racks")
    assert [s["rack"]["pieces"] if s["rack"] else None for s in racks["seats"]] == [
        ["red-1"],
        ["blue-2"],
        None,
    ]


@pytest.mark.servers
def test_a_hand_saved_through_another_node_reaches_the_stream(
    nodes: list[tuple[str, Flask]],
) -> None:
    """The events come from the database: a page streaming from one node hears of a hand saved
    through the other within a second."""
    (first, _), (second, _) = nodes
    game = call(second, "POST", "/api/games", {"game": "rummikub", "players": ["Ana", "Ben", "Cy"]})
    stream = EventReader(first, f"/api/games/{game['id']}/events")
    time.sleep(0.3)
    started = time.monotonic()
    call(
        second, "POST", f"/api/games/{game['id']}/hands", HAND, {"X-Edit-Token": game["edit_token"]}
    )
    event = stream.next_event(timeout=1.0)
    assert time.monotonic() - started < 1.0
    assert event["kind"] == "hand-added" and event["version"] == 1
    stream.close()


@pytest.mark.servers
def test_one_client_cannot_take_every_stream(tmp_path: Path) -> None:
    host, app, http_server = start_node(
        tmp_path, None, EVENT_STREAMS_PER_CLIENT=2, EVENTS_HEARTBEAT_S=0.5
    )
    try:
        game = call(host, "POST", "/api/games", {"game": "rummikub", "players": ["Ana", "Ben"]})
        path = f"/api/games/{game['id']}/events"
        held = [EventReader(host, path) for _ in range(2)]
        connection = http.client.HTTPConnection(host, timeout=10)
        connection.request("GET", path)
        assert connection.getresponse().status == 503  # this client's share is taken
        held.pop().close()
        deadline = time.monotonic() + 20  # the server sees the closed stream at its next write
        while True:
            retry = http.client.HTTPConnection(host, timeout=10)
            retry.request("GET", path)
            answer = retry.getresponse()
            if answer.status == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert answer.status == 200
        retry.close()
        for reader in held:
            reader.close()
    finally:
        stop_node(app, http_server)


def test_a_stopped_hub_ends_its_thread_and_its_streams(app: Flask) -> None:
    """A node shutting down stops its hub: the polling thread and every open stream end at
    once, not at the stream's next heartbeat."""
    app.config.update(EVENTS_HEARTBEAT_S=60.0, EVENTS_STREAM_S=60.0)
    hub = hub_of(app)
    sent: list[str] = []
    reader = threading.Thread(target=lambda: sent.extend(events.stream(app, "no-such-game", 0)))
    reader.start()
    deadline = time.monotonic() + 5

    def polling_started() -> bool:
        with hub.lock:
            return hub.thread is not None and hub.thread.is_alive()

    while not polling_started() and time.monotonic() < deadline:
        time.sleep(0.05)
    polling = hub.thread
    assert polling is not None and polling.is_alive()
    started = time.monotonic()
    hub.stop()
    reader.join(timeout=5)
    polling.join(timeout=5)
    assert not reader.is_alive() and not polling.is_alive()
    assert time.monotonic() - started < 2.0
    assert len(sent) == 1 and not hub.watched  # the opening comment only, and nothing watched


class CountingCondition(threading.Condition):
    """A condition that counts how often its waiter was woken (each wake is one more wait)."""

    def __init__(self, lock: Any) -> None:
        super().__init__(lock)
        self.waits = 0

    def wait(self, timeout: float | None = None) -> bool:
        self.waits += 1
        return super().wait(timeout)


@pytest.mark.servers
def test_a_change_wakes_only_its_own_games_streams(app: Flask) -> None:
    """Sixty open streams must not all wake for every saved hand: only that game's."""
    hub = hub_of(app)
    with hub.watching("game-a"), hub.watching("game-b"):
        with hub.lock:
            quiet = hub.changed["game-b"] = CountingCondition(hub.lock)
        heard: list[int] = []
        waiter = threading.Thread(target=lambda: heard.append(hub.wait("game-b", 0, 1.0)))
        waiter.start()
        time.sleep(0.1)
        for version in range(1, 6):  # game a changes five times while game b's stream waits
            with hub.lock:
                hub.versions["game-a"] = version
                hub.changed["game-a"].notify_all()
            time.sleep(0.02)
        waiter.join()
        assert heard == [0] and quiet.waits == 1
        with hub.lock:
            hub.versions["game-b"] = 1
            quiet.notify_all()
        assert hub.wait("game-b", 0, 1.0) == 1
    assert not hub.changed and not hub.watched
