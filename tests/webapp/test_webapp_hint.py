"""POST /api/hint: the move finder behind a time budget (issue 26)."""

from flask import Flask
from flask.testing import FlaskClient

from scorer import hints

POSITION = {"table": [["red-3", "red-4", "red-5"]], "rack": ["red-6", "blue-9"], "opened": True}


def test_hint_answers_with_the_exact_flag(client: FlaskClient):
    response = client.post("/api/hint", json={"game": "rummikub", "position": POSITION})
    assert response.status_code == 200
    body = response.json
    assert body["placed"] == ["red-6"] and body["count"] == 1
    assert body["exact"] is True and "note" not in body


def test_hint_past_its_budget_is_marked(app: Flask, client: FlaskClient, monkeypatch):
    """A search that cannot finish in the budget: the best found so far, marked, no hang."""

    def too_slow(rules, position, deadline=None):
        assert deadline is not None  # the route passes its budget on
        return hints.Hint(
            (), tuple(tuple(rules.parse(p) for p in m) for m in POSITION["table"]), 0, exact=False
        )

    monkeypatch.setattr(hints, "number_tile_hint", too_slow)
    app.config["HINT_BUDGET_S"] = 0.05
    body = client.post("/api/hint", json={"game": "rummikub", "position": POSITION}).json
    assert body["exact"] is False and "may not be the best" in body["note"]
    assert body["placed"] == [] and body["table"] == POSITION["table"]


def test_hint_bad_input_is_400(client: FlaskClient):
    for payload in (
        {"game": "rummikub"},
        {"game": "rummikub", "position": {"rack": ["red-99"]}},
        {"game": "gin", "position": {"rack": ["QH"]}},
    ):
        response = client.post("/api/hint", json=payload)
        assert response.status_code == 400, payload
        assert response.json["error"]
