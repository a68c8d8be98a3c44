"""Training recipes as data (training/recipes.py): which rounds run, where each goes, which
scene sets are made, and the shipped recipes' scene seeds (the shipped models depend on them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from training.recipes import DetectorRound, SceneSet, Stages, generate_scenes, train_rounds
from training.train_pieces import RECIPES, reader_folder
from training.train_tiles import tile_stages

STAGES = Stages(
    scene_sets=(
        SceneSet("synth", "m:first", 10, 2, 0),
        SceneSet("test", "m:first", 0, 3, 7),
        SceneSet("more", "m:second", 5, 2, 2, for_round="b"),
        SceneSet("late", "m:second", 5, 2, 4, for_round="c"),
    ),
    rounds=(DetectorRound("a", 3), DetectorRound("b", 2), DetectorRound("c", 0)),
)


def test_rounds_run_up_to_the_first_without_epochs():
    assert [r.name for r in STAGES.rounds_run()] == ["a", "b"]
    stopped = STAGES.with_changes(epochs={"b": 0, "c": 4})
    assert [r.name for r in stopped.rounds_run()] == ["a"]  # c would start from b: not run


def test_scene_sets_of_rounds_that_do_not_run_are_not_made():
    assert [s.folder for s in STAGES.sets_made()] == ["synth", "test", "more"]
    assert [s.folder for s in STAGES.with_changes(epochs={"c": 1}).sets_made()][-1] == "late"


def test_the_last_round_run_goes_to_out_the_others_aside(tmp_path):
    calls = []

    def trainer(name: str):
        return lambda out, epochs: calls.append((name, out, epochs))

    trainers = {name: trainer(name) for name in "abc"}
    train_rounds(STAGES, tmp_path / "work", tmp_path / "out", trainers)
    assert calls == [("a", tmp_path / "work" / "intermediate", 3), ("b", tmp_path / "out", 2)]


def test_scenes_are_generated_from_the_seed_plus_their_offset():
    calls = []
    generate_scenes(STAGES, Path("w"), 100, lambda *a, **k: calls.append((*a, k["name"])))
    assert calls == [
        (Path("w"), 10, 2, 100, "synth"),
        (Path("w"), 0, 3, 107, "test"),
        (Path("w"), 5, 2, 102, "more"),
    ]


def test_changes_naming_nothing_in_the_recipe_are_refused():
    with pytest.raises(ValueError, match="not in this recipe: d, nowhere"):
        STAGES.with_changes(epochs={"d": 1}, scenes={"nowhere": 3})


def test_smoke_keeps_every_set_and_round_tiny():
    smoke = STAGES.smoke(scenes=4, val=1)
    assert [(s.scenes, s.val) for s in smoke.scene_sets] == [(4, 1), (0, 1), (4, 1), (4, 1)]
    assert [r.epochs for r in smoke.rounds] == [1, 1, 0]


def _seeds(stages: Stages) -> list[tuple[str, int, int, int]]:
    return [(s.folder, s.scenes, s.val, s.seed_offset) for s in stages.sets_made()]


def test_the_shipped_tile_recipe():
    stages = tile_stages()
    assert [(r.name, r.epochs) for r in stages.rounds_run()] == [
        ("detector", 16),
        ("detector_r3", 6),
        ("detector_obb", 14),
    ]
    assert _seeds(stages) == [
        ("synth", 450, 40, 0),
        ("synth_r3", 300, 40, 3),
        ("synth_obb", 600, 60, 4),
        ("synth_look2", 800, 60, 5),
        ("heldout_printing", 0, 60, 6),
        ("heldout_rack", 0, 60, 7),
    ]


def test_the_shipped_domino_and_card_recipes():
    dominoes, cards = RECIPES["dominoes"].stages, RECIPES["cards"].stages
    assert [(r.name, r.epochs) for r in dominoes.rounds_run()][-2:] == [
        ("detector_obb_r6", 2),
        ("detector_obb_r7", 16),
    ]
    assert dominoes.with_changes({"detector_obb_r7": 0}).rounds_run()[-1].name == "detector_obb_r6"
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
        ("test_r5", 0, 60, 63),  # look 5, large pips: the reader fine-tune "d6" learns it
        ("test_r6", 0, 60, 67),  # look 6, graded pips: "d7" and "d8" learn it
    ]
    assert [(r.name, r.epochs) for r in cards.rounds_run()] == [
        ("detector", 12),
        ("detector_r2", 8),
        ("detector_r3", 8),
        ("detector_all_looks", 11),  # every look at 640 px, made for a GPU
    ]
    # the measured, unshipped round on look 6 and its validation scenes, only when asked
    assert "synth_r4" not in [s.folder for s in cards.sets_made()]
    asked = cards.with_changes({"detector_r4": 6})
    assert asked.rounds_run()[-1].name == "detector_r4"
    assert ("synth_r4", 0, 40, 51) in _seeds(asked)
    # the measured, unshipped round on tight fans: its scenes only when asked, its test always
    made = _seeds(cards)
    assert ("test_fans", 0, 60, 57) in made and "synth_fans" not in [f for f, *_ in made]
    fans = cards.scene_set("synth_fans")
    assert (fans.scenes, fans.val, fans.seed_offset, fans.for_round) == (
        500,
        40,
        55,
        "detector_fans",
    )
    offsets = [s.seed_offset for s in cards.scene_sets]
    assert len(offsets) == len(set(offsets))  # no two card sets share their scenes' seeds
    looks = RECIPES["cards"].reader_looks()
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
    d4, d5, d6, d7, d8 = dominoes.reader_finetunes
    assert (d4.spec, d4.sets, d4.onnx) == ("d4", ("synth_r5", "synth_r6"), None)  # replaces d3
    assert d4.straddle_cover is None  # as shipped
    # measured, not shipped: fresh scenes of every look, straddling boxes mined as no domino
    assert (d5.spec, d5.onnx, d5.shipped, d5.straddle_cover) == ("d5", None, False, 0.2)
    assert [dominoes.stages.scene_set(f).renderer[-3:] for f in d5.sets] == [
        "oes",
        "_r2",
        "_r3",
        "_r4",
    ]
    # measured, not shipped: d5's scenes and look 5's (large pips), no straddles
    assert (d6.spec, d6.onnx, d6.shipped, d6.straddle_cover) == ("d6", None, False, None)
    assert d6.sets[:4] == d5.sets
    assert dominoes.stages.scene_set(d6.sets[4]).renderer.endswith("_r5")
    # d6's scenes and look 6's (graded pips): d7 measured, d8 (rare dominoes sampled more)
    # shipped, over d4
    assert d7.sets == d8.sets and d7.sets[:5] == d6.sets and not d7.shipped
    assert (d8.onnx, d8.straddle_cover) == (None, None)
    assert dominoes.stages.scene_set(d7.sets[5]).renderer.endswith("_r6")
    assert FINETUNE_SPECS["d8"].balanced > 0 and FINETUNE_SPECS["d7"].balanced == 0
    offsets = [s.seed_offset for s in dominoes.stages.scene_sets]
    assert len(offsets) == len(set(offsets))  # no two domino sets share their scenes' seeds
    assert not {71, 73, 75} & set(offsets)  # nor calibration's (seeds 20261201, 03, 05)
    letters, crossed_q, decoys, grey, grey_letters, shaken, felt, inverted = cards.reader_finetunes
    assert (letters.spec, letters.onnx) == ("c7", "card_reader_letters.onnx")  # beside c6
    assert not letters.shipped  # measured: "c11" is the letters reader
    assert "finetune_letters_fr" in letters.sets
    assert letters.leave == "fr"  # French: the letter set never seen
    assert (crossed_q.spec, crossed_q.onnx, crossed_q.leave) == ("c8", None, "")  # over c6
    assert crossed_q.sets[0] == "synth_crossed_q"
    assert {f"finetune_look{look}" for look in range(1, 6)} <= set(crossed_q.sets)
    assert (decoys.spec, decoys.onnx, decoys.sets[0]) == ("c9", None, "synth_decoys")  # over c8
    assert (grey.spec, grey.onnx, grey.sets) == ("c10", "card_reader_grey.onnx", decoys.sets)
    assert (grey_letters.spec, grey_letters.onnx) == ("c11", "card_reader_letters.onnx")
    assert grey_letters.start_onnx == "card_reader_grey.onnx" and grey_letters.leave == "fr"
    assert FINETUNE_SPECS["c10"].grey_share > 0 and FINETUNE_SPECS["c9"].grey_share == 0
    assert "finetune_letters_fr" in grey_letters.sets and grey_letters.sets == letters.sets
    # measured, not shipped: c9 on its own scenes, views smeared as by a hand that moved
    assert (shaken.spec, shaken.onnx, shaken.sets, shaken.shipped) == (
        "c12",
        None,
        decoys.sets,
        False,
    )
    assert FINETUNE_SPECS["c12"].shaken > 0 and FINETUNE_SPECS["c9"].shaken == 0
    # the English reader shipped: c9 on its own scenes and printed felts, their glyphs no card
    assert (felt.spec, felt.onnx, felt.sets[1:]) == ("c13", None, decoys.sets)
    assert cards.stages.scene_set(felt.sets[0]).renderer.endswith("render_cards_felt@decoys")
    # the reader of photos read inverted: c11 beside it, on dark decks inverted (plain tables,
    # felts) and c11's own scenes, French still left out
    assert (inverted.spec, inverted.onnx) == ("c14", "card_reader_dark.onnx")
    assert inverted.start_onnx == "card_reader_letters.onnx" and inverted.leave == "fr"
    assert inverted.sets[2:] == grey_letters.sets
    assert cards.stages.scene_set(inverted.sets[1]).renderer.endswith("inverted@felt")
    card_offsets = [s.seed_offset for s in cards.stages.scene_sets]
    assert len(card_offsets) == len(set(card_offsets))
    # nor calibration's and its fresh checks' (seeds 20261201, 03, 05, 07, 11, 19, 21, 23, 25)
    assert not {71, 73, 75, 77, 81, 89, 91, 93, 95} & set(card_offsets)
    shipped = (d4, d8, crossed_q, decoys, grey, grey_letters, felt, inverted)
    assert all(tune.shipped for tune in shipped)
    for recipe in (dominoes, cards):
        for tune in recipe.reader_finetunes:
            assert tune.spec in FINETUNE_SPECS
            assert all(recipe.stages.has_set(folder) for folder in tune.sets)


def test_each_reader_fine_tune_starts_from_the_reader_the_ones_before_it_left():
    """Run in order, a fine-tune finds in --out the reader stage's reader or the last shipped
    fine-tune's written over it (``finetune_reader`` checks the recipe stamped in the file)."""
    from training.train_pieces import reader_starts

    assert reader_starts(RECIPES["dominoes"]) == {
        "d4": "d3",
        "d5": "d4",
        "d6": "d4",
        "d7": "d4",
        "d8": "d4",
    }
    assert reader_starts(RECIPES["cards"]) == {
        "c7": "c6",
        "c8": "c6",
        "c9": "c8",
        "c10": "c9",  # beside the reader
        "c11": "c10",  # from the grey photos' reader
        "c12": "c9",  # the English reader shipped
        "c13": "c9",
        "c14": "c11",  # beside the letters reader, from it
    }


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--round", "detector_fans"], "give detector_fans epochs"),
        (["--round", "detector_r2"], "no fine-tune round detector_r2"),
        (["--round", "no_such_round"], "no fine-tune round no_such_round"),
    ],
)
def test_the_finetune_stage_runs_a_named_fine_tune_round_only_with_epochs(
    tmp_path, capsys, extra, message
):
    from training.train_pieces import main

    with pytest.raises(SystemExit) as stop:
        main(["--kind", "cards", "--stage", "finetune", "--work", str(tmp_path), *extra])
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_decoy_scenes_label_stacked_pips_for_the_reader_only(tmp_path):
    """``render_cards_decoys`` adds "none" boxes (stacked pips) to the card labels: the reader
    learns them as no card, a detector dataset leaves them out, and a test set never counts
    them as truth."""
    import cv2

    from training.evaluate import synthetic_scenes
    from training.readers import NOT_A_PIECE
    from training.train_pieces import render_cards_decoys
    from training.train_tiles import _write_yolo

    seed = next(s for s in range(20) if render_cards_decoys(s)[1][-1][0] == NOT_A_PIECE)
    image, pieces = render_cards_decoys(seed)
    decoys = [p for p in pieces if p[0] == NOT_A_PIECE]
    cards = [p for p in pieces if p[0] != NOT_A_PIECE]
    assert decoys and cards
    cv2.imwrite(str(tmp_path / "00000.jpg"), image)
    meta = {"seed": seed, "size": [image.shape[1], image.shape[0]], "pieces": pieces}
    (tmp_path / "00000.json").write_text(json.dumps(meta))
    for sub in ("images", "labels"):
        (tmp_path / sub).mkdir()
    _write_yolo(tmp_path / "images", tmp_path / "labels", "s", tmp_path / "00000.jpg", pieces)
    rows = (tmp_path / "labels" / "s.txt").read_text().split("\n")
    assert len([row for row in rows if row]) <= len(cards)  # the decoys left out
    (scene,) = synthetic_scenes(tmp_path, "cards")
    assert [label for label, _box in scene.pieces] == [label for label, _box in cards]


def test_straddling_boxes_are_mined_only_when_two_pieces_each_cover_a_share():
    import numpy as np

    from training.train_pieces import _straddles

    boxes = np.array([[0, 0, 10, 20], [0, 20, 10, 40]], np.float32)  # two dominoes end to end
    assert _straddles((0, 10, 10, 30), boxes, 0.2)  # half of each
    assert not _straddles((0, 2, 10, 22), boxes, 0.2)  # most of one, a tenth of the other
    assert not _straddles((0, 10, 10, 30), boxes[:1], 0.2)  # one piece: nothing to straddle
