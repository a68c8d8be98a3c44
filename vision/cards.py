"""Playing cards: a detector finds corner indices, a reader reads rank and suit; one card each.

Stage 1, ``card_detector.onnx``: a class-agnostic YOLO26-nano finding corner indices (rank over
suit), the part every deck design shares and that stays visible in an overlapped fan. It runs
on the whole photo and on overlapping tiles of the photo at its own pixels (up to 1600 px on
the long side): on a photographed table an index is a few pixels tall in the whole photo shrunk
to the detector's 640 px, and in a tile it has the size the detector learned; and on the photo
shrunk onto a canvas twice its size, for close-ups. A box enclosing
another detection's centre is left out (an index never lies inside another: such a box is a
whole card or a patch of pips).
Stage 2, ``card_reader.onnx``: a small CNN on a 64x64 crop cut square to each index, with two
heads: rank (A-K, joker, or "none": not an index) and suit (C, D, H, S), read as is and turned
half a turn (averaged). An index read unsurely is also cut 10 degrees either way of its
estimated angle (an index in a fan is small, and its angle estimate rough) and a quarter turn
from it (a sideways index), and the surest of the readings is kept.

A card whose two corner indices both show is found twice: readings with the same label lying
within ``MERGE_SPAN`` index lengths of each other are one card (a card's two indices sit on
its diagonal, about 6-9 index lengths apart; up to four in a four-index deck), reported once
with the union of its index boxes as ``bbox`` and the higher confidence. One index found by
two detector passes (boxes sharing more than half, whatever they read) is its surer reading.
The same label farther apart is two cards (two decks). An index read less surely than
``REPORT_CONFIDENCE`` is not used. A card with no readable index (a face-down card, a card
covered up to its middle) is not reported.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from vision.imageio import load_image
from vision.labels import CARD_JOKER, CARD_JOKER_INDEX, CARD_RANKS, CARD_SUITS, card_label
from vision.layout import group_cards
from vision.twostage import MODELS_DIR, DetectAndRead, drop_repeats, piece_entry

DETECTOR_FILE = "card_detector.onnx"
READER_FILE = "card_reader.onnx"
# Chosen on the synthetic validation scenes (models/README.md, "Model card: cards").
DETECT_CONF = 0.25
NONE_DROP = 0.5
TILE_SIDE = 1600  # tiles of the photo at its own pixels, up to this long side
ZOOM_OUT = 2.0  # and the photo shrunk 2x: a close-up's indices are larger than any learned
REPORT_CONFIDENCE = 0.3  # an index is used when read at least this surely
# An index box whose estimated angle is more than this off its axes is also read cut square to
# the box (``DetectAndRead.second_look_angle``): with the c3 reader, synthetic validation F1
# 0.925 -> 0.932 (look 1) and 0.903 -> 0.910 (look 2), close-ups unchanged (0.984).
SECOND_LOOK_ANGLE = 15.0
# Every index is also read cut 10 degrees either way of its estimated angle, the surest reading
# kept (``DetectAndRead.turned_looks``): synthetic validation F1 look 1 / 2 / 3 0.929 / 0.908 /
# 0.894 -> 0.934 / 0.916 / 0.904, close-ups 0.981 both; 6, 15, 20, 30 degrees and 10 + 20 did
# less (models/README.md). And a quarter turn (session 8, reader c5): an index cut at an angle
# off by a quarter (a sideways card's index whose box does not say which way it lies) is read
# upright: validation F1 look 1 / 2 / 3 / 4 0.932 / 0.919 / 0.904 / 0.925 -> 0.937 / 0.923 /
# 0.903 / 0.925, close-ups 0.984 both.
TURNED_LOOKS = (10.0, -10.0, 90.0)
# ... only for an index read less surely than this (as a card, or as "none": not an index):
# the same validation F1 at 0.9 as for every index, at half the cost (0.7: 0.932 / 0.915 / 0.903).
TURNED_LOOKS_BELOW = 0.9
MERGE_SPAN = 12.0  # in index lengths (the index box's long side)
MAX_CORNERS = 4  # indices of one card: two, or four in a four-index deck


def ranked_labels(rank: np.ndarray, suit: np.ndarray) -> list[tuple[str, float]]:
    """Card labels by probability, highest first, renormalised without the "none" class."""
    real = rank[: CARD_JOKER_INDEX + 1] / max(1e-9, float(rank[: CARD_JOKER_INDEX + 1].sum()))
    scored = [(CARD_JOKER, float(real[CARD_JOKER_INDEX]))]
    for r in range(len(CARD_RANKS)):
        for s in range(len(CARD_SUITS)):
            scored.append((card_label(r, s), float(real[r] * suit[s])))
    scored.sort(key=lambda item: -item[1])
    return scored


def _centre(box) -> np.ndarray:
    return np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])


def _length(box) -> float:
    return max(box[2] - box[0], box[3] - box[1], 1.0)


def drop_enclosing(readings: list) -> list:
    """Leave out detections that enclose the centre of a smaller detection (a quarter of the
    area or less): corner indices never lie inside one another, so such a box is a whole card
    or a patch of pips, not an index."""
    boxes = [r.detection.box for r in readings]
    areas = [(b[2] - b[0]) * (b[3] - b[1]) for b in boxes]
    kept = []
    for i, (box, area) in enumerate(zip(boxes, areas, strict=True)):
        encloses = any(
            j != i
            and areas[j] * 4 <= area
            and box[0] <= (other[0] + other[2]) / 2 <= box[2]
            and box[1] <= (other[1] + other[3]) / 2 <= box[3]
            for j, other in enumerate(boxes)
        )
        if not encloses:
            kept.append(readings[i])
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


class CardRecogniser:
    kind = "cards"

    def __init__(self, models_dir: Path = MODELS_DIR):
        self.stages = DetectAndRead(models_dir, DETECTOR_FILE, READER_FILE, self.kind)
        self.stages.second_look_angle = SECOND_LOOK_ANGLE
        self.stages.turned_looks = TURNED_LOOKS
        self.stages.turned_looks_below = TURNED_LOOKS_BELOW
        self.conf = DETECT_CONF
        self.zoom_out: float | None = ZOOM_OUT
        self.tile_side: int | None = TILE_SIDE
        self.report_confidence = REPORT_CONFIDENCE

    def recognise(self, image, channels: str = "rgb") -> dict:
        """Read the face-up cards of one photo (a path, encoded bytes, or an HxWx3 array)."""
        started = time.perf_counter()
        loaded = load_image(image, channels)
        corners = []
        readings = self.stages.read(
            loaded.bgr, self.conf, zoom_out=self.zoom_out, tile_side=self.tile_side
        )
        readings = drop_enclosing(readings)
        for reading in readings:
            if reading.none >= NONE_DROP:
                continue
            corner = piece_entry(ranked_labels(reading.first, reading.second), reading, loaded)
            if corner["confidence"] >= self.report_confidence:
                corners.append(corner)
        # Most confident readings first, so that a merged card keeps its best reading; one index
        # found by two passes (whole photo, tile, zoomed out) counts once.
        corners = drop_repeats(corners, any_label=True)
        corners.sort(key=lambda c: -c["confidence"])
        pieces, corner_boxes = [], []
        for group in merge_corners(corners):
            best = dict(corners[group[0]])
            boxes = [corners[i]["bbox"] for i in group]
            best["bbox"] = [
                min(b[0] for b in boxes),
                min(b[1] for b in boxes),
                max(b[2] for b in boxes),
                max(b[3] for b in boxes),
            ]
            best["corners"] = boxes
            pieces.append(best)
            corner_boxes.append(boxes)
        melds = group_cards(corner_boxes)
        return {
            "kind": self.kind,
            "pieces": pieces,
            "melds": melds,
            "ms": round((time.perf_counter() - started) * 1000, 1),
        }
