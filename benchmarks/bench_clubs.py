"""A club's statistics at scale (issue 68): 50 players, 2,000 matches, 40,000 hands.

Builds the club straight into a fresh database (Remik matches of 4 players to 20 hands, and
Gin Rummy matches of 2, each of 20 hands, their results in the shape the scorer stores, with
each match's seats' lines ``webapp.clubs.note_match`` keeps beside its hands), then
times ``GET /api/clubs/<id>/stats`` and the club page through Flask's test client: the median
and the worst of ``--runs`` requests after one warm-up. Target: <= 200 ms on 2 cores, on SQLite
and on PostgreSQL. Each figure is given as wall-clock time (median, best, worst) and as this
process's CPU time (median; with SQLite the whole request's work, as the database runs in it).

    .venv/bin/python -m benchmarks.bench_clubs [--database-url postgresql+psycopg://...]
        [--players 50] [--matches 2000] [--hands 20] [--runs 7]

The database URL must name an empty database (SQLite: a new file in a temporary folder when no
URL is given); PostgreSQL's is vacuumed and analysed once built, as autovacuum would do. The
machine's load (``os.getloadavg``) is printed with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import insert

from scorer.records import HandRecord, match_lines
from webapp import create_app
from webapp.clubs import LINE_FIELDS, _held
from webapp.db import (
    EXTENSION_KEY,
    ClubGame,
    ClubSeat,
    ClubSeatLine,
    Game,
    Hand,
    Player,
    transaction,
)

SEED = 68


def _remik_hand(rng: random.Random, names: list[str]) -> dict[str, Any]:
    winner = rng.choice(names)
    values = {n: (0 if n == winner else rng.randint(3, 90)) for n in names}
    deltas = {n: -v for n, v in values.items()}
    deltas[winner] = sum(values.values())
    result = {"outcome": "out", "winner": winner, "deltas": deltas, "deadwood": None}
    result["rack_values"] = values
    return result


def _gin_hand(rng: random.Random, names: list[str], last: bool) -> dict[str, Any]:
    winner = rng.choice(names)
    deadwood = {n: (rng.randint(0, 10) if n == winner else rng.randint(5, 60)) for n in names}
    points = 100 if last else rng.randint(1, 5)  # the match ends with its 20th hand
    deltas = {n: (points if n == winner else 0) for n in names}
    melds = {n: [["5H", "6H", "7H"], ["KC", "KD", "KS"]] for n in names}
    result: dict[str, Any] = {"outcome": "knock", "winner": winner, "deltas": deltas}
    result.update(deadwood=deadwood, penalties=deltas, melds=melds, layoffs=[], unmatched={})
    result["deadwood_before_layoffs"] = deadwood
    return result


def build(app: Any, players: int, count: int, hands: int) -> str:
    """The club with its matches, straight into the database; returns the club's id."""
    rng = random.Random(SEED)
    client = app.test_client()
    names = [f"Player {i:02d}" for i in range(players)]
    made = client.post("/api/clubs", json={"name": "Benchmark club", "players": names[:16]})
    club_id = str(made.json["id"])
    token = made.json["edit_token"]
    for start in range(16, players, 16):
        for name in names[start : start + 16]:
            added = client.post(
                f"/api/clubs/{club_id}/players",
                json={"name": name},
                headers={"X-Club-Token": token},
            )
            assert added.status_code == 201, added.json
    ids = {name: i for i, name in enumerate(client.get(f"/api/clubs/{club_id}").json["players"])}
    with app.app_context(), transaction() as db:
        from webapp.clubs import get_club

        player_ids = {p.name: p.id for p in get_club(db, club_id).players}
    assert set(ids) == set(player_ids)
    games: list[dict[str, Any]] = []
    seats_rows: list[dict[str, Any]] = []
    player_rows: list[dict[str, Any]] = []
    club_rows: list[dict[str, Any]] = []
    hand_rows: list[dict[str, Any]] = []
    line_rows: list[dict[str, Any]] = []
    start_day = datetime(2026, 1, 1, tzinfo=UTC)
    for number in range(count):
        game_id = secrets.token_urlsafe(12)
        remik = number % 2 == 0
        seated = rng.sample(names, 4 if remik else 2)
        when = start_day + timedelta(minutes=number * 150)
        games.append(
            {
                "id": game_id,
                "game": "remik" if remik else "gin",
                "options": {"hands": hands} if remik else {},
                "edit_token_hash": "0" * 64,
                "created_at": when,
            }
        )
        club_rows.append({"game_id": game_id, "club_id": club_id})
        for seat, name in enumerate(seated):
            player_rows.append({"game_id": game_id, "seat": seat, "name": name})
            seats_rows.append(
                {"game_id": game_id, "seat": seat, "club_player_id": player_ids[name]}
            )
        played: list[HandRecord] = []
        for hand in range(1, hands + 1):
            result = _remik_hand(rng, seated) if remik else _gin_hand(rng, seated, hand == hands)
            played.append(HandRecord(result["deltas"], result["winner"], _held(result)))
            hand_rows.append(
                {
                    "game_id": game_id,
                    "number": hand,
                    "hand": {"players": seated, "winner": result["winner"]},
                    "result": result,
                    "deltas": result["deltas"],
                    "created_at": when + timedelta(minutes=hand * 5),
                }
            )
        lines = match_lines(seated, played)
        line_rows.extend(
            {"game_id": game_id, "seat": seat, **{f: getattr(lines[name], f) for f in LINE_FIELDS}}
            for seat, name in enumerate(seated)
        )
    with app.app_context(), transaction() as db:
        db.execute(insert(Game), games)
        db.execute(insert(Player), player_rows)
        db.execute(insert(ClubGame), club_rows)
        db.execute(insert(ClubSeat), seats_rows)
        for start in range(0, len(hand_rows), 5000):
            db.execute(insert(Hand), hand_rows[start : start + 5000])
        db.execute(insert(ClubSeatLine), line_rows)
    engine = app.extensions[EXTENSION_KEY].kw["bind"]
    if engine.dialect.name == "postgresql":  # what autovacuum does after a while: statistics
        with engine.connect() as connection:  # and the visibility map (index-only scans)
            connection.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql(
                "VACUUM ANALYZE"
            )
    return club_id


def timed(client: Any, path: str, runs: int) -> tuple[list[float], list[float]]:
    """Wall-clock and this process's CPU milliseconds of each of ``runs`` requests (the CPU time
    leaves out waiting for the other work on the machine, and PostgreSQL's own part)."""
    client.get(path)  # warm-up: caches, the first connection
    wall, cpu = [], []
    for _ in range(runs):
        began, began_cpu = time.perf_counter(), time.process_time()
        response = client.get(path)
        wall.append((time.perf_counter() - began) * 1000)
        cpu.append((time.process_time() - began_cpu) * 1000)
        assert response.status_code == 200, response.status_code
    return wall, cpu


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="bench-clubs-")
    config: dict[str, Any] = {"INSTANCE_PATH": folder, "RATELIMIT_ENABLED": False}
    if args.database_url:
        config.update(DATABASE_URL=args.database_url, SECRET_KEY=secrets.token_hex(16))
    app = create_app(config)
    began = time.perf_counter()
    club_id = build(app, args.players, args.matches, args.hands)
    built_s = time.perf_counter() - began
    client = app.test_client()
    stats: dict[str, Any] = dict(client.get(f"/api/clubs/{club_id}/stats").json or {})
    hands = sum(r["hands"] for r in stats["players"].values())  # each player's hands, added
    figures: dict[str, Any] = {
        "database": app.extensions[EXTENSION_KEY].kw["bind"].dialect.name,
        "players": len(stats["players"]),
        "matches": stats["matches"],
        "player_hands": hands,
        "built_s": round(built_s, 1),
        "load_before": os.getloadavg(),
    }
    for name, path in (
        ("stats", f"/api/clubs/{club_id}/stats"),
        ("stats_one_game", f"/api/clubs/{club_id}/stats?game=remik"),
        ("stats_since", f"/api/clubs/{club_id}/stats?since=2026-06-01"),
        ("csv", f"/api/clubs/{club_id}/stats.csv"),
        ("page", f"/c/{club_id}"),
    ):
        wall, cpu = timed(client, path, args.runs)
        figures[f"{name}_median_ms"] = round(statistics.median(wall), 1)
        figures[f"{name}_best_ms"] = round(min(wall), 1)
        figures[f"{name}_worst_ms"] = round(max(wall), 1)
        figures[f"{name}_cpu_median_ms"] = round(statistics.median(cpu), 1)
    figures["load_after"] = os.getloadavg()
    app.extensions[EXTENSION_KEY].kw["bind"].dispose()
    print(json.dumps(figures, indent=2))
    return figures


if __name__ == "__main__":
    main()
