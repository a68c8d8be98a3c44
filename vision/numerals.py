"""Numerals found and cut without knowing the printing: the second reader's geometry.

A tile is a light face with a numeral printed on it in one ink. The general text detector
(``vision.textreader.TextDetector``) finds the numerals of any printing as text lines; a row of
touching tiles comes back as one line ("2345678", "10111213"). ``find_numerals`` cuts each line
upright, takes the ink (``ink_mask``: what is darker or more colourful than the face), splits it
into its digits (connected components as tall as a digit) and joins the digits into numerals: a
"1" and the digit right after it, closer than a tile's margin, are one numeral ("10" .. "17");
every other digit is a numeral of its own. What each digit is comes from the general recogniser
(``TextRecogniser.text``), not from a model of any printing.

``numeral_crop`` cuts the numeral of a tile box (its ink's extent inside the tile) for the
recogniser, and ``ink_colour`` gives the colour of a numeral's ink, white-balanced by the tile's
face, for ``vision.inks``' clustering.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

# A component is a digit when it is at least this share of the line's height (a brand name or a
# mark under the numeral is smaller) and no wider than this many times its height.
DIGIT_HEIGHT = 0.35
DIGIT_WIDTH = 1.2
# the recogniser's canvas width for one digit's crop (48 px high)
DIGIT_CANVAS = 72
# ... and a component up to this much wider than tall is read as a two-digit numeral whose
# digits blurred into one (a "10" in a soft photo)
PAIR_WIDTH = 2.4
# a line's digits leaning more than this (horizontal shift per pixel of height) are stood upright
LEAN = 0.15
# Two digits are one numeral ("1" then a digit) when the gap between them is under this share of
# their height: inside a numeral the digits nearly touch, between tiles lie two face margins.
JOIN_GAP = 0.35
# a line is turned half a turn where its digits read better so by this much (summed confidence)
WAY_UP_MARGIN = 0.5


@dataclass(frozen=True)
class Numeral:
    """A numeral found on a text line: its rotated rectangle ((cx, cy), (w, h), angle) in photo
    pixels, the angle its way up (turning the photo by it, ``cv2.getRotationMatrix2D``'s sense,
    stands it upright), its height along that upright, and the text read in it."""

    rect: tuple
    text: str
    line_score: float
    # whether its line's digits read clearly better this way up than turned (else it is taken as
    # cut, the photo's own way up, and read both ways later: a row of 6, 8 and 9 reads as well
    # either way)
    way_up_read: bool = True

    @property
    def height(self) -> float:
        return float(self.rect[1][1])


def upright_cut(bgr: np.ndarray, rect, pad_w: float = 0.0, pad_h: float = 0.0):
    """The rotated rectangle ``rect`` cut standing upright (turned by its angle), with ``pad_w``
    and ``pad_h`` of its height added left and right, above and below; and the affine map from
    the photo to the cut."""
    (cx, cy), (w, h), angle = rect
    width, height = round(w + 2 * pad_w * h), round(h + 2 * pad_h * h)
    matrix = cv2.getRotationMatrix2D((cx, cy), angle, 1.0)
    matrix[:, 2] += [width / 2 - cx, height / 2 - cy]
    size = (max(width, 1), max(height, 1))
    return cv2.warpAffine(bgr, matrix, size, borderMode=cv2.BORDER_REPLICATE), matrix


def upright_line(bgr: np.ndarray, rect, grow_w: float = 0.3, grow_h: float = 0.15):
    """The text line in ``rect`` (a rotated rectangle) cut with its long side horizontal,
    widened by ``grow_w`` line heights at each end and ``grow_h`` of its height above and below
    (a thin "1" at a line's end is often left out of it), the affine map from the photo to the
    cut, and the angle it was turned by."""
    (cx, cy), (w, h), angle = rect
    if w < h:
        w, h, angle = h, w, angle + 90
    cut, matrix = upright_cut(bgr, ((cx, cy), (w, h), angle), grow_w, grow_h)
    return cut, matrix, angle


def digit_ink(
    cut: np.ndarray, least: float = 0.2, most: float = 0.9, mask: np.ndarray | None = None
) -> np.ndarray | None:
    """The ink of the numeral in a cut around it (a piece's face, or a numeral with a margin):
    its components as tall as a digit (``least`` to ``most`` of the cut's height, no wider
    than tall by ``DIGIT_WIDTH``) that touch no side (a neighbour's numeral reaching in does),
    and of those the ones at least 0.6 as tall as the tallest. A 0/1 mask; None without.
    ``mask``: the cut's ``ink_mask``, where the caller has it already."""
    mask = ink_mask(cut) if mask is None else mask
    height, width = mask.shape
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    digits = [
        (k, h)
        for k, (x, y, w, h, _area) in enumerate(stats[1:count], start=1)
        if least * height <= h <= most * height
        and w <= DIGIT_WIDTH * h
        and x > 0
        and y > 0
        and x + w < width
        and y + h < height
    ]
    if not digits:
        return None
    tallest = max(h for _k, h in digits)
    return np.isin(labels, [k for k, h in digits if h >= 0.6 * tallest]).astype(np.uint8)


def ink_mask(bgr: np.ndarray) -> np.ndarray:
    """The ink of a light face: darker than the face (its 90th lightness percentile) or more
    colourful, split from the face by Otsu's threshold. uint8 0/255."""
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    lightness = lab[..., 0]
    chroma = np.hypot(lab[..., 1] - 128, lab[..., 2] - 128)
    ink = np.clip(np.percentile(lightness, 90) - lightness, 0, None) + 2 * chroma
    top = float(ink.max())
    if top <= 1:
        return np.zeros(bgr.shape[:2], np.uint8)
    ink8 = np.clip(ink * (255 / top), 0, 255).astype(np.uint8)
    _, mask = cv2.threshold(ink8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return mask


def digit_boxes(mask: np.ndarray) -> tuple[list[tuple[int, int, int, int, int]], np.ndarray]:
    """The digits of an upright line's ink: components as tall as a digit, left to right, as
    (x1, y1, x2, y2, component), and the components' label image."""
    height = mask.shape[0]
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    boxes = []
    for k, (x, y, w, h, _area) in enumerate(stats[1:count], start=1):
        if DIGIT_HEIGHT * height <= h < 0.98 * height and w <= PAIR_WIDTH * h:
            boxes.append((int(x), int(y), int(x + w), int(y + h), k))
    return sorted(boxes), labels


def digit_crop(cut: np.ndarray, labels: np.ndarray, box) -> np.ndarray:
    """One digit of an upright line cut out alone: its box with a margin, everything but its
    own component painted the face's colour (``ink_only``). A slanted neighbour's stroke or a
    tile's dark edge in the box would be read as a second digit ("18" for an 8 beside a tile's
    edge)."""
    x1, y1, x2, y2, k = box
    pad = 0.15 * (y2 - y1)
    px1, py1, px2, py2 = pad_box((x1, y1, x2, y2), pad, cut.shape[1], cut.shape[0])
    owner = labels[py1:py2, px1:px2]
    return ink_only(cut[py1:py2, px1:px2], owner == k, owner == 0)


def line_lean(labels: np.ndarray, boxes) -> float:
    """How far a line's digits lean (horizontal shift per pixel up; the median of its digit
    components' second moments, as MNIST's deskewing measures it): a row seen from the side
    leans its numerals like italics, which the text recogniser often cannot read."""
    leans = []
    for x1, y1, x2, y2, k in boxes:
        ys, xs = np.nonzero(labels[y1:y2, x1:x2] == k)
        if len(xs) < 10:
            continue
        dy = ys - ys.mean()
        spread = float((dy * dy).mean())
        if spread > 0:
            leans.append(float(((xs - xs.mean()) * dy).mean()) / spread)
    return float(np.median(leans)) if leans else 0.0


def upright_digit(crop: np.ndarray, lean: float) -> np.ndarray:
    """``crop`` sheared so that a digit leaning by ``lean`` stands upright, where it leans more
    than ``LEAN``; the margin painted as its border."""
    if abs(lean) <= LEAN:
        return crop
    h, w = crop.shape[:2]
    pad = int(abs(lean) * h / 2) + 1
    matrix = np.array([[1, -lean, lean * h / 2 + pad], [0, 1, 0]], np.float32)
    return cv2.warpAffine(crop, matrix, (w + 2 * pad, h), borderMode=cv2.BORDER_REPLICATE)


def ink_only(crop: np.ndarray, ink: np.ndarray, face: np.ndarray) -> np.ndarray:
    """``crop`` with everything but ``ink`` (grown by a pixel, for its soft edge) painted the
    median colour of ``face`` (both masks of the crop's shape)."""
    crop = crop.copy()
    own = cv2.dilate(ink.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    if face.any():
        crop[~own] = np.median(crop[face], axis=0).astype(np.uint8)
    return crop


def join_digits(boxes, digits: list[str], largest: int = 17) -> list[list[int]]:
    """Which digits form each numeral: a "1" and the digit after it when the gap between them
    is under ``JOIN_GAP`` of their height and they spell a numeral up to ``largest``, the
    narrowest gaps joined first (so "1111" on two tiles is 11 and 11)."""
    pairs = []
    for i in range(len(boxes) - 1):
        a, b = boxes[i], boxes[i + 1]
        height = max(a[3] - a[1], b[3] - b[1])
        gap = b[0] - a[2]
        spells = digits[i] == "1" and digits[i + 1].isdigit()
        if spells and int("1" + digits[i + 1]) <= largest and gap < JOIN_GAP * height:
            pairs.append((gap / height, i))
    joined: set[int] = set()
    starts = set()
    for _gap, i in sorted(pairs):
        if i in joined or i + 1 in joined:
            continue
        joined |= {i, i + 1}
        starts.add(i)
    groups, i = [], 0
    while i < len(boxes):
        if i in starts:
            groups.append([i, i + 1])
            i += 2
        else:
            groups.append([i])
            i += 1
    return groups


def as_digit(text: str) -> str:
    """What a single digit's crop reads as a digit: the text's one digit (in any of its forms:
    a full-width "２"), "1" for the strokes a thin 1 is read as, "" for anything else."""
    found = [c for c in unicodedata.normalize("NFKC", text) if c in "0123456789"]
    if len(found) == 1:
        return found[0]
    if not found and text.strip() in {"I", "l", "|", "丨", "i", "!", "]", "["}:
        return "1"
    return ""


def photo_rect(matrix: np.ndarray, box, angle: float) -> tuple:
    """The rotated rectangle in the photo of an axis-aligned ``box`` in an upright cut made
    with ``matrix`` at ``angle`` (``upright_line``)."""
    x1, y1, x2, y2 = box
    centre = np.array([[[(x1 + x2) / 2, (y1 + y2) / 2]]], np.float32)
    cx, cy = cv2.transform(centre, cv2.invertAffineTransform(matrix))[0, 0]
    return ((float(cx), float(cy)), (float(x2 - x1), float(y2 - y1)), float(angle))


def as_component(text: str, box, largest: int = 17, lean: float = 0.0) -> str:
    """What a component of a line reads as: one digit (``as_digit``); or, where it is wider
    than a digit (``DIGIT_WIDTH``) once stood upright (a digit leaning by ``lean`` more than
    ``LEAN`` is wider by its shear: a 7 on a rack seen from the side), a two-digit numeral up
    to ``largest`` whose digits blurred into one; "" for anything else."""
    x1, y1, x2, y2 = box[:4]
    shear = abs(lean) * (y2 - y1) if abs(lean) > LEAN else 0.0
    if x2 - x1 - shear <= DIGIT_WIDTH * (y2 - y1):
        return as_digit(text)
    found = "".join(c for c in unicodedata.normalize("NFKC", text) if c in "0123456789")
    return found if len(found) == 2 and found[0] == "1" and int(found) <= largest else ""


def _digit_score(texts: list[tuple[str, float]], boxes, largest: int, lean: float) -> float:
    """How well a line's components read as digits: the summed confidence of those that do."""
    read = zip(texts, boxes, strict=True)
    return sum(p for (text, p), box in read if as_component(text, box, largest, lean))


def _read_components(recogniser, crops: list[np.ndarray]) -> list[tuple[str, float]]:
    """``recogniser.text`` of each crop: one digit's on a canvas ``DIGIT_CANVAS`` wide (a digit
    fits it whole; three quarters of the work of the recogniser's own 96 px), a wider component's on
    the recogniser's own."""
    narrow = [k for k, c in enumerate(crops) if c.shape[1] <= DIGIT_WIDTH * c.shape[0]]
    wide = [k for k, c in enumerate(crops) if c.shape[1] > DIGIT_WIDTH * c.shape[0]]
    texts: list[tuple[str, float]] = [("", 0.0)] * len(crops)
    for group, width in ((narrow, DIGIT_CANVAS), (wide, None)):
        for k, read in zip(group, recogniser.text([crops[k] for k in group], width), strict=True):
            texts[k] = read
    return texts


def find_numerals(
    bgr: np.ndarray,
    text_boxes,
    recogniser,
    largest: int = 17,
    tall_enough: Callable[[tuple], bool] | None = None,
) -> list[Numeral]:
    """The numerals on the text lines ``text_boxes`` (``TextDetector.detect``) of a photo, each
    read by ``recogniser`` (``TextRecogniser``) digit by digit. ``tall_enough``: whether a
    component (its rotated rectangle in the photo) is tall enough to be read at all (a brand
    name's letters under a tile's numeral are not: reading them is most of the work)."""
    cuts = []  # (line index, upright cut, matrix, angle, digit boxes)
    crops = []
    for k, box in enumerate(text_boxes):
        cut, matrix, angle = upright_line(bgr, box.rect)
        boxes, labels = digit_boxes(ink_mask(cut))
        if boxes:
            lean = line_lean(labels, boxes)
            if tall_enough is not None:
                boxes = [b for b in boxes if tall_enough(photo_rect(matrix, b[:4], angle))]
                if not boxes:
                    continue
            cuts.append((k, cut, matrix, angle, boxes, lean))
            crops += [upright_digit(digit_crop(cut, labels, b), lean) for b in boxes]
    # each line read as cut and turned half a turn: the way its digits read better is up
    texts = _read_components(recogniser, crops + [c[::-1, ::-1] for c in crops])
    numerals, n = [], 0
    for k, cut, matrix, angle, boxes, lean in cuts:
        count = len(boxes)
        as_cut = texts[n : n + count]
        turned = texts[len(crops) + n : len(crops) + n + count]
        n += count
        lead = _digit_score(turned, boxes, largest, lean) - _digit_score(
            as_cut, boxes, largest, lean
        )
        if lead > WAY_UP_MARGIN:
            width = cut.shape[1]
            digits = [
                as_component(t, b, largest, lean) for (t, _p), b in zip(turned, boxes, strict=True)
            ]
            boxes = [(width - b[2], b[1], width - b[0], b[3], b[4]) for b in boxes][::-1]
            digits = digits[::-1]
            up = angle + 180.0
        else:
            digits = [
                as_component(t, b, largest, lean) for (t, _p), b in zip(as_cut, boxes, strict=True)
            ]
            up = angle
        for group in join_digits(boxes, digits, largest):
            text = "".join(digits[i] for i in group)
            if any(not digits[i] for i in group):
                continue  # a component read as no digit: a mark, not a numeral
            x1 = min(boxes[i][0] for i in group)
            y1 = min(boxes[i][1] for i in group)
            x2 = max(boxes[i][2] for i in group)
            y2 = max(boxes[i][3] for i in group)
            if up != angle:  # back to the cut's own pixels to find the centre
                x1, x2 = cut.shape[1] - x2, cut.shape[1] - x1
            rect = photo_rect(matrix, (x1, y1, x2, y2), up)
            numerals.append(Numeral(rect, text, text_boxes[k].score, abs(lead) > WAY_UP_MARGIN))
    return numerals


def rect_box(rect) -> tuple[float, float, float, float]:
    """The axis-aligned extent of a rotated rectangle."""
    corners = cv2.boxPoints(rect)
    return (
        float(corners[:, 0].min()),
        float(corners[:, 1].min()),
        float(corners[:, 0].max()),
        float(corners[:, 1].max()),
    )


def pad_box(box, pad: float, width: int, height: int):
    x1, y1, x2, y2 = box
    return (
        max(0, int(x1 - pad)),
        max(0, int(y1 - pad)),
        min(width, math.ceil(x2 + pad)),
        min(height, math.ceil(y2 + pad)),
    )
