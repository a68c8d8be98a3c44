"""A YOLO detector exported to ONNX, run with onnxruntime (no torch, no ultralytics).

Handles both ONNX output layouts of ultralytics 8.4: end-to-end heads (YOLO26, or ``nms=True``)
give ``(1, N, 6)`` = x1, y1, x2, y2, score, class in input pixels; classic heads give
``(1, 4 + nc, N)`` = cx, cy, w, h, class scores, which need NMS (done here with OpenCV).
Rotated-box (OBB) models, one class, give ``(1, 6, N)`` = cx, cy, w, h, score, angle (radians,
``w`` along the angle's direction), and get rotated NMS.
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import cv2
import numpy as np


def session_options(threads: int | None = None):
    import onnxruntime as ort

    options = ort.SessionOptions()
    threads = threads or int(os.environ.get("MELDCAM_THREADS", "0")) or min(2, os.cpu_count() or 1)
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # No arena of onnxruntime's own: each session's arena grows to its largest run and keeps
    # it for good (a 2000-px photo's reading left the tile reader holding ~900 MB; 150 MB
    # without, as fast within the noise of a shared machine). Tensors come from
    # malloc, which the server hands back after each photo (``webapp.photos``).
    options.enable_cpu_mem_arena = False
    return options


# The metadata key of a quantised detector (``training.quantise``) naming the SHA-256 of the
# float detector it was made from.
QUANTISED_FROM = "quantised_from_sha256"


def file_sha256(path: Path) -> str:
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def open_session(path: Path):
    import onnxruntime as ort

    return ort.InferenceSession(
        str(path), sess_options=session_options(), providers=["CPUExecutionProvider"]
    )


@dataclass(frozen=True)
class Detection:
    box: tuple[float, float, float, float]  # x1, y1, x2, y2 in the given image's pixels
    score: float
    cls: int
    # Rotated-box models only: the piece's centre, sides (w along ``angle``) and angle in
    # degrees, in the given image's pixels; ``box`` is then the rotated box's extent.
    rotated: tuple[tuple[float, float], tuple[float, float], float] | None = None
    # The same piece boxed by another pass (``DetectorPasses``' diagonal pass): read too, the
    # surer reading kept with its box.
    twin: Detection | None = None
    # The numeral the piece prints, where it was found on a text line (``vision.numerals``): its
    # rotated rectangle ((cx, cy), (w, h), angle), whose angle stands it upright (turning the
    # photo by it, ``cv2.getRotationMatrix2D``'s sense).
    numeral: tuple | None = None
    # ... and whether its way up was read there (``vision.numerals.Numeral.way_up_read``)
    numeral_way_up: bool = False


@dataclass(frozen=True)
class Placement:
    """An image standing at (``top``, ``left``) on a grey (114) canvas of ``height`` x
    ``width``: the zoomed-out pass's photo, shrunk to a close-up's scale."""

    height: int
    width: int
    top: int
    left: int


def _aligned_span(start: int, length: int, size: int, new_size: int) -> tuple[int, int, int, int]:
    """Along one axis of a canvas of ``size`` px shrunk to ``new_size``: the smallest span of
    output pixels covering the image at ``start`` (``length`` px) whose both ends fall on
    whole canvas pixels, as (canvas start, canvas end, output start, output end). Area
    averaging over that span alone gives the same output pixels as over the whole canvas."""
    scale = Fraction(size, new_size)
    first = math.floor(start / scale)
    while (first * scale).denominator != 1:
        first -= 1
    last = math.ceil((start + length) / scale)
    while (last * scale).denominator != 1:
        last += 1
    return int(first * scale), int(last * scale), first, last


def _placed_resize(
    bgr: np.ndarray, placed: Placement, new_hw: tuple[int, int]
) -> tuple[np.ndarray, tuple[int, int]]:
    """The part of ``placed``'s canvas shrunk to ``new_hw`` that holds the image, and where it
    goes in the shrunk canvas (the rest is plain grey): only a grey border a few pixels wide
    is built around the image, not the whole canvas (for a 1600 px photo zoomed out 2x, a
    quarter of the pixels to fill and shrink, and less than half the time)."""
    h, w = bgr.shape[:2]
    y0, y1, out_y0, out_y1 = _aligned_span(placed.top, h, placed.height, new_hw[0])
    x0, x1, out_x0, out_x1 = _aligned_span(placed.left, w, placed.width, new_hw[1])
    part = np.full((y1 - y0, x1 - x0, 3), 114, np.uint8)
    part[placed.top - y0 : placed.top - y0 + h, placed.left - x0 : placed.left - x0 + w] = bgr
    shrunk = cv2.resize(part, (out_x1 - out_x0, out_y1 - out_y0), interpolation=cv2.INTER_AREA)
    return shrunk, (out_y0, out_x0)


class OnnxDetector:
    def __init__(self, path: Path):
        self.session = open_session(path)
        shape = self.session.get_inputs()[0].shape
        self.input_name = self.session.get_inputs()[0].name
        self.size = (int(shape[2]), int(shape[3])) if isinstance(shape[2], int) else (416, 416)
        out_shape = self.session.get_outputs()[0].shape
        self.rotated = len(out_shape) == 3 and out_shape[1] == 6  # cx cy w h score angle
        # a quantised detector's float original (its SHA-256); None for a float detector
        self.quantised_from = self.session.get_modelmeta().custom_metadata_map.get(QUANTISED_FROM)
        # The last photo shrunk to the input (``shrunk``): the whole-photo pass and the
        # quarter-turned pass shrink the same photo.
        self._shrunk: tuple[np.ndarray, np.ndarray] | None = None

    def shrunk(self, bgr: np.ndarray) -> np.ndarray:
        """``bgr`` resized (area averaging) to fit the detector's input, keeping its shape. The
        last photo's is kept and given again for the same array (a loaded photo is never
        changed in place); an image that already fits exactly (a tile) is given as it is."""
        target_h, target_w = self.size
        h, w = bgr.shape[:2]
        ratio = min(target_h / h, target_w / w)
        size = (round(w * ratio), round(h * ratio))
        if size == (w, h):
            return bgr
        last = self._shrunk  # read once: another thread may set it meanwhile
        if last is not None and last[0] is bgr:
            return last[1]
        resized = cv2.resize(bgr, size, interpolation=cv2.INTER_AREA)
        self._shrunk = (bgr, resized)
        return resized

    def letterbox(
        self, bgr: np.ndarray, placed: Placement | None = None, turned: bool = False
    ) -> tuple[np.ndarray, float, float, float]:
        """The detector's input: the image shrunk to fit its size (area averaging) on grey
        (114), with the scale and the left and top padding. ``placed``: the image stands on a
        larger grey canvas (a zoomed-out pass); the result is the canvas's letterbox, made
        without building the canvas (``_placed_resize``). ``turned``: the image turned a
        quarter clockwise, turned after shrinking (the same pixels as shrunk after turning,
        for a fraction of the work)."""
        target_h, target_w = self.size
        h, w = bgr.shape[:2] if placed is None else (placed.height, placed.width)
        if turned:
            h, w = w, h
        ratio = min(target_h / h, target_w / w)
        new_w, new_h = round(w * ratio), round(h * ratio)
        pad_x, pad_y = (target_w - new_w) / 2, (target_h - new_h) / 2
        top, left = round(pad_y - 0.1), round(pad_x - 0.1)
        canvas = np.full((target_h, target_w, 3), 114, np.uint8)
        if placed is None:
            resized = self.shrunk(bgr)
            if turned:
                resized = cv2.rotate(resized, cv2.ROTATE_90_CLOCKWISE)
            canvas[top : top + new_h, left : left + new_w] = resized
        else:
            part, (y0, x0) = _placed_resize(bgr, placed, (new_h, new_w))
            part_h, part_w = part.shape[:2]
            canvas[top + y0 : top + y0 + part_h, left + x0 : left + x0 + part_w] = part
        return canvas, ratio, left, top

    def detect(
        self,
        bgr: np.ndarray,
        conf: float = 0.25,
        iou: float = 0.6,
        placed: Placement | None = None,
        turned: bool = False,
    ) -> list[Detection]:
        """Boxes in ``bgr``'s pixels, or with ``placed`` in the canvas's (clipped to it), or
        with ``turned`` in the pixels of ``bgr`` turned a quarter clockwise."""
        canvas, ratio, left, top = self.letterbox(bgr, placed, turned)
        image_hw = bgr.shape[:2] if placed is None else (placed.height, placed.width)
        if turned:
            image_hw = image_hw[::-1]
        # RGB, 0..1, NCHW in one pass (half the time of slicing, transposing and scaling).
        blob = cv2.dnn.blobFromImage(canvas, 1 / 255.0, swapRB=True)
        out = self.session.run(None, {self.input_name: blob})[0]
        if self.rotated:
            return self._rotated(out[0].T, image_hw, conf, iou, ratio, left, top)
        if out.ndim == 3 and out.shape[2] == 6:  # end-to-end: x1 y1 x2 y2 score class
            rows = out[0]
            boxes, scores, classes = rows[:, :4], rows[:, 4], rows[:, 5].astype(int)
        else:  # (1, 4 + nc, N): cx cy w h scores
            pred = out[0].T
            scores_all = pred[:, 4:]
            classes = scores_all.argmax(1)
            scores = scores_all.max(1)
            cx, cy, bw, bh = pred[:, 0], pred[:, 1], pred[:, 2], pred[:, 3]
            boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], 1)
        keep = scores >= conf
        boxes, scores, classes = boxes[keep], scores[keep], classes[keep]
        if len(boxes):
            xywh = np.concatenate([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]], 1)
            picked = cv2.dnn.NMSBoxes(xywh.tolist(), scores.tolist(), conf, iou)
            idx = np.array(picked, int).reshape(-1)
            boxes, scores, classes = boxes[idx], scores[idx], classes[idx]
        h, w = image_hw
        result = []
        for box, score, cls in zip(boxes, scores, classes, strict=True):
            x1 = float(np.clip((box[0] - left) / ratio, 0, w))
            y1 = float(np.clip((box[1] - top) / ratio, 0, h))
            x2 = float(np.clip((box[2] - left) / ratio, 0, w))
            y2 = float(np.clip((box[3] - top) / ratio, 0, h))
            if x2 - x1 >= 2 and y2 - y1 >= 2:
                result.append(Detection((x1, y1, x2, y2), float(score), int(cls)))
        return result

    def _rotated(self, pred, image_hw, conf, iou, ratio, left, top) -> list[Detection]:
        """Rotated boxes ``pred`` (N x 6 in letterbox pixels) -> detections after rotated NMS."""
        pred = pred[pred[:, 4] >= conf]
        if not len(pred):
            return []
        rects = [
            ((float(cx), float(cy)), (float(w), float(h)), float(np.degrees(a)))
            for cx, cy, w, h, _score, a in pred
        ]
        idx = np.array(cv2.dnn.NMSBoxesRotated(rects, pred[:, 4].tolist(), conf, iou), int)
        h, w = image_hw
        result = []
        for i in idx.reshape(-1):
            (cx, cy), (rw, rh), angle = rects[i]
            centre = ((cx - left) / ratio, (cy - top) / ratio)
            sides = (rw / ratio, rh / ratio)
            corners = cv2.boxPoints((centre, sides, angle))
            x1, y1 = np.clip(corners.min(0), 0, [w, h])
            x2, y2 = np.clip(corners.max(0), 0, [w, h])
            if x2 - x1 >= 2 and y2 - y1 >= 2:
                box = (float(x1), float(y1), float(x2), float(y2))
                result.append(Detection(box, float(pred[i, 4]), 0, (centre, sides, angle)))
        return result
