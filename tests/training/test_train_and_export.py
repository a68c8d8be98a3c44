"""``rounds.train_and_export`` with ultralytics' trainer stood in for: where a run writes."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import ClassVar

from training import offline, rounds


class _RecordingYolo:
    """Writes a run's checkpoints where ultralytics would for an absolute project, and records
    the project it was given (a relative one ultralytics moves under its own runs folder)."""

    projects: ClassVar[list[str]] = []

    def __init__(self, weights: str) -> None:
        self.weights = weights

    def train(self, project: str, name: str, **_arguments) -> None:
        self.projects.append(project)
        weights = Path(project) / name / "weights"
        weights.mkdir(parents=True)
        for checkpoint in ("last.pt", "best.pt"):
            (weights / checkpoint).write_text("checkpoint")

    def export(self, **_arguments) -> str:
        exported = Path(self.weights).with_suffix(".onnx")
        exported.write_text("onnx")
        return str(exported)


def test_a_relative_run_folder_trains_and_exports_under_the_working_directory(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(offline, "prepare", lambda: None)
    monkeypatch.setitem(sys.modules, "ultralytics", types.SimpleNamespace(YOLO=_RecordingYolo))
    _RecordingYolo.projects = []
    rounds.train_and_export(
        "round",
        Path("work/runs/round"),
        "start.pt",
        Path("data.yaml"),
        Path("out"),
        epochs=1,
        imgsz=64,
        batch=2,
        seed=0,
        export_imgsz=64,
        onnx_name="detector.onnx",
    )
    assert _RecordingYolo.projects == [str(tmp_path / "work" / "runs")]
    assert (tmp_path / "work" / "runs" / "round" / "done").exists()
    assert (tmp_path / "out" / "detector.onnx").read_text() == "onnx"
