"""Dominoes: a detector finds face-up dominoes, a reader counts the pips of both halves.

Stage 1, ``domino_detector.onnx``: a class-agnostic rotated-box (OBB) YOLO26-nano (one class,
"domino": face-up only; the backs of face-down dominoes were negatives in training) on the
whole photo and on it shrunk onto a larger canvas, merged by rotated NMS.
Stage 2, ``domino_reader.onnx``: a small CNN on a 96x96 crop cut square to the domino at its
rotated box's angle (long side vertical, ``vision/crops.py``; where the angle estimated from the
domino's edges disagrees by more than 20 degrees, also at that angle, the surer reading kept),
with two heads: the smaller half's pips (0-12, or "none": not a face-up domino) and the larger
half's (0-12). Sorted counts need no orientation: the crop read as is and turned half a turn
names the same domino, and both readings are averaged.

A label's probability is P(smaller = a) x P(larger = b) over the pairs a <= b, renormalised; its
confidence is that times the detector's score to the power 1/4. With a set (``double-six``,
``double-nine``, ``double-twelve``) the label is the most likely pair the set contains, and its
confidence stays the probability among all pairs 0-12: a domino read as 10-10 in a double-nine
set becomes its best in-set reading with a low confidence, never a confident wrong answer.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from vision.detector import Detection
from vision.errors import UnknownSet
from vision.imageio import load_image
from vision.labels import DOMINO_NONE, DOMINO_SET_TOPS, MAX_PIP, domino_label
from vision.layout import group_chains
from vision.twostage import MODELS_DIR, DetectAndRead, drop_repeats, piece_entry

DETECTOR_FILE = "domino_detector.onnx"
READER_FILE = "domino_reader.onnx"
DETECT_CONF = 0.35  # chosen on synthetic validation for the rotated-box detector (round 4)
NONE_DROP = 0.5
# A box is reported when its best reading among all pairs 0-12 has at least this confidence
# (before any set limits the labels): on the synthetic validation scenes it lifts F1 from 0.791
# to 0.826 (look 1) and 0.761 to 0.781 (look 2); 0.2 and 0.4 did less (models/README.md).
REPORT_CONFIDENCE = 0.3
# A box whose estimated angle is more than this off its axes is read square to the box too
# (only boxes without a rotated box of their own, i.e. a given box or a photo read whole; the
# rotated detector gives each box its angle)
# (synthetic validation F1 look 1 / 2 / 3 / crops 0.858 / 0.815 / 0.766 / 0.975 -> 0.865 /
# 0.822 / 0.770 / 0.981; 8 and 25 degrees gave less): the twelve pips of a domino lying
# straight in a chain had turned the estimate to 36 degrees.
SECOND_LOOK_ANGLE = 15.0
# A rotated box whose angle is more than this off the angle estimated from its edges is also
# read cut at the estimate, the surer reading kept (``DetectAndRead.estimate_look_angle``):
# synthetic validation F1 look 1 / 2 / 3 0.904 / 0.865 / 0.836 -> 0.915 / 0.875 / 0.847 (10, 15
# and 30 degrees did as well or a little less; models/README.md).
ESTIMATE_LOOK_ANGLE = 20.0
ZOOM_OUT: float | None = 2.0  # a second detector pass on the photo shrunk 2x: close-ups


def pair_probabilities(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """P(a-b) for a <= b (a 13 x 13 upper-triangular matrix summing to 1) from the two heads."""
    low = low[: MAX_PIP + 1] / max(1e-9, float(low[: MAX_PIP + 1].sum()))
    joint = np.triu(np.outer(low, high[: MAX_PIP + 1]))
    return joint / max(1e-12, float(joint.sum()))


def ranked_labels(joint: np.ndarray, top: int = MAX_PIP) -> list[tuple[str, float]]:
    """Labels of the pairs a <= b <= ``top``, most likely first, with their probability."""
    pairs = [
        (domino_label(a, b), float(joint[a, b])) for a in range(top + 1) for b in range(a, top + 1)
    ]
    pairs.sort(key=lambda item: -item[1])
    return pairs


class DominoRecogniser:
    kind = "dominoes"

    def __init__(self, models_dir: Path = MODELS_DIR, set_name: str | None = None):
        self.stages = DetectAndRead(models_dir, DETECTOR_FILE, READER_FILE, self.kind)
        self.stages.second_look_angle = SECOND_LOOK_ANGLE
        self.stages.estimate_look_angle = ESTIMATE_LOOK_ANGLE
        self.set_name = _check_set(set_name)
        self.conf = DETECT_CONF
        self.zoom_out = ZOOM_OUT
        self.whole_photo = True
        self.report_confidence = REPORT_CONFIDENCE

    def recognise(self, image, channels: str = "rgb", set_name: str | None = None) -> dict:
        """Read the face-up dominoes of one photo (a path, encoded bytes, or an HxWx3 array).

        ``set_name`` (or the recogniser's) limits labels to what that set contains.
        """
        started = time.perf_counter()
        top = DOMINO_SET_TOPS[_check_set(set_name) or self.set_name or "double-twelve"]
        loaded = load_image(image, channels)
        readings = self.stages.read(
            loaded.bgr, self.conf, zoom_out=self.zoom_out, whole_photo=self.whole_photo
        )
        # One domino found by both passes (whole photo, zoomed out) on boxes sharing more than
        # half is one domino (synthetic validation F1 0.826 -> 0.829, 0.781 -> 0.785).
        pieces = drop_repeats(self._pieces(readings, top, loaded))
        melds = group_chains([p["bbox"] for p in pieces])
        return {
            "kind": self.kind,
            "pieces": pieces,
            "melds": melds,
            "ms": round((time.perf_counter() - started) * 1000, 1),
        }

    def read_boxes(self, image, boxes, channels: str = "rgb", set_name: str | None = None):
        """The pieces read in known boxes (image pixels as displayed), skipping the detector."""
        top = DOMINO_SET_TOPS[_check_set(set_name) or self.set_name or "double-twelve"]
        loaded = load_image(image, channels)
        detections = [
            Detection(tuple(float(v) / loaded.scale for v in box), 1.0, 0) for box in boxes
        ]
        return self._pieces(self.stages.read_boxes(loaded.bgr, detections), top, loaded, keep=True)

    def _pieces(self, readings, top: int, loaded, keep: bool = False) -> list[dict]:
        pieces = []
        for reading in readings:
            if reading.none >= NONE_DROP and not keep:
                continue
            assert reading.first.shape[0] == DOMINO_NONE + 1
            joint = pair_probabilities(reading.first, reading.second)
            sure = float(joint.max()) * reading.detection.score**0.25
            if sure < self.report_confidence and not keep:
                continue
            pieces.append(piece_entry(ranked_labels(joint, top), reading, loaded))
        return pieces


def _check_set(set_name: str | None) -> str | None:
    if set_name is not None and set_name not in DOMINO_SET_TOPS:
        raise UnknownSet(
            f"unknown domino set {set_name!r}: use one of {', '.join(DOMINO_SET_TOPS)}"
        )
    return set_name
