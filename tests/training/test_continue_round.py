"""``training.continue_round`` with ultralytics' trainer stood in for: what the continued run
starts from, trains on and exports."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import ClassVar

import pytest

from training import continue_round, offline


class _RecordingYolo:
    """Records each training's model and arguments; writes checkpoints where ultralytics would."""

    trained: ClassVar[list[tuple[str, dict]]] = []

    def __init__(self, weights: str) -> None:
        self.weights = weights

    def train(self, **arguments) -> None:
        self.trained.append((self.weights, arguments))
        weights = Path(arguments["project"]) / arguments["name"] / "weights"
        weights.mkdir(parents=True)
        for checkpoint in ("last.pt", "best.pt"):
            (weights / checkpoint).write_text("continued")

    def export(self, **_arguments) -> str:
        exported = Path(self.weights).with_suffix(".onnx")
        exported.write_text(f"onnx of {Path(self.weights).parent.parent.name}")
        return str(exported)


@pytest.fixture
def recording_yolo(monkeypatch):
    monkeypatch.setattr(offline, "prepare", lambda: None)
    monkeypatch.setitem(sys.modules, "ultralytics", types.SimpleNamespace(YOLO=_RecordingYolo))
    _RecordingYolo.trained = []
    return _RecordingYolo


def _finished_round(work: Path) -> Path:
    run = work / "runs" / "detector_obb_r7"
    (run / "weights").mkdir(parents=True)
    (run / "weights" / "last.pt").write_text("deadline-cut round")
    (run / "args.yaml").write_text(
        "data: W/det/data.yaml\nimgsz: 512\nbatch: 16\noptimizer: AdamW\nlrf: 0.1\n"
        "degrees: 30.0\nlr0: 0.001\nclose_mosaic: 5\n"
    )
    return run


def test_a_round_is_trained_on_from_its_last_checkpoint_with_its_own_data(
    tmp_path, monkeypatch, recording_yolo
):
    monkeypatch.chdir(tmp_path)
    run = _finished_round(tmp_path / "W")
    argv = ["--kind", "dominoes", "--work", "W", "--round", "detector_obb_r7"]
    continue_round.main([*argv, "--out", "out", "--epochs", "8", "--lr0", "0.0005"])
    [(start, arguments)] = recording_yolo.trained
    assert start == str(run / "weights" / "last.pt")
    assert arguments["data"] == "W/det/data.yaml"
    assert (arguments["imgsz"], arguments["batch"], arguments["epochs"]) == (512, 16, 8)
    assert (arguments["optimizer"], arguments["lrf"], arguments["degrees"]) == ("AdamW", 0.1, 30.0)
    assert (arguments["lr0"], arguments["close_mosaic"]) == (0.0005, 3)
    assert (arguments["project"], arguments["name"]) == (str(run.parent), "detector_obb_r7_more")
    exported = tmp_path / "out" / "domino_detector.onnx"
    assert exported.read_text() == "onnx of detector_obb_r7_more"


def test_a_round_without_a_last_checkpoint_is_refused(tmp_path, recording_yolo):
    with pytest.raises(FileNotFoundError, match="no last checkpoint"):
        continue_round.continue_round(
            "dominoes", tmp_path, "detector_obb_r7", tmp_path / "out", 8, 0.0005, 0
        )
    assert recording_yolo.trained == []
