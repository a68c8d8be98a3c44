"""The pip count: a second, printing-independent reading of a domino's two halves, by
counting the round marks on each side of its dividing line (no learned model).

Why: the domino reader learned rendered sets and a few real ones; on a set nobody here trained
on it can read a half with a count the half does not have, sure. Counting pips depends on no
printing: pips are round marks of one size on the face, in any colour, on either side of a
line. It judges the reader's label (``PipCheck``, ``disagrees``): a half counted clearly
otherwise makes the domino unsure; a half it cannot count clearly (pips cut by the photo's
edge, glare merging pips, pips pressed into the face without ink) leaves the reader's own sure
rule standing.

How (``domino_pips``, ``count_pips``): the domino cut upright along its box, with a margin; the
pixels far from the face's colour (its median, in Lab) are marks; the face is the unmarked
region in the box holding its middle, and its holes are the pips (a pip cut by the box is no
hole, and spoils its half); the dividing line is the thin straight run across the face near its
middle, and a domino whose line lies askew is cut again along it. A half is counted only where
its face is whole (convex, about square, without a notch: a pip the box cuts) and its pips are round
and of one size.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.crops import cut_geometry, cut_mapping
from vision.settings import PipCheck


def upright_box(bbox, rotated) -> tuple[tuple[float, float], tuple[float, float], float]:
    """A domino's box as ((cx, cy), (short side, long side), angle): the angle that stands it
    upright, its long side vertical. From its ``rotated`` box where known, else from ``bbox``."""
    if rotated is not None:
        centre, (w, h), angle = rotated
        return (centre, (h, w), angle + 90.0) if w > h else (centre, (w, h), angle)
    x1, y1, x2, y2 = (float(v) for v in bbox)
    angle, short, long = cut_geometry(bbox, 0.0)
    return ((x1 + x2) / 2, (y1 + y2) / 2), (short, long), angle


def domino_cut(
    bgr: np.ndarray, box, width: int, margin: float
) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """The domino in ``box`` (``upright_box``) cut upright with ``margin`` of its short side
    added round it, onto ``width`` x 2 ``width`` pixels; and the box in the cut (x1, y1, x2,
    y2). A box reaching past the photo's edge is cut all grey: nothing to count."""
    (cx, cy), (short, long), angle = box
    added = 2 * margin * short
    centre = (cx - 1.0, cy - 1.0, cx + 1.0, cy + 1.0)  # ``cut_mapping`` uses only its middle
    mapping = cut_mapping(centre, angle, (short + added, long + added), (width, 2 * width))
    cut = cv2.warpAffine(
        bgr,
        mapping,
        (width, 2 * width),
        flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP,
        borderValue=(114, 114, 114),
    )
    left = round(width * margin * short / (short + added))
    top = round(2 * width * margin * short / (long + added))
    frame = (left, top, width - left, 2 * width - top)
    corners = np.array([[x, y, 1.0] for x in frame[::2] for y in frame[1::2]]) @ mapping.T
    height_px, width_px = bgr.shape[:2]
    if (corners < 0).any() or (corners[:, 0] > width_px).any() or (corners[:, 1] > height_px).any():
        cut[:] = 114
    return cut, frame


def domino_pips(bgr: np.ndarray, bbox, rotated, check: PipCheck) -> tuple[int | None, int | None]:
    """The pips counted on each half of the domino in ``bbox`` (its ``rotated`` box where
    known; ``count_pips``). Where its dividing line lies more than ``check.askew`` degrees off
    level in the cut (the box's angle is off), it is cut again along the line and counted so."""
    box = upright_box(bbox, rotated)
    counts, slope = count_pips(*domino_cut(bgr, box, check.width, check.margin), check)
    if slope is None or abs(np.degrees(np.arctan(slope))) <= check.askew:
        return counts
    centre, sides, angle = box
    along = (centre, sides, angle + float(np.degrees(np.arctan(slope))))
    return count_pips(*domino_cut(bgr, along, check.width, check.margin), check)[0]


def marks(cut: np.ndarray) -> np.ndarray:
    """The pixels of ``cut`` far from its face's colour (the median of its middle, in Lab):
    uint8 mask, 255 a mark."""
    height, width = cut.shape[:2]
    lab = cv2.cvtColor(cut, cv2.COLOR_BGR2LAB).astype(np.float32)
    middle = lab[height // 4 : -height // 4, width // 4 : -width // 4].reshape(-1, 3)
    distance = np.linalg.norm(lab - np.median(middle, axis=0), axis=2)
    scaled = np.clip(distance * 3, 0, 255).astype(np.uint8)
    _, mask = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return mask


def _middle_region(unmarked: np.ndarray) -> np.ndarray:
    """The connected region of ``unmarked`` that covers most of the cut's middle."""
    height, width = unmarked.shape
    count, labels = cv2.connectedComponents(unmarked)
    middle = labels[height // 2 - height // 8 : height // 2 + height // 8, width // 4 : -width // 4]
    found = np.bincount(middle.ravel(), minlength=count)
    found[0] = 0  # marks
    return np.where(labels == int(found.argmax()), 255, 0).astype(np.uint8)


def face_and_holes(mask: np.ndarray, frame) -> tuple[np.ndarray, np.ndarray]:
    """The face within ``frame`` (x1, y1, x2, y2: the unmarked region there holding the
    middle) with its holes filled, and the holes: marks the face surrounds (pips; a pip cut by
    the face's edge or the frame is no hole)."""
    height, width = mask.shape
    x1, y1, x2, y2 = frame
    unmarked = np.zeros_like(mask)
    unmarked[y1:y2, x1:x2] = cv2.bitwise_not(mask[y1:y2, x1:x2])
    face = _middle_region(unmarked)
    outside = cv2.copyMakeBorder(cv2.bitwise_not(face), 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=255)
    cv2.floodFill(outside, np.zeros((height + 4, width + 4), np.uint8), (0, 0), 0)
    holes = outside[1:-1, 1:-1]
    return face | holes, holes


def _dividing_line(mask: np.ndarray, check: PipCheck) -> np.ndarray:
    """The thin straight runs of ``mask`` at least ``check.line_length`` of its width long, at
    slopes up to ``check.line_slope`` degrees: the dividing line (and nothing round)."""
    width = mask.shape[1]
    length = max(3, round(check.line_length * width))
    line = np.zeros_like(mask)
    for degrees in range(-check.line_slope, check.line_slope + 1, 2):
        kernel = np.zeros((length, length), np.uint8)
        rise = np.tan(np.radians(degrees)) * length / 2
        ends = round(length / 2 - rise), round(length / 2 + rise)
        cv2.line(kernel, (0, ends[0]), (length - 1, ends[1]), 1, 1)
        rows = np.nonzero(kernel.any(axis=1))[0]
        line |= cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel[rows.min() : rows.max() + 1])
    # only thin runs: a dark patch (a shadow, something lying over the face) is full of runs
    count, labels = cv2.connectedComponents(line)
    for k in range(1, count):
        points = cv2.findNonZero(np.where(labels == k, 255, 0).astype(np.uint8))
        if min(cv2.minAreaRect(points)[1]) > check.line_thickness * width:
            line[labels == k] = 0
    return line


def count_pips(
    cut: np.ndarray, frame: tuple[int, int, int, int], check: PipCheck
) -> tuple[tuple[int | None, int | None], float | None]:
    """The pips counted on the upper and the lower half of an upright domino ``cut`` boxed by
    ``frame`` (``domino_cut``); None where a half cannot be counted clearly (not all face and
    pips: covered, cut by the photo's edge), and for both where no dividing line is found. A
    half with no pips counts None too: a blank half and pips too faint to see look alike. And
    the dividing line's slope in the cut (rows per column; None: no line found)."""
    mask = marks(cut)
    domino, holes = face_and_holes(mask, frame)
    height, width = holes.shape
    x1, y1, x2, y2 = frame
    short, long = x2 - x1, y2 - y1
    framed = np.zeros_like(mask)
    framed[y1:y2, x1:x2] = mask[y1:y2, x1:x2]
    line = _dividing_line(framed, check)
    run = line.sum(axis=1) / 255
    rows = np.arange(height)
    middle = np.abs(rows - height / 2) < check.line_from_middle * height
    across = middle & (run > check.line_across * short)
    if not across.any():
        return (None, None), None
    ys, xs = np.nonzero(line * middle[:, None])
    # the line as it lies (a domino cut a little askew): row = slope * column + offset
    slope, offset = np.polyfit(xs, ys, 1) if np.ptp(xs) > 0 else (0.0, float(ys.mean()))
    bar = cv2.dilate(line, np.ones((3, 1), np.uint8))  # the line and a pixel above and below
    pips = cv2.subtract(holes, bar)
    pips = cv2.morphologyEx(pips, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    count, _labels, stats, centres = cv2.connectedComponentsWithStats(pips)
    face = short * long
    blobs: list[tuple[bool, int, bool]] = []  # (above the line, area, whether it spoils its half)
    for k in range(1, count):
        _x, _y, w, h, area = (int(v) for v in stats[k])
        if area < check.smallest * face:
            continue  # a speck
        odd = area > check.largest * face or not 0.5 < w / h < 2 or area < check.fill * w * h
        column, row = centres[k]
        blobs.append((row < slope * column + offset, area, odd))  # odd: glare, a smudge, a letter
    clean = [area for _, area, odd in blobs if not odd]
    typical = float(np.median(clean)) if clean else 1.0
    # pips the box cuts or leaves out (a box shorter or narrower than its domino): round marks
    # of a pip's size that are no holes of its face, beside the box or past its ends, spoil
    # their half (a neighbour's pips there too: its half is left uncounted)
    loose = cv2.subtract(mask, cv2.bitwise_or(holes, bar))
    count, _labels, stats, centres = cv2.connectedComponentsWithStats(loose)
    reach = check.reach * np.sqrt(typical)
    for k in range(1, count):
        x, _y, w, h, area = (int(v) for v in stats[k])
        near = x < x2 + reach and x + w > x1 - reach  # and anywhere past the ends
        if near and check.speck * typical < area < check.sizes * typical and 0.5 < w / h < 2:
            column, row = centres[k]
            blobs.append((row < slope * column + offset, area, True))

    columns, rows_at = np.meshgrid(np.arange(width), rows)
    upper_side = rows_at < slope * columns + offset
    inside = np.zeros_like(upper_side)
    inside[y1:y2, x1:x2] = True

    def whole(upper: bool) -> bool:
        """Whether the half's face is whole: convex (nothing lies over it), about square (not
        cut short by the photo's edge) and without a notch (a pip the box cuts)."""
        half = np.where(inside & (upper_side == upper) & (domino > 0), 255, 0).astype(np.uint8)
        points = cv2.findNonZero(half)
        if points is None:
            return False
        hull = cv2.contourArea(cv2.convexHull(points))
        _x, _y, across, along = cv2.boundingRect(points)
        if len(points) < check.solid * hull or along < check.square * across:
            return False
        # a notch in the face's outline as deep as a good part of a pip: a pip the box cuts,
        # run into the domino's dark side
        outline = max(cv2.findContours(half, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0], key=len)
        try:
            defects = cv2.convexityDefects(outline, cv2.convexHull(outline, returnPoints=False))
        except cv2.error:  # an outline crossing itself: not a whole face
            return False
        depths = np.zeros(1) if defects is None else defects.reshape(-1, 4)[:, 3] / 256
        return float(depths.max(initial=0.0)) < check.notch * np.sqrt(typical)

    def counted(upper: bool) -> int | None:
        if not whole(upper):
            return None
        half = [
            (area, odd)
            for above, area, odd in blobs
            if above == upper and area > check.speck * typical
        ]
        areas = [area for area, _ in half]
        if not half or any(odd for _, odd in half) or max(areas) > check.sizes * min(areas):
            return None
        return len(half)

    return (counted(True), counted(False)), float(slope)


def disagrees(label: str, counts: tuple[int | None, int | None]) -> bool:
    """Whether the halves counted clearly contradict the domino ``label`` ("lo-hi")."""
    halves = sorted(int(v) for v in label.split("-"))
    clear = [c for c in counts if c is not None]
    if len(clear) == 2:
        return sorted(clear) != halves
    return len(clear) == 1 and clear[0] not in halves
