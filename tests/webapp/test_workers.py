"""Recognition on workers (``webapp.workers``): every failure is a clear 503, never a 500, and
the worker's side imports no Flask. A working worker is in test_nodes.py (real processes)."""

from __future__ import annotations

import io
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from PIL import Image

from vision.jobs import QUEUE_NAME
from webapp import create_app

from .test_nodes import redis_server

REPO = Path(__file__).resolve().parents[2]


def _photo() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (30, 110, 60)).save(out, "JPEG")
    return out.getvalue()


def _app(tmp_path: Path, redis_url: str) -> Flask:
    return create_app(
        {"INSTANCE_PATH": str(tmp_path), "REDIS_URL": redis_url, "RECOGNISE_WAIT_S": 2}
    )


def _redis_database(number: int) -> str:
    """The test Redis server, this test process's database ``number``: apart from test_nodes'
    workers, which use 0."""
    return redis_server(number)


def _post_photo(app: Flask) -> Any:
    return app.test_client().post(
        "/api/recognise",
        data={"kind": "tiles", "photo": (io.BytesIO(_photo()), "p.jpg")},
        content_type="multipart/form-data",
    )


@pytest.mark.parametrize("reachable", [True, False])
def test_no_worker_or_no_redis_is_a_503_with_a_message(tmp_path: Path, reachable: bool):
    url = _redis_database(2) if reachable else "redis://127.0.0.1:1/0"
    response = _post_photo(_app(tmp_path, url))
    assert response.status_code == 503
    assert "photo reader" in response.json["error"]
    assert response.headers["Retry-After"]


@pytest.fixture
def idle_worker() -> Iterator[str]:
    """A worker registered on the queue that never takes a job (as one that hangs)."""
    from redis import Redis
    from rq import Queue, Worker

    url = _redis_database(3)
    connection = Redis.from_url(url)
    worker = Worker([Queue(QUEUE_NAME, connection=connection)], connection=connection)
    worker.register_birth()
    yield url
    worker.register_death()
    Queue(QUEUE_NAME, connection=connection).empty()
    connection.close()


def test_a_full_queue_is_a_503(tmp_path: Path, idle_worker: str):
    app = _app(tmp_path, idle_worker)
    app.extensions["meldcam_recognise_queue"].limit = 0
    response = _post_photo(app)
    assert response.status_code == 503 and "busy" in response.json["error"]


def test_no_answer_in_time_is_a_503(tmp_path: Path, idle_worker: str):
    started = time.monotonic()
    response = _post_photo(_app(tmp_path, idle_worker))  # RECOGNISE_WAIT_S = 2
    assert response.status_code == 503 and "in time" in response.json["error"]
    assert time.monotonic() - started < 10


def test_the_worker_side_imports_no_flask():
    code = (
        "import sys\n"
        "from vision.jobs import recognise_job\n"
        "from vision.worker import register\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('flask', 'webapp')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
