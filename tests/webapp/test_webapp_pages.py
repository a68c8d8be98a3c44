"""Pages, CSRF, edit rights, the app factory's config, security headers and ``meldcam serve``."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import stat
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from webapp import create_app
from webapp.db import Game, Hand, reading
from webapp.pages import chart

HAND = {
    "players": ["Ana", "Ben"],
    "winner": "Ana",
    "racks": {"Ana": [], "Ben": ["red-5", "blue-10"]},
}
ROOT = Path(__file__).resolve().parents[2]


def count(app: Flask, model: type) -> int:
    with app.app_context(), reading() as session:
        return int(session.scalar(select(func.count()).select_from(model)) or 0)


# ---- factory and configuration ---------------------------------------------------------------


def test_secret_key_is_generated_once_into_the_instance_folder(tmp_path: Path):
    first = create_app({"INSTANCE_PATH": str(tmp_path)})
    key_file = tmp_path / "secret_key"
    assert key_file.exists()
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert len(first.config["SECRET_KEY"]) >= 32
    second = create_app({"INSTANCE_PATH": str(tmp_path)})
    assert second.config["SECRET_KEY"] == first.config["SECRET_KEY"]
    given = create_app({"INSTANCE_PATH": str(tmp_path / "other"), "SECRET_KEY": "given"})
    assert given.config["SECRET_KEY"] == "given"
    assert not (tmp_path / "other" / "secret_key").exists()


def test_default_database_is_sqlite_in_wal_mode(tmp_path: Path):
    app = create_app({"INSTANCE_PATH": str(tmp_path)})
    app.test_client().post("/api/games", json={"game": "rummikub", "players": ["A", "B"]})
    database = tmp_path / "meldcam.sqlite3"
    assert database.exists()
    with sqlite3.connect(database) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert connection.execute("SELECT count(*) FROM games").fetchone()[0] == 1


def test_config_from_environment_and_instance_file(tmp_path: Path, monkeypatch):
    other_db = tmp_path / "elsewhere.sqlite3"
    monkeypatch.setenv("MELDCAM_DATABASE_URL", f"sqlite:///{other_db}")
    monkeypatch.setenv("MELDCAM_INSTANCE_PATH", str(tmp_path / "inst"))
    (tmp_path / "inst").mkdir()
    (tmp_path / "inst" / "config.py").write_text("MAX_CONTENT_LENGTH = 12345\n")
    app = create_app()
    assert app.instance_path == str(tmp_path / "inst")
    assert app.config["DATABASE_URL"] == f"sqlite:///{other_db}"
    assert app.config["MAX_CONTENT_LENGTH"] == 12345
    assert other_db.exists()
    overridden = create_app({"MAX_CONTENT_LENGTH": 99})
    assert overridden.config["MAX_CONTENT_LENGTH"] == 99


def test_security_headers_on_pages_and_api(client: FlaskClient):
    for path in ("/", "/api/catalogue", "/nothing"):
        response = client.get(path)
        policy = response.headers["Content-Security-Policy"]
        assert "default-src 'self'" in policy and "script-src 'self'" in policy
        assert "unsafe-inline" not in policy
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["Referrer-Policy"] == "no-referrer"


def test_pages_have_no_inline_scripts_or_styles(form_game, client: FlaskClient):
    game_id = form_game(client)
    for path in ("/", f"/g/{game_id}", f"/g/{game_id}/check", f"/g/{game_id}/hand", "/check"):
        page = client.get(path).get_data(as_text=True)
        for script in re.findall(r"<script([^>]*)>", page):
            assert "src=" in script or 'type="application/json"' in script, (path, script)
        assert " style=" not in page and " onclick=" not in page, path
        external = re.findall(r'(?:src|href)="(https?://(?!localhost/)[^"]*)"', page)
        assert not external, (path, external)  # no CDN


# ---- new game ---------------------------------------------------------------------------------


def test_new_game_page_lists_games_options_and_presets(client: FlaskClient):
    page = client.get("/").get_data(as_text=True)
    assert "Rummikub" in page and "Remik liczbowy" in page and "Gin Rummy" in page
    assert 'name="opt-rummikub-jokers"' in page
    assert 'name="csrf_token"' in page


def test_form_post_without_csrf_is_rejected(app: Flask, client: FlaskClient):
    form = {"game": "rummikub", "player-0": "Ana", "player-1": "Ben"}
    response = client.post("/games", data=form)
    assert response.status_code == 400
    assert "expired" in response.get_data(as_text=True)
    client.get("/")  # a session with a token, but a wrong one sent
    response = client.post("/games", data={**form, "csrf_token": "forged"})
    assert response.status_code == 400
    assert count(app, Game) == 0


def test_new_game_by_form_gives_edit_rights_to_this_browser(
    form_game, app: Flask, client: FlaskClient
):
    game_id = form_game(client, **{"opt-rummikub-target": "150"})
    page = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert "Game started" in page and "to 150 points" in page
    assert 'id="end-hand"' in page and 'id="edit-link"' in page
    edit_link = re.search(r'id="edit-link" href="([^"]+)"', page)
    assert edit_link
    # another phone: read-only until it opens the edit link
    other = app.test_client()
    read_only = other.get(f"/g/{game_id}").get_data(as_text=True)
    assert "Ana" in read_only and 'id="end-hand"' not in read_only and "edit-link" not in read_only
    assert other.get(f"/g/{game_id}/hand").status_code == 403
    claimed = other.get(edit_link.group(1).replace("http://localhost", ""))
    assert claimed.status_code == 302 and claimed.headers["Location"].endswith(f"/g/{game_id}")
    assert other.get(f"/g/{game_id}/hand").status_code == 200
    assert app.test_client().get(f"/g/{game_id}/edit/wrong-token").status_code == 403


def test_new_game_form_errors_are_shown_and_nothing_saved(app: Flask, client: FlaskClient, csrf):
    token = csrf(client)
    response = client.post(
        "/games", data={"csrf_token": token, "game": "rummikub", "player-0": "Ana"}
    )
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert "2 to 4 players" in page and 'value="Ana"' in page
    response = client.post("/games", data={"csrf_token": token, "game": "go", "player-0": "A"})
    assert response.status_code == 400
    bad_option = {
        "csrf_token": token,
        "game": "rummikub",
        "player-0": "A",
        "player-1": "B",
        "opt-rummikub-jokers": "3",
    }
    assert client.post("/games", data=bad_option).status_code == 400
    assert count(app, Game) == 0


def test_new_game_form_reads_bool_and_empty_options(form_game, client: FlaskClient):
    game_id = form_game(
        client, game="remik", **{"opt-remik-numbers": "17", "opt-remik-opening": ""}
    )
    state = client.get(f"/api/games/{game_id}").json
    assert state["options"]["numbers"] == 17 or state["options"]["numbers"] == "17"
    assert "opening" not in state["options"]  # empty: the game derives it


def test_a_gin_deck_is_picked_by_the_letters_it_prints(form_game, client: FlaskClient):
    """The new-game page offers a Gin deck's index letters (what the photo reader reads); the
    game keeps the pick, and a deck printing none of them is refused."""
    page = client.get("/?lang=pl").get_data(as_text=True)
    assert 'name="opt-gin-index_letters"' in page
    assert all(f'value="{letters}"' in page for letters in ("JQKA", "WDKA", "BDKA", "VDRA"))
    assert "waletach" in page  # the help in Polish, the choices as the deck prints them
    game_id = form_game(client, game="gin", **{"opt-gin-index_letters": "WDKA"})
    assert client.get(f"/api/games/{game_id}").json["options"]["index_letters"] == "WDKA"
    bad = client.post(
        "/api/games",
        json={"game": "gin", "players": ["Ana", "Ben"]} | {"options": {"index_letters": "XYZA"}},
    )
    assert bad.status_code == 400 and "XYZA" in bad.json["error"]


# ---- game page, hands by form ---------------------------------------------------------------


def test_hand_by_form_then_tally_chart_undo(form_game, app: Flask, client: FlaskClient, csrf):
    game_id = form_game(client)
    hand_page = client.get(f"/g/{game_id}/hand")
    assert hand_page.status_code == 200
    page = hand_page.get_data(as_text=True)
    assert 'capture="environment"' in page and 'accept="image/*"' in page
    setup = json.loads(
        re.search(r'<script type="application/json" id="setup">(.*?)</script>', page, re.S).group(1)
    )
    assert setup["players"] == ["Ana", "Ben"] and "red-1" in setup["pieces"]
    token = csrf(client, f"/g/{game_id}/hand")
    saved = client.post(f"/g/{game_id}/hands", data={"csrf_token": token, "hand": json.dumps(HAND)})
    assert saved.status_code == 302
    page = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert 'id="chart"' in page and "<polyline" in page
    assert "+15" in page and "-15" in page
    assert "Next hand: Ben deals" in page
    assert "Undo hand 1" in page
    undone = client.post(f"/g/{game_id}/undo", data={"csrf_token": token})
    assert undone.status_code == 302
    assert count(app, Hand) == 0
    assert client.post(f"/g/{game_id}/undo", data={"csrf_token": token}).status_code == 400


def test_bad_hand_by_form_is_shown_again_with_the_message(
    form_game, app: Flask, client: FlaskClient, csrf
):
    game_id = form_game(client)
    token = csrf(client, f"/g/{game_id}/hand")
    bad = {**HAND, "racks": {"Ana": [], "Ben": ["red-5", "red-5", "red-5"]}}
    form = {"csrf_token": token, "hand": json.dumps(bad)}
    response = client.post(f"/g/{game_id}/hands", data=form)
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert 'id="save-error"' in page and "red-5" in page
    assert count(app, Hand) == 0
    garbage = client.post(f"/g/{game_id}/hands", data={"csrf_token": token, "hand": "{oops"})
    assert garbage.status_code == 400
    assert count(app, Hand) == 0


def test_hand_forms_need_edit_rights(form_game, app: Flask, client: FlaskClient, csrf):
    game_id = form_game(client)
    other = app.test_client()
    token = csrf(other)
    form = {"csrf_token": token, "hand": json.dumps(HAND)}
    assert other.post(f"/g/{game_id}/hands", data=form).status_code == 403
    assert other.post(f"/g/{game_id}/undo", data={"csrf_token": token}).status_code == 403
    assert other.post(f"/g/{game_id}/hands/1", data=form).status_code == 403
    assert count(app, Hand) == 0


def test_edit_hand_page_is_prefilled_and_saves(form_game, client: FlaskClient, csrf):
    game_id = form_game(client)
    token = csrf(client, f"/g/{game_id}/hand")
    client.post(f"/g/{game_id}/hands", data={"csrf_token": token, "hand": json.dumps(HAND)})
    page = client.get(f"/g/{game_id}/hands/1/edit").get_data(as_text=True)
    assert "Edit hand 1" in page and "blue-10" in page
    assert client.get(f"/g/{game_id}/hands/7/edit").status_code == 404
    changed = {**HAND, "racks": {"Ana": [], "Ben": ["joker"]}}
    response = client.post(
        f"/g/{game_id}/hands/1", data={"csrf_token": token, "hand": json.dumps(changed)}
    )
    assert response.status_code == 302
    assert client.get(f"/api/games/{game_id}").json["tally"]["totals"] == {"Ana": 30, "Ben": -30}


def test_finished_match_shows_the_winner(form_game, client: FlaskClient, csrf):
    game_id = form_game(client, **{"opt-rummikub-target": "10"})
    token = csrf(client, f"/g/{game_id}/hand")
    client.post(f"/g/{game_id}/hands", data={"csrf_token": token, "hand": json.dumps(HAND)})
    page = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert "Ana wins the match!" in page and 'id="end-hand"' not in page


def test_check_pages(form_game, client: FlaskClient):
    free = client.get("/check?game=gin")
    assert free.status_code == 200
    page = free.get_data(as_text=True)
    assert "Gin Rummy" in page and '"kind": "cards"' in page and 'capture="environment"' in page
    assert client.get("/check").status_code == 200
    assert client.get("/check?game=nonsense").status_code == 404
    game_id = form_game(client)
    page = client.get(f"/g/{game_id}/check").get_data(as_text=True)
    assert f'"game_id": "{game_id}"' in page and 'id="opening"' in page


def test_unknown_pages_are_404_pages(client: FlaskClient):
    for path in ("/g/nope", "/g/nope/check", "/g/nope/hand", "/nothing"):
        response = client.get(path)
        assert response.status_code == 404
        assert "<html" in response.get_data(as_text=True)


def test_chart_points_follow_the_running_totals():
    drawn = chart(["A", "B"], [{"A": 10, "B": -10}, {"A": 30, "B": 0}], target=50)
    a, b = drawn["lines"]
    assert a["total"] == 30 and b["total"] == 0
    a_points = [tuple(map(float, p.split(","))) for p in a["points"].split()]
    assert len(a_points) == 3
    assert a_points[0][1] == drawn["zero"]
    assert a_points[2][1] < a_points[1][1] < a_points[0][1]  # rising total = higher on screen
    assert drawn["target"] < a_points[2][1]
    empty = chart(["A", "B"], [], target=None)
    assert empty["target"] is None and empty["lines"][0]["points"].count(",") == 1


# ---- meldcam serve ------------------------------------------------------------------------------


def test_serve_is_registered_with_defaults():
    from meldcam.cli import build_parser

    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port) == ("127.0.0.1", 8000)
    assert callable(args.handler)
    args = build_parser().parse_args(["serve", "--host", "0.0.0.0", "--port", "9001"])
    assert (args.host, args.port) == ("0.0.0.0", 9001)


def test_urls_printed_for_hosts():
    from webapp.cli import urls

    assert urls("127.0.0.1", 8000) == ["http://127.0.0.1:8000/"]
    assert urls("0.0.0.0", 8000)[0] == "http://127.0.0.1:8000/"
    assert urls("::1", 5) == ["http://[::1]:5/"]


@pytest.mark.servers
def test_meldcam_serve_starts_waitress_and_prints_the_url(tmp_path: Path):
    env = {**os.environ, "MELDCAM_INSTANCE_PATH": str(tmp_path), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "meldcam", "serve", "--port", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.search(r"serving on (http://127\.0\.0\.1:\d+/)", line)
        assert match, line
        with urllib.request.urlopen(match.group(1), timeout=10) as response:
            assert response.status == 200
            assert "waitress" in response.headers.get("Server", "")
            assert b"New game" in response.read()
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.servers
def test_serve_processes_share_the_port_and_a_stalled_one_holds_up_nothing(tmp_path: Path):
    """``--processes 2``: two forked servers accept on one socket, so while one is stopped
    (as if busy) the other answers every request; stopping the parent stops both."""
    import signal
    import time

    env = {**os.environ, "MELDCAM_INSTANCE_PATH": str(tmp_path), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "meldcam", "serve", "--port", "0", "--processes", "2"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    children: list[int] = []
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.search(r"serving on (http://127\.0\.0\.1:\d+/) \(2 processes\)", line)
        assert match, line
        url = match.group(1)
        listing = Path(f"/proc/{process.pid}/task/{process.pid}/children")
        children = [int(pid) for pid in listing.read_text().split()]
        assert len(children) == 2
        os.kill(children[0], signal.SIGSTOP)
        try:
            for _ in range(10):
                started = time.monotonic()
                with urllib.request.urlopen(url + "api/catalogue", timeout=5) as response:
                    assert response.status == 200
                assert time.monotonic() - started < 2
        finally:
            os.kill(children[0], signal.SIGCONT)
    finally:
        process.terminate()
        process.wait(timeout=10)
    deadline = time.monotonic() + 5
    while any(Path(f"/proc/{child}").exists() for child in children):
        assert time.monotonic() < deadline, "a server process outlived the parent"
        time.sleep(0.1)


def test_serve_reports_a_busy_port(tmp_path: Path, monkeypatch):
    import socket

    from meldcam.cli import main

    monkeypatch.setenv("MELDCAM_INSTANCE_PATH", str(tmp_path))
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port), "--threads", "1"]) == 2


@pytest.mark.parametrize(
    "path",
    [
        "webapp/static/pieces.js",
        "webapp/static/check.js",
        "webapp/static/hand.js",
        "webapp/static/newgame.js",
    ],
)
def test_scripts_are_served(client: FlaskClient, path: str):
    response = client.get("/" + path.removeprefix("webapp/"))
    assert response.status_code == 200 and b"use strict" in response.data


def test_start_page_lists_the_games_this_phone_can_edit(form_game, app: Flask, client: FlaskClient):
    game_id = form_game(client, **{"player-1": "Bruno"})
    page = client.get("/").get_data(as_text=True)
    assert 'id="my-games"' in page and f"/g/{game_id}" in page and "Ana, Bruno" in page
    assert 'id="my-games"' not in app.test_client().get("/").get_data(as_text=True)


def test_unexpected_errors_are_a_json_500_without_details(app: Flask, monkeypatch):
    from webapp import matches

    def broken(*args):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(matches, "catalogue", broken)
    client = app.test_client()
    response = client.get("/api/catalogue")
    assert response.status_code == 500
    assert "not saved" in response.json["error"] and "secret" not in response.json["error"]
    page = client.get("/")
    assert page.status_code == 500 and "secret" not in page.get_data(as_text=True)


@pytest.mark.parametrize(("game", "verb"), [("domino-gin", "opens"), ("rummikub", "deals")])
def test_the_game_page_says_who_opens_or_deals(client: FlaskClient, make_game, game, verb):
    """Domino Gin's descriptor says the last winner opens; other games deal."""
    created = make_game(game)
    page = client.get(f"/g/{created['id']}").get_data(as_text=True)
    assert f"Next hand: Ana {verb}." in page


def test_a_page_write_that_collides_offers_the_game_reloaded(
    form_game, client: FlaskClient, csrf, monkeypatch
):
    """Two phones writing at once (issue 24): the loser's page is a 409 that leads back to the
    game as it now stands, not a dead end."""
    from sqlalchemy.exc import IntegrityError

    from webapp import matches

    def collide(*args: object) -> object:
        raise IntegrityError("INSERT INTO hands", {}, Exception("UNIQUE constraint failed"))

    game_id = form_game(client)
    token = csrf(client, f"/g/{game_id}/hand")
    monkeypatch.setattr(matches, "add_hand", collide)
    saved = client.post(f"/g/{game_id}/hands", data={"csrf_token": token, "hand": json.dumps(HAND)})
    assert saved.status_code == 409
    assert f'href="/g/{game_id}"' in saved.get_data(as_text=True)


def test_serve_processes_split_the_rate_limits_counted_in_memory(tmp_path: Path):
    from webapp import create_app
    from webapp.throttle import split_limits

    app = create_app({"INSTANCE_PATH": str(tmp_path), "RATELIMIT_WRITES": "60 per minute;7/hour"})
    split_limits(app, 2)
    assert app.config["RATELIMIT_WRITES"] == "30 per 1 minute;4 per 1 hour"  # never more in all
    assert app.config["RATELIMIT_BAD_TOKENS"] == "10 per 1 minute;50 per 1 hour"
    shared = create_app({"INSTANCE_PATH": str(tmp_path), "RATELIMIT_STORAGE_URI": "redis://x"})
    split_limits(shared, 2)
    assert shared.config["RATELIMIT_WRITES"] == "60 per minute;600 per hour"  # one shared count
