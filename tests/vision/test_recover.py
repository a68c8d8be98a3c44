"""The fine-tunable checkpoint rebuilt from a shipped detector computes what its ONNX file does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.detector import open_session

MODELS = Path(__file__).resolve().parents[2] / "models"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["domino_detector.onnx", "card_detector.onnx"])
def test_rebuilt_detector_matches_its_onnx_file(tmp_path, name):
    from vision.training.recover import raw_output, rebuild, save_checkpoint

    model = rebuild(MODELS / name)
    session = open_session(MODELS / name)
    shape = session.get_inputs()[0].shape
    image = np.random.default_rng(1).random((1, 3, shape[2], shape[3]), dtype=np.float32)
    want = session.run(None, {session.get_inputs()[0].name: image})[0]
    got = raw_output(model, image)
    assert got.shape == want.shape
    # Coordinates are in input pixels (up to 640): float32 rounding only.
    assert np.abs(got - want).max() < 1e-2
    assert np.abs(got[:, 4] - want[:, 4]).max() < 1e-4  # the scores

    from vision.training.offline import prepare

    prepare()
    from ultralytics import YOLO

    path = save_checkpoint(model, tmp_path / "best.pt", MODELS / name)
    loaded = YOLO(str(path))
    assert loaded.task == ("obb" if name.startswith("domino") else "detect")
    assert loaded.names == {0: "item"}  # trained single-class


def test_a_reader_is_not_a_detector_to_rebuild():
    from vision.training.recover import rebuild

    with pytest.raises(ValueError, match="not an ultralytics export"):
        rebuild(MODELS / "card_reader.onnx")
