"""Number tiles (Rummikub / Remik): detector finds tiles, a classifier reads each crop.

Stage 1, ``tile_detector.onnx``: a class-agnostic rotated-box (OBB) YOLO26-nano on the whole
photo (letterboxed to 512 px), score >= 0.4, rotated NMS; each tile's box is its rotated box's
extent. Rotated boxes keep apart the tiles of diagonal rows and piles, whose axis-aligned boxes
cover half their neighbours. Boxes nested inside a much larger box are dropped (a printed
number found as a tile of its own), and so is a box far smaller than the photo's other tiles
(``drop_undersized``: the tiles of one set are one size).
Stage 2, ``tile_classifier.onnx``: small CNNs (an ensemble averaged inside the graph) on 64x64
crops cut from the full-resolution photo square to each tile (``vision/crops.py``), with two
heads: value (1-17, joker, or "none": not a tile face) and colour (red, orange, blue, black).
Each crop is read twice, as is and turned half a turn (the nets learned tiles at all four
quarter turns, so both views name the same tile), and the readings are averaged.

A label's confidence is P(value) x P(colour) (P(joker) for jokers), times the detector's score
to the power 1/4; ``alternatives`` are the next most likely labels with probability >= 0.01.
A tile is reported when its confidence is at least ``REPORT_CONFIDENCE``, and once: the same
label read on two boxes sharing more than half of the smaller is one tile found twice (both
chosen on the synthetic validation scenes and the trained-on real photos, models/README.md).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from vision.crops import cut_crop, read_half_turns
from vision.detector import OnnxDetector, open_session
from vision.imageio import load_image
from vision.labels import CLASSIFIER_VALUES, JOKER_INDEX, NONE_INDEX, TILE_COLOURS, tile_label
from vision.melds import group_rows
from vision.twostage import drop_repeats, moved_rotated

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
DETECTOR_FILE = "tile_detector.onnx"
CLASSIFIER_FILE = "tile_classifier.onnx"
DETECT_CONF = 0.4  # chosen on the trained-on real photos (never on the held-out ones)
NONE_DROP = 0.5  # drop a box whose crop reads "not a tile face" with at least this probability
REPORT_CONFIDENCE = 0.3  # report a tile only when its confidence is at least this
MAX_ALTERNATIVES = 3
# A box whose long side is under this share of the photo's median tile is not a tile (see
# ``drop_undersized``; models/README.md says how it was chosen, and that it was written after
# a held-out photo's error).
UNDERSIZED = 0.5


class TileRecogniser:
    kind = "tiles"

    def __init__(self, models_dir: Path = MODELS_DIR):
        detector_path = Path(models_dir) / DETECTOR_FILE
        classifier_path = Path(models_dir) / CLASSIFIER_FILE
        for path in (detector_path, classifier_path):
            if not path.is_file():
                from vision.errors import RecogniserUnavailable

                raise RecogniserUnavailable(
                    f"tile model {path} is missing: train it with "
                    "`python -m vision.training.train_tiles --out models`"
                )
        self.detector = OnnxDetector(detector_path)
        self.classifier = open_session(classifier_path)
        self.report_confidence = REPORT_CONFIDENCE

    def classify(self, crops: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(value probs N x 19, colour probs N x 4), averaged over the crop and its half turn."""
        if not crops:
            return np.zeros((0, len(CLASSIFIER_VALUES))), np.zeros((0, len(TILE_COLOURS)))
        return read_half_turns(self.classifier, crops)

    def recognise(self, image, channels: str = "rgb") -> dict:
        """Read the tiles of one photo: a path, encoded bytes, or an HxWx3 uint8 array.

        Arrays are RGB unless ``channels="bgr"``. Boxes are in the pixels of the image as
        displayed (EXIF orientation applied).
        """
        started = time.perf_counter()
        loaded = load_image(image, channels)
        bgr = loaded.bgr
        detections = drop_nested(self.detector.detect(bgr, conf=DETECT_CONF))
        detections = drop_undersized(detections, bgr.shape[:2])
        # Cut square to the angle estimated from the tile's edges: more exact than the rotated
        # box's own angle (measured: see the model card).
        crops = [cut_crop(bgr, d.box) for d in detections]
        value_probs, colour_probs = self.classify(crops)
        pieces = []
        for det, vp, cp in zip(detections, value_probs, colour_probs, strict=True):
            if vp[NONE_INDEX] >= NONE_DROP:
                continue
            ranked = _label_probabilities(vp, cp)
            label, p = ranked[0]
            box = [round(v * loaded.scale, 1) for v in det.box]
            box = [
                min(box[0], loaded.width),
                min(box[1], loaded.height),
                min(box[2], loaded.width),
                min(box[3], loaded.height),
            ]
            pieces.append(
                {
                    "_rotated": moved_rotated(det.rotated, 0.0, 0.0, 1 / loaded.scale),
                    "label": label,
                    "bbox": box,
                    "confidence": round(float(p * det.score**0.25), 4),
                    "alternatives": [
                        [alt, round(float(q), 4)]
                        for alt, q in ranked[1 : 1 + MAX_ALTERNATIVES]
                        if q >= 0.01
                    ],
                }
            )
        pieces = [p for p in pieces if p["confidence"] >= self.report_confidence]
        pieces = drop_repeats(pieces)  # one tile found on two boxes is one tile
        rotated = [p.pop("_rotated") for p in pieces]  # for grouping only, not reported
        melds = group_rows([p["bbox"] for p in pieces], rotated)
        return {
            "kind": self.kind,
            "pieces": pieces,
            "melds": melds,
            "ms": round((time.perf_counter() - started) * 1000, 1),
        }


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


def _label_probabilities(value_probs: np.ndarray, colour_probs: np.ndarray):
    """Labels by probability, highest first, renormalised without the "none" class."""
    real = value_probs[:NONE_INDEX] / max(1e-9, float(value_probs[:NONE_INDEX].sum()))
    scored = [("joker", float(real[JOKER_INDEX]))]
    for v in range(JOKER_INDEX):
        for c in range(len(TILE_COLOURS)):
            scored.append((tile_label(v, c), float(real[v] * colour_probs[c])))
    scored.sort(key=lambda item: -item[1])
    return scored
