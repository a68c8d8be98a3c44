"""Every write route is rate-limited and bounded: walked from the app's ``url_map``, so a route
added tomorrow is checked too. Each write route (POST, PUT, PATCH, DELETE) is sent writes past
a tiny ``RATELIMIT_WRITES`` and must answer 429, unless ``throttle.UNLIMITED`` names it with a
reason; each is sent a body past ``MAX_CONTENT_LENGTH`` and must answer 413 before any work."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from werkzeug.routing import Rule

from webapp import create_app, events
from webapp.throttle import NEW_GAMES, TOKEN_CHECKS, UNLIMITED, WRITE_METHODS

BODY_LIMIT = 4096
CSRF = "guarded-test-csrf"
_addresses = (f"198.51.100.{n}" for n in itertools.count(1))


def guarded_app(tmp_path: Path) -> Flask:
    """An app whose writes limit is one write a minute (the other limits out of the way)."""
    return create_app(
        {
            "INSTANCE_PATH": str(tmp_path / "instance"),
            "TESTING": True,
            "RATELIMIT_WRITES": "1 per minute",
            "RATELIMIT_NEW_GAMES": "1000 per minute",
            "RATELIMIT_BAD_TOKENS": "1000 per minute",
            "MAX_CONTENT_LENGTH": BODY_LIMIT,
        }
    )


def write_rules(app: Flask) -> list[Rule]:
    return sorted(
        (rule for rule in app.url_map.iter_rules() if (rule.methods or set()) & WRITE_METHODS),
        key=lambda rule: rule.endpoint,
    )


def send(app: Flask, rule: Rule, address: str, **body: Any) -> int:
    """One write to ``rule`` (made-up ids, a valid CSRF token) from the client ``address``."""
    values = {name: 1 if name in {"number", "seat"} else "nothing" for name in rule.arguments}
    path = app.url_map.bind("localhost").build(rule.endpoint, values)
    method = sorted((rule.methods or set()) & WRITE_METHODS)[0]
    client = app.test_client()
    with client.session_transaction() as session:
        session["csrf"] = CSRF
    if not body:
        body = {"data": {"csrf_token": CSRF}}
    answer = client.open(path, method=method, environ_overrides={"REMOTE_ADDR": address}, **body)
    return answer.status_code


def unlimited(app: Flask) -> list[str]:
    """The write routes where a client's second write in a minute is not refused with 429."""
    found = []
    for rule in write_rules(app):
        address = next(_addresses)
        codes = [send(app, rule, address) for _ in range(2)]
        assert codes[0] != 429, (rule.endpoint, codes)  # a fresh client is never refused
        if codes[1] != 429:
            found.append(rule.endpoint)
    return found


def unbounded(app: Flask) -> list[str]:
    """The write routes that do not refuse a body past ``MAX_CONTENT_LENGTH`` with 413."""
    body = {"data": b"x" * (BODY_LIMIT + 1), "content_type": "application/json"}
    return [
        rule.endpoint
        for rule in write_rules(app)
        if send(app, rule, next(_addresses), **body) != 413
    ]


def test_every_write_route_is_rate_limited_but_the_listed_ones(tmp_path: Path):
    app = guarded_app(tmp_path)
    endpoints = {rule.endpoint for rule in write_rules(app)}
    assert len(endpoints) >= 20  # the walk sees the app's routes
    assert set(UNLIMITED) <= endpoints  # no exemption outlives its route
    assert all(len(reason) > 20 for reason in UNLIMITED.values())
    assert set(NEW_GAMES) <= endpoints - set(UNLIMITED)
    assert sorted(unlimited(app)) == sorted(UNLIMITED)


def test_every_write_route_is_bounded(tmp_path: Path):
    app = guarded_app(tmp_path)
    assert unbounded(app) == []


def test_every_write_route_refuses_too_deep_json(tmp_path: Path):
    """A small body nested past ``MAX_JSON_DEPTH`` is never taken, and never a 500."""
    app = guarded_app(tmp_path)
    app.config["RATELIMIT_ENABLED"] = False
    deep = {"data": "[" * 40 + "]" * 40, "content_type": "application/json"}
    codes = {rule.endpoint: send(app, rule, next(_addresses), **deep) for rule in write_rules(app)}
    assert all(400 <= code < 500 for code in codes.values()), codes


def test_a_route_added_after_the_limiter_is_caught(tmp_path: Path):
    """The walk above would find a write route that escaped the limiter (one added after
    ``init_throttle``): the test cannot pass with an unguarded write route."""
    app = guarded_app(tmp_path)
    app.add_url_rule("/api/sneaked", "sneaked", lambda: ("", 204), methods=["POST"])
    assert unlimited(app) == sorted([*UNLIMITED, "sneaked"])


def test_a_new_write_route_is_limited_without_a_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A write route registered before the limiter, as every route of the app is, gets the
    writes limit with no list to add it to."""
    init_events: Callable[[Flask], Any] = events.init_events

    def with_a_new_route(app: Flask) -> Any:
        app.add_url_rule("/api/new-write", "new_write", lambda: ("", 204), methods=["PUT"])
        return init_events(app)

    monkeypatch.setattr(events, "init_events", with_a_new_route)
    app = guarded_app(tmp_path)
    assert "new_write" in {rule.endpoint for rule in write_rules(app)}
    assert sorted(unlimited(app)) == sorted(UNLIMITED)


def test_token_checks_are_routes(tmp_path: Path):
    app = guarded_app(tmp_path)
    assert set(TOKEN_CHECKS) <= {rule.endpoint for rule in app.url_map.iter_rules()}
