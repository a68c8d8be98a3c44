"""Issue 22 on the server side: a hand keeps the photos it was entered from, rematch, the
dealer of each hand, the chart's names kept apart, the check page's house rules in the address.
(The pages themselves are driven on a phone in ``test_webapp_phone.py``.)"""

from __future__ import annotations

import io
import itertools
import json
import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from PIL import Image
from sqlalchemy import func, select

from webapp.db import HandBoards, reading
from webapp.pages import CHART_LABEL_GAP, chart

HAND = {"players": ["Ana", "Ben"], "winner": "Ana", "racks": {"Ana": [], "Ben": ["red-5"]}}


def setup_of(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="setup">(.*?)</script>', page, re.S)
    assert found
    return dict(json.loads(found.group(1)))


def claimed_game(client: FlaskClient, make_game, players: list[str] | None = None) -> dict:
    game = make_game(players=players)
    assert client.get(game["links"]["edit"]).status_code == 302  # edit rights in the session
    return dict(game)


def photo_id(client: FlaskClient, game_id: str | None) -> str:
    data = io.BytesIO()
    Image.new("RGB", (120, 80), (200, 180, 150)).save(data, "PNG")
    fields: dict[str, Any] = {"kind": "tiles", "photo": (io.BytesIO(data.getvalue()), "p.png")}
    if game_id:
        fields["game"] = game_id
    response = client.post("/api/recognise", data=fields, content_type="multipart/form-data")
    assert response.status_code == 200, response.json
    return str(response.json["photo"]["id"])


def save(client: FlaskClient, csrf, game_id: str, boards: Any, number: int | None = None) -> Any:
    path = f"/g/{game_id}/hand" if number is None else f"/g/{game_id}/hands/{number}/edit"
    form = {
        "csrf_token": csrf(client, path),
        "hand": json.dumps(HAND),
        "boards": boards if isinstance(boards, str) else json.dumps(boards),
    }
    action = f"/g/{game_id}/hands" if number is None else f"/g/{game_id}/hands/{number}"
    return client.post(action, data=form)


def boards_count(app: Flask) -> int:
    with app.app_context(), reading() as session:
        return int(session.scalar(select(func.count()).select_from(HandBoards)) or 0)


def test_a_saved_hand_keeps_its_photos_for_the_edit_page(
    app: Flask, client: FlaskClient, make_game, csrf
) -> None:
    game = claimed_game(client, make_game)
    mine, elsewhere = photo_id(client, game["id"]), photo_id(client, None)
    boards = {
        "Ben": {
            "photos": [
                {"id": mine, "width": 120, "height": 80},
                {"id": elsewhere, "width": 120, "height": 80},
            ],
            "pieces": [["red-5", 0, 10, 10, 40, 60, 0, 1]],
        }
    }
    assert save(client, csrf, game["id"], boards).status_code == 302
    setup = setup_of(client.get(f"/g/{game['id']}/hands/1/edit").get_data(as_text=True))
    ben = setup["boards"]["Ben"]
    assert ben["photos"][0] == {
        "id": mine,
        "width": 120,
        "height": 80,
        "url": f"/api/photos/{mine}",
    }
    assert ben["photos"][1] is None  # not this game's photo: not kept
    assert ben["pieces"] == [["red-5", 0, 10, 10, 40, 60, 0, 1]]
    # saved again without boards: the photos stay
    token = csrf(client, f"/g/{game['id']}/hands/1/edit")
    again = {"csrf_token": token, "hand": json.dumps(HAND)}
    assert client.post(f"/g/{game['id']}/hands/1", data=again).status_code == 302
    setup = setup_of(client.get(f"/g/{game['id']}/hands/1/edit").get_data(as_text=True))
    assert setup["boards"]["Ben"]["photos"][0]["id"] == mine
    # undo takes the boards with the hand
    assert client.post(f"/g/{game['id']}/undo", data={"csrf_token": token}).status_code == 302
    assert boards_count(app) == 0


def test_boards_that_do_not_check_out_are_dropped_and_the_hand_saved(
    app: Flask, client: FlaskClient, make_game, csrf
) -> None:
    game = claimed_game(client, make_game)
    for bad in ("[[[[", '{"Zed": {}}', json.dumps({"Ben": {"pieces": [["red-5", 0]]}}), "x" * 5):
        assert save(client, csrf, game["id"], bad).status_code == 302
        assert boards_count(app) == 0
        token = csrf(client, f"/g/{game['id']}")
        assert client.post(f"/g/{game['id']}/undo", data={"csrf_token": token}).status_code == 302


def test_rematch_starts_a_game_with_the_same_players_and_rules(
    client: FlaskClient, make_game, csrf
) -> None:
    game = make_game(players=["Ana", "Ben", "Cy"], options={"target": 300})
    client.get(game["links"]["edit"])
    response = client.post(f"/g/{game['id']}/rematch", data={"csrf_token": csrf(client)})
    assert response.status_code == 302
    new_id = response.headers["Location"].rsplit("/", 1)[1]
    assert new_id != game["id"]
    state = client.get(f"/api/games/{new_id}").json
    assert state["players"] == ["Ana", "Ben", "Cy"] and state["target"] == 300
    page = client.get(f"/g/{new_id}").get_data(as_text=True)
    assert 'id="end-hand"' in page  # this browser may enter its hands


def test_rematch_needs_the_edit_link(client: FlaskClient, make_game, csrf) -> None:
    game = make_game()
    response = client.post(f"/g/{game['id']}/rematch", data={"csrf_token": csrf(client)})
    assert response.status_code == 403


def test_each_hand_names_its_dealer(client: FlaskClient, make_game) -> None:
    game = make_game(players=["Ana", "Ben", "Cy"])
    hand = {"winner": "Ana", "racks": {"Ana": [], "Ben": ["red-1"], "Cy": ["red-2"]}}
    for _ in range(4):
        path = f"/api/games/{game['id']}/hands"
        response = client.post(
            path, json={"hand": hand}, headers={"X-Edit-Token": game["edit_token"]}
        )
        assert response.status_code == 201
    state = client.get(f"/api/games/{game['id']}").json
    assert [h["dealer"] for h in state["hands"]] == ["Ana", "Ben", "Cy", "Ana"]
    assert state["next_dealer"] == "Ben"


def test_chart_names_at_the_line_ends_do_not_overlap() -> None:
    drawn = chart(["Ana", "Ben", "Cy"], [{"Ana": 1, "Ben": 0, "Cy": -1}], None)
    ends = sorted(line["label_y"] for line in drawn["lines"])
    assert all(b - a >= CHART_LABEL_GAP for a, b in itertools.pairwise(ends))
    assert [tick["hand"] for tick in drawn["ticks"]] == [1]
    many = chart(["A", "B"], [{"A": i, "B": -i} for i in range(40)], None)
    assert len(many["ticks"]) <= 8


def test_the_check_page_takes_house_rules_from_the_address(client: FlaskClient) -> None:
    page = client.get("/check?game=remino&set=double-twelve").get_data(as_text=True)
    setup = setup_of(page)
    assert setup["options"] == {"set": "double-twelve"} and "11-12" in setup["pieces"]
    assert 'id="catalogue"' in page and "Switch" in page  # the button only without scripts
    assert client.get("/check?game=remino&set=double-99").status_code == 400


def test_the_tally_shows_short_outcomes_and_totals_first(client: FlaskClient, make_game) -> None:
    game = claimed_game(client, make_game)
    stock = {"winner": None, "racks": {"Ana": ["red-3"], "Ben": ["red-5"]}}
    path = f"/api/games/{game['id']}/hands"
    client.post(path, json={"hand": stock}, headers={"X-Edit-Token": game["edit_token"]})
    page = client.get(f"/g/{game['id']}").get_data(as_text=True)
    assert "stock-exhausted" not in page and '<small class="outcome">stock</small>' in page
    assert page.index('class="totals"') < page.index("<tbody>")
    assert 'id="undo-yes"' in page and 'id="rematch"' in page
