"""Two writes to one game at the same moment (the reliability issue): add vs undo, add vs edit,
add vs add, each released together by a barrier from two threads, 20 rounds.

Whatever the order the database chose, the game must be as if the two had run one after the
other: hands numbered 1..n with no gap, every hand acknowledged (2xx) kept unless an undo that
answered success removed it, and the next save accepted. On SQLite this needs every write
transaction to take the write lock before its first read (``webapp.db``); on PostgreSQL the
game's row lock (``matches.get_game(..., for_update=True)``) does it. Flask's test client runs
each request in the calling thread, so two threads with a client each really race.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from webapp import create_app
from webapp.db import EXTENSION_KEY

pytestmark = pytest.mark.servers

ON_POSTGRESQL = True  # each race on PostgreSQL too (tests/webapp/conftest.py)
ROUNDS = 20
COLOURS = ("red", "blue", "black", "orange")

Response = Any  # werkzeug's TestResponse
Send = Callable[[FlaskClient], Response]


@pytest.fixture
def race_app(tmp_path: Path, database_url: str | None) -> Iterator[Flask]:
    """An app with the rate limits off: one test client sends a hundred writes a minute."""
    config: dict[str, Any] = {
        "INSTANCE_PATH": str(tmp_path / "races"),
        "TESTING": True,
        "RATELIMIT_ENABLED": False,
        "SECRET_KEY": secrets.token_hex(16),
    }
    if database_url is not None:
        config["DATABASE_URL"] = database_url
    app = create_app(config)
    yield app
    app.extensions[EXTENSION_KEY].kw["bind"].dispose()


class Table:
    """One game and the hands sent to it; each hand is told apart by Ben's rack."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.client = app.test_client()
        made = self.client.post(
            "/api/games",
            json={"game": "rummikub", "options": {"target": 10**6}, "players": ["Ana", "Ben"]},
        )
        assert made.status_code == 201, made.json
        self.id = made.json["id"]
        self.headers = {"X-Edit-Token": made.json["edit_token"]}
        self.sent = 0

    def new_hand(self) -> dict[str, Any]:
        """A hand no other in this game looks like (its mark: Ben's rack)."""
        self.sent += 1
        colour = COLOURS[self.sent // 13 % len(COLOURS)]
        rack = [f"{colour}-{self.sent % 13 + 1}", f"{COLOURS[self.sent // 52 % 4]}-13"]
        return {"winner": "Ana", "racks": {"Ana": [], "Ben": rack}}

    def add(self, hand: dict[str, Any]) -> Send:
        return lambda client: client.post(
            f"/api/games/{self.id}/hands", json={"hand": hand}, headers=self.headers
        )

    def edit(self, number: int, hand: dict[str, Any]) -> Send:
        return lambda client: client.put(
            f"/api/games/{self.id}/hands/{number}", json={"hand": hand}, headers=self.headers
        )

    def undo(self) -> Send:
        return lambda client: client.delete(
            f"/api/games/{self.id}/hands/last", headers=self.headers
        )

    def hands(self) -> list[tuple[int, list[str]]]:
        """(number, mark) of each stored hand, in order."""
        answer = self.client.get(f"/api/games/{self.id}")
        assert answer.status_code == 200
        return [(h["number"], h["hand"]["racks"]["Ben"]) for h in answer.json["hands"]]

    def save_next(self) -> list[str]:
        """Save one more hand alone: it must be accepted as the next number. Problems found."""
        hand = self.new_hand()
        before = self.hands()
        answer = self.add(hand)(self.client)
        if answer.status_code != 201:
            return [f"the next save answered {said(answer)}"]
        if answer.json["number"] != len(before) + 1:
            return [f"the next save got number {answer.json['number']} after {len(before)}"]
        return []


def race(app: Flask, *sends: Send) -> list[Response]:
    """Send the requests at the same moment, one thread and one client each."""
    barrier = threading.Barrier(len(sends))
    answers: list[Response] = [None] * len(sends)
    errors: list[BaseException] = []

    def run(index: int, send: Send, client: FlaskClient) -> None:
        try:
            barrier.wait(timeout=10)
            answers[index] = send(client)
        except BaseException as error:  # reported by the test thread
            errors.append(error)

    threads = [
        threading.Thread(target=run, args=(index, send, app.test_client()))
        for index, send in enumerate(sends)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors
    return answers


def said(answer: Response) -> str:
    """An answer in short: its status and number, or its error."""
    body = answer.json or {}
    told = (
        body.get("error") if answer.status_code >= 300 else body.get("number", body.get("undone"))
    )
    return f"{answer.status_code} ({told})"


def numbering(hands: list[tuple[int, list[str]]]) -> list[str]:
    numbers = [number for number, _mark in hands]
    return [] if numbers == list(range(1, len(hands) + 1)) else [f"hands numbered {numbers}"]


def run_rounds(table: Table, one_round: Callable[[int], list[str]]) -> None:
    """``ROUNDS`` rounds, each checked, then the next save; every round's problems reported."""
    for _ in range(2):  # something to undo and edit from the first round
        assert table.add(table.new_hand())(table.client).status_code == 201
    problems: list[str] = []
    for index in range(ROUNDS):
        found = one_round(index)
        found += numbering(table.hands())
        found += table.save_next()
        problems += [f"round {index + 1}: {problem}" for problem in found]
    bad_rounds = len({problem.split(":")[0] for problem in problems})
    assert not problems, f"{bad_rounds} of {ROUNDS} rounds went wrong:\n" + "\n".join(problems)


def test_add_and_undo_at_once(race_app: Flask) -> None:
    """Either the undo took the new hand back or the hand came after the undo; nothing else."""
    table = Table(race_app)

    def one_round(_index: int) -> list[str]:
        before = table.hands()
        hand = table.new_hand()
        added, undone = race(race_app, table.add(hand), table.undo())
        if (added.status_code, undone.status_code) != (201, 200):
            return [f"add answered {said(added)}, undo {said(undone)}"]
        after = table.hands()
        mark = hand["racks"]["Ben"]
        n = len(before)
        add_then_undo = (added.json["number"], undone.json["undone"]) == (n + 1, n + 1)
        undo_then_add = (added.json["number"], undone.json["undone"]) == (n, n)
        if add_then_undo and after == before:
            return []
        if undo_then_add and after == [*before[:-1], (n, mark)]:
            return []
        return [
            f"added {added.json['number']}, undid {undone.json['undone']}: "
            f"{len(before)} hands became {[number for number, _ in after]}"
        ]

    run_rounds(table, one_round)


def test_add_and_edit_at_once(race_app: Flask) -> None:
    """The last hand edited and a new one added: both kept, whichever went first."""
    table = Table(race_app)

    def one_round(_index: int) -> list[str]:
        before = table.hands()
        n = len(before)
        new, changed = table.new_hand(), table.new_hand()
        added, edited = race(race_app, table.add(new), table.edit(n, changed))
        if (added.status_code, edited.status_code) != (201, 200):
            return [f"add answered {said(added)}, edit {said(edited)}"]
        after = table.hands()
        wanted = [*before[:-1], (n, changed["racks"]["Ben"]), (n + 1, new["racks"]["Ben"])]
        if added.json["number"] == n + 1 and after == wanted:
            return []
        return [f"added {added.json['number']}: {n} hands became {after[n - 1 :]}"]

    run_rounds(table, one_round)


def test_two_adds_at_once(race_app: Flask) -> None:
    """Two phones saving the next hand: each gets its own number, both are kept."""
    table = Table(race_app)

    def one_round(_index: int) -> list[str]:
        before = table.hands()
        n = len(before)
        first, second = table.new_hand(), table.new_hand()
        answers = race(race_app, table.add(first), table.add(second))
        statuses = [answer.status_code for answer in answers]
        if statuses != [201, 201]:
            return [f"adds answered {[said(answer) for answer in answers]}"]
        numbers = [answer.json["number"] for answer in answers]
        if sorted(numbers) != [n + 1, n + 2]:
            return [f"adds got numbers {numbers} after {n} hands"]
        marks = {
            number: hand["racks"]["Ben"]
            for number, hand in zip(numbers, (first, second), strict=True)
        }
        after = table.hands()
        if after != [*before, (n + 1, marks[n + 1]), (n + 2, marks[n + 2])]:
            return [f"{n} hands became {[number for number, _ in after]}"]
        return []

    run_rounds(table, one_round)
