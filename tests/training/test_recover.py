"""The fine-tunable checkpoint rebuilt from a shipped detector computes what its ONNX file does.

Run in a subprocess: importing ultralytics patches ``PIL.Image.open`` for the whole process,
which would change how the app's tests see a file that is not an image."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "models"


def run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "task"), [("domino_detector", "obb"), ("card_detector", "detect")]
)
def test_rebuilt_detector_matches_its_onnx_file(tmp_path, name, task):
    checkpoint = tmp_path / "best.pt"
    printed = run("-m", "training.recover", str(MODELS / f"{name}.onnx"), "--out", str(checkpoint))
    boxes, scores = re.search(r"boxes (\S+) px, scores and angles (\S+)", printed).groups()
    assert float(boxes) < 1e-2  # input pixels (up to 640): float32 rounding only
    assert float(scores) < 1e-4
    loaded = run(
        "-c",
        "import sys; from training.offline import prepare; prepare(); "
        "from ultralytics import YOLO; m = YOLO(sys.argv[1]); print('loaded:', m.task, m.names)",
        str(checkpoint),
    )
    # ultralytics may print its own lines first (a new machine's settings file).
    line = next(x for x in loaded.splitlines() if x.startswith("loaded:"))
    assert line == f"loaded: {task} {{0: 'item'}}"  # trained single-class


def test_a_reader_is_not_a_detector_to_rebuild():
    from training.recover import rebuild

    with pytest.raises(ValueError, match="not an ultralytics export"):
        rebuild(MODELS / "card_reader.onnx")


@pytest.mark.parametrize(
    ("kind", "name"), [("cards", "card_reader"), ("dominoes", "domino_reader")]
)
def test_rebuilt_reader_reads_as_its_onnx_file_and_keeps_its_norms_frozen(kind, name):
    import numpy as np
    import torch

    from training.readers import READER_SPECS
    from training.recover import freeze_norms, rebuild_reader
    from vision.detector import open_session

    spec = READER_SPECS[kind]
    net = rebuild_reader(MODELS / f"{name}.onnx", spec).eval()
    session = open_session(MODELS / f"{name}.onnx")
    crops = np.random.default_rng(0).random((4, 3, spec.crop_size, spec.crop_size), np.float32)
    want = session.run(None, {session.get_inputs()[0].name: crops})
    with torch.no_grad():
        got = net(torch.from_numpy(crops))
    for expected, head in zip(want, got, strict=True):
        assert np.abs(expected - head.numpy()).max() < 1e-5
    net.train()
    freeze_norms(net)
    norms = [m for m in net.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    assert norms and not any(m.training for m in norms)
    assert net.trunk.training  # everything else trains


@pytest.mark.slow
def test_fitted_norms_keep_the_detector_and_start_training_from_it(tmp_path):
    import cv2

    from datasets.cards_synth import render_scene

    photos = tmp_path / "photos"
    photos.mkdir()
    for seed in range(8):
        cv2.imwrite(str(photos / f"{seed}.jpg"), render_scene(seed).image)
    printed = run(
        "-m", "training.recover", str(MODELS / "card_detector.onnx"),
        "--out", str(tmp_path / "best.pt"), "--fit-norms", str(photos),
    )  # fmt: skip
    identity, fitted = map(float, re.search(r"identity (\S+), fitted (\S+)", printed).groups())
    assert fitted > 0.95 and fitted > identity  # training mode: near the shipped detector
    boxes, scores = re.search(r"boxes (\S+) px, scores and angles (\S+)", printed).groups()
    assert float(boxes) < 1e-2 and float(scores) < 1e-4  # evaluation mode: unchanged
