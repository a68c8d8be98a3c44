"""Every piece kind's model files have a model card that names them and the command that trains
them, and the models index lists each card (models/README.md); the cards' metrics tables are
the rendering of the kinds' metrics files (models/<kind>.json), and no card or doc writes a
threshold in force outside them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from training.model_cards import BLOCK, DOCS, card_kind, render, stale
from vision.kinds import KIND_SETTINGS
from vision.metrics import load_metrics, metrics_path, save_metrics

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


def test_the_cards_tables_are_rendered_from_the_metrics_files() -> None:
    """``python -m training.model_cards`` renders them again when this fails."""
    assert [path.name for path in stale()] == []


@pytest.mark.parametrize("kind", sorted(KIND_SETTINGS))
def test_each_card_shows_its_dev_figures_and_thresholds(kind: str) -> None:
    card = (MODELS / f"{kind}.md").read_text(encoding="utf-8")
    assert {m["name"] for m in BLOCK.finditer(card)} == {"dev", "thresholds"}
    assert "dev" in load_metrics(metrics_path(kind))["figures"]


def test_no_threshold_in_force_is_written_outside_the_rendered_tables() -> None:
    """A card or doc names a threshold by its JSON key (``thresholds.sure``); its value appears
    only in the tables rendered from the JSON, so it cannot be left behind when it changes."""
    values = {
        str(record["value"])
        for kind in KIND_SETTINGS
        for record in load_metrics(metrics_path(kind))["thresholds"].values()
    }
    for path in (*DOCS, MODELS / "README.md", MODELS / "text_reader.md"):
        prose = BLOCK.sub("", path.read_text(encoding="utf-8"))
        for value in values:
            found = re.findall(rf"(?<![\d.]){re.escape(value)}(?!\d)", prose)
            assert not found, f"{path.name} writes the threshold {value} by hand"


def test_render_fills_a_marked_table_from_a_metrics_file(tmp_path: Path) -> None:
    group = {"photos": 2, "precision": 1.0, "recall": 0.5, "f1": 0.6667, "exact": 0.5}
    group |= {"exact_photos": 1, "sure_precision": None, "sure_share": 0.25}
    group |= {"seconds_per_photo": 0.3}
    save_metrics(
        tmp_path / "tiles.json",
        {
            "kind": "tiles",
            "thresholds": {"sure": {"value": 0.5, "score": "framed", "date": "D", "command": "C"}},
            "figures": {
                "dev": {"date": "D", "command": "meldcam eval X", "groups": {"all": group}}
                | {"labels": {"all": "every photo"}}
            },
        },
    )
    text = "a\n<!-- metrics:start dev -->\nstale\n<!-- metrics:end -->\nb\n"
    text += "<!-- metrics:start thresholds tiles -->\n<!-- metrics:end -->\n"
    rendered = render(text, "tiles", tmp_path)
    assert "| every photo | 2 | 1.000 | 0.500 | **0.667** | 1 (50.0 %) | - | 25.0 % |" in rendered
    assert "figures `dev`: `meldcam eval X`, D" in rendered and "stale" not in rendered
    assert "| tiles | `thresholds.sure` | framed | **0.5** | `C`, D | - |" in rendered
    assert render(rendered, "tiles", tmp_path) == rendered
    assert card_kind(MODELS / "cards.md") == "cards" and card_kind(tmp_path / "x.md") is None
    with pytest.raises(ValueError, match="no figures 'test'"):
        render("<!-- metrics:start test -->\n<!-- metrics:end -->", "tiles", tmp_path)
