"""Playing cards: what the shared pipeline (``vision/pipeline.py``) does differently for cards,
referenced from their settings (``vision.kinds.CARDS``): the detector finds corner indices, and
the indices of one card are merged into that card.

Stage 1, ``card_detector.onnx``: a class-agnostic YOLO26-nano finding corner indices (rank over
suit), the part every deck design shares and that stays visible in an overlapped fan. It runs
on the whole photo and on overlapping tiles of the photo at its own pixels (up to 1600 px on
the long side): on a photographed table an index is a few pixels tall in the whole photo shrunk
to the detector's 640 px, and in a tile it has the size the detector learned; and on the photo
shrunk onto a canvas twice its size, for close-ups. A box enclosing another detection's centre
is left out (``drop_enclosing``: an index never lies inside another: such a box is a whole card
or a patch of pips).
Stage 2, ``card_reader.onnx``: a small CNN on a 64x64 crop cut square to each index, with two
heads: rank (A-K, joker, or "none": not an index) and suit (C, D, H, S), read as is and turned
half a turn (averaged). An index read unsurely is also cut 10 degrees either way of its
estimated angle (an index in a fan is small, and its angle estimate rough) and a quarter turn
from it (a sideways index), and the surest of the readings is kept.

A card whose two corner indices both show is found twice: readings with the same label lying
within ``MERGE_SPAN`` index lengths of each other are one card (a card's two indices sit on
its diagonal: on rendered decks 1.2-6.3 index lengths apart, median 3.1; a real deck with small
indices may put them farther; up to four in a four-index deck), reported once with the union
of its index boxes as ``bbox``, its index boxes as ``corners`` and the reading of its surest
index (``group``). One index found by two detector passes (boxes sharing more
than half, whatever they read) is its surer reading (the pipeline's ``drop_repeats``). The same
label farther apart is two cards (two decks). A card with no readable index (a face-down card,
a card covered up to its middle) is not reported.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np

from meldcam.vocabulary import (
    CARD_JOKER,
    CARD_RANKS,
    CARD_SUITS,
    INDEX_LETTERS,
    OTHER_LETTERS,
    UNTOLD_LETTERS,
    card_name,
)
from vision.layout import group_cards
from vision.settings import Piece

MERGE_SPAN = 12.0  # in index lengths (the index box's long side)
MAX_CORNERS = 4  # indices of one card: two, or four in a four-index deck
# The reader of decks whose courts and ace print other letters than J Q K A (the sets other
# than "en" of ``letter_sets``); docs/experiments/cards.md, "Index letters".
LETTERS_READER = "card_reader_letters.onnx"
GREY_READER = "card_reader_grey.onnx"  # photos without colour (``GreyPhotos``)
# The reader of a photo read inverted (a dark deck's, ``DarkFaces``):
# docs/experiments/cards.md, "Dark faces".
DARK_READER = "card_reader_dark.onnx"
# Which letter an index prints, to tell a deck's letters from a photo (``guess_letter_set``).
GLYPH_READER = "card_letter_glyphs.onnx"
# Its classes: "none" (a number, a joker, no index), then each letter some deck prints once.
GLYPHS: tuple[str, ...] = (
    "none",
    *dict.fromkeys(letter for letters in INDEX_LETTERS.values() for letter in letters.values()),
)


def letter_sets() -> tuple[tuple[str, frozenset[str]], ...]:
    """The cards' sets: a deck by the index letters it prints (``INDEX_LETTERS``: "en", "pl",
    "de", "fr"; and ``OTHER_LETTERS``, a deck told to print some other language's), each
    holding every card; a card keeps its English name whatever it prints."""
    every = frozenset(
        [CARD_JOKER, *(card_name(rank, suit) for rank in CARD_RANKS for suit in CARD_SUITS)]
    )
    return tuple((name, every) for name in (*INDEX_LETTERS, OTHER_LETTERS))


def _own_glyphs() -> dict[str, tuple[int, ...]]:
    """Each letter set's glyphs (``GLYPHS`` indices) that no other set prints: English J and Q,
    Polish W, German B, French V and R. Letters several sets print (K, D, A) tell nothing."""
    printed = [dict.fromkeys(letters.values()) for letters in INDEX_LETTERS.values()]
    printers = Counter(letter for letters in printed for letter in letters)
    return {
        name: tuple(GLYPHS.index(letter) for letter in letters if printers[letter] == 1)
        for name, letters in zip(INDEX_LETTERS, printed, strict=True)
    }


OWN_GLYPHS = _own_glyphs()
# The glyphs no English deck prints (D, W, B, V, R): a deck with other letters, whichever.
FOREIGN_GLYPHS = tuple(
    i
    for i, glyph in enumerate(GLYPHS)
    if glyph != "none" and glyph not in INDEX_LETTERS[UNTOLD_LETTERS].values()
)


def _jack_glyphs() -> tuple[tuple[int, ...], ...]:
    """For each rank the reader reads (``CARD_RANKS``, then the joker): the ``GLYPHS`` indices
    whose probabilities weigh it. Only the jack's letters count: J, W, B, V, which no other rank
    prints in any deck (a deck named wrongly still reads right); every other rank shares the
    rest. Queens', kings' and aces' letters are left to the reader: the glyph reader learned
    rendered fonts only, and reads a real deck's 10 as a D (docs/experiments/cards.md,
    "Reading the letters")."""
    jack = tuple(dict.fromkeys(GLYPHS.index(letters["J"]) for letters in INDEX_LETTERS.values()))
    rest = tuple(i for i in range(len(GLYPHS)) if i not in jack)
    return tuple(jack if rank == "J" else rest for rank in (*CARD_RANKS, "joker"))


# A set reader's reading joins the glyph reader's by these (``JoinedGlyphs.classes``).
JACK_GLYPHS = _jack_glyphs()


def guess_letter_set(
    glyphs: np.ndarray, *, sure: float, votes: float, margin: float, other: str | None = None
) -> str | None:
    """The index letter set a photo's decks print, from the glyph reader's probabilities for its
    boxes (boxes x ``GLYPHS``): each glyph read at least ``sure`` is a vote for the set that
    alone prints it, and a set is told when its votes (their probabilities summed) reach
    ``votes`` and ``margin`` times any other set's. Where none is, ``other`` (``OTHER_LETTERS``)
    is told when the glyphs no English deck prints (a queen's D above all: every other set
    prints it) pass the same test against the English ones; None otherwise (a photo of number
    cards only: every set prints them alike). The numbers are data (``vision.kinds.CARDS``)."""
    counted = np.where(glyphs >= sure, glyphs, 0.0)
    tally = {name: float(counted[:, own].sum()) for name, own in OWN_GLYPHS.items()}
    (best, most), (_second, next_most) = sorted(tally.items(), key=lambda kv: -kv[1])[:2]
    if most >= votes and most >= margin * next_most:
        return best
    foreign = float(counted[:, FOREIGN_GLYPHS].sum())
    if other is not None and foreign >= votes and foreign >= margin * tally[UNTOLD_LETTERS]:
        return other
    return None


def _centre(box) -> np.ndarray:
    return np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])


def _length(box) -> float:
    return max(box[2] - box[0], box[3] - box[1], 1.0)


def drop_enclosing(detections: list, _image_hw: tuple[int, int] | None = None) -> list:
    """Leave out detections that enclose the centre of a smaller detection (a quarter of the
    area or less) at least as sure: corner indices never lie inside one another, so such a box
    is a whole card or a patch of pips, not an index. A box surer than every box inside it is
    kept: a large index whose suit pip was boxed too, less surely (a close-up)."""
    boxes = [d.box for d in detections]
    areas = [(b[2] - b[0]) * (b[3] - b[1]) for b in boxes]
    kept = []
    for i, (box, area) in enumerate(zip(boxes, areas, strict=True)):
        encloses = any(
            j != i
            and areas[j] * 4 <= area
            and detections[j].score >= detections[i].score
            and box[0] <= (other[0] + other[2]) / 2 <= box[2]
            and box[1] <= (other[1] + other[3]) / 2 <= box[3]
            for j, other in enumerate(boxes)
        )
        if not encloses:
            kept.append(detections[i])
    return kept


def merge_corners(corners: list[dict]) -> list[list[int]]:
    """Indices of ``corners`` (each {"label", "bbox", ...}) that are one card, as groups."""
    groups: list[list[int]] = []
    for i, corner in enumerate(corners):
        for group in groups:
            first = corners[group[0]]
            if len(group) >= MAX_CORNERS or first["label"] != corner["label"]:
                continue
            span = MERGE_SPAN * max(_length(first["bbox"]), _length(corner["bbox"]))
            if np.linalg.norm(_centre(first["bbox"]) - _centre(corner["bbox"])) <= span:
                group.append(i)
                break
        else:
            groups.append([i])
    return groups


def group(corners: list[Piece]) -> tuple[list[Piece], list[list[int]]]:
    """The corner indices read (one report per index) merged into cards, and the cards grouped
    into hands and melds (``vision.layout.group_cards``)."""
    # Most confident readings first, so that a merged card keeps its best reading.
    corners = sorted(corners, key=lambda c: -c.confidence)
    pieces, corner_boxes = [], []
    for members in merge_corners([{"label": c.label, "bbox": c.bbox} for c in corners]):
        boxes = [corners[i].bbox for i in members]
        bbox = [
            min(b[0] for b in boxes),
            min(b[1] for b in boxes),
            max(b[2] for b in boxes),
            max(b[3] for b in boxes),
        ]
        pieces.append(replace(corners[members[0]], bbox=bbox, corners=boxes))
        corner_boxes.append(boxes)
    return pieces, group_cards(corner_boxes)
