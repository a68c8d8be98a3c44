"""Issue 21's figures, re-measured against a real ``meldcam serve`` (waitress, a subprocess).

    .venv/bin/python -m benchmarks.web_hostile [--skip-photos] [--skip-crash] [--crashes 5]

1. Hostile mix: deeply nested JSON on every JSON route and the hand form, 2.9 MB of melds,
   a 2-million-piece meld, an 8 MB piece name, formula and look-alike names, 300 new games,
   300 guessed edit links, retried writes; while four huge bodies are in flight, how long an
   ordinary request waits. Prints status counts per class and the worst latency.
2. Photos: three ~49-megapixel JPEGs in a row (peak and final RSS of the server), then eight
   uploads at once (wall time, statuses). The server reads with the shipped recogniser when it
   loads, else the photos stop at the reader (503) after being decoded and stored.
3. kill -9: client threads add hands with an Idempotency-Key to a few games while the server is
   killed (SIGKILL) and restarted ``--crashes`` times; unanswered writes are retried with the
   same key. Prints hands acknowledged vs present (and duplicates).

The machine's load (``os.getloadavg``) is printed: other work on the same cores slows every
figure. Rate limits are on (defaults) for part 1, off for parts 2 and 3 (one client sends all).
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HAND = {"winner": "Ana", "racks": {"Ana": [], "Ben": ["red-5", "blue-10"]}}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Server:
    """``meldcam serve`` on a fixed port and instance folder; can be killed and started again."""

    def __init__(self, instance: Path, env: dict[str, str]) -> None:
        self.instance = instance
        self.port = free_port()
        self.env = {**os.environ, "MELDCAM_INSTANCE_PATH": str(instance), **env}
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        command = [sys.executable, "-m", "meldcam", "serve", "--port", str(self.port)]
        self.process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert "serving on" in line, line
        threading.Thread(target=self.process.stdout.read, daemon=True).start()

    def kill(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)

    def memory_mb(self) -> dict[str, float]:
        assert self.process is not None
        found = {}
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(("VmRSS:", "VmHWM:")):
                found[line.split(":")[0]] = int(line.split()[1]) / 1024
        return found


def request(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 120,
) -> tuple[int, bytes, dict[str, str], float]:
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        return response.status, data, dict(response.getheaders()), time.perf_counter() - started
    finally:
        connection.close()


def post_json(port: int, path: str, value: Any, **headers: str) -> tuple[int, bytes, dict, float]:
    text = value if isinstance(value, (str, bytes)) else json.dumps(value)
    body = text.encode() if isinstance(text, str) else text
    return request(port, "POST", path, body, {"Content-Type": "application/json", **headers})


def multipart(fields: dict[str, str], photo: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    out = io.BytesIO()
    for name, value in fields.items():
        out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode())
        out.write(value.encode() + b"\r\n")
    out.write(
        f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="p.jpg"\r\n'
        "Content-Type: image/jpeg\r\n\r\n".encode()
    )
    out.write(photo + b"\r\n" + f"--{boundary}--\r\n".encode())
    return out.getvalue(), f"multipart/form-data; boundary={boundary}"


# ---- 1. the hostile mix ----------------------------------------------------------------------


def hostile_mix(port: int) -> dict[str, Any]:
    statuses: Counter[str] = Counter()
    worst = (0.0, "")
    lock = threading.Lock()

    def note(name: str, answer: tuple[int, bytes, dict, float]) -> tuple[int, bytes, dict, float]:
        nonlocal worst
        status, _, _, seconds = answer
        with lock:
            statuses[f"{status // 100}xx"] += 1
            statuses[str(status)] += 1
            if seconds > worst[0]:
                worst = (seconds, name)
        return answer

    _, data, _, _ = note(
        "new game", post_json(port, "/api/games", {"game": "rummikub", "players": ["Ana", "Ben"]})
    )
    game = json.loads(data)
    token = {"X-Edit-Token": game["edit_token"]}
    deep = "[" * 980 + "]" * 980
    for path in (
        "/api/check",
        "/api/table",
        "/api/score",
        "/api/games",
        "/api/pieces",
        f"/api/games/{game['id']}/hands",
    ):
        note(f"nested {path}", post_json(port, path, deep, **token))
    note(
        "nested PUT",
        request(
            port,
            "PUT",
            f"/api/games/{game['id']}/hands/1",
            deep.encode(),
            {"Content-Type": "application/json", **token},
        ),
    )
    melds = {"game": "rummikub", "melds": [["red-1", "red-2", "red-3"]] * 100_000}
    big = json.dumps(melds).encode()
    one_meld = json.dumps({"game": "gin", "melds": [["JK"] * 2_000_000]}).encode()
    long_name = json.dumps({"game": "rummikub", "melds": [["x" * 8_000_000]]}).encode()
    echo = post_json(port, "/api/check", long_name)
    note("8 MB piece name", echo)
    largest_error = len(echo[1])
    note("2.9 MB of melds", post_json(port, "/api/check", big))
    note("2M-piece meld", post_json(port, "/api/check", one_meld))

    # four huge bodies at once, and an ordinary request meanwhile
    ordinary: list[float] = []

    def huge() -> None:
        note("huge body (in parallel)", post_json(port, "/api/check", big))

    threads = [threading.Thread(target=huge) for _ in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(0.05)
    ordinary.append(note("ordinary GET", request(port, "GET", "/api/catalogue"))[3])
    for thread in threads:
        thread.join()

    names = ['=HYPERLINK("http://x")', "+1+1", "-2", "@SUM(A1)"]
    _, data, _, _ = note(
        "formula names", post_json(port, "/api/games", {"game": "rummikub", "players": names})
    )
    formula_game = json.loads(data)["id"]
    for pair in (["Ana", "Ana\u200b"], ["\u00c5", "A\u030a"], ["Ana", "B\u0000"], ["A", "\u202eB"]):
        note(
            "look-alike names", post_json(port, "/api/games", {"game": "rummikub", "players": pair})
        )
    key = {"Idempotency-Key": str(uuid.uuid4()), **token}
    for _ in range(3):
        note(
            "retried hand", post_json(port, f"/api/games/{game['id']}/hands", {"hand": HAND}, **key)
        )
    new_games = Counter()
    started = time.perf_counter()
    for _ in range(300):
        answer = note(
            "new game",
            post_json(port, "/api/games", {"game": "rummikub", "players": ["Ana", "Ben"]}),
        )
        new_games[answer[0]] += 1
    new_games_s = time.perf_counter() - started
    bad_tokens = Counter()
    started = time.perf_counter()
    for i in range(300):
        # a guessed edit link (not a write: only the failed-token limit applies)
        answer = note("wrong token", request(port, "GET", f"/g/{game['id']}/edit/guess{i}"))
        bad_tokens[answer[0]] += 1
    bad_tokens_s = time.perf_counter() - started
    _, csv_data, _, _ = request(port, "GET", f"/api/games/{formula_game}/export.csv")
    return {
        "statuses": dict(sorted(statuses.items())),
        "worst_latency_s": round(worst[0], 3),
        "worst_request": worst[1],
        "ordinary_request_during_4_huge_s": round(max(ordinary), 3),
        "largest_error_body_bytes": largest_error,
        "wrong_tokens_300": dict(bad_tokens),
        "wrong_tokens_300_s": round(bad_tokens_s, 2),
        "new_games_300": dict(new_games),
        "new_games_300_s": round(new_games_s, 2),
        "retried_hand_stored": json.loads(request(port, "GET", f"/api/games/{game['id']}")[1])[
            "hands"
        ].__len__(),
        "csv_header": csv_data.decode().splitlines()[0][:80],
    }


# ---- 2. large photos -------------------------------------------------------------------------


def big_photo(path: Path) -> bytes:
    """~49 MP (8572 x 5716), with shapes so that it is not one flat colour."""
    if not path.exists():
        from PIL import Image, ImageDraw

        image = Image.new("RGB", (8572, 5716), (40, 110, 60))
        draw = ImageDraw.Draw(image)
        rng = random.Random(21)
        for _ in range(300):
            x, y = rng.randrange(8400), rng.randrange(5600)
            colour = tuple(rng.randrange(256) for _ in range(3))
            draw.rectangle((x, y, x + 160, y + 220), fill=(240, 235, 220), outline=colour, width=6)
        image.save(path, "JPEG", quality=85)
    return path.read_bytes()


def photos(server: Server, photo: bytes) -> dict[str, Any]:
    before = server.memory_mb()
    series = []
    for _ in range(3):
        body, kind = multipart({"kind": "tiles"}, photo)
        status, _, _, seconds = request(
            server.port, "POST", "/api/recognise", body, {"Content-Type": kind}
        )
        series.append((status, round(seconds, 2), round(server.memory_mb()["VmRSS"])))
    after_three = server.memory_mb()
    answers: list[tuple[int, float, str]] = []

    def send() -> None:
        body, kind = multipart({"kind": "tiles"}, photo)
        status, _, headers, seconds = request(
            server.port, "POST", "/api/recognise", body, {"Content-Type": kind}
        )
        answers.append((status, seconds, headers.get("Retry-After", "")))

    started = time.perf_counter()
    threads = [threading.Thread(target=send) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    eight_s = time.perf_counter() - started
    return {
        "photo_mb": round(len(photo) / 2**20, 1),
        "rss_before_mb": round(before["VmRSS"]),
        "three_in_a_row": series,
        "peak_rss_mb": round(after_three["VmHWM"]),
        "rss_after_three_mb": round(after_three["VmRSS"]),
        "eight_at_once_s": round(eight_s, 1),
        "eight_statuses": dict(Counter(a[0] for a in answers)),
        "eight_slowest_s": round(max(a[1] for a in answers), 1),
        "peak_rss_after_eight_mb": round(server.memory_mb()["VmHWM"]),
    }


# ---- 3. kill -9 ------------------------------------------------------------------------------


def crash_check(server: Server, crashes: int, seconds: float) -> dict[str, Any]:
    games = []
    for _ in range(4):
        _, data, _, _ = post_json(
            server.port,
            "/api/games",
            {"game": "rummikub", "players": ["Ana", "Ben"], "options": {"target": 1_000_000}},
        )
        games.append(json.loads(data))
    acknowledged: Counter[str] = Counter()
    retries = Counter()
    stop = threading.Event()
    lock = threading.Lock()

    def player(game: dict[str, Any]) -> None:
        while not stop.is_set():
            key = str(uuid.uuid4())
            headers = {"X-Edit-Token": game["edit_token"], "Idempotency-Key": key}
            while not stop.is_set():  # the same key until the server answers
                try:
                    status, _, _, _ = post_json(
                        server.port, f"/api/games/{game['id']}/hands", {"hand": HAND}, **headers
                    )
                except (OSError, http.client.HTTPException):
                    with lock:
                        retries["connection"] += 1
                    time.sleep(0.05)
                    continue
                if status == 201:
                    with lock:
                        acknowledged[game["id"]] += 1
                    break
                with lock:
                    retries[str(status)] += 1
                time.sleep(0.05)

    threads = [threading.Thread(target=player, args=(g,)) for g in games for _ in range(2)]
    for thread in threads:
        thread.start()
    rng = random.Random(9)
    for _ in range(crashes):
        time.sleep(rng.uniform(0.5, seconds))
        server.kill()
        time.sleep(0.2)
        server.start()
    time.sleep(1.0)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    present = {}
    for game in games:
        _, data, _, _ = request(server.port, "GET", f"/api/games/{game['id']}")
        present[game["id"]] = len(json.loads(data)["hands"])
    return {
        "crashes": crashes,
        "acknowledged": sum(acknowledged.values()),
        "present": sum(present.values()),
        "lost": sum(max(0, acknowledged[g] - present[g]) for g in present),
        "stored_twice": sum(max(0, present[g] - acknowledged[g]) for g in present),
        "retries": dict(retries),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--skip-photos", action="store_true")
    parser.add_argument("--skip-crash", action="store_true")
    parser.add_argument("--crashes", type=int, default=5)
    parser.add_argument("--between", type=float, default=3.0, help="most seconds between kills")
    args = parser.parse_args()
    print(json.dumps({"load_before": os.getloadavg()}), flush=True)
    with tempfile.TemporaryDirectory(prefix="meldcam-hostile-") as folder:
        work = Path(folder)
        server = Server(work / "mix", {})
        server.start()
        try:
            print(json.dumps({"hostile_mix": hostile_mix(server.port)}, indent=1), flush=True)
        finally:
            server.stop()
        if not args.skip_photos:
            server = Server(work / "photos", {"MELDCAM_RATELIMIT_ENABLED": "false"})
            server.start()
            try:
                photo = big_photo(Path(tempfile.gettempdir()) / "meldcam-49mp.jpg")
                time.sleep(5)  # the recogniser loads in the background at start
                print(json.dumps({"photos": photos(server, photo)}), flush=True)
            finally:
                server.stop()
        if not args.skip_crash:
            server = Server(work / "crash", {"MELDCAM_RATELIMIT_ENABLED": "false"})
            server.start()
            try:
                found = crash_check(server, args.crashes, args.between)
                print(json.dumps({"kill_9": found}), flush=True)
            finally:
                server.stop()
    print(json.dumps({"load_after": os.getloadavg()}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
