"""What the domino and card crop readers learn (``train_pieces``'s reader stage).

Dominoes: one crop per domino, cut square to it (long side vertical), read as two pip counts:
the smaller half and the larger one. A pair of sorted counts needs no orientation and no split
line: the net learns where the halves are. 13 classes per head instead of 91 per domino.
Cards: one crop per corner index (rank over suit), read as rank (A..K, joker) and suit.
"""

from __future__ import annotations

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


# Recipe 2 ("d2", "c2") adds hard negatives: boxes the shipped detector finds on the training
# scenes at a low threshold that lie on no labelled piece (half a domino, two halves of
# neighbours, a face-down domino, a card's pips or art), so that the reader's "none" class
# learns what the detector confuses, and the detector's threshold can go down.
# Cards' recipe 3 ("c3") also reads round 2's scenes and 1,200 scenes of decks in more index
# fonts (``train_pieces.render_cards_fonts``), hard negatives mined with the final detector.
# Recipe 4 ("c4") adds 600 scenes where half the decks print a flat-topped 3
# (``train_pieces.render_cards_glyphs``).
# Recipe 5 ("c5") adds 800 scenes of look 4 (pips near the indices, busy court art, finely
# patterned backs; ``train_pieces.render_cards_real``) and mines up to 10 hard negatives a scene
# with the recogniser's own passes (whole photo, tiles at the photo's pixels, zoomed out).
# Recipe 6 ("c6") fine-tunes c5 for 6 epochs on c5's crops and those of 800 scenes of look 5
# (real decks' backs: coloured diamonds between white lines, and hands lying face down;
# ``train_pieces.render_cards_backs``): c5 read the real back as a joker.
# Dominoes' recipe 3 ("d3") also reads round 3's scenes (photos from low down, dark leather),
# which ``d2`` never saw, and mines its hard negatives with the rotated-box detector it serves.
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
