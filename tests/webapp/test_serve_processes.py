"""``meldcam serve --processes N``: the forked server processes end with their parent, even one
killed with ``kill -9`` (which runs no handler), so they do not keep the port and the next
``meldcam serve`` can take it. Real processes; Linux (``/proc``)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs Linux /proc")


def start(tmp_path: Path, *arguments: str) -> tuple[subprocess.Popen[str], str]:
    """``meldcam serve`` with these arguments, once it prints its URL (and the URL)."""
    env = {**os.environ, "MELDCAM_INSTANCE_PATH": str(tmp_path), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "meldcam", "serve", *arguments],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    match = re.search(r"serving on (http://127\.0\.0\.1:\d+/)", line)
    if not match:
        process.kill()
        rest, _ = process.communicate(timeout=10)
        pytest.fail(f"meldcam serve did not start: {line}{rest}")
    return process, match.group(1)


def alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie, dead but not yet reaped, does not)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return fields[0] not in {"Z", "X"}


def answers(url: str) -> bool:
    with urllib.request.urlopen(url + "api/catalogue", timeout=10) as response:
        return response.status == 200


def children_of(process: subprocess.Popen[str]) -> list[int]:
    listing = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    return [int(pid) for pid in listing.read_text().split()]


def all_gone(children: list[int], why: str) -> None:
    """Wait up to 5 s for every one of ``children`` to end."""
    deadline = time.monotonic() + 5
    while any(alive(child) for child in children):
        assert time.monotonic() < deadline, f"a server process outlived {why}"
        time.sleep(0.05)


def clean_up(process: subprocess.Popen[str], children: list[int]) -> None:
    """Never leave a server process behind, whatever failed."""
    for child in children:
        if alive(child):
            os.kill(child, signal.SIGKILL)
    if process.poll() is None:
        process.kill()
        process.wait(timeout=10)
    if process.stdout is not None:
        process.stdout.close()


@pytest.mark.slow
def test_server_processes_end_with_a_killed_parent_and_free_the_port(tmp_path: Path):
    parent, url = start(tmp_path, "--port", "0", "--processes", "2")
    port = url.rsplit(":", 1)[1].strip("/")
    children = children_of(parent)
    try:
        assert len(children) == 2
        assert answers(url)
        parent.kill()  # SIGKILL: no handler runs, the children are told nothing
        parent.wait(timeout=10)
        all_gone(children, "its killed parent")
    finally:
        clean_up(parent, children)
    # the port is free again: a new server takes it, and an interrupt (Ctrl-C) stops it whole
    again, again_url = start(tmp_path, "--port", port, "--processes", "2")
    children = children_of(again)
    try:
        assert again_url == url
        assert answers(again_url)
        again.send_signal(signal.SIGINT)
        assert again.wait(timeout=30) == 0  # on a loaded machine the children take a while
        all_gone(children, "an interrupted parent")
    finally:
        clean_up(again, children)
