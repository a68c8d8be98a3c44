"""Training recipes as data (training/recipes.py): which rounds run, where each goes, which
scene sets are made, and the shipped recipes' scene seeds (the shipped models depend on them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from training.recipes import Recipe, Round, SceneSet, reader_folder
from training.shipped import RECIPES, tiles
from training.train import generate_sets, train_detector

RECIPE = Recipe(
    "test",
    "piece",
    "d.onnx",
    "r.onnx",
    det_imgsz=64,
    det_export_imgsz=64,
    scene_sets=(
        SceneSet("synth", "m:first", 10, 2, 0),
        SceneSet("test", "m:first", 0, 3, 7),
        SceneSet("more", "m:second", 5, 2, 2, on_demand=True),
        SceneSet("late", "m:second", 5, 2, 4, on_demand=True),
    ),
    rounds=(
        Round("a", 3, "yolo26n.yaml", (("synth", 1),), ("synth",)),
        Round("b", 2, "a", (("more", 1), ("synth", 1)), ("more",)),
        Round("c", 0, "b", (("late", 1),), ("late",)),
    ),
)


def test_rounds_run_up_to_the_first_without_epochs():
    assert [r.name for r in RECIPE.rounds_run()] == ["a", "b"]
    stopped = RECIPE.with_changes(epochs={"b": 0, "c": 4})
    assert [r.name for r in stopped.rounds_run()] == ["a"]  # c would start from b: not run


def test_the_generate_stage_makes_the_sets_no_round_makes_on_demand():
    assert [s.folder for s in RECIPE.sets_made()] == ["synth", "test"]
    assert RECIPE.round("b").folders == ("more", "synth")


def test_the_last_round_run_goes_to_out_the_others_aside(tmp_path, monkeypatch):
    import training.train

    calls = []
    monkeypatch.setattr(
        training.train, "run_round", lambda round_, _r, _w, out, *_a: calls.append((round_, out))
    )
    train_detector(RECIPE, tmp_path / "work", tmp_path / "out", 1, None, [])
    assert [(r.name, r.epochs, out) for r, out in calls] == [
        ("a", 3, tmp_path / "work" / "intermediate"),
        ("b", 2, tmp_path / "out"),
    ]


def test_scenes_are_generated_from_the_seed_plus_their_offset(monkeypatch):
    import training.train

    calls = []
    monkeypatch.setattr(training.train, "generate", lambda *a, **k: calls.append((*a, k["name"])))
    generate_sets(RECIPE, Path("w"), 100)
    assert calls == [(Path("w"), 10, 2, 100, "synth"), (Path("w"), 0, 3, 107, "test")]


def test_changes_naming_nothing_in_the_recipe_are_refused():
    with pytest.raises(ValueError, match="not in this recipe: d, nowhere"):
        RECIPE.with_changes(epochs={"d": 1}, scenes={"nowhere": 3})


def test_smoke_keeps_every_set_and_round_tiny():
    smoke = RECIPE.smoke(scenes=4, val=1)
    assert [(s.scenes, s.val) for s in smoke.scene_sets] == [(4, 1), (0, 1), (4, 1), (4, 1)]
    assert [r.epochs for r in smoke.rounds] == [1, 1, 0]


def _seeds(recipe: Recipe) -> list[tuple[str, int, int, int]]:
    return [(s.folder, s.scenes, s.val, s.seed_offset) for s in recipe.scene_sets]


def test_the_shipped_tile_recipe():
    recipe = tiles()
    assert [(r.name, r.epochs) for r in recipe.rounds_run()] == [
        ("detector", 16),
        ("detector_r3", 6),
        ("detector_obb", 14),
    ]
    assert _seeds(recipe) == [
        ("synth", 450, 40, 0),
        ("synth_r3", 300, 40, 3),
        ("synth_obb", 600, 60, 4),
        ("synth_look2", 800, 60, 5),
        ("heldout_printing", 0, 60, 6),
        ("heldout_rack", 0, 60, 7),
    ]
    assert recipe.real_copies == 3


def test_the_shipped_domino_and_card_recipes():
    dominoes, cards = RECIPES["dominoes"], RECIPES["cards"]
    assert [(r.name, r.epochs) for r in dominoes.rounds_run()] == [
        ("detector", 24),
        ("detector_r2", 8),
        ("detector_r3", 6),
        ("detector_obb", 8),
        ("detector_obb_r5", 5),
        ("detector_obb_r6", 2),
        ("detector_obb_r7", 16),
    ]
    assert dominoes.with_changes({"detector_obb_r7": 0}).rounds_run()[-1].name == "detector_obb_r6"
    r6, r7 = dominoes.round("detector_obb_r6"), dominoes.round("detector_obb_r7")
    assert dict(r6.train)["synth"] == 3 and dict(r7.train)["synth"] == 2  # look 1 weighted up
    assert (r7.imgsz, r7.export, r7.lr0) == (512, "last", 0.001)
    assert _seeds(dominoes) == [
        ("synth", 400, 40, 0),
        ("test", 0, 60, 7),
        ("synth_r2", 400, 40, 2),
        ("test_r2", 0, 60, 9),
        ("synth_r3", 600, 40, 4),
        ("test_r3", 0, 60, 15),
        ("synth_r5", 800, 40, 21),
        ("synth_r6", 800, 40, 23),
        ("test_r4", 0, 60, 25),
        ("synth_r7", 1200, 40, 27),
        ("finetune_d5_look1", 300, 20, 51),
        ("finetune_d5_look2", 300, 20, 53),
        ("finetune_d5_look3", 300, 20, 55),
        ("finetune_d5_look4", 300, 20, 57),
        ("finetune_d6_look5", 1200, 20, 61),
        ("test_r5", 0, 60, 63),  # look 5, large pips
        ("finetune_d7_look6", 1200, 20, 65),
        ("test_r6", 0, 60, 67),  # look 6, graded pips
    ]
    assert [(r.name, r.epochs) for r in cards.rounds_run()] == [
        ("detector", 12),
        ("detector_r2", 8),
        ("detector_r3", 8),
        ("detector_all_looks", 11),  # every look at 640 px, made for a GPU
    ]
    all_looks = cards.round("detector_all_looks")
    assert (all_looks.imgsz, all_looks.export, all_looks.val) == (640, "last", ("synth_r4",))
    assert ("synth_r4", 0, 40, 51) in _seeds(cards) and ("synth_fans", 500, 40, 55) in _seeds(cards)
    made = [s.folder for s in cards.sets_made()]
    assert "test_fans" in made and "synth_fans" not in made  # made by the round reading it
    offsets = [s.seed_offset for s in cards.scene_sets]
    assert len(offsets) == len(set(offsets))  # no two card sets share their scenes' seeds
    looks = cards.reader_looks()
    assert [s.folder for s in looks] == [reader_folder(i) for i in range(4)]
    assert [(s.scenes, s.seed_offset) for s in looks] == [
        (1200, 11),
        (600, 17),
        (800, 23),
        (800, 29),
    ]
    tests = [s for s in cards.scene_sets if s.folder.startswith("test_reader")]
    assert [(s.folder, s.seed_offset) for s in tests] == [
        (reader_folder(i, test=True), 13 + 6 * i) for i in range(4)
    ]


def test_every_reader_fine_tune_learns_scene_sets_of_its_recipe():
    from training.readers import FINETUNE_SPECS

    dominoes, cards = RECIPES["dominoes"], RECIPES["cards"]
    d4, d8 = dominoes.reader_finetunes
    assert (d4.spec, d4.sets, d4.onnx) == ("d4", ("synth_r5", "synth_r6"), None)  # replaces d3
    assert [dominoes.scene_set(f).renderer[-1] for f in d8.sets] == list("123456")
    assert d8.onnx is None and FINETUNE_SPECS["d8"].balanced > 0
    offsets = [s.seed_offset for s in dominoes.scene_sets]
    assert len(offsets) == len(set(offsets))  # no two domino sets share their scenes' seeds
    assert not {71, 73, 75} & set(offsets)  # nor calibration's (seeds 20261201, 03, 05)
    crossed_q, decoys, grey, letters, felt, inverted = cards.reader_finetunes
    assert (crossed_q.spec, crossed_q.onnx, crossed_q.leave) == ("c8", None, "")  # over c6
    assert crossed_q.sets[0] == "synth_crossed_q"
    assert {f"finetune_look{look}" for look in range(1, 6)} <= set(crossed_q.sets)
    assert (decoys.spec, decoys.onnx, decoys.sets[0]) == ("c9", None, "synth_decoys")  # over c8
    assert (grey.spec, grey.onnx, grey.sets) == ("c10", "card_reader_grey.onnx", decoys.sets)
    assert (letters.spec, letters.onnx) == ("c11", "card_reader_letters.onnx")
    assert letters.start_onnx == "card_reader_grey.onnx" and letters.leave == "fr"
    assert "finetune_letters_fr" in letters.sets  # French: the letter set never seen
    assert FINETUNE_SPECS["c10"].grey_share > 0 and FINETUNE_SPECS["c9"].grey_share == 0
    # the English reader: c9 on its own scenes and printed felts, their glyphs no card
    assert (felt.spec, felt.onnx, felt.sets[1:]) == ("c13", None, decoys.sets)
    assert cards.scene_set(felt.sets[0]).renderer == "cards_felt@decoys"
    # the reader of photos read inverted: c11 beside it, on dark decks inverted (plain tables,
    # felts) and c11's own scenes, French still left out
    assert (inverted.spec, inverted.onnx) == ("c14", "card_reader_dark.onnx")
    assert inverted.start_onnx == "card_reader_letters.onnx" and inverted.leave == "fr"
    assert inverted.sets[2:] == letters.sets
    assert cards.scene_set(inverted.sets[1]).renderer == "cards_inverted@felt"
    card_offsets = [s.seed_offset for s in cards.scene_sets]
    # nor calibration's and its fresh checks' (seeds 20261201, 03, 05, 07, 11, 19, 21, 23, 25)
    assert not {71, 73, 75, 77, 81, 89, 91, 93, 95} & set(card_offsets)


def test_each_reader_fine_tune_starts_from_the_reader_the_ones_before_it_left():
    """Run in order, a fine-tune finds in --out the reader stage's reader or the last
    fine-tune's written over it (``finetune_reader`` checks the recipe stamped in the file)."""
    from training.train import reader_starts

    assert reader_starts(RECIPES["dominoes"]) == {"d4": "d3", "d8": "d4"}
    assert reader_starts(RECIPES["cards"]) == {
        "c8": "c6",
        "c9": "c8",
        "c10": "c9",  # beside the reader
        "c11": "c10",  # from the grey photos' reader
        "c13": "c9",  # the English reader
        "c14": "c11",  # beside the letters reader, from it
    }


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--round", "detector_r2", "--epochs", "detector_r2=0"], "give detector_r2 epochs"),
        (["--round", "no_such_round"], "no detector round no_such_round"),
    ],
)
def test_the_finetune_stage_runs_a_named_round_only_with_epochs(tmp_path, capsys, extra, message):
    from training.train import main

    with pytest.raises(SystemExit) as stop:
        main(["--kind", "cards", "--stage", "finetune", "--work", str(tmp_path), *extra])
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_decoy_scenes_label_stacked_pips_for_the_reader_only(tmp_path):
    """The "cards_decoys" renderer adds "none" boxes (stacked pips) to the card labels: the
    reader learns them as no card, a detector data set leaves them out, and a test set never
    counts them as truth."""
    import cv2

    from training.evaluate import synthetic_scenes
    from training.readers import NOT_A_PIECE
    from training.scenes import scene_renderer
    from training.yolo_data import box_lines

    render = scene_renderer("cards_decoys")
    seed = next(s for s in range(20) if render(s)[1][-1][0] == NOT_A_PIECE)
    image, pieces = render(seed)
    decoys = [p for p in pieces if p[0] == NOT_A_PIECE]
    cards = [p for p in pieces if p[0] != NOT_A_PIECE]
    assert decoys and cards
    cv2.imwrite(str(tmp_path / "00000.jpg"), image)
    meta = {"seed": seed, "size": [image.shape[1], image.shape[0]], "pieces": pieces}
    (tmp_path / "00000.json").write_text(json.dumps(meta))
    assert len(box_lines(pieces, image.shape[1], image.shape[0])) <= len(cards)  # decoys out
    (scene,) = synthetic_scenes(tmp_path, "cards")
    assert [label for label, _box in scene.pieces] == [label for label, _box in cards]
