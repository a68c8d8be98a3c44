"""Train the domino and card models: ``python -m training.train_pieces --kind dominoes``
(or ``--kind cards``) ``--out models``.

The same two-stage recipe as the number tiles (``train_tiles``), one command per kind, fixed
seeds, resumable (each stage skips what is done; the detector and the reader resume from their
last checkpoints). Each kind's recipe is data (``RECIPES``: its scene sets and detector rounds,
run by ``training/recipes.py``):

1. ``generate``: synthetic scenes (``datasets/dominoes_synth.py`` / ``datasets/cards_synth.py``)
   into ``datasets/generated/<kind>/<set>``;
2. ``detector``: a class-agnostic YOLO26-nano (dominoes: whole face-up dominoes; cards: corner
   indices, rank over suit, labelled when >= 90 % visible), exported to ONNX, trained in rounds,
   each from the one before, the last exported to ``--out``: ``detector`` on the first scenes
   (from the tile detector's weights when ``train_tiles`` has run here), ``detector_r2`` a
   fine-tune on its scenes plus the first, ``detector_r3`` (cards: more epochs from
   ``detector_r2``'s best; dominoes: new scenes from low down), and for dominoes
   ``detector_obb``, a rotated-box (OBB) detector on rounds 1-3's scenes re-rendered for each
   domino's corners, ``detector_obb_r5`` from it on more low-camera scenes, and
   ``detector_obb_r6`` from that on busy coverings and side-by-side close-ups (look 4) with
   every earlier look, look 1 weighted up, and ``detector_obb_r7`` from that on every look and
   more of look 4 at 512 px, 16 epochs, made for a GPU (shipped: ``--stage finetune --device 0
   --batch 64 --workers 12 --procs 16``, ``training.machine``).
   For cards ``detector_all_looks`` fine-tunes ``detector_r3`` on every look the readers
   learned at 640 px, made for a GPU (shipped, the same way, with ``--deadline``), and
   ``detector_r4`` fine-tunes ``detector_r3`` on the letters reader's scenes (look 6:
   other languages' letters, dark faces; looks 1-5 again), only with ``--epochs
   detector_r4=N`` (measured, not shipped), and ``detector_fans`` fine-tunes ``detector_r3`` on
   hands in tight fans (measured, not shipped). ``--stage finetune`` runs a kind's last round
   (or ``--round NAME``) alone, from the round before's ``best.pt`` or, on a fresh checkout,
   from the shipped detector (``recover``, its batch norms fitted to the round's photos);
3. ``reader``: small CNNs on crops cut square to each detected box (``vision/crops.py``), with
   two heads (dominoes: the smaller and the larger half's pip count; cards: rank and suit).
   ``--stage reader-finetune``: the reader in ``--out`` rebuilt and fine-tuned, shipped, so
   also part of "all" (dominoes: "d4" on looks 3 and 4, replacing the reader, then "d8" from it
   on looks 1-6, rare dominoes sampled more; cards: "c8" on
   decks printing the crossed Q and "c9" from it on stacked pips and lone pips by an edge
   boxed as no card, each replacing the English reader, "c10" from that with grey and blurred
   views beside it as the grey photos' reader, "c11" from that on index letters, French
   left out, as the letters reader, and "c13" from "c9" on printed casino felts, their glyphs
   no card, replacing the English reader again; ``--round NAME`` runs one alone).

Synthetic data only: no real domino or card photo has a licence that allows training on it.
Imports ultralytics and torch: never imported at inference time.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from training.machine import add_arguments as add_machine_arguments
from training.machine import apply as apply_machine
from training.machine import current
from training.offline import GENERATED
from training.recipes import (
    DetectorRound,
    SceneSet,
    Stages,
    add_recipe_arguments,
    apply_recipe_arguments,
    generate_scenes,
    train_rounds,
)
from training.train_tiles import (
    _write_yolo,
    build_detector_dataset,
    generate,
    rotated_round,
    synth_items,
    train_and_export,
    write_data_yaml,
)
from vision import cards
from vision.kinds import CARDS

SEED = 20261130
R2_SYNTH = "synth_r2"
R3_SYNTH = "synth_r3"
R4_SYNTH = "synth_r4"
R4_ROUND = "detector_r4"
R5_SYNTH = "synth_r5"
R6_SYNTH = "synth_r6"
R6_ROUND = "detector_obb_r6"
R7_SYNTH = "synth_r7"
R7_ROUND = "detector_obb_r7"
R7_IMGSZ = 512  # trained at the size it reads at (rounds before: 384, for 2 CPU cores)
FANS_SYNTH = "synth_fans"  # cards: hands in tight fans
FANS_ROUND = "detector_fans"
# cards: every look the readers learned, at the size the detector reads at, for a GPU
ALL_LOOKS_ROUND = "detector_all_looks"
ALL_LOOKS_IMGSZ = 640
ALL_LOOKS_R2_ROUND = "detector_all_looks_r2"  # more of it on fresh scenes of the same looks
READER_SYNTH = "synth_reader"  # scenes rendered for the reader only (its first reader look)


def reader_folder(index: int, test: bool = False) -> str:
    """The folder of the recipe's ``index``-th reader look: synth_reader, synth_reader2, ...
    (held-back tests: test_reader, test_reader2, ...)."""
    name = "test_reader" if test else READER_SYNTH
    return name if index == 0 else f"{name}{index + 1}"


def _domino_scene(seed: int, look: int):
    """A domino scene of ``look`` for the shared scene store (``domino_store``)."""
    from datasets.dominoes_synth import render_scene_detailed

    return domino_store(render_scene_detailed(seed, look=look))


def domino_store(scene) -> tuple:
    """(BGR image, [(label, box), ...], each face-up domino's corners, [(label, box), ...] of
    the partly shown ones): the corners kept for the rotated-box labels, the partly shown
    dominoes for ``meldcam eval``, which counts a reading of one by its true label neither
    right nor wrong."""
    partly_shown = [(label, list(box)) for label, box in scene.partial]
    return scene.image, scene.labels(), domino_quads(scene), partly_shown


def domino_quads(scene) -> list[list[list[float]]]:
    """Each face-up domino's four corners in photo pixels, around its face (both halves'
    outer corners)."""
    quads = []
    for domino in scene.dominoes:
        first, second = domino.halves
        corners = [first.quad[0], first.quad[1], second.quad[0], second.quad[1]]
        quads.append([[float(x), float(y)] for x, y in corners])
    return quads


def render_dominoes(seed: int):
    """Domino scenes of look 1 (``synth``)."""
    return _domino_scene(seed, 1)


def render_dominoes_r2(seed: int):
    """Domino scenes of look 2 (``synth_r2``): larger dominoes, more close-ups, thick bodies
    seen at a slant."""
    return _domino_scene(seed, 2)


def render_dominoes_r3(seed: int):
    """Domino scenes of look 3 (``synth_r3``, ``synth_r5``): look 2, and photos from low down
    (foreshortened tables, thick near sides) and dark textured surfaces, which a detector
    trained on looks 1-2 misses."""
    return _domino_scene(seed, 3)


def render_dominoes_r4(seed: int):
    """Domino scenes of look 4 (``synth_r6``, ``synth_r7``): look 3, and busy coverings (woven
    cloth, towels, grass, veined marble, planks), close-ups of dominoes side by side,
    shrink-wrap streaks and greyscale photos, where real photos' dominoes were missed or
    invented."""
    return _domino_scene(seed, 4)


def render_dominoes_r5(seed: int):
    """Domino scenes of look 5 (``finetune_d6_look5``): look 4, and half the double-nine and
    double-twelve printings with pips as large as a double-six's, nearly touching (a real
    colour-pip double-twelve's 9 was read as 8)."""
    return _domino_scene(seed, 5)


def render_dominoes_r6(seed: int):
    """Domino scenes of look 6 (``finetune_d7_look6``): look 5, and half the double-nine and
    double-twelve printings with graded pips, those of 0-9 larger than 10-12's (a real
    colour-pip double-twelve's 9 beside a 10 was read as 8)."""
    return _domino_scene(seed, 6)


def render_cards(seed: int):
    """A card scene as (BGR image, [(card label, corner-index box), ...])."""
    from datasets.cards_synth import render_scene

    scene = render_scene(seed)
    return scene.image, scene.corner_labels()


def render_cards_fonts(seed: int):
    """Card scenes printed in more index fonts with jittered lettering (``look=2``): for the
    reader, whose errors on real decks are ranks in unfamiliar lettering (a 3 read as 5)."""
    from datasets.cards_synth import render_scene

    scene = render_scene(seed, look=2)
    return scene.image, scene.corner_labels()


def render_cards_glyphs(seed: int):
    """Look 2 with half the decks printing a flat-topped 3 (``look=3``), as many European
    decks do: a reader that never saw one reads it as a 5."""
    from datasets.cards_synth import render_scene

    scene = render_scene(seed, look=3)
    return scene.image, scene.corner_labels()


def render_cards_real(seed: int):
    """Look 2 with pips near the indices, busy court art and finely patterned backs
    (``look=4``): the reader's hard negatives, since real decks' stacked pips beside an index,
    court art and card backs were read as cards."""
    from datasets.cards_synth import render_scene

    scene = render_scene(seed, look=4)
    return scene.image, scene.corner_labels()


def render_cards_backs(seed: int):
    """Look 4 with most decks' backs printed as real decks' are (coloured diamonds between
    white lines) and hands lying face down (``look=5``): the real back was read as a joker."""
    from datasets.cards_synth import render_scene

    scene = render_scene(seed, look=5)
    return scene.image, scene.corner_labels()


def render_cards_fans(seed: int):
    """Look 5 with one to three hands of 7-13 cards in tight fans (3.5-9 degrees a card), each
    index showing just its rank and suit: the indices the earlier looks left unlabelled."""
    from datasets.cards_synth import render_scene

    scene = render_scene(seed, look=5, tight_fans=True)
    return scene.image, scene.corner_labels()


def render_cards_crossed_q(seed: int):
    """Look 5 with half the decks printing the Q as most English-pattern decks do
    (``CROSSED_Q_LOOK``): the real decks' Q was read unsurely, or as an 8."""
    from datasets.cards_synth import CROSSED_Q_LOOK, render_scene

    scene = render_scene(seed, **CROSSED_Q_LOOK)
    return scene.image, scene.corner_labels()


def render_cards_decoys(seed: int):
    """``render_cards_crossed_q``'s scenes with every visible pair of stacked pips, and every
    lone pip by another card's edge, boxed as "not a card" (``CardScene.decoys``): the reader's
    hard negatives, since real decks' stacked pips, and a rendered fan's lone pip, were read as
    cards. For the reader only: a detector would learn the boxes as indices."""
    from datasets.cards_synth import CROSSED_Q_LOOK, render_scene
    from training.readers import NOT_A_PIECE

    scene = render_scene(seed, **CROSSED_Q_LOOK, pip_decoys=True)
    return scene.image, scene.corner_labels() + [(NOT_A_PIECE, list(b)) for b in scene.decoys]


def render_cards_felt(seed: int, decoys: str = ""):
    """``render_cards_crossed_q``'s scenes (the same cards) on a printed casino felt
    (``datasets.card_felts``); with ``decoys`` ("decoys", as a renderer's ``@ARG``) the felt's
    index-like glyphs, stacked pips and lone pips by an edge boxed as "not a card": the reader's
    hard negatives, since letters and card pictures printed on a blackjack felt were read as
    aces."""
    from datasets.cards_synth import CROSSED_Q_LOOK, render_scene
    from training.readers import NOT_A_PIECE

    scene = render_scene(seed, **CROSSED_Q_LOOK, pip_decoys=bool(decoys), printed_felt=True)
    none = [(NOT_A_PIECE, list(b)) for b in scene.decoys] if decoys else []
    return scene.image, scene.corner_labels() + none


def render_cards_bare_felt(seed: int):
    """A printed casino felt with no card on it: a photo that must read as nothing."""
    from datasets.cards_synth import render_bare_felt

    return render_bare_felt(seed), []


def render_cards_inverted(seed: int, felt: str = ""):
    """Look 6's decks printing English, Polish or German letters (French left out, as for the
    letters reader), every one dark, and the photo's lightness inverted as the recogniser
    inverts a dark deck's photo (``DarkFaces``); stacked pips and lone pips boxed as no card.
    With ``felt`` ("felt", as a renderer's ``@ARG``) on a printed casino felt, its index-like
    glyphs boxed as no card too: a dark felt printed in light ink is read inverted as a dark
    deck is, and its printing must read as no card (the dark-faces reader's scenes, "c14")."""
    from datasets.cards_synth import render_scene
    from training.readers import NOT_A_PIECE
    from vision.pipeline import invert_lightness

    scene = render_scene(
        seed,
        look=6,
        letter_sets=("en", "pl", "de"),
        dark_faces=True,
        pip_decoys=True,
        printed_felt=bool(felt),
    )
    none = [(NOT_A_PIECE, list(b)) for b in scene.decoys]
    return invert_lightness(scene.image), scene.corner_labels() + none


def render_cards_letters(seed: int, letter_sets: str = "", dark_faces: bool = False):
    """Look 5 with decks in other languages' index letters and dark faces (``look=6``);
    ``letter_sets`` ("pl,de", as a renderer's ``@ARG``) limits the languages drawn, for a
    leave-one-letter-set-out measurement (default: every set of ``INDEX_LETTERS``). Not yet in
    the shipped recipe: its reader was trained without it."""
    from datasets.cards_synth import render_scene
    from meldcam.vocabulary import INDEX_LETTERS

    sets = tuple(letter_sets.split(",")) if letter_sets else tuple(INDEX_LETTERS)
    unknown = set(sets) - set(INDEX_LETTERS)
    if unknown:
        raise ValueError(f"unknown index letter sets: {', '.join(sorted(unknown))}")
    scene = render_scene(seed, look=6, letter_sets=sets, dark_faces=dark_faces)
    return scene.image, scene.corner_labels()


def render_cards_dark(seed: int, letter_sets: str = ""):
    """``render_cards_letters`` with every deck's face dark (light inks): a deck style no
    training set is made of, measured apart (``benchmarks.cards_letters --dark``)."""
    return render_cards_letters(seed, letter_sets, dark_faces=True)


@dataclass(frozen=True)
class ReaderFinetune:
    """One fine-tune of the kind's reader in --out (``finetune_reader``): that reader rebuilt
    from its ONNX file, batch norms frozen, trained with ``spec`` (``readers.FINETUNE_SPECS``)
    on the crops of the recipe's scene sets ``sets``, hard negatives mined by the detector in
    --out."""

    spec: str  # a ``readers.FINETUNE_SPECS`` key
    sets: tuple[str, ...]
    # The file written in --out (None: over the reader).
    onnx: str | None = None
    # The file in --out it starts from (None: the reader).
    start_onnx: str | None = None
    # An index letter set left out unless ``--leave-letters`` says otherwise.
    leave: str = ""
    # Whether a shipped model is this fine-tune (part of "all"; otherwise run only when asked).
    shipped: bool = True
    # Also mined as hard negatives: boxes straddling two labelled pieces (``reader_items``'
    # ``straddle_cover``), which the pieces' own hard negatives leave out.
    straddle_cover: float | None = None


@dataclass(frozen=True)
class KindRecipe:
    """One kind's models (names, sizes, the reader's hard negatives) and what trains them."""

    kind: str
    class_name: str
    detector_onnx: str
    reader_onnx: str
    det_imgsz: int
    det_export_imgsz: int
    stages: Stages
    # The reader's hard negatives: mined with the recogniser's own detector passes (whole
    # photo, tiles at the photo's pixels up to ``negative_tile_side``, zoomed out
    # ``negative_zoom_out``; None: the whole photo only), up to this many a scene.
    negative_tile_side: int | None = None
    negative_zoom_out: float | None = None
    negatives_per_scene: int = 6
    # ``--stage reader-finetune``: the fine-tunes of the reader in --out, in order (shipped
    # ones are also part of "all").
    reader_finetunes: tuple[ReaderFinetune, ...] = ()

    @property
    def renderer(self) -> str:
        """The first scenes' renderer (also that of the held-back ``test`` set)."""
        return self.stages.scene_set("synth").renderer

    def reader_looks(self) -> tuple[SceneSet, ...]:
        """The scene sets rendered for the reader only, in order (``reader_folder(i)``)."""
        return tuple(s for s in self.stages.scene_sets if s.folder.startswith(READER_SYNTH))


def _with_test(folder: str, renderer: str, scenes: int, seed_offset: int, test: str, **round_):
    """A set of ``scenes`` (40 validation) and its held-back test of 60 (seed offset + 2)."""
    return (
        SceneSet(folder, renderer, scenes, 40, seed_offset, **round_),
        SceneSet(test, renderer, 0, 60, seed_offset + 2, **round_),
    )


DOMINO_RENDERERS = {
    look: f"training.train_pieces:render_dominoes{suffix}"
    for look, suffix in ((1, ""), (2, "_r2"), (3, "_r3"), (4, "_r4"), (5, "_r5"), (6, "_r6"))
}
CARD_RENDERERS = {
    name: f"training.train_pieces:render_cards{suffix}"
    for name, suffix in (
        ("base", ""),
        ("fonts", "_fonts"),
        ("glyphs", "_glyphs"),
        ("real", "_real"),
        ("backs", "_backs"),
    )
}
LETTERS_RENDERER = "training.train_pieces:render_cards_letters"
FANS_RENDERER = "training.train_pieces:render_cards_fans"
# The card reader's fine-tune (``--stage reader-finetune``, recipe "c7"): look 6 (index letters
# of four languages, dark faces) and fresh scenes of looks 1-5, so that nothing is forgotten.
# Generated only by that stage; the French letters are a set of their own, so that a reader
# fine-tuned without them (``--leave-letters fr``) measures a letter set never seen.
FINETUNE_LETTERS = "finetune_letters"
FINETUNE = "reader_finetune"  # the sets' "round": made by that stage only
CARD_LOOK_FINETUNE_SETS = tuple(
    SceneSet(f"finetune_look{look}", CARD_RENDERERS[name], 120, 0, 39 + 2 * look, FINETUNE)
    for look, name in enumerate(("base", "fonts", "glyphs", "real", "backs"), start=1)
)
CARD_LOOK_FINETUNE_FOLDERS = tuple(s.folder for s in CARD_LOOK_FINETUNE_SETS)
CARD_FINETUNE_SETS = (
    SceneSet(FINETUNE_LETTERS, f"{LETTERS_RENDERER}@en,pl,de", 700, 0, 35, FINETUNE),
    SceneSet(f"{FINETUNE_LETTERS}_fr", f"{LETTERS_RENDERER}@fr", 250, 0, 37, FINETUNE),
    *CARD_LOOK_FINETUNE_SETS,
)
# The English reader's fine-tune ("c8"): half the decks print the crossed Q.
CROSSED_Q_RENDERER = "training.train_pieces:render_cards_crossed_q"
DECOYS_RENDERER = "training.train_pieces:render_cards_decoys"
CROSSED_Q_SYNTH = "synth_crossed_q"
# Then "c9": the same scenes' kind with stacked pips and lone pips by an edge boxed as no card
# (reader only).
DECOYS_SYNTH = "synth_decoys"
# "c13": printed casino felts, their index-like glyphs boxed as no card (reader only).
FELT_RENDERER = "training.train_pieces:render_cards_felt"
FELT_SYNTH = "synth_felt"
# ... and the detector's (``detector_all_looks_r2``): felts whose printing is background, and
# felts with no card at all.
FELT_DETECTOR_SYNTH = "synth_felt_det"
BARE_FELT_RENDERER = "training.train_pieces:render_cards_bare_felt"
BARE_FELT_SYNTH = "synth_bare_felt"
# "c14", the reader of photos read inverted: dark decks inverted, on plain tables and on printed
# felts (reader only).
INVERTED_RENDERER = "training.train_pieces:render_cards_inverted"
INVERTED_SYNTH = "synth_inverted"
INVERTED_FELT_SYNTH = "synth_inverted_felt"

# The domino reader's fine-tune "d5": fresh scenes of each look, never seen by the detector
# that mines their hard negatives (made by that stage only).
D5_SETS = tuple(
    SceneSet(f"finetune_d5_look{look}", DOMINO_RENDERERS[look], 300, 20, 49 + 2 * look, FINETUNE)
    for look in (1, 2, 3, 4)
)
D5_FOLDERS = tuple(s.folder for s in D5_SETS)
# The domino reader's fine-tune "d6": "d5"'s scenes and look 5's (large pips; made by that
# stage only, look 5's held-back test "test_r5" by "generate").
D6_LOOK5 = SceneSet("finetune_d6_look5", DOMINO_RENDERERS[5], 1200, 20, 61, FINETUNE)
D6_FOLDERS = (*D5_FOLDERS, D6_LOOK5.folder)
# The domino reader's fine-tune "d7": "d6"'s scenes and look 6's (graded pips; made by that
# stage only, look 6's held-back test "test_r6" by "generate").
D7_LOOK6 = SceneSet("finetune_d7_look6", DOMINO_RENDERERS[6], 1200, 20, 65, FINETUNE)
D7_FOLDERS = (*D6_FOLDERS, D7_LOOK6.folder)
# A mined box is a straddle when two labelled dominoes each cover at least this share of it
# (and it takes none: IoU < 0.5, calibration's match): the sure flag's most confident errors.
STRADDLE_COVER = 0.2

RECIPES = {
    "dominoes": KindRecipe(
        "dominoes",
        "domino",
        "domino_detector.onnx",
        "domino_reader.onnx",
        det_imgsz=384,
        det_export_imgsz=512,
        # "d4": the scenes of the last two rotated-box rounds (looks 3 and 4), over the reader
        reader_finetunes=(
            ReaderFinetune("d4", (R5_SYNTH, R6_SYNTH)),
            # "d5": "d4" on fresh scenes of looks 1-4, boxes straddling two touching dominoes
            # mined as no domino too (models/dominoes.md, "The sure flag"); measured.
            ReaderFinetune("d5", D5_FOLDERS, shipped=False, straddle_cover=STRADDLE_COVER),
            # "d6": "d4" on those scenes and look 5's, large pips (models/dominoes.md)
            ReaderFinetune("d6", D6_FOLDERS, shipped=False),
            # "d7": "d4" on those scenes and look 6's, graded pips (models/dominoes.md)
            ReaderFinetune("d7", D7_FOLDERS, shipped=False),
            # "d8": "d7" with rare dominoes sampled more, over "d4": the shipped reader
            # (docs/experiments/dominoes.md, "Large pips")
            ReaderFinetune("d8", D7_FOLDERS),
        ),
        stages=Stages(
            scene_sets=(
                SceneSet("synth", DOMINO_RENDERERS[1], 400, 40, 0),
                SceneSet("test", DOMINO_RENDERERS[1], 0, 60, 7),
                SceneSet(R2_SYNTH, DOMINO_RENDERERS[2], 400, 40, 2, for_round="detector_r2"),
                SceneSet("test_r2", DOMINO_RENDERERS[2], 0, 60, 9, for_round="detector_r2"),
                # from low down and on dark surfaces
                SceneSet(R3_SYNTH, DOMINO_RENDERERS[3], 600, 40, 4, for_round="detector_r3"),
                SceneSet("test_r3", DOMINO_RENDERERS[3], 0, 60, 15, for_round="detector_r3"),
                SceneSet(R5_SYNTH, DOMINO_RENDERERS[3], 800, 40, 21, for_round="detector_obb_r5"),
                # look 4: busy coverings, side-by-side close-ups, shrink-wrap, greyscale (the
                # reader's fine-tune "d4" learns them; made by the round or by that stage)
                SceneSet(R6_SYNTH, DOMINO_RENDERERS[4], 800, 40, 23, for_round=R6_ROUND),
                SceneSet("test_r4", DOMINO_RENDERERS[4], 0, 60, 25),
                # more of look 4 for the GPU round (side-by-side rows the detector missed)
                SceneSet(R7_SYNTH, DOMINO_RENDERERS[4], 1200, 40, 27, for_round=R7_ROUND),
                *D5_SETS,
                D6_LOOK5,
                SceneSet("test_r5", DOMINO_RENDERERS[5], 0, 60, 63),
                D7_LOOK6,
                SceneSet("test_r6", DOMINO_RENDERERS[6], 0, 60, 67),
            ),
            rounds=(
                DetectorRound("detector", 24),
                DetectorRound("detector_r2", 8),
                DetectorRound("detector_r3", 6),
                DetectorRound("detector_obb", 8),  # rotated boxes on the scenes above
                DetectorRound("detector_obb_r5", 5),
                DetectorRound(R6_ROUND, 2),  # look 4, look 1 weighted up (models/dominoes.md)
                # every look at 512 px on a GPU (--device 0; models/dominoes.md)
                DetectorRound(R7_ROUND, 16),
            ),
        ),
    ),
    "cards": KindRecipe(
        "cards",
        "corner",
        "card_detector.onnx",
        "card_reader.onnx",
        det_imgsz=512,
        det_export_imgsz=640,
        reader_finetunes=(
            # The first letters reader: look 6's index letters and looks 1-5 again, French left
            # out, its letters never seen (docs/experiments/cards.md, "Index letters"); from
            # "c6", beside it; shipped until "c11".
            ReaderFinetune(
                "c7",
                tuple(s.folder for s in CARD_FINETUNE_SETS),
                cards.LETTERS_READER,
                leave="fr",
                shipped=False,
            ),
            # The English reader "c13" starts from (docs/experiments/cards.md, "Crossed Q", "Stacked
            # pips"): "c6" itself on decks printing the crossed Q, looks 1-5 again ("c8"), then
            # that on stacked pips and lone pips by an edge boxed as no card, looks 1-5 again
            # ("c9").
            ReaderFinetune("c8", (CROSSED_Q_SYNTH, *CARD_LOOK_FINETUNE_FOLDERS)),
            ReaderFinetune("c9", (DECOYS_SYNTH, *CARD_LOOK_FINETUNE_FOLDERS)),
            # Then "c10": "c9" on the same scenes, views grey and blurred too, written beside it
            # as the reader of photos without colour (docs/experiments/cards.md, "Grey photos").
            ReaderFinetune("c10", (DECOYS_SYNTH, *CARD_LOOK_FINETUNE_FOLDERS), cards.GREY_READER),
            # "c11", the letters reader (shipped for decks with other index letters than J Q K
            # A): as "c7" made it, from "c10" (grey views too; docs/experiments/cards.md, "Index
            # letters").
            ReaderFinetune(
                "c11",
                tuple(s.folder for s in CARD_FINETUNE_SETS),
                cards.LETTERS_READER,
                leave="fr",
                start_onnx=cards.GREY_READER,
            ),
            # Measured, not shipped: "c9" on the same scenes, a fifth of the views smeared as
            # by a hand that moved ("c12"; docs/experiments/cards.md, "Grey photos").
            ReaderFinetune("c12", (DECOYS_SYNTH, *CARD_LOOK_FINETUNE_FOLDERS), shipped=False),
            # The shipped English reader: "c9" on those scenes and printed casino felts, their
            # letters, seat numbers and card pictures boxed as no card ("c13";
            # docs/experiments/cards.md, "Printed felts").
            ReaderFinetune("c13", (FELT_SYNTH, DECOYS_SYNTH, *CARD_LOOK_FINETUNE_FOLDERS)),
            # The reader of photos read inverted (dark decks): the letters reader "c11" on dark
            # decks inverted, on plain tables and on printed felts, and on its own scenes
            # ("c14"; docs/experiments/cards.md, "Dark faces").
            ReaderFinetune(
                "c14",
                (
                    INVERTED_SYNTH,
                    INVERTED_FELT_SYNTH,
                    *(s.folder for s in CARD_FINETUNE_SETS),
                ),
                cards.DARK_READER,
                leave="fr",
                start_onnx=cards.LETTERS_READER,
            ),
        ),
        stages=Stages(
            scene_sets=(
                SceneSet("synth", CARD_RENDERERS["base"], 400, 40, 0),
                SceneSet("test", CARD_RENDERERS["base"], 0, 60, 7),
                # more scenes of the same look: 400 were too few (validation mAP50 stalled)
                SceneSet(R2_SYNTH, CARD_RENDERERS["base"], 1200, 40, 2, for_round="detector_r2"),
                # the reader's: decks in more fonts, flat-topped 3s, pips near the indices with
                # busy court art, real decks' backs and face-down hands
                *_with_test(READER_SYNTH, CARD_RENDERERS["fonts"], 1200, 11, "test_reader"),
                *_with_test(f"{READER_SYNTH}2", CARD_RENDERERS["glyphs"], 600, 17, "test_reader2"),
                *_with_test(f"{READER_SYNTH}3", CARD_RENDERERS["real"], 800, 23, "test_reader3"),
                *_with_test(f"{READER_SYNTH}4", CARD_RENDERERS["backs"], 800, 29, "test_reader4"),
                *CARD_FINETUNE_SETS,
                SceneSet(R4_SYNTH, f"{LETTERS_RENDERER}@en,pl,de", 0, 40, 51, for_round=R4_ROUND),
                # hands in tight fans, each index showing just its rank and suit
                SceneSet(FANS_SYNTH, FANS_RENDERER, 500, 40, 55, for_round=FANS_ROUND),
                SceneSet("test_fans", FANS_RENDERER, 0, 60, 57),
                SceneSet(CROSSED_Q_SYNTH, CROSSED_Q_RENDERER, 600, 40, 61, FINETUNE),
                SceneSet("test_crossed_q", CROSSED_Q_RENDERER, 0, 60, 63),
                SceneSet(DECOYS_SYNTH, DECOYS_RENDERER, 500, 40, 65, FINETUNE),
                SceneSet(FELT_SYNTH, f"{FELT_RENDERER}@decoys", 400, 0, 69, FINETUNE),
                # the detector's: the same felts, their printing unboxed, and bare felts
                SceneSet(FELT_DETECTOR_SYNTH, FELT_RENDERER, 700, 0, 85, ALL_LOOKS_R2_ROUND),
                SceneSet(BARE_FELT_SYNTH, BARE_FELT_RENDERER, 200, 0, 87, ALL_LOOKS_R2_ROUND),
                SceneSet(INVERTED_SYNTH, INVERTED_RENDERER, 300, 0, 97, FINETUNE),
                SceneSet(INVERTED_FELT_SYNTH, f"{INVERTED_RENDERER}@felt", 300, 0, 99, FINETUNE),
            ),
            rounds=(
                DetectorRound("detector", 12),
                DetectorRound("detector_r2", 8),
                # more epochs from round 2's best at half the learning rate, on its scenes
                DetectorRound("detector_r3", 8),
                # every look at 640 px from round 3, made for a GPU (--device 0 --batch 64
                # --workers 12 --procs 16); shipped from a run whose --deadline fitted 11 epochs
                # (docs/experiments/cards.md, "A detector round on a GPU")
                DetectorRound(ALL_LOOKS_ROUND, 11),
                # Measured, not shipped: no better on look 6, a little worse on the real photos
                # (models/cards.md); --stage finetune --round detector_r4 --epochs
                # detector_r4=6 runs it.
                DetectorRound(R4_ROUND, 0),
                # Measured, not shipped: tight fans with looks 1-5 again, from round 3
                # (docs/experiments/cards.md, "Tight fans"); --stage finetune --round detector_fans
                # --epochs detector_fans=3 runs it.
                DetectorRound(FANS_ROUND, 0),
                # detector_all_looks again on fresh scenes, for a GPU; --stage finetune --round
                # detector_all_looks_r2 --epochs detector_all_looks_r2=N runs it.
                DetectorRound(ALL_LOOKS_R2_ROUND, 0),
            ),
        ),
        negative_tile_side=CARDS.passes.tile_side,
        negative_zoom_out=CARDS.passes.zoom_out,
        negatives_per_scene=10,
    ),
}


def tile_detector_weights() -> Path | None:
    """The number-tile detector's best checkpoint, if ``train_tiles`` has run here: dominoes and
    card corners start from it (it already knows tables, light and small rectangles)."""
    for run in ("detector_r3", "detector"):
        path = GENERATED / "tiles" / "runs" / run / "weights" / "best.pt"
        if path.exists():
            return path
    return None


def train_detector(recipe: KindRecipe, work: Path, out: Path, epochs: int, seed: int, imgsz=None):
    data_yaml = build_detector_dataset(work, [], 0, class_name=recipe.class_name)
    start = tile_detector_weights()
    (work / "runs").mkdir(parents=True, exist_ok=True)
    (work / "runs" / "init.txt").write_text(f"{start or 'yolo26n.yaml'}\n")
    print(f"detector: starting from {start or 'yolo26n.yaml'}")
    extra: dict[str, Any] = {}  # train_and_export's own arguments
    if start is not None:  # fine-tune: a gentler start than from random weights
        extra = {"optimizer": "AdamW", "lr0": 0.002, "lrf": 0.1, "warmup_epochs": 0.5}
    _run_detector(
        recipe,
        "detector",
        work,
        str(start or "yolo26n.yaml"),
        data_yaml,
        out,
        epochs,
        seed,
        imgsz,
        **extra,
    )


def _run_detector(
    recipe: KindRecipe,
    run: str,
    work: Path,
    start_from: str,
    data_yaml: Path,
    out: Path,
    epochs: int,
    seed: int,
    imgsz: int | None,
    export_weights: str = "best",
    **extra: object,
) -> None:
    """One detector run of ``recipe`` (its sizes and ONNX name; ``imgsz`` overrides both, for
    the smoke run), resumed from and written to ``work/runs/<run>``, ``export_weights``
    ("best" or "last") exported."""
    train_and_export(
        run.replace("_", " "),
        work / "runs" / run,
        start_from,
        data_yaml,
        out,
        epochs,
        imgsz or recipe.det_imgsz,
        16,
        seed,
        recipe.det_export_imgsz if imgsz is None else imgsz,
        onnx_name=recipe.detector_onnx,
        export_weights=export_weights,
        **extra,
    )


def finetune_detector_r2(
    recipe: KindRecipe, work: Path, out: Path, epochs: int, seed: int, imgsz=None
) -> None:
    """``detector_r2``: ``detector``'s best fine-tuned on the ``synth_r2`` scenes and the first
    ones (both kept: the small pieces of the first scenes must not be forgotten), or, for a
    recipe without ``synth_r2``, on the first scenes again: a second, gentler schedule."""
    if recipe.stages.has_set(R2_SYNTH):
        data_yaml = build_detector_dataset(
            work, [], 0, synth=R2_SYNTH, name="det_r2", class_name=recipe.class_name
        )
        _add_round1_scenes(work, data_yaml.parent)
    else:
        data_yaml = work / "det" / "data.yaml"
    _finetune(recipe, work, "detector_r2", "detector", data_yaml, out, epochs, seed, imgsz, 0.001)


def finetune_detector_r3(
    recipe: KindRecipe, work: Path, out: Path, epochs: int, seed: int, imgsz=None
) -> None:
    """``detector_r3``: ``detector_r2``'s best at half its learning rate, on the ``synth_r3``
    scenes with those of the rounds before, or, for a recipe without ``synth_r3``, more epochs
    on ``detector_r2``'s data."""
    if recipe.stages.has_set(R3_SYNTH):
        data_yaml = build_detector_dataset(
            work, [], 0, synth=R3_SYNTH, name="det_r3", class_name=recipe.class_name
        )
        _add_round1_scenes(work, data_yaml.parent)
        _link_train_images(work / "det_r2", data_yaml.parent, "r2_", skip_prefix="r1_")
    else:
        data_yaml = work / ("det_r2" if recipe.stages.has_set(R2_SYNTH) else "det") / "data.yaml"
    _finetune(
        recipe, work, "detector_r3", "detector_r2", data_yaml, out, epochs, seed, imgsz, 0.0005
    )


def _finetune(
    recipe: KindRecipe,
    work: Path,
    run: str,
    start_run: str | Path,
    data_yaml: Path,
    out: Path,
    epochs: int,
    seed: int,
    imgsz: int | None,
    lr0: float,
    export_weights: str = "best",
) -> None:
    """Detector run ``run`` from ``start_run``'s best weights (or a checkpoint's path): AdamW
    at ``lr0``, decaying to a tenth, half an epoch of warm-up; ``export_weights`` exported."""
    if isinstance(start_run, str):
        start_run = work / "runs" / start_run / "weights" / "best.pt"
    _run_detector(
        recipe,
        run,
        work,
        str(start_run),
        data_yaml,
        out,
        epochs,
        seed,
        imgsz,
        export_weights,
        optimizer="AdamW",
        lr0=lr0,
        lrf=0.1,
        warmup_epochs=0.5,
    )


# Rotated-box rounds (dominoes): the scene sets each learns, with their looks (folder ->
# ``render_scene_detailed`` look): ``detector_obb`` rounds 1-3's, each round after it those of
# the round before and its own.
DOMINO_OBB_ROUNDS = (("synth", 1), (R2_SYNTH, 2), (R3_SYNTH, 3))
R5_OBB_ROUNDS = (*DOMINO_OBB_ROUNDS, (R5_SYNTH, 3))
R6_OBB_ROUNDS = (*R5_OBB_ROUNDS, (R6_SYNTH, 4))
R7_OBB_ROUNDS = (*R6_OBB_ROUNDS, (R7_SYNTH, 4))


def _domino_obb_labels(job: tuple[str, int, str]) -> int:
    """Write one scene's YOLO-OBB label file from the corners stored with it, or, for a scene
    stored without them, from the scene re-rendered from its seed (checked to show the stored
    dominoes)."""
    import json

    from datasets.dominoes_synth import render_scene_detailed
    from training.train_tiles import obb_line

    meta_path, look, label_path = job
    if Path(label_path).exists():
        return 0
    meta = json.loads(Path(meta_path).read_text())
    quads = meta.get("quads")
    if quads is None:
        scene = render_scene_detailed(meta["seed"], look=look)
        stored = [(label, [round(v, 3) for v in box]) for label, box in meta["pieces"]]
        rendered = [(label, [round(v, 3) for v in box]) for label, box in scene.labels()]
        if stored != rendered:
            seed = meta["seed"]
            raise RuntimeError(f"{meta_path}: re-rendering seed {seed} gives other dominoes")
        quads = domino_quads(scene)
    w, h = meta["size"]
    lines = [line for quad in quads if (line := obb_line(quad, w, h))]
    Path(label_path).write_text("".join(x + "\n" for x in lines))
    return len(lines)


def build_domino_obb_dataset(
    work: Path,
    procs: int | None = None,
    name: str = "det_obb",
    rounds=DOMINO_OBB_ROUNDS,
    copies: dict[str, int] | None = None,
) -> Path:
    """``rounds``' training scenes (and their validation scenes) with rotated-box labels.
    ``copies``: scene sets whose training scenes are linked that many times in all (a look
    weighted up), each copy as ``w<look><a, b, ...>_`` + the scene's name."""
    import multiprocessing

    copy_names = "abcdefgh"
    if max((copies or {}).values(), default=1) > len(copy_names) + 1:
        raise ValueError(f"at most {len(copy_names) + 1} copies of a scene set: {copies}")
    root = work / name
    jobs = []
    for folder, look in rounds:
        for split in ("train", "val"):
            (root / "images" / split).mkdir(parents=True, exist_ok=True)
            (root / "labels" / split).mkdir(parents=True, exist_ok=True)
            for meta_path in sorted((work / folder / split).glob("*.json")):
                stem = f"{folder}_{meta_path.stem}"
                link = root / "images" / split / f"{stem}.jpg"
                if not link.exists():
                    link.symlink_to(meta_path.with_suffix(".jpg").resolve())
                label = root / "labels" / split / f"{stem}.txt"
                jobs.append((str(meta_path), look, str(label)))
                weight = (copies or {}).get(folder, 1) if split == "train" else 1
                for copy in copy_names[: weight - 1]:
                    for linked in (link, label):  # the label is written below: linked ahead
                        extra = linked.with_name(f"w{look}{copy}_{linked.name}")
                        if not extra.is_symlink():
                            extra.symlink_to(linked.resolve())
    started = time.time()
    with multiprocessing.get_context("spawn").Pool(procs or current().procs) as pool:
        boxes = sum(pool.imap_unordered(_domino_obb_labels, jobs, chunksize=8))
    print(f"obb labels: {len(jobs)} scenes, {boxes} new boxes ({time.time() - started:.0f} s)")
    return write_data_yaml(root, "domino")


def train_detector_obb(
    recipe: KindRecipe, work: Path, out: Path, epochs: int, seed: int, imgsz=None
) -> None:
    """``detector_obb`` (dominoes): a rotated-box YOLO26-nano-OBB, its backbone and neck from
    ``detector_r3``'s best, on the scenes of the rounds before with rotated boxes. A turned
    domino's axis-aligned box is up to twice its area and covers its neighbours in a chain."""
    if recipe.kind != "dominoes":
        raise ValueError("rotated-box labels are made for dominoes only")
    data_yaml = build_domino_obb_dataset(work)
    _run_detector(
        recipe,
        "detector_obb",
        work,
        "yolo26n-obb.yaml",
        data_yaml,
        out,
        epochs,
        seed,
        imgsz,
        **rotated_round(work),
    )


def _best_or_shipped(
    recipe: KindRecipe,
    work: Path,
    run: str,
    out: Path,
    data_yaml: Path,
    imgsz: int | None,
    weights: str = "best",
) -> Path:
    """``run``'s ``weights`` checkpoint (best or last), or where this checkout has none
    (checkpoints are not kept between machines) one rebuilt from the shipped detector
    ``out / recipe.detector_onnx``, its batch norms fitted to 32 of ``data_yaml``'s training
    photos (``recover.fit_norms``)."""
    best = work / "runs" / run / "weights" / f"{weights}.pt"
    if best.exists():
        return best
    import random

    from training.recover import fit_norms, rebuild, save_checkpoint

    rebuilt = work / "runs" / f"{run}_rebuilt" / "best.pt"
    if not rebuilt.exists():
        source = out / recipe.detector_onnx
        print(f"{run}: no best.pt here, rebuilding it from {source}")
        model = rebuild(source)
        photos = sorted((data_yaml.parent / "images" / "train").glob("*.jpg"))
        sample = random.Random(0).sample(photos, min(32, len(photos)))
        fit_norms(model, sample, imgsz or recipe.det_imgsz)
        save_checkpoint(model, rebuilt, source)
    return rebuilt


def finetune_detector_r4(
    recipe: KindRecipe, work: Path, out: Path, epochs: int, seed: int, imgsz=None
) -> None:
    """``detector_r4`` (cards): ``detector_r3``'s best (or the shipped detector rebuilt) at a
    quarter of round 2's rate on the scenes of the letters reader's fine-tune (look 6: other
    languages' letters, dark faces; looks 1-5 again), validated on ``synth_r4`` (look 6).
    Rounds 1-3 saw look 1 only, and boxed few indices of dark-faced decks. The French letters
    stay out, as they do for the letters reader."""
    sets = [s for s in CARD_FINETUNE_SETS if not s.renderer.endswith("@fr")]
    data_yaml = _card_round_dataset(recipe, work, seed, "det_r4", sets, R4_SYNTH)
    start = _best_or_shipped(recipe, work, "detector_r3", out, data_yaml, imgsz)
    _finetune(recipe, work, R4_ROUND, start, data_yaml, out, epochs, seed, imgsz, 0.00025)


def finetune_detector_fans(
    recipe: KindRecipe, work: Path, out: Path, epochs: int, seed: int, imgsz=None
) -> None:
    """``detector_fans`` (cards, measured, not shipped): ``detector_r3``'s best (or the
    shipped detector rebuilt) on hands in tight fans (``synth_fans``) and fresh scenes of looks
    1-5, every index labelled by the readable-index rule (``datasets.cards_synth``), validated
    on ``synth_fans``; its last epoch exported. Rounds 1-3 learned that an index covered from the
    side is no index: a tight fan's cards went missing."""
    looks = [s for s in CARD_FINETUNE_SETS if s.folder.startswith("finetune_look")]
    fans = recipe.stages.scene_set(FANS_SYNTH)
    data_yaml = _card_round_dataset(recipe, work, seed, "det_fans", [fans, *looks], FANS_SYNTH)
    start = _best_or_shipped(recipe, work, "detector_r3", out, data_yaml, imgsz)
    _finetune(recipe, work, FANS_ROUND, start, data_yaml, out, epochs, seed, imgsz, 0.0005, "last")


# detector_all_looks' training scenes: every look the readers learned (its docstring)
ALL_LOOKS_FOLDERS = (
    "synth",
    R2_SYNTH,
    *(reader_folder(index) for index in range(4)),
    FANS_SYNTH,
    CROSSED_Q_SYNTH,
    DECOYS_SYNTH,
    FINETUNE_LETTERS,
)
FRESH_SEED_SHIFT = 500  # detector_all_looks_r2's scenes: the same renderers, other seeds


def finetune_detector_all_looks(
    recipe: KindRecipe, work: Path, out: Path, epochs: int, seed: int, imgsz=None
) -> None:
    """``detector_all_looks`` (cards, made for a GPU): ``detector_r3``'s best (or the shipped
    detector rebuilt) on the scenes of every look the readers learned and rounds 1-3 never saw:
    look 1 (``synth``, ``synth_r2``), the reader looks 2-5 (fonts, glyphs, real decks' faces,
    backs), tight fans, the crossed Q, stacked and lone pips left unboxed (``synth_decoys``),
    and look 6's English, Polish and German letters (dark faces in a fifth of its decks; the
    French letters left out, as for the letters reader), at the 640 px it reads at, validated on
    ``synth_r4`` (look 6), its last epoch exported. Rounds 1-3 learned look 1 at 512 px only."""
    sets = [recipe.stages.scene_set(folder) for folder in ALL_LOOKS_FOLDERS]
    data_yaml = _card_round_dataset(recipe, work, seed, "det_all_looks", sets, R4_SYNTH)
    size = imgsz or ALL_LOOKS_IMGSZ
    start = _best_or_shipped(recipe, work, "detector_r3", out, data_yaml, size)
    _finetune(
        recipe, work, ALL_LOOKS_ROUND, start, data_yaml, out, epochs, seed, size, 0.0005, "last"
    )


def finetune_detector_all_looks_r2(
    recipe: KindRecipe, work: Path, out: Path, epochs: int, seed: int, imgsz=None
) -> None:
    """``detector_all_looks_r2`` (cards, made for a GPU): ``detector_all_looks``' last epoch (or
    the shipped detector rebuilt) at half its rate on fresh scenes of the same looks, seven
    tenths as many (``*_fresh`` folders, seeds of their own), and on printed casino felts, their
    printing unboxed (``synth_felt_det``) and with no card at all (``synth_bare_felt``), and on
    the dark-faces reader's inverted photos, on plain tables and on felts (``synth_inverted``,
    ``synth_inverted_felt``: a dark felt printed in light ink is detected inverted), validated
    on ``synth_r4``; its last epoch exported. Round 4 was cut by its deadline while its
    validation mAP still rose, and boxes the letters and card pictures printed on felts, either
    way up."""
    sets = [
        replace(
            s,
            folder=f"{s.folder}_fresh",
            scenes=round(s.scenes * 0.7),
            val=0,
            seed_offset=s.seed_offset + FRESH_SEED_SHIFT,
        )
        for s in (recipe.stages.scene_set(folder) for folder in ALL_LOOKS_FOLDERS)
    ]
    felts = (FELT_DETECTOR_SYNTH, BARE_FELT_SYNTH, INVERTED_SYNTH, INVERTED_FELT_SYNTH)
    sets += [recipe.stages.scene_set(folder) for folder in felts]
    data_yaml = _card_round_dataset(recipe, work, seed, "det_all_looks_r2", sets, R4_SYNTH)
    size = imgsz or ALL_LOOKS_IMGSZ
    start = _best_or_shipped(recipe, work, ALL_LOOKS_ROUND, out, data_yaml, size, "last")
    _finetune(
        recipe, work, ALL_LOOKS_R2_ROUND, start, data_yaml, out, epochs, seed, size, 0.00025, "last"
    )


def _card_round_dataset(
    recipe: KindRecipe, work: Path, seed: int, name: str, sets: list[SceneSet], val: str
) -> Path:
    """A card detector round's YOLO set ``work / name``: the training scenes of ``sets`` and the
    validation scenes of ``val``, each made here unless made already."""
    for s in (*sets, recipe.stages.scene_set(val)):
        generate(work, s.scenes, s.val, seed + s.seed_offset, name=s.folder, renderer=s.renderer)
    root = work / name
    for split in ("train", "val"):
        for sub in ("images", "labels"):
            (root / sub / split).mkdir(parents=True, exist_ok=True)
    for index, s in enumerate(sets):
        for image, pieces in synth_items(work, "train", s.folder):
            stem = f"f{index}_{image.stem}"
            _write_yolo(root / "images" / "train", root / "labels" / "train", stem, image, pieces)
    for image, pieces in synth_items(work, "val", val):
        _write_yolo(root / "images" / "val", root / "labels" / "val", image.stem, image, pieces)
    return write_data_yaml(root, recipe.class_name)


def finetune_detector_obb_r5(
    recipe: KindRecipe, work: Path, out: Path, epochs: int, seed: int, imgsz=None
) -> None:
    """``detector_obb_r5`` (dominoes): ``detector_obb``'s best at half its learning rate on the
    ``synth_r5`` scenes (look 3) with those of the rounds before. ``detector_obb``'s ``best.pt``
    is rebuilt from the shipped ONNX file when this checkout has none (``recover``)."""
    _finetune_obb(recipe, work, out, epochs, seed, imgsz, "detector_obb", R5_OBB_ROUNDS)


def finetune_detector_obb_r6(
    recipe: KindRecipe, work: Path, out: Path, epochs: int, seed: int, imgsz=None
) -> None:
    """``detector_obb_r6`` (dominoes): ``detector_obb_r5``'s best (or the shipped
    detector rebuilt) at the same rate on the ``synth_r6`` scenes (look 4: busy coverings,
    side-by-side close-ups) with those of every round before, look 1's three times (with
    look 1 once it lost look 1's small dominoes; models/dominoes.md), its last epoch exported
    (the best on the validation scenes of every look; ultralytics' best by mAP was the first)."""
    _finetune_obb(
        recipe,
        work,
        out,
        epochs,
        seed,
        imgsz,
        "detector_obb_r5",
        R6_OBB_ROUNDS,
        copies={"synth": 3},
        export_weights="last",
    )


def _finetune_obb(
    recipe: KindRecipe,
    work: Path,
    out: Path,
    epochs: int,
    seed: int,
    imgsz: int | None,
    start_run: str,
    rounds: tuple[tuple[str, int], ...],
    copies: dict[str, int] | None = None,
    export_weights: str = "best",
    lr0: float = 0.0005,
) -> None:
    """The rotated-box round that follows ``start_run`` (``OBB_FINETUNES``), from its best
    checkpoint (or the shipped detector rebuilt), on ``rounds`` ((folder, look), ...), some
    sets weighted up (``copies``, ``build_domino_obb_dataset``)."""
    run = OBB_FINETUNES[start_run]
    for folder, _look in rounds:  # made here when ``--stage finetune`` runs on a fresh checkout
        s = recipe.stages.scene_set(folder)
        generate(work, s.scenes, s.val, seed + s.seed_offset, name=s.folder, renderer=s.renderer)
    name = run.replace("detector_", "det_")  # det_obb_r5, det_obb_r6, det_obb_r7
    data_yaml = build_domino_obb_dataset(work, name=name, rounds=rounds, copies=copies)
    start = _best_or_shipped(recipe, work, start_run, out, data_yaml, imgsz)
    _run_detector(
        recipe,
        run,
        work,
        str(start),
        data_yaml,
        out,
        epochs,
        seed,
        imgsz,
        export_weights,
        **{**rotated_round(work), "pretrained": True, "lr0": lr0, "warmup_epochs": 0.5},
    )


def finetune_detector_obb_r7(
    recipe: KindRecipe, work: Path, out: Path, epochs: int, seed: int, imgsz=None
) -> None:
    """``detector_obb_r7`` (dominoes, shipped): ``detector_obb_r6``'s best (or the shipped detector
    rebuilt) on the scenes of every round before and ``synth_r7`` (more of look 4), look 1's
    twice, at 512 px (the size it reads at) and the rotated rounds' first rate, for the epochs a
    GPU affords; its last epoch exported."""
    _finetune_obb(
        recipe,
        work,
        out,
        epochs,
        seed,
        imgsz or R7_IMGSZ,
        R6_ROUND,
        R7_OBB_ROUNDS,
        copies={"synth": 2},
        export_weights="last",
        lr0=0.001,
    )


# The rotated-box fine-tunes, each named by the round it starts from.
OBB_FINETUNES = {
    "detector_obb": "detector_obb_r5",
    "detector_obb_r5": R6_ROUND,
    R6_ROUND: R7_ROUND,
}
# The rounds ``--stage finetune`` runs alone.
FINETUNE_ROUNDS = (
    *OBB_FINETUNES.values(),
    R4_ROUND,
    FANS_ROUND,
    ALL_LOOKS_ROUND,
    ALL_LOOKS_R2_ROUND,
)


def _add_round1_scenes(work: Path, root: Path) -> None:
    """Link the first scenes' (``det``) training images and labels into a later round's set."""
    _link_train_images(work / "det", root, "r1_")


def _link_train_images(source: Path, root: Path, prefix: str, skip_prefix: str = "") -> None:
    """Link ``source``'s training images and labels into ``root`` as ``prefix`` + name, leaving
    out names starting with ``skip_prefix`` (links an earlier round already made)."""
    for sub in ("images", "labels"):
        for src in sorted((source / sub / "train").glob("*")):
            if skip_prefix and src.name.startswith(skip_prefix):
                continue
            dst = root / sub / "train" / f"{prefix}{src.name}"
            if not dst.exists():
                dst.symlink_to(src.resolve())


HARD_NEGATIVE_CONF = 0.1
HARD_NEGATIVE_IOU = 0.3


def reader_items(
    work: Path,
    split: str,
    detector: Path,
    tile_side: int | None = None,
    zoom_out: float | None = None,
    per_scene: int = 6,
    looks: range | None = None,
    rounds: bool = True,
    folders: list[str] | None = None,
    straddle_cover: float | None = None,
) -> list:
    """The reader's training scenes (round 1 and, where made, rounds 2 and 3 and the reader's own),
    each with its labelled pieces plus up to ``per_scene`` hard negatives ("none"): boxes
    ``detector`` finds at a low threshold that overlap no labelled piece (IoU < 0.3), most
    confident first; in the whole photo, and with ``tile_side`` / ``zoom_out`` also in the
    recogniser's other passes (``DetectorPasses``). ``looks``: only these reader looks' scenes
    (``reader_folder``; None: all made); ``rounds=False``: without the detector's rounds;
    ``folders``: these scene sets instead of the reader looks; ``straddle_cover``: a box that
    takes no labelled piece (IoU < 0.5) while two each cover this share of it is a hard
    negative too (half of each of two touching pieces)."""
    if folders is None:
        if looks is None:
            folders = [p.name for p in sorted(work.glob(READER_SYNTH + "*"))]
        else:
            folders = [reader_folder(index) for index in looks]
    items = synth_items(work, split) if rounds else []
    for extra in ((R2_SYNTH, R3_SYNTH) if rounds else ()) + tuple(folders):
        if (work / extra / split).is_dir():
            items += synth_items(work, split, extra)
    if not detector.is_file():
        print(f"reader: no detector at {detector}: no hard negatives")
        return items
    import cv2
    import numpy as np

    from training.readers import NOT_A_PIECE
    from vision.detector import OnnxDetector
    from vision.twostage import DetectorPasses, Passes

    finder = DetectorPasses(OnnxDetector(detector))
    passes = Passes(HARD_NEGATIVE_CONF, zoom_out=zoom_out, tile_side=tile_side)
    started, added = time.time(), 0
    with_negatives = []
    for image, pieces in items:
        boxes = np.array([box for _label, box in pieces], np.float32).reshape(-1, 4)
        negatives = []
        bgr = cv2.imread(str(image))
        if bgr is None:
            raise ValueError(f"{image}: not an image")
        found = finder.detect(bgr, passes)
        for det in sorted(found, key=lambda d: -d.score):
            overlap = _max_iou(det.box, boxes)
            if overlap < HARD_NEGATIVE_IOU or (
                straddle_cover is not None
                and overlap < STRADDLE_IOU
                and _straddles(det.box, boxes, straddle_cover)
            ):
                negatives.append((NOT_A_PIECE, list(det.box)))
        negatives = negatives[:per_scene]
        added += len(negatives)
        with_negatives.append((image, list(pieces) + negatives))
    print(
        f"reader: {added} hard negatives from {len(items)} scenes ({time.time() - started:.0f} s)"
    )
    return with_negatives


STRADDLE_IOU = 0.5


def _straddles(box, boxes, cover: float) -> bool:
    """Whether at least two of ``boxes`` each cover at least ``cover`` of ``box``."""
    import numpy as np

    if len(boxes) < 2:
        return False
    ix = np.clip(np.minimum(boxes[:, 2], box[2]) - np.maximum(boxes[:, 0], box[0]), 0, None)
    iy = np.clip(np.minimum(boxes[:, 3], box[3]) - np.maximum(boxes[:, 1], box[1]), 0, None)
    area = max((box[2] - box[0]) * (box[3] - box[1]), 1e-6)
    return int((ix * iy / area >= cover).sum()) >= 2


def _max_iou(box, boxes) -> float:
    import numpy as np

    if not len(boxes):
        return 0.0
    ix = np.clip(np.minimum(boxes[:, 2], box[2]) - np.maximum(boxes[:, 0], box[0]), 0, None)
    iy = np.clip(np.minimum(boxes[:, 3], box[3]) - np.maximum(boxes[:, 1], box[1]), 0, None)
    inter = ix * iy
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    union = areas + (box[2] - box[0]) * (box[3] - box[1]) - inter
    return float((inter / np.maximum(union, 1e-6)).max())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=sorted(RECIPES), required=True)
    parser.add_argument("--out", type=Path, default=Path("models"))
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument(
        "--stage",
        choices=("all", "generate", "detector", "finetune", "reader", "reader-finetune"),
        default="all",
        help="finetune: only the last detector round (dominoes: detector_obb_r7; cards: "
        "detector_all_looks) or --round's, from the round before's "
        "best.pt or the shipped detector; reader-finetune: the reader in --out "
        "fine-tuned (cards: c7 on index letters, the letters reader; dominoes: d4 on looks "
        "3 and 4, then d8 on looks 1-6)",
    )
    parser.add_argument(
        "--leave-letters",
        default=None,
        help="reader-finetune: an index letter set left out, for the leave-one-out table "
        "(default: the recipe's, cards fr; 'none': none)",
    )
    parser.add_argument(
        "--round",
        default=None,
        help="finetune: the fine-tune round to run, with its --epochs (default: the last round "
        f"that runs); one of {', '.join(FINETUNE_ROUNDS)}; reader-finetune: the reader "
        "fine-tune to run alone (default: the shipped ones), e.g. c8 or c9",
    )
    parser.add_argument("--seed", type=int, default=SEED)
    add_recipe_arguments(parser, [recipe.stages for recipe in RECIPES.values()])
    parser.add_argument("--reader-epochs", type=int, default=30)
    parser.add_argument("--reader-members", type=int, default=1)
    parser.add_argument("--smoke", action="store_true", help="tiny run for tests")
    add_machine_arguments(parser)
    args = parser.parse_args(argv)
    apply_machine(args)
    recipe = RECIPES[args.kind]
    stages = apply_recipe_arguments(parser, args, recipe.stages)
    work = args.work or GENERATED / args.kind
    imgsz = None
    if args.smoke:
        readers = {s.folder: 3 for s in recipe.reader_looks()}
        stages = stages.smoke(scenes=4, val=2).with_changes(scenes={"synth": 6, **readers})
        args.reader_epochs, args.reader_members = 1, 1
        imgsz = 160
    recipe = replace(recipe, stages=stages)
    started = time.time()
    if args.stage in ("all", "generate"):
        generate_scenes(stages, work, args.seed, generate)
    trainers = {
        "detector": train_detector,
        "detector_r2": finetune_detector_r2,
        "detector_r3": finetune_detector_r3,
        "detector_obb": train_detector_obb,
        "detector_obb_r5": finetune_detector_obb_r5,
        R6_ROUND: finetune_detector_obb_r6,
        R7_ROUND: finetune_detector_obb_r7,
        R4_ROUND: finetune_detector_r4,
        FANS_ROUND: finetune_detector_fans,
        ALL_LOOKS_ROUND: finetune_detector_all_looks,
        ALL_LOOKS_R2_ROUND: finetune_detector_all_looks_r2,
    }

    def trainer(name: str):
        return lambda out, epochs: trainers[name](recipe, work, out, epochs, args.seed, imgsz)

    if args.stage in ("all", "detector"):
        train_rounds(stages, work, args.out, {name: trainer(name) for name in trainers})
    if args.stage == "finetune":
        if args.round is None:
            chosen = stages.rounds_run()[-1:]
        else:
            chosen = tuple(r for r in stages.rounds if r.name == args.round)
        if not chosen or chosen[0].name not in FINETUNE_ROUNDS:
            parser.error(f"--stage finetune: {args.kind} has no fine-tune round {args.round or ''}")
        if chosen[0].epochs <= 0:
            parser.error(f"--stage finetune: give {chosen[0].name} epochs (--epochs NAME=N)")
        trainer(chosen[0].name)(args.out, chosen[0].epochs)
    if args.stage in ("all", "reader"):
        from training.classifier import export_classifier, train_classifier
        from training.readers import READER_SPECS

        spec = READER_SPECS[args.kind]

        def items(looks: range | None, rounds: bool = True):
            return lambda work, split: reader_items(
                work,
                split,
                args.out / recipe.detector_onnx,
                recipe.negative_tile_side,
                recipe.negative_zoom_out,
                recipe.negatives_per_scene,
                looks=looks,
                rounds=rounds,
            )

        base = spec.base_spec()
        nets = []
        for member in range(args.reader_members):
            common = dict(smoke=args.smoke, member=member)
            if base is None:
                net = train_classifier(
                    work, args.reader_epochs, args.seed, items(None), list, spec=spec, **common
                )
            else:
                # A fine-tune: the base reader first (trained, resumed or loaded), then this one
                # on the base's crops and those of the later reader looks.
                first = train_classifier(
                    work,
                    args.reader_epochs,
                    args.seed,
                    items(range(spec.base_looks)),
                    list,
                    spec=base,
                    **common,
                )
                net = train_classifier(
                    work,
                    1 if args.smoke else spec.finetune_epochs,
                    args.seed,
                    items(range(spec.base_looks, len(recipe.reader_looks())), rounds=False),
                    list,
                    spec=spec,
                    init=first,
                    base_crops=base.crop_cache(work, args.smoke),
                    max_lr=spec.finetune_lr,
                    **common,
                )
            nets.append(net)
        export_classifier(nets, args.out / recipe.reader_onnx, spec=spec)
        print(f"reader: {args.out / recipe.reader_onnx} ({len(nets)} members)")
    # The shipped fine-tunes run in "all" and "reader-finetune"; ``--round NAME`` runs that one
    # alone (a measured one, never in "all", writes only when named).
    named = args.round if args.stage == "reader-finetune" else None
    if named is not None and named not in {tune.spec for tune in recipe.reader_finetunes}:
        parser.error(f"--stage reader-finetune: {args.kind} has no reader fine-tune {named}")
    starts = reader_starts(recipe)
    for tune in recipe.reader_finetunes:
        runs = tune.spec == named if named else tune.shipped
        if runs and args.stage in ("all", "reader-finetune"):
            leave = (
                tune.leave if args.leave_letters is None or not tune.leave else args.leave_letters
            )
            leave = "" if leave == "none" else leave
            start = starts[tune.spec]
            # from a fine-tune that left the same letters out: its file says so ("c11_without_fr")
            before = next((t for t in recipe.reader_finetunes if t.spec == start), None)
            if leave and before is not None and before.leave:
                start = f"{start}_without_{leave}"
            finetune_reader(recipe, tune, start, work, args.out, args.seed, leave, args.smoke)
    print(f"train_pieces {args.kind}: done in {time.time() - started:.0f} s")
    return 0


def reader_starts(recipe: KindRecipe) -> dict[str, str]:
    """Each reader fine-tune's starting reader, by spec: the recipe of the file it starts from
    (``start_onnx``, by default the reader) as the reader stage and the shipped fine-tunes
    before it left it."""
    from training.readers import READER_SPECS

    written = {recipe.reader_onnx: READER_SPECS[recipe.kind].recipe}
    starts = {}
    for tune in recipe.reader_finetunes:
        starts[tune.spec] = written.get(tune.start_onnx or recipe.reader_onnx, "")
        if tune.shipped:
            written[tune.onnx or recipe.reader_onnx] = tune.spec
    return starts


def finetune_reader(
    recipe: KindRecipe,
    tune: ReaderFinetune,
    start: str,
    work: Path,
    out: Path,
    seed: int,
    leave_letters: str,
    smoke: bool,
) -> None:
    """The reader in ``out`` fine-tuned as ``tune`` says (``ReaderFinetune``); ``leave_letters``
    ("fr") leaves the cards' scenes of that letter set out. The reader must be ``start``, by the
    recipe stamped in it (a fine-tune run over its own result would train something else)."""
    from training.classifier import export_classifier, reader_recipe, train_classifier
    from training.readers import FINETUNE_SPECS, READER_SPECS
    from training.recover import rebuild_reader

    sets = [recipe.stages.scene_set(folder) for folder in tune.sets]
    if leave_letters:
        sets = [s for s in sets if not s.renderer.endswith(f"@{leave_letters}")]
    for s in sets:  # made here unless made already (by the detector rounds, for dominoes)
        generate(work, s.scenes, s.val, seed + s.seed_offset, name=s.folder, renderer=s.renderer)
    spec = FINETUNE_SPECS[tune.spec]
    if leave_letters:
        spec = replace(spec, recipe=f"{spec.recipe}_without_{leave_letters}")
    reader = out / (tune.start_onnx or recipe.reader_onnx)
    found = reader_recipe(reader)
    if found is not None and found != start:
        raise SystemExit(
            f"reader fine-tune {tune.spec} starts from {start}, but {reader} is {found}: "
            f"write {start} there first (--stage reader, or the fine-tune that makes it)"
        )
    net = train_classifier(
        work,
        1 if smoke else spec.finetune_epochs,
        seed,
        lambda work, split: reader_items(
            work,
            split,
            out / recipe.detector_onnx,
            recipe.negative_tile_side,
            recipe.negative_zoom_out,
            recipe.negatives_per_scene,
            rounds=False,
            folders=[s.folder for s in sets],
            straddle_cover=tune.straddle_cover,
        ),
        list,
        smoke=smoke,
        spec=spec,
        init=rebuild_reader(reader, READER_SPECS[recipe.kind]),
        max_lr=spec.finetune_lr,
        frozen_norms=True,
        crops_from="; ".join(
            [f"{s.folder} {s.scenes}+{s.val} seed {seed + s.seed_offset}" for s in sets]
            + [f"straddles {tune.straddle_cover}"]
        ),
    )
    written = out / (tune.onnx or recipe.reader_onnx)
    export_classifier([net], written, spec=spec)
    print(f"reader: {written} ({spec.recipe}, fine-tuned from {reader.name})")


if __name__ == "__main__":
    raise SystemExit(main())
