"""The shared shape of the domino and card recognisers: a class-agnostic detector finds the
pieces (dominoes) or their corner indices (cards), and a small two-head reader reads a crop cut
square to each box from the full-resolution photo, as is and turned half a turn (averaged)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.crops import cut_crop, to_tensor
from vision.detector import Detection, OnnxDetector, open_session
from vision.errors import RecogniserUnavailable

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
WHOLE_PHOTO_SCORE = 0.5  # the "detector score" of a whole photo read as one piece


@dataclass(frozen=True)
class Reading:
    detection: Detection
    first: np.ndarray  # probabilities of the first head (its last class is "none")
    second: np.ndarray  # probabilities of the second head

    @property
    def none(self) -> float:
        return float(self.first[-1])


class DetectAndRead:
    """Loads ``detector_file`` and ``reader_file`` from ``models_dir``; ``read`` runs both."""

    def __init__(self, models_dir: Path, detector_file: str, reader_file: str, kind: str):
        paths = [Path(models_dir) / detector_file, Path(models_dir) / reader_file]
        for path in paths:
            if not path.is_file():
                raise RecogniserUnavailable(
                    f"{kind} cannot be read from photos yet: the model {path.name} is missing "
                    f"(train it with `python -m vision.training.train_pieces --kind {kind} "
                    "--out models`)"
                )
        self.detector = OnnxDetector(paths[0])
        self.reader = open_session(paths[1])
        shape = self.reader.get_inputs()[0].shape
        self.crop_size = int(shape[2]) if isinstance(shape[2], int) else 64

    def detect(
        self, bgr: np.ndarray, conf: float, iou: float = 0.6, zoom_out: float | None = None
    ) -> list[Detection]:
        """Boxes in ``bgr``; with ``zoom_out`` (e.g. 2.0) also in the photo shrunk that much onto
        a grey canvas (a close-up's pieces then look like the pieces of a table photo), merged
        by non-maximum suppression."""
        detections = self.detector.detect(bgr, conf=conf, iou=iou)
        if zoom_out is None:
            return detections
        h, w = bgr.shape[:2]
        big_h, big_w = int(h * zoom_out), int(w * zoom_out)
        canvas = np.full((big_h, big_w, 3), 114, np.uint8)
        top, left = (big_h - h) // 2, (big_w - w) // 2
        canvas[top : top + h, left : left + w] = bgr
        for d in self.detector.detect(canvas, conf=conf, iou=iou):
            x1, y1, x2, y2 = d.box
            box = (
                float(np.clip(x1 - left, 0, w)),
                float(np.clip(y1 - top, 0, h)),
                float(np.clip(x2 - left, 0, w)),
                float(np.clip(y2 - top, 0, h)),
            )
            if box[2] - box[0] >= 2 and box[3] - box[1] >= 2:
                detections.append(Detection(box, d.score, d.cls))
        if not detections:
            return []
        xywh = [[d.box[0], d.box[1], d.box[2] - d.box[0], d.box[3] - d.box[1]] for d in detections]
        keep = cv2.dnn.NMSBoxes(xywh, [d.score for d in detections], conf, iou)
        return [detections[i] for i in np.array(keep, int).reshape(-1)]

    def read(
        self,
        bgr: np.ndarray,
        conf: float,
        iou: float = 0.6,
        zoom_out: float | None = None,
        whole_photo: bool = False,
    ) -> list[Reading]:
        """Detect and read. ``whole_photo``: when nothing is found in a photo shaped like one
        piece, read the whole photo as that piece (a tight crop of a single piece fills the
        frame, unlike anything the detector learned); the reader's "none" class then decides
        whether it is a piece at all."""
        detections = self.detect(bgr, conf, iou, zoom_out)
        h, w = bgr.shape[:2]
        if not detections and whole_photo and _piece_shaped(w, h):
            detections = [Detection((0.0, 0.0, float(w), float(h)), WHOLE_PHOTO_SCORE, 0)]
        return self.read_boxes(bgr, detections)

    def read_boxes(self, bgr: np.ndarray, detections: list[Detection]) -> list[Reading]:
        """Read the given boxes (detected, or known: a test's true boxes, a user's box)."""
        if not detections:
            return []
        crops = [cut_crop(bgr, d.box, self.crop_size) for d in detections]
        views = crops + [np.ascontiguousarray(c[::-1, ::-1]) for c in crops]
        first, second = self.reader.run(None, {"crops": to_tensor(views)})
        n = len(crops)
        first = (first[:n] + first[n:]) / 2
        second = (second[:n] + second[n:]) / 2
        return [Reading(d, f, s) for d, f, s in zip(detections, first, second, strict=True)]


def _piece_shaped(w: int, h: int) -> bool:
    """A photo shaped like a domino (about 1:2): a tight crop of one piece. A photo of a table
    (4:3, 16:9) never is, so an empty table is never read as a blank 0-0."""
    return 0.38 <= min(w, h) / max(w, h) <= 0.62


def clip_box(box, scale: float, width: int, height: int) -> list[float]:
    """A detector box (in the decoded image) in the pixels of the image as displayed."""
    x1, y1, x2, y2 = (round(v * scale, 1) for v in box)
    return [min(x1, width), min(y1, height), min(x2, width), min(y2, height)]


MAX_ALTERNATIVES = 3


def piece_entry(ranked: list[tuple[str, float]], reading: Reading, loaded) -> dict:
    """One reported piece: the best label, its box in the displayed image, its confidence
    (probability x detector score^(1/4)) and up to 3 alternatives with probability >= 0.01."""
    label, p = ranked[0]
    return {
        "label": label,
        "bbox": clip_box(reading.detection.box, loaded.scale, loaded.width, loaded.height),
        "confidence": round(p * reading.detection.score**0.25, 4),
        "alternatives": [
            [alt, round(q, 4)] for alt, q in ranked[1 : 1 + MAX_ALTERNATIVES] if q >= 0.01
        ],
    }
