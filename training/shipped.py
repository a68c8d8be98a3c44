"""The recipes that made the shipped models, as data (``training.recipes``), one per kind.

Every round here is one a shipped model came from (models/<kind>.md; the history of what was
tried is in git and docs/experiments/). Seeds: tiles 20261129, dominoes and cards 20261130, a
set's scenes from that plus its ``seed_offset`` (offsets never shared within a kind, nor with
calibration's seeds).
"""

from __future__ import annotations

from typing import Any

from datasets.tile_printings import HELD_OUT_PRINTING
from training.recipes import (
    READER_SYNTH,
    TILE_DETECTOR,
    ReaderFinetune,
    Recipe,
    Round,
    SceneSet,
    reader_folder,
)
from vision import cards
from vision.kinds import CARDS

TILES_SEED = 20261129
PIECES_SEED = 20261130

# ------------------------------------------------------------------------------- tiles

LOOK2_SYNTH = "synth_look2"  # racks and tables of one set each (``datasets.tiles_racks``)
LOOK2_RENDERER = "tiles_look2"
# Scenes of what training never sees, for the leave-one-out table (validation only).
HELD_OUT_SETS = {
    "heldout_printing": "tiles_heldout_printing",
    "heldout_rack": "tiles_heldout_rack",
}


def look2_sets(left_out: str = HELD_OUT_PRINTING) -> dict[str, str]:
    """Folder -> renderer of the look-2 scenes when ``left_out`` is the printing training never
    draws: the training scenes first, then the left-out printing's and the held-out rack's. The
    shipped models leave out ``HELD_OUT_PRINTING``; leaving out another (``--leave-out``) is a
    measurement, in folders of its own."""
    if left_out == HELD_OUT_PRINTING:
        return {LOOK2_SYNTH: LOOK2_RENDERER, **HELD_OUT_SETS}
    return {
        f"{LOOK2_SYNTH}_without_{left_out}": f"{LOOK2_RENDERER}@{left_out}",
        f"heldout_{left_out}": f"{HELD_OUT_SETS['heldout_printing']}@{left_out}",
        "heldout_rack": HELD_OUT_SETS["heldout_rack"],
    }


def rotated(
    name: str,
    epochs: int,
    start: str,
    folders: tuple[str, ...],
    copies: dict[str, int] | None = None,
    **options: Any,
) -> Round:
    """A rotated-box round on ``folders``' training scenes (some weighted up: ``copies``) and
    all their validation scenes, turned up to 30 degrees (exact for rotated boxes)."""
    train = tuple((folder, (copies or {}).get(folder, 1)) for folder in folders)
    return Round(name, epochs, start, train, folders, rotated=True, degrees=30.0, **options)


# A rotated-box round from random weights: its backbone and neck from ``detector_r3``'s best,
# a warm-up of one epoch.
FROM_R3: dict[str, Any] = {"backbone": "detector_r3", "lr0": 0.001, "warmup_epochs": 1.0}


def tiles(left_out: str = HELD_OUT_PRINTING) -> Recipe:
    """The tile detector (every round also on the trainable real photos, 3 copies each) and
    the classifier's scenes; ``left_out`` is the printing the look-2 scenes never draw."""
    (look2, look2_renderer), *held_out = look2_sets(left_out).items()
    return Recipe(
        "tiles",
        "tile",
        "tile_detector.onnx",
        "tile_classifier.onnx",
        det_imgsz=384,
        det_export_imgsz=512,
        scene_sets=(
            SceneSet("synth", "tiles", 450, 40, 0),
            # crowded piles and diagonal rows
            SceneSet("synth_r3", "tiles", 300, 40, 3, on_demand=True),
            # stored with each tile's corners
            SceneSet("synth_obb", "tiles_quads", 600, 60, 4, on_demand=True),
            SceneSet(look2, look2_renderer, 800, 60, 5),  # racks: the classifier's
            *(
                SceneSet(name, renderer, 0, 60, 6 + k)  # held-back tests of the left-out sets
                for k, (name, renderer) in enumerate(held_out)
            ),
        ),
        rounds=(
            Round("detector", 16, "yolo26n.yaml", (("synth", 1),), ("synth",)),
            Round("detector_r3", 6, "detector", (("synth_r3", 1),), ("synth_r3",), lr0=0.001),
            # rotated boxes do not overlap along diagonal rows and in piles
            rotated("detector_obb", 14, "yolo26n-obb.yaml", ("synth_obb",), **FROM_R3),
        ),
        real_copies=3,
    )


# ------------------------------------------------------------------------------- dominoes


def _domino_sets() -> tuple[SceneSet, ...]:
    def look(n: int) -> str:
        return f"dominoes_look{n}"

    return (
        SceneSet("synth", look(1), 400, 40, 0),
        SceneSet("test", look(1), 0, 60, 7),
        SceneSet("synth_r2", look(2), 400, 40, 2, on_demand=True),
        SceneSet("test_r2", look(2), 0, 60, 9),
        SceneSet("synth_r3", look(3), 600, 40, 4, on_demand=True),  # from low down, dark tables
        SceneSet("test_r3", look(3), 0, 60, 15),
        SceneSet("synth_r5", look(3), 800, 40, 21, on_demand=True),
        # busy coverings, side-by-side close-ups, shrink-wrap, greyscale
        SceneSet("synth_r6", look(4), 800, 40, 23, on_demand=True),
        SceneSet("test_r4", look(4), 0, 60, 25),
        SceneSet("synth_r7", look(4), 1200, 40, 27, on_demand=True),  # more of look 4
        # the reader fine-tune "d8"'s: fresh scenes of each look, never seen by the detector
        # that mines their hard negatives; look 5 (large pips) and look 6 (graded pips)
        *(
            SceneSet(f"finetune_d5_look{n}", look(n), 300, 20, 49 + 2 * n, on_demand=True)
            for n in (1, 2, 3, 4)
        ),
        SceneSet("finetune_d6_look5", look(5), 1200, 20, 61, on_demand=True),
        SceneSet("test_r5", look(5), 0, 60, 63),
        SceneSet("finetune_d7_look6", look(6), 1200, 20, 65, on_demand=True),
        SceneSet("test_r6", look(6), 0, 60, 67),
    )


DOMINO_OBB_SETS = ("synth", "synth_r2", "synth_r3")

DOMINOES = Recipe(
    "dominoes",
    "domino",
    "domino_detector.onnx",
    "domino_reader.onnx",
    det_imgsz=384,
    det_export_imgsz=512,
    scene_sets=_domino_sets(),
    rounds=(
        Round("detector", 24, TILE_DETECTOR, (("synth", 1),), ("synth",), lr0=0.002),
        # the first scenes kept: their small dominoes must not be forgotten
        Round(
            "detector_r2", 8, "detector", (("synth_r2", 1), ("synth", 1)), ("synth_r2",), lr0=0.001
        ),
        Round(
            "detector_r3",
            6,
            "detector_r2",
            (("synth_r3", 1), ("synth", 1), ("synth_r2", 1)),
            ("synth_r3",),
            lr0=0.0005,
        ),
        # rotated boxes: a turned domino's axis-aligned box covers its neighbours in a chain
        rotated("detector_obb", 8, "yolo26n-obb.yaml", DOMINO_OBB_SETS, **FROM_R3),
        rotated("detector_obb_r5", 5, "detector_obb", (*DOMINO_OBB_SETS, "synth_r5"), lr0=0.0005),
        # look 4, look 1 weighted up (without it, look 1's small dominoes were lost); the last
        # epoch the best on every look's validation scenes
        rotated(
            "detector_obb_r6",
            2,
            "detector_obb_r5",
            (*DOMINO_OBB_SETS, "synth_r5", "synth_r6"),
            copies={"synth": 3},
            lr0=0.0005,
            export="last",
        ),
        # every look at the 512 px it reads at, on a GPU (``scripts/gpu_round.sh``)
        rotated(
            "detector_obb_r7",
            16,
            "detector_obb_r6",
            (*DOMINO_OBB_SETS, "synth_r5", "synth_r6", "synth_r7"),
            copies={"synth": 2},
            lr0=0.001,
            imgsz=512,
            export="last",
        ),
    ),
    reader_sets=("synth", "synth_r2", "synth_r3"),
    reader_finetunes=(
        # "d4": looks 3 and 4 (the last two rotated rounds' scenes), over the reader
        ReaderFinetune("d4", ("synth_r5", "synth_r6")),
        # "d8": from "d4" on fresh scenes of looks 1-6, rare dominoes sampled more
        ReaderFinetune(
            "d8",
            (
                *(f"finetune_d5_look{n}" for n in (1, 2, 3, 4)),
                "finetune_d6_look5",
                "finetune_d7_look6",
            ),
        ),
    ),
)


# ------------------------------------------------------------------------------- cards

LETTERS = "cards_letters"
# look 6 (index letters of four languages, dark faces) and fresh scenes of looks 1-5, so that
# nothing is forgotten; the French letters a set of their own, left out of the letters
# reader's training (``--leave-letters``), so that it measures a letter set never seen
CARD_LOOK_FINETUNE_SETS = tuple(
    SceneSet(f"finetune_look{look}", renderer, 120, 0, 39 + 2 * look, on_demand=True)
    for look, renderer in enumerate(
        ("cards", "cards_fonts", "cards_glyphs", "cards_real", "cards_backs"), start=1
    )
)
CARD_LOOK_FINETUNE_FOLDERS = tuple(s.folder for s in CARD_LOOK_FINETUNE_SETS)
CARD_LETTERS_SETS = (
    SceneSet("finetune_letters", f"{LETTERS}@en,pl,de", 700, 0, 35, on_demand=True),
    SceneSet("finetune_letters_fr", f"{LETTERS}@fr", 250, 0, 37, on_demand=True),
    *CARD_LOOK_FINETUNE_SETS,
)
CARD_LETTERS_FOLDERS = tuple(s.folder for s in CARD_LETTERS_SETS)


def _with_test(folder: str, renderer: str, scenes: int, seed_offset: int, test: str):
    """A set of ``scenes`` (40 validation) and its held-back test of 60 (seed offset + 2)."""
    return (
        SceneSet(folder, renderer, scenes, 40, seed_offset),
        SceneSet(test, renderer, 0, 60, seed_offset + 2),
    )


# every look the readers learned (the fourth detector round's training scenes)
ALL_LOOKS_FOLDERS = (
    "synth",
    "synth_r2",
    *(reader_folder(index) for index in range(4)),
    "synth_fans",
    "synth_crossed_q",
    "synth_decoys",
    "finetune_letters",
)

CARDS_RECIPE = Recipe(
    "cards",
    "corner",
    "card_detector.onnx",
    "card_reader.onnx",
    det_imgsz=512,
    det_export_imgsz=640,
    scene_sets=(
        SceneSet("synth", "cards", 400, 40, 0),
        SceneSet("test", "cards", 0, 60, 7),
        # more scenes of the same look: 400 were too few (validation mAP50 stalled)
        SceneSet("synth_r2", "cards", 1200, 40, 2, on_demand=True),
        # the reader's: decks in more fonts, flat-topped 3s, pips near the indices with busy
        # court art, real decks' backs and face-down hands
        *_with_test(READER_SYNTH, "cards_fonts", 1200, 11, "test_reader"),
        *_with_test(f"{READER_SYNTH}2", "cards_glyphs", 600, 17, "test_reader2"),
        *_with_test(f"{READER_SYNTH}3", "cards_real", 800, 23, "test_reader3"),
        *_with_test(f"{READER_SYNTH}4", "cards_backs", 800, 29, "test_reader4"),
        *CARD_LETTERS_SETS,
        # look 6's English, Polish and German letters: the fourth round's validation
        SceneSet("synth_r4", f"{LETTERS}@en,pl,de", 0, 40, 51, on_demand=True),
        # hands in tight fans, each index showing just its rank and suit
        SceneSet("synth_fans", "cards_fans", 500, 40, 55, on_demand=True),
        SceneSet("test_fans", "cards_fans", 0, 60, 57),
        SceneSet("synth_crossed_q", "cards_crossed_q", 600, 40, 61, on_demand=True),
        SceneSet("test_crossed_q", "cards_crossed_q", 0, 60, 63),
        SceneSet("synth_decoys", "cards_decoys", 500, 40, 65, on_demand=True),
        SceneSet("synth_felt", "cards_felt@decoys", 400, 0, 69, on_demand=True),
        SceneSet("synth_inverted", "cards_inverted", 300, 0, 97, on_demand=True),
        SceneSet("synth_inverted_felt", "cards_inverted@felt", 300, 0, 99, on_demand=True),
    ),
    rounds=(
        Round("detector", 12, TILE_DETECTOR, (("synth", 1),), ("synth",), lr0=0.002),
        # the first scenes kept: their small cards must not be forgotten
        Round(
            "detector_r2", 8, "detector", (("synth_r2", 1), ("synth", 1)), ("synth_r2",), lr0=0.001
        ),
        # more epochs from round 2's best at half its rate, on its scenes
        Round(
            "detector_r3",
            8,
            "detector_r2",
            (("synth_r2", 1), ("synth", 1)),
            ("synth_r2",),
            lr0=0.0005,
        ),
        # every look the readers learned, at the 640 px it reads at, on a GPU
        # (``scripts/gpu_round.sh``; shipped from a run whose --deadline fitted 11 epochs)
        Round(
            "detector_all_looks",
            11,
            "detector_r3",
            tuple((folder, 1) for folder in ALL_LOOKS_FOLDERS),
            ("synth_r4",),
            lr0=0.0005,
            imgsz=640,
            export="last",
        ),
    ),
    reader_sets=("synth", "synth_r2"),
    reader_finetunes=(
        # the English reader: "c6" on decks printing the crossed Q ("c8"), then on stacked and
        # lone pips boxed as no card ("c9"), looks 1-5 again
        ReaderFinetune("c8", ("synth_crossed_q", *CARD_LOOK_FINETUNE_FOLDERS)),
        ReaderFinetune("c9", ("synth_decoys", *CARD_LOOK_FINETUNE_FOLDERS)),
        # "c10": views grey and blurred too, beside it: the reader of photos without colour
        ReaderFinetune("c10", ("synth_decoys", *CARD_LOOK_FINETUNE_FOLDERS), cards.GREY_READER),
        # "c11": from "c10" on look 6's index letters (French left out), the letters reader
        ReaderFinetune(
            "c11",
            CARD_LETTERS_FOLDERS,
            cards.LETTERS_READER,
            start_onnx=cards.GREY_READER,
            leave="fr",
        ),
        # "c13": "c9" on printed casino felts, their letters, seat numbers and card pictures
        # boxed as no card: the English reader
        ReaderFinetune("c13", ("synth_felt", "synth_decoys", *CARD_LOOK_FINETUNE_FOLDERS)),
        # "c14": "c11" on dark decks read inverted, on plain tables and on felts, beside it
        ReaderFinetune(
            "c14",
            ("synth_inverted", "synth_inverted_felt", *CARD_LETTERS_FOLDERS),
            cards.DARK_READER,
            start_onnx=cards.LETTERS_READER,
            leave="fr",
        ),
    ),
    negative_tile_side=CARDS.passes.tile_side,
    negative_zoom_out=CARDS.passes.zoom_out,
    negatives_per_scene=10,
)


def recipe_of(kind: str, left_out: str = HELD_OUT_PRINTING) -> Recipe:
    """The shipped recipe of ``kind`` (tiles: with ``left_out`` the printing never drawn)."""
    if kind == "tiles":
        return tiles(left_out)
    return RECIPES[kind]


RECIPES: dict[str, Recipe] = {"tiles": tiles(), "dominoes": DOMINOES, "cards": CARDS_RECIPE}
SEEDS = {"tiles": TILES_SEED, "dominoes": PIECES_SEED, "cards": PIECES_SEED}
