"""Fixtures for the web app tests: an app on a temporary instance folder, a fake recogniser,
and helpers (as fixtures: the suite imports test modules with --import-mode=importlib).

The app's database is SQLite in the instance folder; a test module that sets
``ON_POSTGRESQL = True`` runs each of its tests on PostgreSQL too, in a database of its own
copied from a migrated template. The server is ``MELDCAM_TEST_POSTGRES_URL`` (scripts/test.sh
starts one); without it those cases are skipped, except under CI, where they fail.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import create_engine, select, text
from sqlalchemy.engine import URL, make_url

from webapp import create_app, schema
from webapp.db import EXTENSION_KEY, Photo, PhotoData, make_engine, reading

POSTGRES_ENV = "MELDCAM_TEST_POSTGRES_URL"


def postgres_server() -> URL:
    """The test PostgreSQL server's URL (its ``meldcam`` database), or a skip (a failure in CI)."""
    raw = os.environ.get(POSTGRES_ENV)
    if not raw:
        reason = f"no PostgreSQL server: set {POSTGRES_ENV} (scripts/test.sh starts one)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return make_url(raw)


def _admin(server: URL, statement: str) -> None:
    engine = create_engine(server, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.execute(text(statement))
    finally:
        engine.dispose()


_templates: list[URL] = []


def _template_url() -> URL:
    """A database migrated to head once per run, copied for each test (fast)."""
    if not _templates:
        server = postgres_server()
        name = f"meldcam_template_{os.getpid()}"
        _admin(server, f"DROP DATABASE IF EXISTS {name}")
        _admin(server, f"CREATE DATABASE {name}")
        engine = make_engine(server.set(database=name).render_as_string(hide_password=False))
        schema.upgrade(engine)
        engine.dispose()
        _templates.append(server.set(database=name))
    return _templates[0]


@pytest.fixture(scope="session")
def postgres_template() -> Iterator[URL]:
    yield _template_url()
    for url in _templates:
        _admin(postgres_server(), f"DROP DATABASE IF EXISTS {url.database} WITH (FORCE)")
    _templates.clear()


@pytest.fixture(scope="session")
def new_postgres_database(postgres_template: URL) -> Iterator[Callable[[bool], str]]:
    """``new_postgres_database(migrated)``: a new database's URL, empty or at head (copied from
    the template); all dropped at the end of the run."""
    made: list[URL] = []

    def make(migrated: bool) -> str:
        server = postgres_server()
        name = f"meldcam_test_{secrets.token_hex(6)}"
        if migrated:
            _admin(server, f"CREATE DATABASE {name} TEMPLATE {postgres_template.database}")
        else:
            _admin(server, f"CREATE DATABASE {name}")
        made.append(server.set(database=name))
        return made[-1].render_as_string(hide_password=False)

    yield make
    for url in made:
        _admin(postgres_server(), f"DROP DATABASE IF EXISTS {url.database} WITH (FORCE)")


@pytest.fixture
def postgres_database(request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh database at head on the test server: its URL (dropped after the test)."""
    template: URL = request.getfixturevalue("postgres_template")
    name = f"meldcam_test_{secrets.token_hex(6)}"
    _admin(template, f"CREATE DATABASE {name} TEMPLATE {template.database}")
    yield template.set(database=name).render_as_string(hide_password=False)
    _admin(template, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "database_url" in metafunc.fixturenames:
        on_postgresql = getattr(metafunc.module, "ON_POSTGRESQL", False)
        kinds = ["sqlite", "postgresql"] if on_postgresql else ["sqlite"]
        metafunc.parametrize("database_url", kinds, indirect=True)


@pytest.fixture
def database_url(request: pytest.FixtureRequest) -> str | None:
    """None: the instance folder's SQLite database; else a fresh PostgreSQL database's URL."""
    if request.param == "sqlite":
        return None
    return str(request.getfixturevalue("postgres_database"))


class FakeRecogniser:
    """Answers what the test told it; records the images it was given."""

    def __init__(self, kind: str, answer: dict[str, Any]) -> None:
        self.kind = kind
        self.answer = answer
        self.seen: list[bytes] = []

    def recognise(
        self,
        image: bytes,
        channels: str = "rgb",
        set_name: str | None = None,
        untold: str | None = None,
    ) -> dict[str, Any]:
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
def app(
    tmp_path: Path, recognisers: dict[str, FakeRecogniser], database_url: str | None
) -> Iterator[Flask]:
    def factory(kind: str) -> FakeRecogniser:
        if kind not in recognisers:
            recognisers[kind] = FakeRecogniser(kind, DEFAULT_ANSWER)
        return recognisers[kind]

    config: dict[str, Any] = {
        "INSTANCE_PATH": str(tmp_path / "instance"),
        "TESTING": True,
        "RECOGNISER_FACTORY": factory,
    }
    if database_url is not None:
        config.update(DATABASE_URL=database_url, SECRET_KEY=secrets.token_hex(16))
    app = create_app(config)
    yield app
    app.extensions[EXTENSION_KEY].kw["bind"].dispose()  # no connection left open


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def photos_of(app: Flask) -> list[tuple[str, bytes]]:
    """The stored photos' file names and bytes (in the database: every node serves them)."""
    with app.app_context(), reading() as session:
        rows = session.execute(
            select(Photo.filename, PhotoData.data).join(PhotoData, PhotoData.photo_id == Photo.id)
        )
        return [(row.filename, row.data) for row in rows]


@pytest.fixture
def stored_photos() -> Callable[[Flask], list[tuple[str, bytes]]]:
    return photos_of


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


def new_form_game(client: FlaskClient, **fields: str) -> str:
    """A game started through the new-game form, as a browser does (CSRF token, redirect to its
    page); ``fields`` add to or replace the form's. Returns the game's id."""
    form = {"csrf_token": csrf_of(client), "game": "rummikub", "player-0": "Ana", "player-1": "Ben"}
    form.update(fields)
    response = client.post("/games", data=form)
    assert response.status_code == 302, response.get_data(as_text=True)
    match = re.search(r"/g/([\w-]+)$", response.headers["Location"])
    assert match
    return match.group(1)


@pytest.fixture
def form_game() -> Callable[..., str]:
    return new_form_game


@pytest.fixture
def make_game(client: FlaskClient) -> Callable[..., dict[str, Any]]:
    def make(
        game: str = "rummikub",
        players: list[str] | None = None,
        options: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        return new_game(client, game, players, options)

    return make


# The browser tests' fixtures; their steps are in tests/support/browser_pages.py.


@pytest.fixture(scope="module")
def chromium_browser() -> Iterator[Any]:
    """Debian's chromium, driven by Playwright (which downloads no browser)."""
    from browser_pages import CHROMIUM, playwright_api

    with playwright_api.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM)
        yield launched
        launched.close()


@pytest.fixture
def new_page(chromium_browser: Any) -> Iterator[Callable[..., Any]]:
    """``new_page(**context_options)`` opens a page in a browser context of its own (its own
    cookies); the test fails on any script error or console error on any of them, but those
    ``ignore_console(message)`` accepts. ``new_page.errors`` lists them so far."""
    contexts: list[Any] = []
    errors: list[str] = []

    def open_page(
        ignore_console: Callable[[Any], bool] | None = None,
        timeout_ms: int = 15_000,
        **context_options: Any,
    ) -> Any:
        context = chromium_browser.new_context(**context_options)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(timeout_ms)
        page.on("pageerror", lambda error: errors.append(str(error)))

        def console(message: Any) -> None:
            if message.type == "error" and not (ignore_console and ignore_console(message)):
                errors.append(message.text)

        page.on("console", console)
        return page

    open_page.errors = errors  # type: ignore[attr-defined]
    yield open_page
    for context in contexts:
        context.close()
    assert not errors, f"browser errors: {errors}"
