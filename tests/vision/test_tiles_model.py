"""The shipped ONNX tile models load and run; a rendered photo with known tiles is read exactly."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

from datasets.tiles_synth import render_test_layout
from vision.crops import CROP_SIZE
from vision.labels import CLASSIFIER_VALUES

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "models"

ROWS = [
    ["red-1", "red-2", "red-3", "red-4"],
    ["blue-7", "black-7", "orange-7", "joker"],
    ["black-10", "black-11", "black-12", "black-13"],
    ["orange-5", "blue-9", "red-6", "blue-13"],
]


def test_onnx_models_are_small_and_run_with_onnxruntime():
    detector = MODELS / "tile_detector.onnx"
    classifier = MODELS / "tile_classifier.onnx"
    for path in (detector, classifier):
        assert path.stat().st_size < 25 * 2**20
    session = ort.InferenceSession(str(classifier), providers=["CPUExecutionProvider"])
    values, colours, turns = session.run(
        None, {"crops": np.zeros((3, 3, CROP_SIZE, CROP_SIZE), np.float32)}
    )
    assert values.shape == (3, len(CLASSIFIER_VALUES)) and colours.shape == (3, 4)
    assert turns.shape == (3, len(CLASSIFIER_VALUES) * 4)  # value x quarter turn
    assert np.allclose(values.sum(1), 1, atol=1e-4) and np.allclose(turns.sum(1), 1, atol=1e-4)
    session = ort.InferenceSession(str(detector), providers=["CPUExecutionProvider"])
    shape = session.get_inputs()[0].shape
    out = session.run(None, {session.get_inputs()[0].name: np.zeros(shape, np.float32)})[0]
    assert out.shape[0] == 1


def test_inference_does_not_import_torch_or_ultralytics():
    code = (
        "import sys, numpy as np\n"
        "from vision.api import get_recogniser\n"
        "get_recogniser('tiles').recognise(np.full((200, 300, 3), 90, np.uint8))\n"
        "print(sorted(m for m in ('torch', 'ultralytics') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == "[]"


def test_rendered_layout_is_read_exactly_with_melds(tiles):
    image, labels = render_test_layout(ROWS, seed=11)
    result = tiles.recognise(image, channels="bgr")
    read = [p["label"] for p in result["pieces"]]
    assert Counter(read) == Counter(label for label, _ in labels)
    melds = [[result["pieces"][i]["label"] for i in meld] for meld in result["melds"]]
    assert melds == ROWS
    for piece in result["pieces"]:
        assert 0 < piece["confidence"] <= 1
        assert all(0 <= q <= 1 for _alt, q in piece["alternatives"])
    json.dumps(result)  # plain JSON types only


def test_result_shape_and_boxes_follow_the_displayed_image(tiles):
    image, labels = render_test_layout([["blue-4", "blue-5", "blue-6"]], seed=3)
    result = tiles.recognise(image[..., ::-1].copy())  # RGB by default
    assert set(result) == {"kind", "pieces", "melds", "ms"} and result["kind"] == "tiles"
    truth = {label: box for label, box in labels}
    for piece in result["pieces"]:
        x1, y1, x2, y2 = piece["bbox"]
        tx1, ty1, tx2, ty2 = truth[piece["label"]]
        inter = max(0, min(x2, tx2) - max(x1, tx1)) * max(0, min(y2, ty2) - max(y1, ty1))
        union = (x2 - x1) * (y2 - y1) + (tx2 - tx1) * (ty2 - ty1) - inter
        assert inter / union > 0.7


def test_an_empty_table_has_no_tiles(tiles):
    from datasets.tiles_synth import background

    image = background(np.random.default_rng(5), 600, 800)
    result = tiles.recognise(image, channels="bgr")
    assert result["pieces"] == [] and result["melds"] == []


def test_recogniser_is_cached_and_unknown_kinds_say_they_are_unavailable(tiles):
    from vision.api import get_recogniser
    from vision.errors import RecogniserUnavailable

    assert get_recogniser("tiles") is tiles
    with pytest.raises(RecogniserUnavailable, match="unknown piece kind 'marbles'"):
        get_recogniser("marbles")


def diagonal_row(labels: list[str], angle: float, tile_w: int = 100, seed: int = 5):
    """A clean photo of one touching row of tiles laid ``angle`` degrees off the photo's axes."""
    from datasets.tiles_synth import background, paste_piece, piece_matrix, render_tile

    rng = np.random.default_rng(seed)
    scene = background(np.random.default_rng(seed + 1), 900, 1000)
    ids = np.full(scene.shape[:2], -1, np.int32)
    a = np.radians(angle)
    step = np.array([np.cos(a), -np.sin(a)]) * (tile_w + 3)  # cv2 turns counter-clockwise
    start = np.array([500.0, 450.0]) - step * (len(labels) - 1) / 2
    for k, label in enumerate(labels):
        face = render_tile(rng, label, tile_w)
        cx, cy = start + k * step
        paste_piece(scene, ids, face, piece_matrix(face.shape[1], face.shape[0], cx, cy, angle), k)
    return scene


@pytest.mark.parametrize("angle", [35, 45, -40])
def test_a_diagonal_row_is_found_tile_by_tile_with_rotated_boxes(tiles, angle):
    """Each tile of a diagonal row gets its own rotated box, with the tile's width and the
    row's angle (modulo a quarter turn), is read, and the row is one meld."""
    row = ["red-3", "red-4", "red-5", "red-6", "red-7"]
    image = diagonal_row(row, angle)
    detections = tiles.detector.detect(image, conf=0.4)
    assert len(detections) == len(row)
    for det in detections:
        assert det.rotated is not None
        _centre, (w, h), turned = det.rotated
        assert min(w, h) == pytest.approx(100, rel=0.2)
        assert abs((turned + angle + 45) % 90 - 45) < 15  # the row's angle, modulo a quarter
    result = tiles.recognise(image, channels="bgr")
    assert Counter(p["label"] for p in result["pieces"]) == Counter(row)
    # One meld, in reading order along the row (grouped with the rotated boxes).
    assert [[result["pieces"][i]["label"] for i in meld] for meld in result["melds"]] == [row]
