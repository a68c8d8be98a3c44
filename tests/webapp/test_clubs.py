"""Clubs (issue 68): a club's players across matches and their statistics, computed from the
stored hands; the API, the pages, the CSV export and the migration that adds the tables.

The statistics are checked against a club worked out by hand: Ana, Ben and Cy over four
matches of two games (Rummikub to 30 points, Remik of 2 hands), with a hand edited and one
undone on the way, each step changing the figures at once.
"""

from __future__ import annotations

import csv
import io
import re
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import inspect, text, update

from scorer.records import HandRecord, hand_marks, match_end, match_lines
from webapp import clubs, create_app, schema
from webapp.db import EXTENSION_KEY, ClubSeatLine, Game, make_engine, reading, transaction

ON_POSTGRESQL = True
PLAYERS = ["Ana", "Ben", "Cy"]
RUMMIKUB = {"target": 30}
REMIK = {"hands": 2}


def new_club(client: FlaskClient, name: str = "Czwartki", players: Any = None) -> dict[str, Any]:
    response = client.post(
        "/api/clubs", json={"name": name, "players": PLAYERS if players is None else players}
    )
    assert response.status_code == 201, response.json
    return dict(response.json)


def club_match(
    client: FlaskClient, club: dict[str, Any], game: str, options: dict[str, Any], players: list
) -> dict[str, Any]:
    response = client.post(
        "/api/games",
        json={"club": club["id"], "game": game, "options": options, "players": players},
        headers={"X-Club-Token": club["edit_token"]},
    )
    assert response.status_code == 201, response.json
    return dict(response.json)


def hand(client: FlaskClient, game: dict[str, Any], winner: str | None, racks: dict) -> dict:
    sent = {"winner": winner, "racks": {name: racks.get(name, []) for name in game["players"]}}
    response = client.post(
        f"/api/games/{game['id']}/hands",
        json={"hand": sent},
        headers={"X-Edit-Token": game["edit_token"]},
    )
    assert response.status_code == 201, response.json
    return dict(response.json["game"]["hands"][-1]["deltas"])


def stats(client: FlaskClient, club: dict[str, Any], query: str = "") -> dict[str, Any]:
    response = client.get(f"/api/clubs/{club['id']}/stats{query}")
    assert response.status_code == 200, response.json
    return dict(response.json)


def started(app: Flask, game_id: str, when: datetime) -> None:
    """Say the match was started at ``when`` (the tests' months)."""
    with app.app_context(), transaction() as db:
        db.execute(update(Game).where(Game.id == game_id).values(created_at=when))


# ---- the club and its players -------------------------------------------------------------------


def test_a_club_is_made_with_an_edit_token_and_a_read_link(client: FlaskClient):
    club = new_club(client)
    assert set(club) >= {"id", "name", "players", "edit_token", "links", "matches"}
    assert club["players"] == PLAYERS and club["matches"] == []
    assert len(club["edit_token"]) >= 32 and club["edit_token"] not in club["links"]["read"]
    assert club["links"]["edit"].endswith(f"/c/{club['id']}/edit/{club['edit_token']}")
    read = client.get(f"/api/clubs/{club['id']}").json
    assert read["name"] == "Czwartki" and "edit_token" not in read
    assert client.get("/api/clubs/nothing-here").status_code == 404


@pytest.mark.parametrize(
    ("body", "wanted"),
    [
        ({"name": ""}, "name"),
        ({"name": "x" * 81}, "at most 80"),
        ({"name": "Club\u200b"}, "invisible"),
        ({"name": "Club", "players": ["Ana", "ANA"]}, "already has a player called"),
        ({"name": "Club", "players": ["Ana\u0000"]}, "control"),
        ({"name": "Club", "players": "Ana"}, "list of names"),
        ({"name": "Club", "players": ["x" * 41]}, "at most 40"),
    ],
)
def test_club_names_follow_the_match_name_rules(client: FlaskClient, body: dict, wanted: str):
    response = client.post("/api/clubs", json=body)
    assert response.status_code == 400
    assert wanted in response.json["error"]


def test_players_are_added_with_the_clubs_token_only(client: FlaskClient):
    club = new_club(client)
    path = f"/api/clubs/{club['id']}/players"
    assert client.post(path, json={"name": "Dora"}).status_code == 403
    wrong = client.post(path, json={"name": "Dora"}, headers={"X-Club-Token": "nope" * 8})
    assert wrong.status_code == 403
    token = {"X-Club-Token": club["edit_token"]}
    added = client.post(path, json={"name": "Ｄｏｒａ"}, headers=token)
    assert added.status_code == 201 and added.json["name"] == "Ｄｏｒａ"
    again = client.post(path, json={"name": "dora"}, headers=token)
    assert again.status_code == 400 and "already has a player" in again.json["error"]
    assert client.get(f"/api/clubs/{club['id']}").json["players"] == [*PLAYERS, "Ｄｏｒａ"]


def test_a_match_in_a_club_takes_its_players_by_name(client: FlaskClient):
    club = new_club(client)
    game = club_match(client, club, "rummikub", {}, ["ana", "BEN", "Dora"])
    assert game["players"] == ["Ana", "Ben", "Dora"]  # the club's spelling; Dora is new
    assert game["club"] == club["id"]
    read = client.get(f"/api/clubs/{club['id']}").json
    assert read["players"] == [*PLAYERS, "Dora"]
    assert [m["id"] for m in read["matches"]] == [game["id"]]
    body = {"club": club["id"], "game": "rummikub", "players": ["Ana", "Ben"]}
    assert client.post("/api/games", json=body).status_code == 403
    wrong = client.post("/api/games", json=body, headers={"X-Club-Token": "x" * 32})
    assert wrong.status_code == 403
    gone = {**body, "club": "nothing-here"}
    assert client.post("/api/games", json=gone, headers={"X-Club-Token": "x"}).status_code == 404
    twice = {**body, "players": ["Ana", "ana"]}
    refused = client.post("/api/games", json=twice, headers={"X-Club-Token": club["edit_token"]})
    assert refused.status_code == 400 and "two players are called" in refused.json["error"]
    # a match of no club is as it was
    plain = client.post("/api/games", json={"game": "rummikub", "players": ["Ana", "Ben"]})
    assert plain.status_code == 201 and "club" not in plain.json


# ---- the statistics, against a club worked out by hand ------------------------------------------


def test_the_statistics_of_a_club_worked_out_by_hand(app: Flask, client: FlaskClient):
    club = new_club(client)
    november, december = datetime(2026, 11, 5, tzinfo=UTC), datetime(2026, 12, 3, tzinfo=UTC)

    # match 1: Rummikub to 30 points; Ana wins it with her third hand (16 - 13 + 28 = 31)
    m1 = club_match(client, club, "rummikub", RUMMIKUB, PLAYERS)
    started(app, m1["id"], november)
    assert hand(client, m1, "Ana", {"Ben": ["red-5"], "Cy": ["blue-10", "red-1"]}) == {
        "Ana": 16, "Ben": -5, "Cy": -11}  # fmt: skip
    assert hand(client, m1, "Ben", {"Ana": ["red-13"], "Cy": ["black-2"]}) == {
        "Ana": -13, "Ben": 15, "Cy": -2}  # fmt: skip
    first = stats(client, club)["players"]
    assert first["Ana"]["matches"] == 1 and first["Ana"]["finished"] == 0
    assert first["Ana"]["points"] == 3 and first["Ana"]["win_rate"] is None
    assert hand(client, m1, "Ana", {"Ben": ["red-12", "blue-12"], "Cy": ["orange-4"]}) == {
        "Ana": 28, "Ben": -24, "Cy": -4}  # fmt: skip
    assert stats(client, club)["players"]["Ana"]["wins"] == 1  # at once

    # match 2: Remik of 2 hands, Ben and Cy; Cy wins both hands and the match
    m2 = club_match(client, club, "remik", REMIK, ["Ben", "Cy"])
    started(app, m2["id"], november.replace(day=20))
    assert hand(client, m2, "Cy", {"Ben": ["red-9"]}) == {"Ben": -9, "Cy": 9}
    assert hand(client, m2, "Cy", {"Ben": ["blue-3"]}) == {"Ben": -3, "Cy": 3}

    # match 3: Rummikub, still being played; hand 2 is edited, hand 3 undone
    m3 = club_match(client, club, "rummikub", RUMMIKUB, ["Cy", "Ana", "Ben"])
    started(app, m3["id"], december)
    assert hand(client, m3, None, {"Cy": ["red-2"], "Ana": ["red-7"], "Ben": ["red-9"]}) == {
        "Cy": 12, "Ana": -5, "Ben": -7}  # fmt: skip
    assert hand(client, m3, "Ben", {"Cy": ["red-10", "red-11"], "Ana": ["blue-1"]}) == {
        "Cy": -21, "Ana": -1, "Ben": 22}  # fmt: skip
    before = stats(client, club)["players"]
    assert (before["Ben"]["points"], before["Ben"]["best_hand"]) == (-14 - 12 - 7 + 22, 22)
    assert (before["Cy"]["points"], before["Cy"]["caught"]) == (-17 + 12 + 12 - 21, 2)
    edited = client.put(
        f"/api/games/{m3['id']}/hands/2",
        json={"hand": {"winner": "Ben", "racks": {"Cy": ["red-10"], "Ana": ["blue-1"], "Ben": []}}},
        headers={"X-Edit-Token": m3["edit_token"]},
    )
    assert edited.status_code == 200, edited.json
    after_edit = stats(client, club)["players"]
    assert (after_edit["Ben"]["points"], after_edit["Ben"]["best_hand"]) == (-14 - 12 - 7 + 11, 15)
    assert after_edit["Cy"]["points"] == -17 + 12 + 12 - 10
    hand(client, m3, "Ana", {"Cy": ["orange-13"], "Ben": ["black-13"]})
    with_third = stats(client, club)["players"]
    assert with_third["Ana"]["hands"] == 3 + 3 and with_third["Ana"]["best_hand"] == 28
    assert with_third["Cy"]["caught"] == 3 and with_third["Ben"]["caught"] == 5  # a tie: both
    undone = client.delete(
        f"/api/games/{m3['id']}/hands/last", headers={"X-Edit-Token": m3["edit_token"]}
    )
    assert undone.status_code == 200
    assert stats(client, club)["players"] == after_edit  # as before the hand, at once

    # match 4: Remik of 2 hands, all three; Ana wins it (10, 0, -10)
    m4 = club_match(client, club, "remik", REMIK, PLAYERS)
    started(app, m4["id"], december.replace(day=10))
    assert hand(client, m4, "Ana", {"Ben": ["red-6"], "Cy": ["blue-6"]}) == {
        "Ana": 12, "Ben": -6, "Cy": -6}  # fmt: skip
    assert hand(client, m4, "Ben", {"Ana": ["red-2"], "Cy": ["red-4"]}) == {
        "Ana": -2, "Ben": 6, "Cy": -4}  # fmt: skip

    found = stats(client, club)
    assert found["matches"] == 4
    players = found["players"]
    # worked out by hand from the hands above (match 3: hands 1 and 2 as edited)
    assert figures(players["Ana"]) == {
        "matches": 3, "finished": 2, "wins": 2, "win_rate": 1.0, "hands": 7, "hands_won": 3,
        "points": 35, "points_plus": 56, "points_minus": -21, "average_points": 5.0,
        "average_plus": 18.67, "average_minus": -5.25, "best_hand": 28, "worst_hand": -13,
        "longest_streak": 2, "caught": 1, "caught_of": 7,
    }  # fmt: skip
    assert figures(players["Ben"]) == {
        "matches": 4, "finished": 3, "wins": 0, "win_rate": 0.0, "hands": 9, "hands_won": 3,
        "points": -22, "points_plus": 32, "points_minus": -54, "average_points": -2.44,
        "average_plus": 10.67, "average_minus": -9.0, "best_hand": 15, "worst_hand": -24,
        "longest_streak": 0, "caught": 5, "caught_of": 9,
    }  # fmt: skip
    assert figures(players["Cy"]) == {
        "matches": 4, "finished": 3, "wins": 1, "win_rate": 0.3333, "hands": 9, "hands_won": 3,
        "points": -13, "points_plus": 24, "points_minus": -37, "average_points": -1.44,
        "average_plus": 8.0, "average_minus": -6.17, "best_hand": 12, "worst_hand": -11,
        "longest_streak": 1, "caught": 4, "caught_of": 9,
    }  # fmt: skip
    # per game: each game's own figures, which add up to the club's
    games = found["games"]
    assert list(games) == ["remik", "rummikub"]
    assert list(games["remik"]["players"]) == ["Ana", "Cy", "Ben"]  # the leaderboard's order
    rummikub = games["rummikub"]["players"]
    assert [(rummikub[p]["matches"], rummikub[p]["wins"], rummikub[p]["points"])
            for p in PLAYERS] == [(2, 1, 25), (2, 0, -10), (2, 0, -15)]  # fmt: skip
    remik = stats(client, club, "?game=remik")["players"]
    assert [(remik[p]["matches"], remik[p]["wins"], remik[p]["points"]) for p in PLAYERS] == [
        (1, 1, 10), (2, 0, -12), (2, 1, 2)]  # fmt: skip
    # over a date range: December only (matches 3 and 4)
    december_only = stats(client, club, "?since=2026-12")
    assert december_only["since"] == "2026-12-01" and december_only["matches"] == 2
    ana = december_only["players"]["Ana"]
    assert (ana["matches"], ana["finished"], ana["wins"], ana["hands"], ana["points"]) == (
        2, 1, 1, 4, 4)  # fmt: skip
    november_only = stats(client, club, "?since=2026-11-01&until=2026-11")["players"]
    assert (november_only["Cy"]["matches"], november_only["Cy"]["wins"]) == (2, 1)
    # the kept figures are those of the stored hands, read again one by one
    with app.app_context(), reading() as db:
        stored = clubs.get_club(db, club["id"])
        assert clubs.club_matches(db, stored) == clubs.club_matches(db, stored, in_python=True)
        records = clubs.club_figures(db, stored, series=True).overall
    assert records["Ana"].wins_by_month == {"2026-11": 1, "2026-12": 1}
    assert [a for _at, _id, a in records["Ana"].running_average] == [10.33, 5.0, 5.0]


def figures(record: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in record.items() if key not in {"games", "hand_win_rate",
            "plus_hands", "minus_hands", "caught_rate"}}  # fmt: skip


@pytest.mark.parametrize(
    ("query", "wanted"),
    [("?since=yesterday", "YYYY-MM-DD"), ("?until=2026-13", "YYYY-MM"), ("?game=chess", "chess")],
)
def test_stats_refuse_a_bad_period_or_game(client: FlaskClient, query: str, wanted: str):
    club = new_club(client)
    response = client.get(f"/api/clubs/{club['id']}/stats{query}")
    assert response.status_code == 400 and wanted in response.json["error"]
    assert client.get("/api/clubs/nothing/stats").status_code == 404


def kept_lines(app: Flask) -> list[tuple[int, ...]]:
    with app.app_context(), reading() as db:
        kept = db.query(ClubSeatLine).order_by(ClubSeatLine.game_id, ClubSeatLine.seat).all()
        return [(k.seat, k.hands, k.hands_won, k.points, k.caught, k.caught_of) for k in kept]


def test_the_lines_kept_with_a_match_follow_its_hands_in_the_same_commit(
    app: Flask, client: FlaskClient
):
    club = new_club(client)
    game = club_match(client, club, "rummikub", RUMMIKUB, ["Ana", "Ben"])
    edit = {"X-Edit-Token": game["edit_token"]}
    hand(client, game, "Ana", {"Ben": ["red-5"]})
    hand(client, game, "Ben", {"Ana": ["red-7", "red-8"]})
    assert kept_lines(app) == [(0, 2, 1, 5 - 15, 1, 2), (1, 2, 1, -5 + 15, 1, 2)]
    sent = {"hand": {"winner": "Ben", "racks": {"Ana": ["red-1"], "Ben": []}}}
    assert (
        client.put(f"/api/games/{game['id']}/hands/2", json=sent, headers=edit).status_code == 200
    )
    assert kept_lines(app) == [(0, 2, 1, 5 - 1, 1, 2), (1, 2, 1, -5 + 1, 1, 2)]
    client.delete(f"/api/games/{game['id']}/hands/last", headers=edit)
    assert kept_lines(app) == [(0, 1, 1, 5, 0, 1), (1, 1, 0, -5, 1, 1)]
    client.delete(f"/api/games/{game['id']}/hands/last", headers=edit)
    assert kept_lines(app) == [(0, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0)]
    # a hand refused (after the end, or impossible) changes nothing kept
    bad = {"hand": {"winner": "Ana", "racks": {"Ana": [], "Ben": ["nothing-1"]}}}
    assert client.post(f"/api/games/{game['id']}/hands", json=bad, headers=edit).status_code == 400
    assert kept_lines(app) == [(0, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0)]
    # a match of no club keeps none
    plain = client.post("/api/games", json={"game": "rummikub", "players": ["Ana", "Ben"]}).json
    hand(client, plain, "Ana", {"Ben": ["red-5"]})
    assert len(kept_lines(app)) == 2


def test_the_pure_figures_of_a_hand():
    held = HandRecord({"Ana": 9, "Ben": -4, "Cy": -5}, "Ana", {"Ana": 0, "Ben": 4, "Cy": 5})
    marks = hand_marks(["Ana", "Ben", "Cy"], held)
    assert [(m.points, m.won, m.held, m.caught) for m in marks] == [
        (9, 1, 0, 0), (-4, 0, 4, 0), (-5, 0, 5, 1)]  # fmt: skip
    tie = HandRecord({"Ana": 0, "Ben": 0}, None, {"Ana": 0, "Ben": 0})  # nobody holds anything
    assert [m.caught for m in hand_marks(["Ana", "Ben"], tie)] == [0, 0]
    unsaid = HandRecord({"Ana": 3, "Ben": -3}, "Ana")  # the result says nothing of what is held
    assert [(m.held, m.caught) for m in hand_marks(["Ana", "Ben"], unsaid)] == [(None, 0)] * 2
    lines = match_lines(["Ana", "Ben", "Cy"], [held, held])
    assert (lines["Ana"].points, lines["Cy"].caught, lines["Ben"].minus_hands) == (18, 2, 2)
    assert match_end({"Ana": 31, "Ben": 2}, 3, 30, None) == (True, "Ana")
    assert match_end({"Ana": 10, "Ben": 10}, 2, None, 2) == (True, None)  # a tie wins nobody
    assert match_end({"Ana": 29, "Ben": 2}, 3, 30, None) == (False, None)


# ---- CSV export ---------------------------------------------------------------------------------


def test_the_stats_export_as_csv_formula_safe(client: FlaskClient):
    club = new_club(client, players=["=HYPERLINK(1)", "Ben"])
    game = club_match(client, club, "rummikub", RUMMIKUB, ["=HYPERLINK(1)", "Ben"])
    hand(client, game, "Ben", {"=HYPERLINK(1)": ["red-5"]})
    response = client.get(f"/api/clubs/{club['id']}/stats.csv?lang=pl")
    assert response.mimetype == "text/csv"
    assert "attachment" in response.headers["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.data.decode("utf-8"))))
    assert rows[0][:4] == ["gra", "gracz", "matches", "wins"]
    assert rows[1][:8] == ["rummikub", "Ben", "1", "0", "", "1", "1", "5"]
    assert rows[2][:2] == ["rummikub", "'=HYPERLINK(1)"]
    assert not any(cell.startswith(("=", "+", "-", "@")) and not cell.lstrip("-").replace(
        ".", "").isdigit() for row in rows for cell in row)  # fmt: skip


# ---- pages --------------------------------------------------------------------------------------


def csrf(client: FlaskClient, path: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', client.get(path).text)
    assert match, "page has no CSRF token"
    return match.group(1)


def test_the_club_pages_make_a_club_and_start_its_matches(client: FlaskClient):
    token = csrf(client, "/clubs")
    made = client.post(
        "/clubs", data={"csrf_token": token, "name": "Piątki", "players": "Ana\nBen\n\nCy"}
    )
    assert made.status_code == 302, made.text
    club_id = made.headers["Location"].rsplit("/", 1)[1]
    page = client.get(f"/c/{club_id}").text
    assert "Piątki" in page and 'id="club-match"' in page and 'id="club-edit-link"' in page
    assert "no-store" in client.get(f"/c/{club_id}").headers["Cache-Control"]
    ids = re.findall(r'name="player" value="(\d+)"', page)
    assert len(ids) == 3
    form = {"csrf_token": token, "game": "rummikub", "player": ids[:2], "new-0": "Dora"}
    started_match = client.post(f"/c/{club_id}/games", data=form)
    assert started_match.status_code == 302, started_match.text
    game_id = started_match.headers["Location"].rsplit("/", 1)[1]
    game = client.get(f"/api/games/{game_id}").json
    assert game["players"] == ["Ana", "Ben", "Dora"]
    assert client.get(f"/g/{game_id}/hand").status_code == 200  # this browser may enter hands
    added = client.post(f"/c/{club_id}/players", data={"csrf_token": token, "name": "Ema"})
    assert added.status_code == 302
    again = client.post(f"/c/{club_id}/players", data={"csrf_token": token, "name": "ema"})
    assert again.status_code == 400 and "already has a player" in again.text
    expired = client.post(f"/c/{club_id}/players", data={"name": "Fil"})
    assert expired.status_code == 400
    assert client.get("/clubs").status_code == 200 and "Piątki" in client.get("/clubs").text
    # a viewer reads the club and changes nothing
    viewer = client.application.test_client()
    shown = viewer.get(f"/c/{club_id}").text
    assert "Piątki" in shown and 'id="club-match"' not in shown and "club-edit-link" not in shown
    viewer_token = csrf(viewer, "/clubs")
    refused = viewer.post(f"/c/{club_id}/players", data={"csrf_token": viewer_token, "name": "X"})
    assert refused.status_code == 403
    assert viewer.get(f"/c/{club_id}/edit/wrong").status_code == 403
    assert viewer.get("/c/nothing-here").status_code == 404


def test_the_club_page_shows_leaderboards_and_charts_with_text(client: FlaskClient):
    club = new_club(client)
    game = club_match(client, club, "remik", REMIK, PLAYERS)
    hand(client, game, "Ana", {"Ben": ["red-6"], "Cy": ["blue-6"]})
    hand(client, game, "Ben", {"Ana": ["red-2"], "Cy": ["red-4"]})
    page = client.get(f"/c/{club['id']}").text
    assert 'class="leaderboard" data-game="remik"' in page
    board = page[page.index('data-game="remik"') :]
    assert board.index(">Ana<") < board.index(">Ben<") < board.index(">Cy<")
    assert page.count('class="club-chart average-chart"') == 3
    assert page.count('class="club-chart wins-chart"') == 3
    assert "Ana: average points per hand after each match: 5" in page
    assert re.search(r"Ana: matches won per month: \d{4}-\d{2}: 1", page)
    polish = client.get(f"/c/{club['id']}?lang=pl").text
    assert "Ranking: Remik" in polish and "Gracze" in polish


def test_every_club_page_is_in_every_language(client: FlaskClient):
    club = new_club(client)
    game = club_match(client, club, "remik", REMIK, PLAYERS)
    hand(client, game, "Ana", {"Ben": ["red-6"], "Cy": ["blue-6"]})
    client.get(club["links"]["edit"])
    wanted = {"pl": "Nowy klub", "hr": "Novi klub", "ro": "Club nou"}
    for language, title in wanted.items():
        assert title in client.get(f"/clubs?lang={language}").text
        page = client.get(f"/c/{club['id']}?lang={language}").text
        assert "Leaderboard" not in page and "Start a match" not in page, language
        error = client.get(f"/api/clubs/nothing/stats?lang={language}").json
        assert error["error_text"] != error["error"], language


# ---- the migration ------------------------------------------------------------------------------


@pytest.fixture
def empty_database(tmp_path: Path, database_url: str | None, request: pytest.FixtureRequest) -> str:
    if database_url is None:
        return f"sqlite:///{tmp_path / 'empty.sqlite3'}"
    return str(request.getfixturevalue("new_postgres_database")(False))


def test_revision_0004_adds_clubs_to_a_database_with_its_matches_kept(
    empty_database: str, tmp_path: Path
):
    engine = make_engine(empty_database)
    with engine.begin() as connection:
        command.upgrade(schema.config(connection), "0003")
        connection.execute(
            text(
                "INSERT INTO games (id, game, options, edit_token_hash, created_at) VALUES "
                "('g1', 'rummikub', '{}', :hash, :at)"
            ),
            {"hash": "0" * 64, "at": "2026-11-29 09:00:00"},
        )
        connection.execute(
            text(
                "INSERT INTO players (game_id, seat, name) "
                "VALUES ('g1', 0, 'Ana'), ('g1', 1, 'Ben')"
            )
        )
        connection.execute(
            text(
                "INSERT INTO hands (game_id, number, hand, result, deltas, created_at) VALUES "
                "('g1', 1, '{}', '{\"winner\": \"Ana\"}', '{\"Ana\": 5, \"Ben\": -5}', :at)"
            ),
            {"at": "2026-11-29 10:00:00"},
        )
    schema.upgrade(engine)
    with engine.connect() as connection:
        assert schema.current(connection) == schema.heads() == frozenset({"0004"})
        tables = set(inspect(connection).get_table_names())
    engine.dispose()
    assert {"clubs", "club_players", "club_games", "club_seats", "club_seat_lines"} <= tables
    config: dict[str, Any] = {"INSTANCE_PATH": str(tmp_path / "instance"), "TESTING": True}
    config.update(DATABASE_URL=empty_database, SECRET_KEY=secrets.token_hex(16))
    app = create_app(config)
    client = app.test_client()
    kept = client.get("/api/games/g1").json
    assert kept["players"] == ["Ana", "Ben"] and kept["tally"]["totals"] == {"Ana": 5, "Ben": -5}
    club = new_club(client)
    game = club_match(client, club, "rummikub", RUMMIKUB, ["Ana", "Ben"])
    hand(client, game, "Ana", {"Ben": ["red-5"]})
    assert stats(client, club)["players"]["Ana"]["points"] == 5
    app.extensions[EXTENSION_KEY].kw["bind"].dispose()


def test_a_rematch_of_a_club_match_is_the_clubs_and_its_page_links_the_club(client: FlaskClient):
    club = new_club(client)
    game = club_match(client, club, "remik", REMIK, ["Ana", "Ben"])
    client.get(game["links"]["edit"])
    page = client.get(f"/g/{game['id']}").text
    assert f'href="/c/{club["id"]}"' in page and 'id="club-link"' in page
    token = csrf(client, f"/g/{game['id']}")
    again = client.post(f"/g/{game['id']}/rematch", data={"csrf_token": token})
    assert again.status_code == 302
    rematch_id = again.headers["Location"].rsplit("/", 1)[1]
    matches_now = client.get(f"/api/clubs/{club['id']}").json["matches"]
    assert {m["id"] for m in matches_now} == {game["id"], rematch_id}
    plain = client.post("/api/games", json={"game": "rummikub", "players": ["Ana", "Ben"]}).json
    assert 'id="club-link"' not in client.get(f"/g/{plain['id']}").text


def test_the_club_edit_token_is_sealed_in_the_session_cookie(client: FlaskClient):
    club = new_club(client)
    client.get(club["links"]["edit"])
    cookie = client.get_cookie("session")
    assert cookie is not None
    from flask.sessions import SecureCookieSessionInterface

    serializer = SecureCookieSessionInterface().get_signing_serializer(client.application)
    assert serializer is not None
    held = serializer.loads(cookie.value)
    assert club["edit_token"] not in str(held)
    assert 'id="club-match"' in client.get(f"/c/{club['id']}").text


def test_a_new_club_sent_twice_under_one_idempotency_key_is_made_once(client: FlaskClient):
    key = {"Idempotency-Key": "club-" + secrets.token_hex(8)}
    first = client.post("/api/clubs", json={"name": "Raz", "players": PLAYERS}, headers=key)
    again = client.post("/api/clubs", json={"name": "Raz", "players": PLAYERS}, headers=key)
    assert first.status_code == again.status_code == 201
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert again.json["id"] == first.json["id"]
    assert again.json["edit_token"] == first.json["edit_token"]
    token = {"X-Club-Token": first.json["edit_token"]}
    added = client.post(
        f"/api/clubs/{first.json['id']}/players", json={"name": "Dora"}, headers=token
    )
    assert added.status_code == 201
    other = client.post("/api/clubs", json={"name": "Dwa"}, headers=key)
    assert other.status_code == 422


def test_the_benchmark_builds_a_club_whose_figures_add_up():
    from benchmarks import bench_clubs

    figures = bench_clubs.main(["--players", "6", "--matches", "8", "--hands", "3", "--runs", "1"])
    assert (figures["players"], figures["matches"]) == (6, 8)
    assert figures["player_hands"] == 4 * (4 * 3) + 4 * (2 * 3)  # 4 Remik of 4 players, 4 Gin of 2
