"""What the domino and card crop readers learn (``training.train``'s reader stage).

Dominoes: one crop per domino, cut square to it (long side vertical), read as two pip counts:
the smaller half and the larger one. A pair of sorted counts needs no orientation and no split
line: the net learns where the halves are. 13 classes per head instead of 91 per domino.
Cards: one crop per corner index (rank over suit), read as rank (A..K, joker) and suit.
"""

from __future__ import annotations

from dataclasses import replace

from training.classifier import ReaderSpec
from vision.labels import (
    CARD_NONE,
    CARD_SUITS,
    DOMINO_NONE,
    MAX_PIP,
    split_card_label,
    split_domino_label,
)

DOMINO_CROP = 96  # pips of a 12 are small: more pixels than the tiles' 64
CARD_CROP = 64

NOT_A_PIECE = "none"  # the label of a hard negative: a box the detector found on no piece


def domino_targets(label: str) -> tuple[int, int]:
    return (DOMINO_NONE, -1) if label == NOT_A_PIECE else split_domino_label(label)


def card_targets(label: str) -> tuple[int, int]:
    return (CARD_NONE, -1) if label == NOT_A_PIECE else split_card_label(label)


# What each shipped reader learns; its recipe name keys its crop cache and checkpoints
# (models/dominoes.md, models/cards.md):
# - both: every labelled piece of the kind's scenes, random background boxes, and hard
#   negatives: boxes the detector finds at a low threshold on no labelled piece (half a domino,
#   two halves of neighbours, a face-down domino, a card's pips, art or back), so that the
#   reader's "none" class learns what the detector confuses;
# - dominoes ("d3"): the scenes of looks 1-3 (look 3: photos from low down, dark surfaces), hard
#   negatives mined with the rotated-box detector it serves;
# - cards ("c6"): a fine-tune of "c5", the reader of the detector's scenes and reader looks 2-4
#   (more index fonts, flat-topped 3s, pips near the indices, busy court art, fine backs; hard
#   negatives mined with the recogniser's own three passes, up to 10 a scene), on its crops and
#   those of look 5 (real decks' diamond backs, which "c5" read as a joker; hands lying face
#   down).
READER_SPECS = {
    "dominoes": ReaderSpec(
        "dominoes",
        (("low", DOMINO_NONE + 1), ("high", MAX_PIP + 1)),
        domino_targets,
        recipe="d3",
        crop_size=DOMINO_CROP,
        hue_shift=True,
    ),
    "cards": ReaderSpec(
        "cards",
        (("rank", CARD_NONE + 1), ("suit", len(CARD_SUITS))),
        card_targets,
        recipe="c6",
        crop_size=CARD_CROP,
        base="c5",
        base_looks=3,
        finetune_epochs=6,
        finetune_lr=1e-3,
    ),
}

# The reader fine-tunes (``python -m training.train --stage reader-finetune``; the recipe's
# ``reader_finetunes``, ``training.shipped``): a shipped reader rebuilt from its ONNX file and
# fine-tuned, its batch norms frozen, hard negatives mined by the detector in --out.
# The cards' fine-tunes of "c6" (look 6's index letters, crossed Qs, stacked pips: "c7", the
# first letters reader, is in git's history; docs/experiments/cards.md).
CARD_FINETUNE_SPEC = replace(READER_SPECS["cards"], recipe="c7", base=None, finetune_lr=5e-4)
# "c8": on decks half of which print the crossed Q of English-pattern decks (a narrow O with a
# bar across its foot) and fresh scenes of looks 1-5 (docs/experiments/cards.md, "Crossed Q").
CARD_CROSSED_Q_SPEC = replace(CARD_FINETUNE_SPEC, recipe="c8")
# "c9": "c8" 3 epochs more on scenes whose stacked pips and lone pips by another card's edge
# are boxed as no card, and looks 1-5 again (docs/experiments/cards.md, "Stacked pips").
CARD_DECOYS_SPEC = replace(CARD_FINETUNE_SPEC, recipe="c9", finetune_epochs=3)
# "c10": "c9" 3 epochs on the same scenes, a fifth of the views grey and a sixth blurred hard:
# the reader of photos without colour (docs/experiments/cards.md, "Grey photos").
CARD_GREY_SPEC = replace(CARD_DECOYS_SPEC, recipe="c10", grey_share=0.2, strong_blur=0.15)
# "c11": from "c10" on look 6's index letters and looks 1-5 again, grey and blurred views too:
# the letters reader (docs/experiments/cards.md, "Index letters").
CARD_LETTERS_GREY_SPEC = replace(CARD_FINETUNE_SPEC, recipe="c11", grey_share=0.2, strong_blur=0.15)
# "c13": "c9" 3 epochs on its scenes and on printed casino felts whose index-like letters, seat
# numbers and printed card pictures are boxed as no card: the English reader
# (docs/experiments/cards.md, "Printed felts").
CARD_FELT_SPEC = replace(CARD_DECOYS_SPEC, recipe="c13")
# "c14": "c11" 3 epochs on its scenes and on dark decks with the photo's lightness inverted, on
# plain tables and on printed felts: the reader of photos read inverted
# (docs/experiments/cards.md, "Dark faces").
CARD_INVERTED_SPEC = replace(CARD_LETTERS_GREY_SPEC, recipe="c14", finetune_epochs=3)
# "d4": the shipped "d3" on the last two rotated-box rounds' scenes (look 3, and look 4: busy
# coverings, side-by-side close-ups, shrink-wrap, greyscale).
DOMINO_FINETUNE_SPEC = replace(
    READER_SPECS["dominoes"], recipe="d4", finetune_epochs=4, finetune_lr=3e-4
)
# "d8": "d4" 6 epochs on fresh scenes of looks 1-6 (5: large pips, 6: graded pips), every
# domino sampled by its label's count ** -0.5 (a 9-10 as often as a 2-3 in a double-twelve set;
# the scenes draw double-sixes most): the reader (docs/experiments/dominoes.md, "Large pips").
DOMINO_BALANCED_SPEC = replace(DOMINO_FINETUNE_SPEC, recipe="d8", finetune_epochs=6, balanced=0.5)
FINETUNE_SPECS = {
    spec.recipe: spec
    for spec in (
        CARD_CROSSED_Q_SPEC,
        CARD_DECOYS_SPEC,
        CARD_GREY_SPEC,
        CARD_LETTERS_GREY_SPEC,
        CARD_FELT_SPEC,
        CARD_INVERTED_SPEC,
        DOMINO_FINETUNE_SPEC,
        DOMINO_BALANCED_SPEC,
    )
}
