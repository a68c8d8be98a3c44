"""Issue 27's load figure: 20 games, 60 open event streams, and other requests still answered
quickly, against a real ``meldcam serve`` (waitress, a subprocess, loopback only).

    .venv/bin/python -m benchmarks.live_streams [--games 20] [--streams 60] [--seconds 30]
        [--threads 4] [--processes 1] [--rate 40] [--json out.json]

1. Start ``meldcam serve`` on 127.0.0.1 (a fresh instance folder, SQLite), make ``--games``
   games and open ``--streams`` event streams spread over them (3 a game by default), each a
   plain socket read by one selector thread, as a phone's EventSource would.
2. For ``--seconds``: a writer saves a hand in the next game every 0.5 s (through the API;
   every stream of that game must hear of it), and a reader asks the other pages and API routes
   a phone asks (the game page, the game's JSON, the racks, the catalogue) ``--rate`` times a
   second. 40 a second is several times what 20 tables ask (each saved hand makes each of its
   3 open pages read the game again: 6 a second here); ``--rate 0`` asks one after another as
   fast as answered, which keeps the one Python process's lock busy and shows its worst case:
   a thread woken while others run can wait 50-150 ms for its turn (CPython's GIL hands over
   every 5 ms, not in order).
3. Prints: the other requests' latency (median, p95, max; target: all under 200 ms), the
   writes' latency, how long each event took from the write's answer to each stream (and how
   many arrived of those due), the streams still open at the end, the server's CPU time, and
   the machine's load average (other work on the same 2 cores slows every figure).

Bounded: a fixed number of games, streams and seconds; every socket is to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = ["Ana", "Ben", "Cy"]
HAND = {"winner": "Cy", "racks": {"Ana": ["red-5"], "Ben": ["blue-9"], "Cy": []}}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def request(port: int, method: str, path: str, body: Any = None, token: str = "") -> Any:
    """(status, parsed JSON or None, seconds)."""
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["X-Edit-Token"] = token
    try:
        connection.request(method, path, None if body is None else json.dumps(body), headers)
        response = connection.getresponse()
        data = response.read()
    finally:
        connection.close()
    took = time.perf_counter() - started
    is_json = response.getheader("Content-Type", "").startswith("application/json")
    return response.status, json.loads(data) if is_json else None, took


class Streams:
    """Open event streams read by one selector thread; records when each event arrived."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.selector = selectors.DefaultSelector()
        self.arrivals: dict[tuple[str, int], list[float]] = {}  # (game, version) -> times
        self.buffers: dict[socket.socket, bytes] = {}
        self.games: dict[socket.socket, str] = {}
        self.open = 0
        self.lock = threading.Lock()
        self.running = True
        self.thread = threading.Thread(target=self._read, daemon=True)

    def add(self, game_id: str) -> None:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        sock.sendall(
            f"GET /api/games/{game_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Accept: text/event-stream\r\n\r\n".encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(4096)
        status = head.split(b"\r\n", 1)[0]
        if b" 200 " not in status:
            raise RuntimeError(f"stream refused: {status!r}")
        sock.setblocking(False)
        self.buffers[sock] = head.split(b"\r\n\r\n", 1)[1]
        self.games[sock] = game_id
        self.selector.register(sock, selectors.EVENT_READ)
        self.open += 1

    def _read(self) -> None:
        while self.running:
            for key, _mask in self.selector.select(timeout=0.2):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                try:
                    data = sock.recv(65536)
                except BlockingIOError:
                    continue
                now = time.perf_counter()
                if not data:
                    self.selector.unregister(sock)
                    self.open -= 1
                    continue
                self.buffers[sock] += data
                # chunked transfer: event lines are found inside the chunks as they come
                text = self.buffers[sock]
                while b"\n\n" in text:
                    block, text = text.split(b"\n\n", 1)
                    for line in block.split(b"\n"):
                        if line.startswith(b"id: "):
                            version = int(line[4:].strip())
                            with self.lock:
                                key_ = (self.games[sock], version)
                                self.arrivals.setdefault(key_, []).append(now)
                self.buffers[sock] = text

    def close(self) -> None:
        self.running = False
        self.thread.join(timeout=2)
        for sock in list(self.games):
            sock.close()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    return {
        "n": len(values),
        "median_ms": round(1000 * statistics.median(values), 1),
        "p95_ms": round(1000 * percentile(values, 0.95), 1),
        "p99_ms": round(1000 * percentile(values, 0.99), 1),
        "max_ms": round(1000 * max(values), 1),
    }


def cpu_seconds(pid: int) -> float:
    """CPU time of ``pid`` and its child processes (``meldcam serve --processes``)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    own = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return own + sum(cpu_seconds(int(child)) for child in children)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--streams", type=int, default=60)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--threads", type=int, default=4, help="meldcam serve --threads")
    parser.add_argument("--processes", type=int, default=1, help="meldcam serve --processes")
    parser.add_argument(
        "--rate",
        type=float,
        default=40.0,
        help="other requests a second, paced (0: one after another, as fast as answered)",
    )
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args()

    port = free_port()
    instance = Path(tempfile.mkdtemp(prefix="meldcam-live-"))
    env = {
        **os.environ,
        "MELDCAM_INSTANCE_PATH": str(instance),
        "MELDCAM_RATELIMIT_ENABLED": "false",  # one client plays every phone
        "MELDCAM_EVENT_STREAMS_PER_CLIENT": str(args.streams),  # and opens every stream
    }
    command = [sys.executable, "-m", "meldcam", "serve", "--port", str(port)]
    command += ["--threads", str(args.threads), "--processes", str(args.processes)]
    server = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert "serving on" in line, line
        threading.Thread(target=server.stdout.read, daemon=True).start()
        time.sleep(5)  # the tile reader loads in the background at start: not part of the figure
        games = []
        for _ in range(args.games):
            status, made, _took = request(
                port, "POST", "/api/games", {"game": "rummikub", "players": PLAYERS}
            )
            assert status == 201, made
            games.append(made)
        streams = Streams(port)
        for index in range(args.streams):
            streams.add(games[index % len(games)]["id"])
        streams.thread.start()
        watchers = {g["id"]: 0 for g in games}
        for index in range(args.streams):
            watchers[games[index % len(games)]["id"]] += 1
        time.sleep(1)
        cpu_before = cpu_seconds(server.pid)
        load_before = os.getloadavg()

        writes: list[float] = []
        due: list[tuple[str, int, float]] = []  # (game, version, when the write answered)
        others: list[float] = []
        others_by_route: dict[str, list[float]] = {}
        # (route, seconds into the run, ms, when it was asked: to match the server's logs) >= 200 ms
        slow: list[tuple[str, float, float, float]] = []
        errors: list[str] = []
        stop = time.perf_counter() + args.seconds

        def writer() -> None:
            turn = 0
            while time.perf_counter() < stop:
                game = games[turn % len(games)]
                turn += 1
                path = f"/api/games/{game['id']}/hands"
                status, answer, took = request(port, "POST", path, HAND, game["edit_token"])
                if status != 201:
                    errors.append(f"write {status}")
                    continue
                writes.append(took)
                due.append((game["id"], int(answer["game"]["version"]), time.perf_counter()))
                if len(answer["game"]["hands"]) >= 8:  # keep the match going: undo a few
                    for _ in range(4):
                        request(port, "DELETE", f"/api/games/{game['id']}/hands/last", None,
                                game["edit_token"])  # fmt: skip
                time.sleep(0.5)

        def reader() -> None:
            turn = 0
            began = time.perf_counter()
            while time.perf_counter() < stop:
                if args.rate > 0:  # the next request's turn, not sooner
                    time.sleep(max(0.0, began + turn / args.rate - time.perf_counter()))
                game = games[turn % len(games)]
                route = ["page", "json", "racks", "catalogue"][turn % 4]
                path = {
                    "page": f"/g/{game['id']}",
                    "json": f"/api/games/{game['id']}",
                    "racks": f"/api/games/{game['id']}/racks",
                    "catalogue": "/api/catalogue",
                }[route]
                turn += 1
                status, _answer, took = request(port, "GET", path)
                if status != 200:
                    errors.append(f"{route} {status}")
                others.append(took)
                others_by_route.setdefault(route, []).append(took)
                if took >= 0.2:
                    elapsed = args.seconds - (stop - time.perf_counter())
                    asked = round(time.time() - took, 3)
                    slow.append((route, round(elapsed, 1), round(took * 1000, 1), asked))

        threads = [threading.Thread(target=writer), threading.Thread(target=reader)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        time.sleep(1.5)  # the last events reach their streams
        cpu = cpu_seconds(server.pid) - cpu_before
        delays: list[float] = []
        missing = 0
        for game_id, version, answered in due:
            arrived = streams.arrivals.get((game_id, version), [])
            missing += watchers[game_id] - len(arrived)
            delays.extend(max(0.0, when - answered) for when in arrived)
        figures = {
            "games": args.games,
            "streams_opened": args.streams,
            "streams_open_at_end": streams.open,
            "seconds": args.seconds,
            "server_threads": f"--threads {args.threads} + EVENT_STREAMS",
            "server_processes": args.processes,
            "other_requests_rate": args.rate or "one after another",
            "other_requests": summary(others),
            "other_requests_by_route": {k: summary(v) for k, v in others_by_route.items()},
            "other_requests_over_200ms": len(slow),
            "slow_requests": slow,  # which, and when in the run
            "writes": summary(writes),
            "events_due": sum(watchers[g] for g, _v, _t in due),
            "events_missing": missing,
            "event_delay_after_write": summary(delays),
            "server_cpu_s": round(cpu, 2),
            "server_cpu_share": round(cpu / args.seconds, 3),
            "errors": errors[:10],
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
        }
        streams.close()
        print(json.dumps(figures, indent=2))
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2) + "\n")
        return 0
    finally:
        server.terminate()
        server.wait(timeout=20)


if __name__ == "__main__":
    sys.exit(main())
