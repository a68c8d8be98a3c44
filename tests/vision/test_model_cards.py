"""Every piece kind's model files have a model card that names them and the command that trains
them, and the models index lists each card (models/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.kinds import KIND_SETTINGS

MODELS = Path(__file__).resolve().parents[2] / "models"


@pytest.mark.parametrize("kind", sorted(KIND_SETTINGS))
def test_each_kind_has_a_model_card(kind: str) -> None:
    settings = KIND_SETTINGS[kind]
    card = (MODELS / f"{kind}.md").read_text(encoding="utf-8")
    files = [settings.detector_file, settings.reader_file]
    if settings.quantised_detector_file:
        files += [settings.quantised_detector_file, "python -m training.quantise"]
    files += [own.reader_file for _set, own in settings.set_readers]
    if settings.grey_photos is not None and settings.grey_photos.reader_file:
        files.append(settings.grey_photos.reader_file)
    if settings.set_guess is not None:
        files.append(settings.set_guess.reader_file)
    for name in (*files, settings.train_command):
        assert name in card, f"models/{kind}.md does not name {name}"
    for section in ("## Intended use", "## Training data", "## Evaluation", "## Limitations"):
        assert section in card, f"models/{kind}.md has no {section!r}"


def test_the_index_lists_every_card_and_model_file() -> None:
    index = (MODELS / "README.md").read_text(encoding="utf-8")
    for kind, settings in KIND_SETTINGS.items():
        for name in (f"{kind}.md", settings.detector_file, settings.reader_file):
            assert name in index, f"models/README.md does not list {name}"
    for onnx in MODELS.glob("*.onnx"):
        assert onnx.name in index, f"models/README.md does not list {onnx.name}"
