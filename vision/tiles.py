"""Number tiles (Rummikub / Remik): what the shared pipeline (``vision/pipeline.py``) does
differently for tiles, referenced from their settings (``vision.kinds.TILES``).

Stage 1, ``tile_detector.onnx``: a class-agnostic rotated-box (OBB) YOLO26-nano on the whole
photo (letterboxed to 512 px), rotated NMS; each tile's box is its rotated box's extent. Rotated
boxes keep apart the tiles of diagonal rows and piles, whose axis-aligned boxes cover half their
neighbours. Boxes nested inside a much larger box are dropped (a printed number found as a tile
of its own, ``drop_nested``), and so is a box far smaller than the photo's other tiles
(``drop_undersized``: the tiles of one set are one size).
Stage 2, ``tile_classifier.onnx``: a small CNN (an ensemble is averaged inside the graph) on 64x64
crops cut from the full-resolution photo square to each tile at the angle estimated from its
edges (more exact than the rotated box's own angle, measured: see the model card), with two
heads: value (1-17, joker, or "none": not a tile face) and colour (red, orange, blue, black).
Each crop is read twice, as is and turned half a turn (the nets learned tiles at all four
quarter turns, so both views name the same tile), and the readings are averaged.

A label's probability is P(value) x P(colour) (P(joker) for jokers). Tiles are grouped into rows
with their rotated boxes (``group``, ``vision/melds.py``).
"""

from __future__ import annotations

import numpy as np

from vision.melds import group_rows
from vision.settings import Piece

# A box whose long side is under this share of the photo's median tile is not a tile (see
# ``drop_undersized``; models/tiles.md says how it was checked, and that it was written after a
# held-out photo's error).
UNDERSIZED = 0.5


def drop_boxes(detections: list, image_hw: tuple[int, int]) -> list:
    """The tiles' box filter: ``drop_nested``, then ``drop_undersized``."""
    return drop_undersized(drop_nested(detections), image_hw)


def group(pieces: list[Piece]) -> tuple[list[Piece], list[list[int]]]:
    """Rows of touching tiles, with the rotated boxes where the detector gave them."""
    return pieces, group_rows([p.bbox for p in pieces], [p.rotated for p in pieces])


def drop_nested(detections: list, inside: float = 0.85, smaller: float = 0.5) -> list:
    """Drop a box lying inside a much larger box (a tile's printed face circle or digit found as
    a tile of its own): tiles lie side by side or partly on top, never one within another."""
    kept = []
    for i, det in enumerate(detections):
        x1, y1, x2, y2 = det.box
        area = (x2 - x1) * (y2 - y1)
        nested = False
        for j, other in enumerate(detections):
            if i == j:
                continue
            ox1, oy1, ox2, oy2 = other.box
            other_area = (ox2 - ox1) * (oy2 - oy1)
            if area >= smaller * other_area:
                continue
            inter = max(0.0, min(x2, ox2) - max(x1, ox1)) * max(0.0, min(y2, oy2) - max(y1, oy1))
            if inter >= inside * area:
                nested = True
                break
        if not nested:
            kept.append(det)
    return kept


def drop_undersized(
    detections: list, image_hw: tuple[int, int], fraction: float = UNDERSIZED, edge: float = 4.0
) -> list:
    """Drop a box whose long side is under ``fraction`` of the median long side of the photo's
    boxes (a wood knot or a speck found as a small "tile"): the tiles of one set are one size,
    and perspective across a table changes it far less than twice. A box at the photo's edge is
    kept (a tile cut off there shows only part of itself), and so is every box of a photo with
    fewer than three. The long side is the rotated box's when there is one, so a turned tile
    measures the same as an upright one.
    """
    if len(detections) < 3:
        return detections
    height, width = image_hw
    longs = np.array(
        [
            max(d.rotated[1]) if d.rotated else max(d.box[2] - d.box[0], d.box[3] - d.box[1])
            for d in detections
        ]
    )
    floor = fraction * float(np.median(longs))
    kept = []
    for det, long_side in zip(detections, longs, strict=True):
        x1, y1, x2, y2 = det.box
        at_edge = x1 <= edge or y1 <= edge or x2 >= width - edge or y2 >= height - edge
        if long_side >= floor or at_edge:
            kept.append(det)
    return kept
