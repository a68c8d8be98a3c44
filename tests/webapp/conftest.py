"""Fixtures for the web app tests: an app on a temporary instance folder, a fake recogniser,
and helpers (as fixtures: the suite imports test modules with --import-mode=importlib)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from webapp import create_app


class FakeRecogniser:
    """Answers what the test told it; records the images it was given."""

    def __init__(self, kind: str, answer: dict[str, Any]) -> None:
        self.kind = kind
        self.answer = answer
        self.seen: list[bytes] = []

    def recognise(self, image: bytes) -> dict[str, Any]:
        self.seen.append(image)
        return {"kind": self.kind, **self.answer}


DEFAULT_ANSWER: dict[str, Any] = {
    "pieces": [
        {
            "label": "red-1",
            "bbox": [10, 10, 40, 60],
            "confidence": 0.9,
            "alternatives": [],
            "sure": True,
        },
        {
            "label": "red-2",
            "bbox": [45, 10, 75, 60],
            "confidence": 0.8,
            "alternatives": [],
            "sure": True,
        },
        {
            "label": "red-8",
            "bbox": [80, 10, 110, 60],
            "confidence": 0.4,
            "alternatives": [["red-3", 0.35]],
            "sure": False,
        },
    ],
    "melds": [[0, 1, 2]],
    "ms": 5,
}


@pytest.fixture
def recognisers() -> dict[str, FakeRecogniser]:
    return {}


@pytest.fixture
def app(tmp_path: Path, recognisers: dict[str, FakeRecogniser]) -> Iterator[Flask]:
    def factory(kind: str) -> FakeRecogniser:
        if kind not in recognisers:
            recognisers[kind] = FakeRecogniser(kind, DEFAULT_ANSWER)
        return recognisers[kind]

    yield create_app(
        {
            "INSTANCE_PATH": str(tmp_path / "instance"),
            "TESTING": True,
            "RECOGNISER_FACTORY": factory,
        }
    )


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def csrf_of(client: FlaskClient, path: str = "/") -> str:
    page = client.get(path).get_data(as_text=True)
    match = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert match, "page has no CSRF token"
    return match.group(1)


def new_game(
    client: FlaskClient,
    game: str = "rummikub",
    players: list[str] | None = None,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    response = client.post(
        "/api/games",
        json={"game": game, "options": options or {}, "players": players or ["Ana", "Ben"]},
    )
    assert response.status_code == 201, response.json
    return dict(response.json)


@pytest.fixture
def csrf() -> Callable[..., str]:
    return csrf_of


@pytest.fixture
def make_game(client: FlaskClient) -> Callable[..., dict[str, Any]]:
    def make(
        game: str = "rummikub",
        players: list[str] | None = None,
        options: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        return new_game(client, game, players, options)

    return make
