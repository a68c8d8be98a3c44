"""Hard negatives for a crop reader: what the detector finds where no piece is.

A reader learns "none" from boxes its kind's detector finds at a low threshold that overlap no
labelled piece, searched as the recogniser searches (the whole photo, and where the kind's
``DetectorPasses`` say so tiles of the photo and a zoomed-out view), most confident first.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from training.scenes import Item, synth_items

HARD_NEGATIVE_CONF = 0.1
HARD_NEGATIVE_IOU = 0.3


def reader_items(
    work: Path,
    split: str,
    detector: Path,
    folders: Sequence[str],
    tile_side: int | None = None,
    zoom_out: float | None = None,
    per_scene: int = 6,
) -> list[Item]:
    """The scenes of ``folders`` (those made) in ``split``, each with its labelled pieces plus
    up to ``per_scene`` hard negatives ("none"): boxes ``detector`` finds at
    ``HARD_NEGATIVE_CONF`` that overlap no labelled piece (IoU < ``HARD_NEGATIVE_IOU``), most
    confident first; in the whole photo, and with ``tile_side`` / ``zoom_out`` also in the
    recogniser's other passes. Without a detector file: the scenes alone."""
    items: list[Item] = []
    for folder in folders:
        if (work / folder / split).is_dir():
            items += synth_items(work, split, folder)
    if not detector.is_file():
        print(f"reader: no detector at {detector}: no hard negatives")
        return items
    import cv2

    from training.readers import NOT_A_PIECE
    from vision.detector import OnnxDetector
    from vision.twostage import DetectorPasses, Passes

    finder = DetectorPasses(OnnxDetector(detector))
    passes = Passes(HARD_NEGATIVE_CONF, zoom_out=zoom_out, tile_side=tile_side)
    started, added = time.time(), 0
    with_negatives: list[Item] = []
    for image, pieces in items:
        boxes = np.array([box for _label, box in pieces], np.float32).reshape(-1, 4)
        bgr = cv2.imread(str(image))
        if bgr is None:
            raise ValueError(f"{image}: not an image")
        found = sorted(finder.detect(bgr, passes), key=lambda d: -d.score)
        negatives = [
            (NOT_A_PIECE, list(det.box))
            for det in found
            if max_iou(det.box, boxes) < HARD_NEGATIVE_IOU
        ][:per_scene]
        added += len(negatives)
        with_negatives.append((image, list(pieces) + negatives))
    print(
        f"reader: {added} hard negatives from {len(items)} scenes ({time.time() - started:.0f} s)"
    )
    return with_negatives


def max_iou(box, boxes: np.ndarray) -> float:
    """The highest intersection over union of ``box`` with any of ``boxes`` (N x 4); 0 for
    none."""
    if not len(boxes):
        return 0.0
    ix = np.clip(np.minimum(boxes[:, 2], box[2]) - np.maximum(boxes[:, 0], box[0]), 0, None)
    iy = np.clip(np.minimum(boxes[:, 3], box[3]) - np.maximum(boxes[:, 1], box[1]), 0, None)
    inter = ix * iy
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    union = areas + (box[2] - box[0]) * (box[3] - box[1]) - inter
    return float((inter / np.maximum(union, 1e-6)).max())
