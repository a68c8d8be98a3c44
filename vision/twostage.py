"""The shared steps of every recogniser (``vision/pipeline.py``): a class-agnostic detector
finds the pieces (tiles, dominoes) or their corner indices (cards) in up to four passes
(``DetectorPasses``), and a small two-head reader reads a crop cut square to each box from the
full-resolution photo, as is and turned half a turn (averaged), with more looks at some boxes
(``read_boxes``); ``drop_repeats`` keeps one report per piece."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.crops import cut_crop, cut_quadrant, read_views, tile_angle
from vision.detector import Detection, OnnxDetector, Placement
from vision.settings import Looks, Passes, Piece, SizedPasses

__all__ = ["Looks", "Passes", "SizedPasses"]  # the settings of its steps (``vision.settings``)


@dataclass(frozen=True)
class SecondReading:
    """What the text recogniser (``vision.second``) read on one piece: the probability of each
    of the kind's numerals (``SecondReader.numerals``' order) and of no numeral, and whether it
    agrees with the piece reader (``fuse``)."""

    numerals: np.ndarray
    # None: it read nothing, and the piece reader's own sure rule decides (``unread_stands``)
    agreed: bool | None = False
    other: int | None = None  # the first-head class the piece reader said, where they differ
    # read standing upright (a numeral on a text line) and a numeral read: a 6 or a 9 is
    # settled by this reading, not by the way up of its meld
    settled: bool = False


@dataclass(frozen=True)
class Reading:
    detection: Detection
    first: np.ndarray  # probabilities of the first head (its last class is "none")
    second: np.ndarray  # probabilities of the second head
    # Each head's probabilities in the two views (the crop, and it turned half a turn), 2 x
    # classes: ``first`` and ``second`` are their means.
    first_views: np.ndarray | None = None
    second_views: np.ndarray | None = None
    # With a reader's ``value_turn`` head: first-head classes x the photo's four quadrants
    # (counter-clockwise from upright) the piece's top may point to, jointly; both views'
    # mean, each view's turn within its crop brought to the photo's frame (``_reading``).
    turns: np.ndarray | None = None
    # What a second reader read on the same piece (``SecondReading``), once fused.
    second_reading: SecondReading | None = None

    @property
    def none(self) -> float:
        return float(self.first[-1])


class DetectorPasses:
    """A detector run over a photo in up to four passes (``detect``); the training uses it
    alone to mine the boxes the shipped pipeline would find (hard negatives)."""

    def __init__(self, detector: OnnxDetector):
        self.detector = detector

    def detect(
        self, bgr: np.ndarray, passes: Passes, whole: list[Detection] | None = None
    ) -> list[Detection]:
        """Boxes in ``bgr`` scoring at least ``passes.score``, from the whole photo and the
        optional passes of ``passes``, merged by non-maximum suppression (``passes.iou``):

        - ``zoom_out`` (e.g. 2.0): the photo shrunk that much onto a grey canvas (a close-up's
          pieces then look like the pieces of a table photo);
        - ``tile_side`` (e.g. 1600): overlapping detector-sized tiles of the photo at its own
          pixels, at most ``tile_side`` on the long side (small pieces, such as a card's corner
          index on a table photo, are a few pixels when the whole photo is shrunk to the
          detector's input, and the size the detector learned in a tile), overlapping by at
          least ``tile_overlap`` of a tile (a piece no taller or wider than that is whole in
          one of them);
        - ``quarter_turn``: the whole photo turned a quarter (a card lying sideways shows its
          indices sideways, which the card detector boxes less often than upright or upside
          down ones; turned, they are upright or upside down). Its boxes are kept beside the
          other passes' rather than suppressed against them: a piece boxed both ways is read
          both ways, and ``drop_repeats`` keeps the surer reading (a turned pass's box that
          outscores the upright one may cut the index worse);
        - ``sized``: the tiles' scale and overlap and the zoomed-out pass chosen from the
          whole pass's boxes (``SizedPasses``);
        - ``zoom_further``: where the zoomed-out pass still shows a close-up (``_still_close``:
          nothing boxed surely by it or the whole pass, or its boxes as long as the whole
          pass's that called for it), the photo shrunk that much more (one piece filling the
          frame, its marks still larger at ``zoom_out`` than any the detector learned);
        - ``diagonal_beyond``: where a rotated box lies that many degrees or more off the photo's
          axes, the photo turned 45 degrees too (a real thick domino near 45 degrees is boxed
          short or not at all); a box of that pass on a box of the others is its twin
          (``with_twins``: both read, the surer reading kept), any other a piece of its own.

        ``whole``: the whole-photo pass's boxes, when already found (not run again)."""
        conf, iou = passes.score, passes.iou
        zoom_out, tile_side = passes.zoom_out, passes.tile_side
        detections = list(whole) if whole is not None else self.detector.detect(bgr, conf, iou)
        overlap = passes.tile_overlap
        if passes.sized is not None:
            zoom_out, tile_side, overlap = passes.sized.choose(
                detections, bgr.shape[:2], min(self.detector.size), zoom_out, tile_side, overlap
            )
        if zoom_out is not None:
            zoomed = self._zoomed_out(bgr, conf, iou, zoom_out)
            further = passes.zoom_further
            if further is not None and self._still_close(detections, zoomed, bgr, zoom_out, passes):
                zoomed += self._zoomed_out(bgr, conf, iou, further)
            detections += zoomed
        if tile_side is not None:
            detections += self._tiled(bgr, conf, iou, tile_side, overlap)
        if zoom_out is not None or tile_side is not None:
            detections = suppress_overlaps(detections, conf, iou)
        if passes.quarter_turn:
            detections += self._quarter_turned(bgr, conf, iou)
        beyond = passes.diagonal_beyond
        if beyond is not None and any(
            d.rotated is not None and off_axes(d.rotated[2]) >= beyond for d in detections
        ):
            detections = with_twins(detections, self._diagonal_turned(bgr, conf, iou))
        return detections

    def _still_close(
        self,
        whole: list[Detection],
        zoomed: list[Detection],
        bgr: np.ndarray,
        zoom_out: float,
        passes: Passes,
    ) -> bool:
        """Whether the photo zoomed out ``zoom_out`` times still shows a close-up's pieces:
        neither pass boxed anything (surely, ``SizedPasses.score``, with ``passes.sized``), or
        the zoomed-out pass boxed something at least ``SizedPasses.zoom_px`` long in its input."""
        sized = passes.sized
        least = sized.score if sized is not None else 0.0
        if not any(d.score >= least for d in whole + zoomed):
            return True
        if sized is None:
            return False
        scale = min(1.0, min(self.detector.size) / max(bgr.shape[:2])) / zoom_out
        return any(
            d.score >= least
            and max(d.box[2] - d.box[0], d.box[3] - d.box[1]) * scale >= sized.zoom_px
            for d in zoomed
        )

    def _zoomed_out(self, bgr: np.ndarray, conf: float, iou: float, zoom_out: float):
        h, w = bgr.shape[:2]
        big_h, big_w = int(h * zoom_out), int(w * zoom_out)
        top, left = (big_h - h) // 2, (big_w - w) // 2
        placed = Placement(big_h, big_w, top, left)
        found = []
        for d in self.detector.detect(bgr, conf=conf, iou=iou, placed=placed):
            x1, y1, x2, y2 = d.box
            box = (
                float(np.clip(x1 - left, 0, w)),
                float(np.clip(y1 - top, 0, h)),
                float(np.clip(x2 - left, 0, w)),
                float(np.clip(y2 - top, 0, h)),
            )
            if box[2] - box[0] >= 2 and box[3] - box[1] >= 2:
                found.append(Detection(box, d.score, d.cls, moved_rotated(d.rotated, -left, -top)))
        return found

    def _quarter_turned(self, bgr: np.ndarray, conf: float, iou: float) -> list[Detection]:
        """The boxes of the whole photo turned a quarter clockwise, turned back: a point
        (x, y) of the turned photo is (y, height - x) of the photo."""
        height = bgr.shape[0]
        found = []
        for d in self.detector.detect(bgr, conf=conf, iou=iou, turned=True):
            x1, y1, x2, y2 = d.box
            rotated = None
            if d.rotated is not None:
                points = cv2.boxPoints(d.rotated)
                rotated = rect_of(np.stack([points[:, 1], height - points[:, 0]], 1))
            found.append(Detection((y1, height - x2, y2, height - x1), d.score, d.cls, rotated))
        return found

    def _diagonal_turned(self, bgr: np.ndarray, conf: float, iou: float) -> list[Detection]:
        """The rotated boxes of the whole photo turned an eighth of a turn (its canvas grown to
        keep every corner, the rest filled with the photo's median colour), turned back."""
        h, w = bgr.shape[:2]
        turned, turn = turned_whole(bgr, DIAGONAL_TURN)
        back = cv2.invertAffineTransform(turn)
        found = []
        for d in self.detector.detect(turned, conf=conf, iou=iou):
            if d.rotated is None:
                continue
            points = cv2.boxPoints(d.rotated) @ back[:, :2].T + back[:, 2]
            rotated = rect_of(points)
            x1, y1 = np.clip(points.min(axis=0), 0, (w, h))
            x2, y2 = np.clip(points.max(axis=0), 0, (w, h))
            if x2 - x1 >= 2 and y2 - y1 >= 2:
                box = (float(x1), float(y1), float(x2), float(y2))
                found.append(Detection(box, d.score, d.cls, rotated))
        return found

    def _tiled(self, bgr: np.ndarray, conf: float, iou: float, tile_side: int, overlap: float):
        h, w = bgr.shape[:2]
        scale = min(1.0, tile_side / max(h, w))
        image = bgr
        if scale < 1.0:
            size = (round(w * scale), round(h * scale))
            image = cv2.resize(bgr, size, interpolation=cv2.INTER_AREA)
        tile = min(self.detector.size)
        height, width = image.shape[:2]
        if max(height, width) <= tile:  # the whole-photo pass already saw it at this size
            return []
        found = []
        for y in tile_starts(height, tile, overlap):
            for x in tile_starts(width, tile, overlap):
                part = image[y : y + tile, x : x + tile]
                for d in self.detector.detect(part, conf=conf, iou=iou):
                    x1, y1, x2, y2 = d.box
                    # A box cut by a tile's inner edge is a piece seen in part: the
                    # neighbouring tile (they overlap) sees it whole.
                    cut = (
                        (x1 <= 1 and x > 0)
                        or (y1 <= 1 and y > 0)
                        or (x2 >= part.shape[1] - 1 and x + tile < width)
                        or (y2 >= part.shape[0] - 1 and y + tile < height)
                    )
                    if not cut:
                        box = (
                            (x1 + x) / scale,
                            (y1 + y) / scale,
                            (x2 + x) / scale,
                            (y2 + y) / scale,
                        )
                        rotated = moved_rotated(d.rotated, x, y, scale)
                        found.append(Detection(box, d.score, d.cls, rotated))
        return found


def reader_crop_size(reader, default: int = 64) -> int:
    """The square crop side a reader session takes (``default`` when its input is dynamic)."""
    shape = reader.get_inputs()[0].shape
    return int(shape[2]) if isinstance(shape[2], int) else default


PLAIN_LOOKS = Looks()  # a box read as is and turned half a turn only


def read_boxes(
    reader,
    bgr: np.ndarray,
    detections: list[Detection],
    crop_size: int,
    looks: Looks = PLAIN_LOOKS,
) -> list[Reading]:
    """Read the given boxes (detected, or known: a test's true boxes, a user's box) with a
    two-head ``reader``: each box's crop cut square to the piece, read as is and turned half a
    turn (averaged), with the extra ``looks``."""
    if not detections:
        return []

    def angle(d: Detection) -> float:
        """A rotated box gives the piece's angle; otherwise it is estimated from the edges."""
        if d.rotated is not None and looks.angle == "box":
            return (d.rotated[2] + 45) % 90 - 45
        return tile_angle(bgr, d.box)

    angles = [angle(d) for d in detections]

    def where(boxes_and_angles) -> list[tuple]:
        """(box, angle to cut at, the rotated box's sides at it) of (box index, angle)."""
        return [(detections[i].box, t, _sides(detections[i], t)) for i, t in boxes_and_angles]

    def cut(cuts) -> list[np.ndarray]:
        return [cut_crop(bgr, box, crop_size, theta=t, sides=sides) for box, t, sides in cuts]

    def read(boxes_and_angles) -> Views:
        cuts = where(boxes_and_angles)
        quadrants = [cut_quadrant(box, t, sides) for box, t, sides in cuts]
        return Views(read_views(reader, cut(cuts)), quadrants)

    looked = list(enumerate(angles))
    # More looks at some boxes, as (box index, angle to cut at); the surest reading is kept.
    extra: list[tuple[int, float]] = []
    # Where the angle estimate is far from the box's axes, the box may be right and the
    # estimate wrong (round pips outweigh a domino's sides): the box is also read square.
    limit = looks.square_beyond
    if limit is not None:
        extra += [
            (i, 0.0)
            for i, (d, a) in enumerate(zip(detections, angles, strict=True))
            if d.rotated is None and abs(a) > limit
        ]
    # A rotated box's angle can be off where the edges are clear (a lone domino at 45
    # degrees boxed at 21): where the edge estimate disagrees by more than
    # ``estimate_beyond``, the crop at the estimated angle is read too.
    limit = looks.estimate_beyond
    if limit is not None:
        for i, (d, a) in enumerate(zip(detections, angles, strict=True)):
            if d.rotated is not None:
                estimate = tile_angle(bgr, d.box)
                if abs((estimate - a + 45) % 90 - 45) > limit:
                    extra.append((i, estimate))
    m = len(detections)  # the extra looks' crops follow the detections' own
    views = read(looked + extra)
    readings = [_reading(d, views, k) for k, d in enumerate(detections)]
    readings = _surest(readings, extra, views, m)
    # A box with a twin (the same piece boxed by the diagonal pass): the twin read too, the
    # surer reading kept with its box, which the looks below then cut.
    twinned = [i for i, d in enumerate(detections) if d.twin is not None]
    if twinned:
        twins = [d.twin for d in detections if d.twin is not None]  # in twinned's order
        once = replace(looks, turned=(), halves_below=None)
        detections, angles = list(detections), list(angles)
        for i, twin in zip(twinned, read_boxes(reader, bgr, twins, crop_size, once), strict=True):
            if _sureness(twin) > _sureness(readings[i]):
                readings[i] = twin
                detections[i] = twin.detection
                angles[i] = angle(twin.detection)
    # A box still read unsurely is also read cut at its angle turned by each of ``turned``
    # degrees: a small piece's angle (a card's corner index in a fan) is estimated roughly.
    # Sure readings (of a piece or of "none") are not read again.
    unsure = [i for i, r in enumerate(readings) if max(r.none, _sureness(r)) < looks.turned_below]
    extra = [(i, angles[i] + turn) for turn in looks.turned for i in unsure]
    if extra:
        readings = _surest(readings, extra, read(extra))
    if looks.halves_below is not None:
        unsure = [i for i, r in enumerate(readings) if _sureness(r) < looks.halves_below]
        if unsure:
            cuts = cut(where([(i, angles[i]) for i in unsure]))
            crops = [half for crop in cuts for half in doubled_halves(crop)]
            first, second = (head.mean(axis=0) for head in read_views(reader, crops)[:2])
            for n, i in enumerate(unsure):
                halves = [(first[2 * n + h], second[2 * n + h]) for h in (0, 1)]
                readings[i] = merged_with_halves(readings[i], *halves)
    return readings


def _sides(detection: Detection, theta: float) -> tuple[float, float] | None:
    """A rotated box's sides along the axes of ``theta`` where ``theta`` is the box's own angle
    (give or take quarter turns); None otherwise (``cut_geometry`` then takes them from the
    axis-aligned box, which cannot tell them apart near 45 degrees)."""
    if detection.rotated is None:
        return None
    _centre, (w, h), angle = detection.rotated
    quarters = (angle - theta) / 90.0
    if abs(quarters - round(quarters)) > 1e-3:
        return None
    return (w, h) if round(quarters) % 2 == 0 else (h, w)


def doubled_halves(crop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A two-half piece's crop (long side vertical) as two doubles: each half with itself
    turned half a turn in place of the other half."""
    middle = crop.shape[0] // 2
    top, bottom = crop[:middle], crop[middle:]
    return np.vstack([top, top[::-1, ::-1]]), np.vstack([bottom[::-1, ::-1], bottom])


def merged_with_halves(reading: Reading, half_a, half_b) -> Reading:
    """``reading`` of a two-half piece (first head: the smaller half and "none"; second: the
    larger) merged with the readings of its halves as doubles (``doubled_halves``; each a
    (first, second) pair of probabilities): each half's count is both heads' geometric mean,
    the smaller and the larger of the two counts follow, and each head becomes the geometric
    mean of what it said and what they say (agreeing, it says the same; "none" keeps its
    share)."""

    def count(first: np.ndarray, second: np.ndarray) -> np.ndarray:
        p = np.sqrt(first[:-1] * second)
        return p / max(float(p.sum()), 1e-12)

    a, b = count(*half_a), count(*half_b)
    at_least = np.cumsum(a[::-1])[::-1] * np.cumsum(b[::-1])[::-1]  # P(smaller >= n)
    smaller = at_least - np.append(at_least[1:], 0.0)
    at_most = np.cumsum(a) * np.cumsum(b)  # P(larger <= n)
    larger = at_most - np.insert(at_most[:-1], 0, 0.0)
    first = reading.first.copy()
    piece = np.sqrt(first[:-1] * np.clip(smaller, 0.0, None))
    first[:-1] = piece / max(float(piece.sum()), 1e-12) * (1.0 - first[-1])
    second = np.sqrt(reading.second * np.clip(larger, 0.0, None))
    second = second / max(float(second.sum()), 1e-12)
    return replace(reading, first=first, second=second)


@dataclass(frozen=True)
class Views:
    """A reader's outputs for some crops (``read_views``: each head 2 x N x classes) and the
    quadrant each crop was cut at (``cut_quadrant``)."""

    heads: tuple[np.ndarray, ...]
    quadrants: list[int]


def _reading(detection: Detection, views: Views, k: int) -> Reading:
    """The reading of ``detection`` from the ``k``-th crop of ``views``."""
    first, second, *rest = views.heads
    turns = None
    if rest:  # value x turn in each view; the half-turned view shows the piece 2 turns on
        as_is, turned = (rest[0][view, k].reshape(len(first[0, k]), 4) for view in (0, 1))
        joint = (as_is + np.roll(turned, -2, axis=1)) / 2
        # turned t in a crop of quadrant c: quadrant c - t of the photo
        turns = joint[:, (views.quadrants[k] - np.arange(4)) % 4]
    return Reading(
        detection,
        (first[0, k] + first[1, k]) / 2,
        (second[0, k] + second[1, k]) / 2,
        first[:, k],
        second[:, k],
        turns,
    )


def _surest(readings: list[Reading], looks, views, offset: int = 0) -> list:
    """``readings`` with each box's reading replaced by a surer one among its ``looks`` (box
    index, angle), read as the crops from ``offset`` on of ``views``."""
    readings = list(readings)
    for k, (i, _angle) in enumerate(looks):
        other = _reading(readings[i].detection, views, offset + k)
        if _sureness(other) > _sureness(readings[i]):
            readings[i] = other
    return readings


def _sureness(reading: Reading) -> float:
    """How sure a reading is: its best first-head class other than "none" times its best
    second-head class."""
    return float(reading.first[:-1].max() * reading.second.max())


def drop_repeats(pieces: list[Piece], overlap: float = 0.5, any_label: bool = False) -> list[Piece]:
    """One report per piece: a reading with the same label as a more confident one whose box
    (rotated, where both have one) shares more than ``overlap`` of the smaller box is that
    piece found twice (by two passes of the detector, or two boxes on one tile); two pieces
    with one label lie side by side, never half on top of each other. ``any_label``: whatever
    the labels (one place, one piece: the less sure reading is a misreading of it). Keeps the
    order."""
    ranked = sorted(range(len(pieces)), key=lambda i: -pieces[i].confidence)
    kept: list[int] = []
    for i in ranked:
        if not any(
            (any_label or pieces[k].label == pieces[i].label)
            and _shared_piece(pieces[i], pieces[k]) > overlap
            for k in kept
        ):
            kept.append(i)
    return [pieces[i] for i in sorted(kept)]


def doubt_repeats(pieces: list[Piece], overlap: float) -> list[Piece]:
    """``pieces`` with every two of different labels whose boxes share more than ``overlap`` of
    the smaller marked not agreed (never sure): one tile read twice, whole and in part (a 13,
    and a 3 on a box over its right half), is not two tiles; both stay, and the page asks."""
    doubted: set[int] = set()
    for i, j in itertools.combinations(range(len(pieces)), 2):
        if pieces[i].label != pieces[j].label and _shared_piece(pieces[i], pieces[j]) > overlap:
            doubted |= {i, j}
    return [replace(p, agreed=False) if i in doubted else p for i, p in enumerate(pieces)]


def _shared_piece(a: Piece, b: Piece) -> float:
    """What two reported pieces share, as a share of the smaller: by their rotated boxes where
    both have one (two dominoes side by side at 45 degrees share half their extents)."""
    if a.rotated is not None and b.rotated is not None:
        return shared_share(a.rotated, b.rotated)
    return shared_box(a.bbox, b.bbox)


def shared_box(a, b) -> float:
    """The intersection of two boxes as a share of the smaller one."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return w * h / max(smaller, 1e-9)


def tile_starts(length: int, tile: int, overlap: float = 0.25) -> list[int]:
    """Starts of the fewest tiles of ``tile`` px covering ``length`` px and overlapping by at
    least ``overlap`` of a tile, spread evenly (every overlap alike)."""
    if length <= tile:
        return [0]
    step = tile - math.ceil(tile * overlap)
    gaps = math.ceil((length - tile) / step)
    return [round(i * (length - tile) / gaps) for i in range(gaps + 1)]


def moved_rotated(rotated, dx: float, dy: float, scale: float = 1.0):
    """A rotated box shifted by (dx, dy), then scaled by 1 / ``scale`` (None stays None)."""
    if rotated is None:
        return None
    (cx, cy), (w, h), angle = rotated
    return ((cx + dx) / scale, (cy + dy) / scale), (w / scale, h / scale), angle


DIAGONAL_TURN = 45.0  # degrees: the diagonal pass's turn, the farthest from both axes


def turned_whole(bgr: np.ndarray, degrees: float) -> tuple[np.ndarray, np.ndarray]:
    """The photo turned ``degrees`` counter-clockwise on a canvas grown to keep every corner,
    beyond them a plain table of the photo's median colour (a mirror would show pieces that are
    not there), and the 2x3 matrix taking the photo's points to the turned one's."""
    h, w = bgr.shape[:2]
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    cos, sin = abs(turn[0, 0]), abs(turn[0, 1])
    size = (math.ceil(w * cos + h * sin - 1e-9), math.ceil(w * sin + h * cos - 1e-9))
    turn[:, 2] += (size[0] - w) / 2, (size[1] - h) / 2
    fill = table_colour(bgr)
    turned = cv2.warpAffine(bgr, turn, size, borderMode=cv2.BORDER_CONSTANT, borderValue=fill)
    return turned, turn


def table_colour(bgr: np.ndarray) -> tuple[float, ...]:
    """The photo's median colour (of every 97th pixel: enough for a median, and quick)."""
    return tuple(float(c) for c in np.median(bgr.reshape(-1, 3)[::97], axis=0))


def rect_of(points: np.ndarray):
    """The rotated box ((cx, cy), (w, h), angle) of a box's four corners, in plain floats."""
    (cx, cy), sides, angle = cv2.minAreaRect(points.astype(np.float32))
    return (float(cx), float(cy)), (float(sides[0]), float(sides[1])), float(angle)


def off_axes(angle: float) -> float:
    """How many degrees a box at ``angle`` lies off the nearer of the photo's axes (0-45)."""
    folded = angle % 90.0
    return min(folded, 90.0 - folded)


def shared_share(a, b) -> float:
    """The area two rotated boxes share, as a share of the smaller one's."""
    kind, points = cv2.rotatedRectangleIntersection(a, b)
    if kind == cv2.INTERSECT_NONE or points is None:
        return 0.0
    shared = cv2.contourArea(cv2.convexHull(points))
    smaller = min(a[1][0] * a[1][1], b[1][0] * b[1][1])
    return float(shared / smaller) if smaller > 0 else 0.0


def with_twins(
    detections: list[Detection], turned: list[Detection], overlap: float = 0.5
) -> list[Detection]:
    """``detections`` joined with the diagonal pass's (``turned``): a box sharing more than
    ``overlap`` of the smaller with one of ``detections`` (the most, where several) is its
    twin, the same piece boxed turned 45 degrees (``read_boxes`` reads both and keeps the
    surer reading, so the piece is reported once); one sharing none is a piece only that pass
    found; a second twin of one box is left out."""
    kept = list(detections)
    for box in turned:
        shares = [
            shared_share(d.rotated, box.rotated) if d.rotated is not None else 0.0 for d in kept
        ]
        best = int(np.argmax(shares)) if shares else -1
        if best < 0 or shares[best] <= overlap:
            kept.append(box)
        elif kept[best].twin is None:
            kept[best] = replace(kept[best], twin=box)
    return kept


def suppress_overlaps(detections: list[Detection], conf: float, iou: float) -> list[Detection]:
    """Non-maximum suppression over detections from several passes (rotated NMS when every
    detection has a rotated box)."""
    if not detections:
        return []
    if all(d.rotated is not None for d in detections):
        rects = [d.rotated for d in detections if d.rotated is not None]  # all of them
        keep = cv2.dnn.NMSBoxesRotated(rects, [d.score for d in detections], conf, iou)
        return [detections[i] for i in np.array(keep, int).reshape(-1)]
    xywh = [[d.box[0], d.box[1], d.box[2] - d.box[0], d.box[3] - d.box[1]] for d in detections]
    keep = cv2.dnn.NMSBoxes(xywh, [d.score for d in detections], conf, iou)
    return [detections[i] for i in np.array(keep, int).reshape(-1)]
