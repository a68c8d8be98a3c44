"""Load past one machine (issue 24): real ``meldcam serve`` nodes on one PostgreSQL, real
``meldcam worker`` processes on one Redis, driven from this process over loopback.

- photos: one web node, 1, 2 and 4 recognition workers (the shipped tile reader); ``--clients``
  threads post real Rummikub photos (``rk_*`` of ``--photos``) for ``--seconds`` each. Photos
  read per second and the 50th/95th percentile of the answer time; 503s (readers busy) counted.
- hand writes: 1 and 2 web nodes (clients spread over them); each client saves hands to a game
  of its own through the JSON API (an Idempotency-Key each). Hands per second, p50/p95.

Bounded: every phase stops after ``--seconds`` and every process it started is stopped. The
servers are the tests' throwaway ones (scripts/services.sh), given by URL:

    bash -c 'source scripts/services.sh && start_test_services && \
        .venv/bin/python -m benchmarks.bench_scale'

The machine's load (``os.getloadavg``) is printed: other work on the same cores slows every
figure; on 2 cores, recognition cannot scale past 2 busy workers.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import requests
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parents[1]
PLACES = (ROOT.parent / "shared/realdata/dev", Path("/work/shared/realdata/dev"))
DEFAULT_PHOTOS = next((p for p in PLACES if p.is_dir()), PLACES[0])
SERVING = re.compile(r"serving on (http://\S+?)/?$")
HAND = {"winner": "Ana", "racks": {"Ana": [], "Ben": ["red-1"]}}


class Process:
    """A ``meldcam`` subcommand in a process of its own."""

    def __init__(self, args: list[str], environment: dict[str, str], log: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "meldcam", *args],
            cwd=ROOT,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=log.open("w"),
            text=True,
        )
        self.log = log
        self.url = ""

    def wait_for(self, pattern: re.Pattern[str], timeout_s: float = 180) -> str:
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                raise SystemExit(f"process ended: {self.log.read_text()[-1500:]}")
            match = pattern.search(line.strip())
            if match:
                threading.Thread(target=self.process.stdout.read, daemon=True).start()
                return match.group(1) if match.groups() else line
        raise SystemExit(f"no {pattern.pattern!r} within {timeout_s} s")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()


def fresh_database(server: str) -> str:
    """An empty database on the server (the first node makes its schema)."""
    name = f"meldcam_bench_{uuid.uuid4().hex[:8]}"
    engine = create_engine(server, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f"CREATE DATABASE {name}"))
    engine.dispose()
    return make_url(server).set(database=name).render_as_string(hide_password=False)


def drop_database(server: str, database: str) -> None:
    engine = create_engine(server, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        name = make_url(database).database
        connection.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
    engine.dispose()


def run_clients(
    clients: int, seconds: float, work: Callable[[int], int]
) -> tuple[list[float], dict[int, int]]:
    """``clients`` threads calling ``work(client)`` (-> HTTP status) until ``seconds`` pass:
    the answer times of the 2xx answers, and the count of each status."""
    times: list[float] = []
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def loop(client: int) -> None:
        while time.monotonic() < stop_at:
            started = time.perf_counter()
            try:
                status = work(client)
            except requests.RequestException:
                status = 0
            elapsed = time.perf_counter() - started
            with lock:
                statuses[status] = statuses.get(status, 0) + 1
                if 200 <= status < 300:
                    times.append(elapsed)
            if status == 503:
                time.sleep(0.2)  # as a phone would, after "busy"

    threads = [threading.Thread(target=loop, args=(c,)) for c in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return times, statuses


def summary(name: str, times: list[float], statuses: dict[int, int], seconds: float) -> dict:
    ordered = sorted(times)
    p95 = ordered[max(0, round(0.95 * len(ordered)) - 1)] if ordered else None
    row = {
        "measure": name,
        "per_s": round(len(times) / seconds, 2),
        "p50_ms": round(1000 * statistics.median(ordered)) if ordered else None,
        "p95_ms": round(1000 * p95) if p95 is not None else None,
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "load": [round(x, 1) for x in os.getloadavg()],
    }
    print(json.dumps(row), flush=True)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres", default=os.environ.get("MELDCAM_TEST_POSTGRES_URL"))
    parser.add_argument("--redis", default=os.environ.get("MELDCAM_TEST_REDIS_URL"))
    parser.add_argument("--photos", type=Path, default=DEFAULT_PHOTOS)
    parser.add_argument("--seconds", type=float, default=30.0, help="per measurement")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients")
    parser.add_argument("--workers", default="1,2,4", help="recognition workers to try")
    parser.add_argument("--nodes", default="1,2", help="web nodes to try for hand writes")
    args = parser.parse_args()
    if not args.postgres or not args.redis:
        print("bench_scale: needs --postgres and --redis (see the docstring)", file=sys.stderr)
        return 2
    photos = sorted(args.photos.glob("rk_*.jpg"))
    if not photos:
        print(f"bench_scale: no rk_*.jpg photos in {args.photos}", file=sys.stderr)
        return 2
    photo_bytes = [p.read_bytes() for p in photos]
    folder = Path(tempfile.mkdtemp(prefix="meldcam-bench-"))
    database = fresh_database(args.postgres)
    environment = {
        **os.environ,
        "MELDCAM_DATABASE_URL": database,
        "MELDCAM_SECRET_KEY": uuid.uuid4().hex * 2,
        "MELDCAM_REDIS_URL": args.redis,
        "MELDCAM_RATELIMIT_ENABLED": "false",
        "MELDCAM_RECOGNISE_QUEUE_LIMIT": "64",
    }
    started: list[Process] = []

    def node(name: str) -> Process:
        env = {**environment, "MELDCAM_INSTANCE_PATH": str(folder / name)}
        process = Process(["serve", "--port", "0", "--threads", "16"], env, folder / f"{name}.log")
        started.append(process)
        process.url = process.wait_for(SERVING)
        return process

    rows = []
    print(
        f"bench_scale: {len(photos)} photos, {args.clients} clients, {args.seconds:.0f} s "
        f"each, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    try:
        web = node("web0")
        workers: list[Process] = []
        for count in [int(n) for n in args.workers.split(",")]:
            while len(workers) < count:
                worker = Process(
                    ["worker", "--redis", args.redis],
                    environment,
                    folder / f"worker{len(workers)}.log",
                )
                started.append(worker)
                worker.wait_for(re.compile(r"(reading photos)"))
                workers.append(worker)

            reading_ms: list[float] = []

            def post_photo(
                client: int, url: str = web.url, reading_ms: list[float] = reading_ms
            ) -> int:
                data = photo_bytes[client % len(photo_bytes)]
                response = requests.post(
                    f"{url}/api/recognise",
                    data={"kind": "tiles"},
                    files={"photo": ("table.jpg", data, "image/jpeg")},
                    timeout=120,
                )
                if response.status_code == 200:
                    reading_ms.append(float(response.json().get("ms", 0)))
                return response.status_code

            run_clients(args.clients, min(5.0, args.seconds), post_photo)  # warm-up
            reading_ms.clear()
            times, statuses = run_clients(args.clients, args.seconds, post_photo)
            row = summary(f"photos, {count} workers", times, statuses, args.seconds)
            # the reader's own time per photo (the recogniser's "ms"), without queue and upload
            row["reading_p50_ms"] = round(statistics.median(reading_ms)) if reading_ms else None
            print(json.dumps({"reading_p50_ms": row["reading_p50_ms"]}), flush=True)
            rows.append(row)
        for worker in workers:
            worker.stop()
        nodes = [web]
        for count in [int(n) for n in args.nodes.split(",")]:
            while len(nodes) < count:
                nodes.append(node(f"web{len(nodes)}"))
            in_use = nodes[:count]
            games = []
            for client in range(args.clients):
                made = requests.post(
                    f"{in_use[client % count].url}/api/games",
                    json={
                        "game": "rummikub",
                        "options": {"target": 10**9},
                        "players": ["Ana", "Ben"],
                    },
                    timeout=30,
                ).json()
                games.append(made)

            def save_hand(
                client: int, in_use: list[Process] = in_use, games: list[dict] = games
            ) -> int:
                game = games[client]
                target = in_use[(client + int(time.monotonic() * 10)) % len(in_use)]
                return requests.post(
                    f"{target.url}/api/games/{game['id']}/hands",
                    json={"hand": HAND},
                    headers={
                        "X-Edit-Token": game["edit_token"],
                        "Idempotency-Key": uuid.uuid4().hex,
                    },
                    timeout=30,
                ).status_code

            run_clients(args.clients, min(3.0, args.seconds), save_hand)  # warm-up
            times, statuses = run_clients(args.clients, args.seconds, save_hand)
            rows.append(summary(f"hand writes, {count} web nodes", times, statuses, args.seconds))
    finally:
        for process in started:
            process.stop()
        drop_database(args.postgres, database)
    print(json.dumps({"results": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
