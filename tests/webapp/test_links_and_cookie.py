"""Issue 70, item 9: links never name a ``Host`` a request made up (``webapp.hosts``), and the
session cookie, signed but readable, does not show the edit or seat tokens it keeps
(``webapp.sealing``)."""

from __future__ import annotations

import base64
import http.client
import json
import re
import threading
import zlib
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from meldcam.cli import build_parser
from webapp import cli, create_app

SPOOFED = "http://evil.example/"
OWN = "192.0.2.10:8000"  # where the server says it listens (``ALLOWED_HOSTS``)


def app_with(tmp_path: Path, **config: Any) -> Flask:
    return create_app({"INSTANCE_PATH": str(tmp_path), "TESTING": True, **config})


def new_game(client: FlaskClient, base_url: str = "http://localhost/") -> dict[str, Any]:
    answer = client.post(
        "/api/games", json={"game": "rummikub", "players": ["Ana", "Ben"]}, base_url=base_url
    )
    assert answer.status_code == 201, answer.json
    return dict(answer.json)


def links_in(page: str) -> set[str]:
    return set(re.findall(r"https?://[^\s\"'<>]+", page))


# ---- links ----------------------------------------------------------------------------------


def test_api_links_do_not_name_a_spoofed_host(tmp_path: Path):
    client = app_with(tmp_path, ALLOWED_HOSTS=[OWN, "127.0.0.1:8000"]).test_client()
    game = new_game(client, SPOOFED)
    assert set(game["links"]) == {"read", "edit"}
    for link in game["links"].values():
        assert link.startswith(f"http://{OWN}/g/{game['id']}"), link
    kept = new_game(client, "http://127.0.0.1:8000/")  # one of its own names is kept
    assert kept["links"]["read"].startswith("http://127.0.0.1:8000/g/")


def test_the_host_page_and_its_qr_links_do_not_name_a_spoofed_host(tmp_path: Path):
    client = app_with(tmp_path, ALLOWED_HOSTS=[OWN]).test_client()
    game = new_game(client, SPOOFED)
    claimed = client.get(f"/g/{game['id']}/edit/{game['edit_token']}", base_url=SPOOFED)
    assert claimed.status_code == 302
    page = client.get(f"/g/{game['id']}", base_url=SPOOFED).get_data(as_text=True)
    assert "evil.example" not in page
    found = links_in(page)
    assert f"http://{OWN}/g/{game['id']}" in found  # the read link
    assert f"http://{OWN}/g/{game['id']}/edit/{game['edit_token']}" in found
    assert any(f"http://{OWN}/g/{game['id']}/join/" in link for link in found)  # the seats'


def test_any_address_of_this_machine_is_its_own_on_the_served_port(tmp_path: Path):
    client = app_with(tmp_path, ALLOWED_HOSTS=[OWN], ALLOW_OWN_ADDRESSES=True).test_client()
    for host, named in [
        ("127.0.0.1:8000", "127.0.0.1:8000"),  # this machine, the served port
        ("127.0.0.1:9999", OWN),  # another port
        ("192.0.2.99:8000", OWN),  # not this machine
        ("evil.example:8000", OWN),
        ("127.0.0.1:8000@evil.example", OWN),
    ]:
        read = new_game(client, f"http://{host}/")["links"]["read"]
        assert read.startswith(f"http://{named}/"), (host, read)


def test_a_public_url_names_every_link(tmp_path: Path):
    client = app_with(tmp_path, PUBLIC_URL="https://scores.example.org").test_client()
    for base in (SPOOFED, "http://127.0.0.1:8000/"):
        game = new_game(client, base)
        assert game["links"]["read"] == f"https://scores.example.org/g/{game['id']}"


def test_without_a_configured_host_links_follow_the_request(tmp_path: Path):
    """An app made by ``create_app`` alone (nothing set): as before."""
    client = app_with(tmp_path).test_client()
    assert new_game(client, "http://table.lan:8000/")["links"]["read"].startswith(
        "http://table.lan:8000/g/"
    )


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (["--host", "127.0.0.1"], {"ALLOWED_HOSTS": ["127.0.0.1:8123", "localhost:8123"]}),
        (["--host", "0.0.0.0"], {"ALLOW_OWN_ADDRESSES": True}),
        (["--host", "0.0.0.0", "--proxy", "10.0.0.2"], {"ALLOWED_HOSTS": None}),
        (
            ["--public-url", "https://scores.example.org/"],
            {"PUBLIC_URL": "https://scores.example.org"},
        ),
    ],
)
def test_serve_says_which_hosts_are_its_own(
    tmp_path: Path, arguments: list[str], expected: dict[str, Any]
):
    app = app_with(tmp_path)
    cli.own_hosts(app, build_parser().parse_args(["serve", *arguments]), 8123)
    for name, value in expected.items():
        if name == "ALLOWED_HOSTS" and value:
            assert app.config[name][: len(value)] == value
        else:
            assert app.config.get(name) == value
    if "0.0.0.0" in arguments and "--proxy" not in arguments:
        assert "127.0.0.1:8123" in app.config["ALLOWED_HOSTS"]


def test_serve_refuses_a_public_url_that_is_not_one():
    good = build_parser().parse_args(["serve", "--public-url", "http://10.0.0.5:8000"])
    assert good.public_url == "http://10.0.0.5:8000"
    for bad in ("scores.example.org", "ftp://x", "https://x/path", "https://x:port"):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["serve", "--public-url", bad])


def test_a_spoofed_host_through_waitress(tmp_path: Path):
    """``meldcam serve``'s own wiring: waitress on a free port, the app told where it listens."""
    from waitress import create_server

    app = app_with(tmp_path)
    server = create_server(app, host="127.0.0.1", port=0)
    port = int(server.effective_port)  # type: ignore[union-attr]
    cli.own_hosts(app, build_parser().parse_args(["serve", "--host", "127.0.0.1"]), port)
    threading.Thread(target=server.run, daemon=True).start()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        body = json.dumps({"game": "rummikub", "players": ["Ana", "Ben"]})
        connection.request(
            "POST",
            "/api/games",
            body,
            {"Host": "evil.example", "Content-Type": "application/json"},
        )
        answer = json.loads(connection.getresponse().read())
        assert answer["links"]["read"].startswith(f"http://127.0.0.1:{port}/g/")
    finally:
        server.close()


# ---- the session cookie ---------------------------------------------------------------------


def cookie_text(client: FlaskClient) -> str:
    """The session cookie as anyone who sees it can read it: no key needed."""
    cookie = client.get_cookie("session")
    assert cookie is not None
    value = cookie.value
    payload = value.lstrip(".").split(".")[0]
    data = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    return (zlib.decompress(data) if value.startswith(".") else data).decode()


def test_the_edit_token_is_not_readable_in_the_session_cookie(client: FlaskClient, make_game):
    game = make_game()
    token = game["edit_token"]
    client.get(f"/g/{game['id']}/edit/{token}")
    assert game["id"] in cookie_text(client)
    assert token not in cookie_text(client)
    page = client.get(f"/g/{game['id']}").get_data(as_text=True)  # still the host's page
    assert f"/g/{game['id']}/edit/{token}" in page
    assert client.get(f"/g/{game['id']}/hand").status_code == 200  # still allowed to edit
    second = make_game()
    client.get(f"/g/{second['id']}/edit/{second['edit_token']}")
    text = cookie_text(client)
    assert token not in text and second["edit_token"] not in text
    assert "Ana" in client.get("/").get_data(as_text=True)  # the start page's "your games"


def test_a_token_sealed_for_one_game_opens_nothing_for_another(client: FlaskClient, make_game):
    first, second = make_game(), make_game()
    client.get(f"/g/{first['id']}/edit/{first['edit_token']}")
    with client.session_transaction() as session:  # as if the cookie's values were moved
        session["edit"] = {second["id"]: session["edit"][first["id"]]}
    assert client.get(f"/g/{second['id']}/hand").status_code == 403


def test_a_token_kept_plain_before_is_read_and_sealed(client: FlaskClient, make_game):
    game = make_game()
    with client.session_transaction() as session:  # a cookie from before tokens were sealed
        session["edit"] = {game["id"]: game["edit_token"]}
    assert game["edit_token"] in cookie_text(client)
    assert client.get(f"/g/{game['id']}/hand").status_code == 200
    assert game["edit_token"] not in cookie_text(client)


def test_the_seat_token_is_not_readable_in_the_session_cookie(client: FlaskClient, make_game):
    game = make_game()
    seats = client.get(
        f"/api/games/{game['id']}/seats", headers={"X-Edit-Token": game["edit_token"]}
    ).json
    link = seats[1]["link"]
    token = link.rsplit("/", 1)[1]
    phone = client.application.test_client()
    assert phone.get(link).status_code == 302
    assert token not in cookie_text(phone)
    page = phone.get(f"/g/{game['id']}").get_data(as_text=True)
    assert token in page  # the seat's page still knows it (its rack is sent with it)
