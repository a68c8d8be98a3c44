"""The run path stays light (issue 23): the runtime packages import nothing from the training
stack at import time, and ``meldcam check`` imports neither Flask nor the recognisers.

Each check runs in a fresh interpreter, so modules other tests imported do not count.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUNTIME_PACKAGES = ("meldcam", "scorer", "vision", "webapp")
# what `pip install .` (no extras) must run without, and the training side of the tree
FORBIDDEN = ("datasets", "training", "torch", "torchvision", "ultralytics", "playwright")

PROBE = """
import importlib, json, pkgutil, sys
forbidden = json.loads(sys.argv[1])

def loaded():
    return {m for m in sys.modules if any(m == f or m.startswith(f + ".") for f in forbidden)}

names = []
for package in ("meldcam", "scorer", "vision", "webapp"):
    module = importlib.import_module(package)
    names.append(package)
    names += [info.name for info in pkgutil.walk_packages(module.__path__, package + ".")]
offenders = {}
for name in names:
    if name.endswith("__main__"):
        continue
    before = loaded()
    importlib.import_module(name)
    if loaded() - before:
        offenders[name] = sorted(loaded() - before)
print(json.dumps(offenders))
"""


def _offenders() -> dict[str, list[str]]:
    """Each runtime module that pulls in a forbidden module, and what it pulls in."""
    argument = json.dumps(FORBIDDEN)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, argument],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(done.stdout)


def test_runtime_packages_import_no_training_stack():
    assert _offenders() == {}


def test_no_runtime_module_names_the_training_side():
    """Not even inside a function: measuring and training live in ``training`` and
    ``datasets``, which import the runtime, never the other way round (the CLI reaches
    ``training.cli`` by name, in ``meldcam/cli.py``'s list of command modules)."""
    pattern = re.compile(r"^\s*(from|import)\s+(datasets|training)\b", re.MULTILINE)
    naming = [
        str(path.relative_to(REPO))
        for package in RUNTIME_PACKAGES
        for path in (REPO / package).rglob("*.py")
        if pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert naming == []


def test_check_imports_neither_flask_nor_the_recognisers():
    code = (
        "import sys\n"
        "from meldcam.cli import main\n"
        "main(['check', '--game', 'rummikub', 'red-1,red-2,red-3'])\n"
        "heavy = ('flask', 'sqlalchemy', 'webapp', 'vision', 'cv2', 'onnxruntime', 'numpy')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines()[-1] == "[]"
