"""Averaging reader ONNX files into one (training/merge_readers.py)."""

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from training.merge_readers import merge_readers  # noqa: E402

MODELS = Path(__file__).resolve().parents[2] / "models"


def _reader(path: Path, factor: float, offset: float, second: str = "colour") -> Path:
    """A stand-in reader: value = crops x factor, colour = crops + offset."""
    from onnx import TensorProto, helper

    shape = ["n", 3, 4, 4]
    graph = helper.make_graph(
        [
            helper.make_node("Mul", ["crops", "factor"], ["value"]),
            helper.make_node("Add", ["crops", "offset"], [second]),
        ],
        "reader",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, shape)],
        [
            helper.make_tensor_value_info("value", TensorProto.FLOAT, shape),
            helper.make_tensor_value_info(second, TensorProto.FLOAT, shape),
        ],
        [
            helper.make_tensor("factor", TensorProto.FLOAT, [], [factor]),
            helper.make_tensor("offset", TensorProto.FLOAT, [], [offset]),
        ],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def _run(path: Path, x: np.ndarray) -> list[np.ndarray]:
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: x})


def test_merged_readers_give_the_mean_of_their_outputs(tmp_path):
    a = _reader(tmp_path / "a.onnx", 2.0, 1.0)
    b = _reader(tmp_path / "b.onnx", 4.0, 3.0)
    merged = tmp_path / "merged.onnx"
    merge_readers([a, b], merged)
    x = np.random.default_rng(0).random((2, 3, 4, 4), dtype=np.float32)
    value, colour = _run(merged, x)
    assert np.allclose(value, 3.0 * x) and np.allclose(colour, x + 2.0)


def test_the_shipped_reader_merged_with_itself_reads_the_same(tmp_path):
    tiles = MODELS / "tile_classifier.onnx"
    merged = tmp_path / "merged.onnx"
    merge_readers([tiles, tiles], merged)
    x = np.random.default_rng(0).random((3, 3, 64, 64), dtype=np.float32)
    for alone, both in zip(_run(tiles, x), _run(merged, x), strict=True):
        assert np.allclose(alone, both, atol=1e-6)


def test_readers_with_other_outputs_are_refused(tmp_path):
    a = _reader(tmp_path / "a.onnx", 2.0, 1.0)
    b = _reader(tmp_path / "b.onnx", 2.0, 1.0, second="suit")
    with pytest.raises(ValueError, match="differ"):
        merge_readers([a, b], tmp_path / "bad.onnx")
