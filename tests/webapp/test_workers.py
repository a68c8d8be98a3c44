"""Recognition on workers (``webapp.workers``): every failure is a clear 503, never a 500, and
the worker's side imports no Flask. A working worker is in test_nodes.py (real processes)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from flask import Flask
from PIL import Image

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


@pytest.mark.parametrize("reachable", [True, False])
def test_no_worker_or_no_redis_is_a_503_with_a_message(tmp_path: Path, reachable: bool):
    url = redis_server() if reachable else "redis://127.0.0.1:1/0"
    client = _app(tmp_path, url).test_client()
    response = client.post(
        "/api/recognise",
        data={"kind": "tiles", "photo": (io.BytesIO(_photo()), "p.jpg")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 503
    assert "photo reader" in response.json["error"]
    assert response.headers["Retry-After"]


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
