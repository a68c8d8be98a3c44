"""A kind's quantised detector runs only beside the float detector it was quantised from
(``KindSettings.quantised_detector_file``, ``training.quantise``)."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

from vision.detector import OnnxDetector, file_sha256
from vision.kinds import CARDS
from vision.pipeline import Recogniser

MODELS = Path(__file__).resolve().parents[2] / "models"


def _models_like_shipped(folder: Path, leave_out: str) -> None:
    for model in MODELS.glob("*.onnx"):
        if model.name != leave_out:
            (folder / model.name).symlink_to(model)


def test_the_shipped_quantised_card_detector_is_the_shipped_float_one_quantised() -> None:
    quantised = OnnxDetector(MODELS / CARDS.quantised_detector_file)
    assert quantised.quantised_from == file_sha256(MODELS / CARDS.detector_file)
    assert OnnxDetector(MODELS / CARDS.detector_file).quantised_from is None
    assert Recogniser("cards").detector.quantised_from == quantised.quantised_from


def test_a_quantised_detector_of_another_float_detector_is_not_run(tmp_path, caplog) -> None:
    _models_like_shipped(tmp_path, leave_out=CARDS.detector_file)
    # a float detector trained since (here: another kind's), its quantised one not made again
    shutil.copy(MODELS / "domino_detector.onnx", tmp_path / CARDS.detector_file)
    with caplog.at_level(logging.WARNING, logger="vision.pipeline"):
        recogniser = Recogniser("cards", models_dir=tmp_path)
    assert recogniser.detector.quantised_from is None
    assert recogniser.detector.rotated  # the float file's network, not the quantised one's
    assert "card_detector_int8.onnx was not quantised from this card_detector.onnx" in caplog.text
    assert "python -m training.quantise --kind cards" in caplog.text


def test_without_a_quantised_detector_the_float_one_runs_quietly(tmp_path, caplog) -> None:
    _models_like_shipped(tmp_path, leave_out=CARDS.quantised_detector_file)
    with caplog.at_level(logging.WARNING, logger="vision.pipeline"):
        recogniser = Recogniser("cards", models_dir=tmp_path)
    assert recogniser.detector.quantised_from is None
    assert caplog.text == ""
