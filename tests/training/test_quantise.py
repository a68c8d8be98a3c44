"""Quantising a detector (``training.quantise``): its recipe's float blocks stay in floats, it
names its float original, and it scores the boxes as the float detector does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from training.quantise import QUANTISATIONS, detector_inputs, quantise
from vision.detector import OnnxDetector, file_sha256

MODELS = Path(__file__).resolve().parents[2] / "models"


@pytest.mark.slow
def test_a_quantised_card_detector_scores_as_its_float_original(tmp_path) -> None:
    onnx = pytest.importorskip("onnx")
    recipe = QUANTISATIONS["cards"]
    float_path = MODELS / "card_detector.onnx"
    inputs = detector_inputs("cards", MODELS, recipe.renderers[:1], scenes=1, seed=4799)
    assert len(inputs) >= 2  # the whole photo's pass and more
    out = tmp_path / "quantised.onnx"
    quantise(float_path, out, inputs[:-1], recipe.float_blocks)

    quantised, original = OnnxDetector(out), OnnxDetector(float_path)
    assert quantised.quantised_from == file_sha256(float_path)
    ops = {(node.name.split("/")[1], node.op_type) for node in onnx.load(str(out)).graph.node}
    assert ("model.23", "Conv") in ops and ("model.0", "Conv") in ops  # kept in floats
    assert any(op == "QLinearConv" for _block, op in ops)  # and the rest quantised

    held_out = inputs[-1:]  # not calibrated on
    want = original.session.run(None, {original.input_name: held_out})[0][0]
    got = quantised.session.run(None, {quantised.input_name: held_out})[0][0]
    boxed = want[4] > 0.25  # the card pipeline's score threshold
    assert boxed.sum() >= 10
    assert np.abs(want[4] - got[4])[boxed].mean() < 0.05
    assert np.abs(want[:4] - got[:4])[:, boxed].mean() < 1.0  # pixels
