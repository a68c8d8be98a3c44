"""The shipped recipes (training/shipped.py) are whole: every round starts from something that
exists, reads scene sets of its recipe with a known renderer, and ends where the shipped model
is; every reader fine-tune is a known spec and writes the file the model card ships."""

from __future__ import annotations

from pathlib import Path

import pytest

from training.classifier import reader_recipe
from training.readers import FINETUNE_SPECS
from training.recipes import TILE_DETECTOR
from training.scenes import renderer_known, scene_renderer
from training.shipped import RECIPES, SEEDS
from training.train import reader_starts

MODELS = Path(__file__).resolve().parents[2] / "models"
YAMLS = ("yolo26n.yaml", "yolo26n-obb.yaml")  # ultralytics' own, built from random weights
KINDS = sorted(RECIPES)


@pytest.mark.parametrize("kind", KINDS)
def test_every_round_starts_from_something_that_exists(kind):
    recipe = RECIPES[kind]
    earlier: list[str] = []
    for round_ in recipe.rounds:
        assert round_.epochs > 0, f"{round_.name}: a round that never runs is no shipped round"
        assert round_.start in (*YAMLS, TILE_DETECTOR, *earlier), round_.name
        assert round_.start_weights in ("best", "last") and round_.export in ("best", "last")
        if round_.start in YAMLS:
            assert round_.start.endswith("-obb.yaml") == round_.rotated, round_.name
        if round_.backbone is not None:
            assert round_.start in YAMLS and round_.backbone in earlier, round_.name
        if round_.start == TILE_DETECTOR:
            assert kind != "tiles" and not earlier  # the tiles' detector starts the others
        earlier.append(round_.name)
    assert len(set(earlier)) == len(earlier)


@pytest.mark.parametrize("kind", KINDS)
def test_every_round_reads_scene_sets_of_its_recipe_with_known_renderers(kind):
    recipe = RECIPES[kind]
    folders = [s.folder for s in recipe.scene_sets]
    assert len(set(folders)) == len(folders)
    offsets = [s.seed_offset for s in recipe.scene_sets]
    assert len(set(offsets)) == len(offsets)  # no two sets share their scenes' seeds
    for scene_set in recipe.scene_sets:
        assert renderer_known(scene_set.renderer), scene_set
        scene_renderer(scene_set.renderer)  # resolves
    read = set()
    for round_ in recipe.rounds:
        for folder, copies in round_.train:
            assert recipe.scene_set(folder).scenes > 0 and 1 <= copies <= 9, (round_.name, folder)
        for folder in round_.val:
            assert recipe.scene_set(folder).val > 0, (round_.name, folder)
        read |= set(round_.folders)
    for tune in recipe.reader_finetunes:
        assert all(recipe.scene_set(folder).scenes > 0 for folder in tune.sets), tune.spec
        read |= set(tune.sets)
    on_demand = {s.folder for s in recipe.scene_sets if s.on_demand}
    assert on_demand <= read, "a set made on demand must be read by a round or a fine-tune"
    assert set(recipe.reader_sets) <= set(folders)


@pytest.mark.parametrize("kind", KINDS)
def test_the_last_round_makes_the_shipped_detector(kind):
    from vision.detector import OnnxDetector

    recipe = RECIPES[kind]
    last = recipe.rounds_run()[-1]
    detector = OnnxDetector(MODELS / recipe.detector_onnx)
    assert detector.rotated == last.rotated
    size = last.imgsz or recipe.det_export_imgsz
    assert detector.size == (size, size)
    assert kind in SEEDS


@pytest.mark.parametrize("kind", ["dominoes", "cards"])
def test_the_reader_fine_tunes_end_with_the_shipped_readers(kind):
    """Each file the fine-tunes write holds, as shipped, the last fine-tune written to it (its
    letter set left out as the recipe leaves it)."""
    recipe = RECIPES[kind]
    starts = reader_starts(recipe)
    last: dict[str, str] = {}
    for tune in recipe.reader_finetunes:
        assert tune.spec in FINETUNE_SPECS
        assert starts.get(tune.spec)
        last[tune.onnx or recipe.reader_onnx] = tune.spec + (
            f"_without_{tune.leave}" if tune.leave else ""
        )
    for onnx, spec in last.items():
        assert reader_recipe(MODELS / onnx) == spec, onnx
    assert set(FINETUNE_SPECS) >= {tune.spec for tune in recipe.reader_finetunes}


def test_every_fine_tune_spec_is_a_shipped_fine_tune():
    shipped = {tune.spec for recipe in RECIPES.values() for tune in recipe.reader_finetunes}
    assert set(FINETUNE_SPECS) == shipped
