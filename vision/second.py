"""The second reader: a general text recogniser that has never seen a game piece reads each
piece's numeral too, and the pipeline (``vision.pipeline``) joins its reading with the piece
reader's (``fuse``). A piece is sure only where the two agree.

Why: the piece readers learned from rendered printings and a few real sets; on a set nobody here
trained on they read clear 12s as jokers, sure. PP-OCR's recogniser (``vision.textreader``)
learned from millions of real text images; what it reads does not depend on the printing.

Its settings (``SecondReader``) are per kind, in ``vision.kinds``; this module knows no kind.

- **Finding** (``with_numerals``): the text detector's long lines (a row of touching tiles on a
  rack, which the piece detector boxes as one piece or not at all) are split into numerals
  (``vision.numerals``); a numeral no box holds becomes a box of its own, a "1" and the digit
  after it that one tile-shaped box holds are one numeral (a printing whose digits stand
  apart), and a box holding two numerals far apart (two tiles boxed as one) is replaced by one
  box per numeral.
- **Reading** (``read_numerals``): each box's numeral cut from the face (its ink's extent), read
  as cut and turned half a turn; the view that reads a numeral more surely is kept.
- **Fusion** (``fuse``): a product of the two readers' probabilities, the piece reader's
  tempered; they agree when both name the label's value (a joker: the general recogniser reads
  no numeral there).
- **Judging** (``SecondReader.relabel`` off, cards): the rank at the top of each card index
  (``index_views``) only judges the card reader's label; a clear other rank disagrees and,
  with ``text_decides``, is the label (never sure), and where no rank is read the card
  reader's own sure rule stands.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision.crops import cut_crop, cut_geometry, cut_mapping, tile_angle
from vision.detector import Detection
from vision.inks import ink_of
from vision.numerals import (
    Numeral,
    digit_ink,
    find_numerals,
    ink_mask,
    ink_only,
    photo_rect,
    rect_box,
    upright_cut,
)
from vision.settings import SecondReader
from vision.textreader import TextBox, TextDetector, TextRecogniser
from vision.twostage import Reading, SecondReading

# The numeral crop cut from a piece's face: a portrait crop of this size (tiles are about 3:4).
FACE_SIZE = (96, 128)
# ... with this share of the numeral's height round it
NUMERAL_MARGIN = 0.2
# A line's component shorter than this share of ``SecondReader.least_share`` is not read: no
# numeral it could join passes ``_tall_enough`` (a brand name's letters, most of the components)
READ_MARGIN = 0.8


class SecondReaderModels:
    """The general recogniser and detector a ``SecondReader`` runs, loaded once."""

    def __init__(self, settings: SecondReader, model_path):
        self.settings = settings
        self.recogniser = TextRecogniser(model_path(settings.recogniser_file))
        self.detector = (
            TextDetector(model_path(settings.detector_file), side=settings.detector_side)
            if settings.find
            else None
        )
        self.texts = tuple(text for _cls, text in settings.numerals)

    def find(self, bgr: np.ndarray, detections: list[Detection]) -> list[Detection]:
        if self.detector is None:
            return detections
        lines = [b for b in self.detector.detect(bgr) if _long(b, self.settings.line_shape)]
        if not lines:
            return detections
        largest = max(int(t) for t in self.texts if t.isdigit())
        least = READ_MARGIN * self.settings.least_share

        def tall_enough(rect: tuple) -> bool:
            return _tall_enough(Numeral(rect, "", 0.0), detections, least)

        numerals = find_numerals(bgr, lines, self.recogniser, largest, tall_enough)
        return with_numerals(detections, numerals, self.settings)

    def read(self, bgr: np.ndarray, readings: list[Reading]) -> list[tuple]:
        """Each reading's (views, ink, decides): its box's numeral probabilities
        (``SecondReading.numerals``) in the views read, the numeral as cut, and turned half a
        turn where that view does not read one clearly or reads one of a pair that is the other
        turned (a 6, a 9); its ink's colour probabilities (``InkColours``; None without ink
        colours or where no ink shows), the inks named together, per photo; and whether the
        views may decide the label (``fuse``; not a card index read only turned a quarter)."""
        if not readings:
            return []
        if self.settings.cut == "index":
            return self._read_indices(bgr, readings)
        cut = [face_numeral(bgr, r.detection) for r in readings]
        crops = [crop for crop, _ink in cut]
        first = self.recogniser.numerals(crops, self.texts)
        twins = {self.texts.index(t) for pair in self.settings.turn_twins for t in pair}
        again = [
            k
            for k, p in enumerate(first)
            if not readings[k].detection.numeral_way_up
            and _way_up(readings[k].turns)[0] < self.settings.upright
            and (p[-1] > self.settings.clear or int(np.argmax(p[:-1])) in twins)
        ]
        turned = self.recogniser.numerals([crops[k][::-1, ::-1] for k in again], self.texts)
        views: list[tuple[np.ndarray, ...]] = [(p,) for p in first]
        for k, p in zip(again, turned, strict=True):
            views[k] = (first[k], p)
        inks = self.settings.inks
        colours = inks.name([ink for _crop, ink in cut]) if inks else [None] * len(cut)
        return [(v, colour, True) for v, colour in zip(views, colours, strict=True)]

    def _read_indices(self, bgr: np.ndarray, readings: list[Reading]) -> list[tuple]:
        """Each reading's (views, None, decides): the rank read at the top of its card index as
        cut and at the bottom turned half a turn (the suit below the rank reads as no numeral);
        where neither reads a rank in an about square box, the index turned a quarter, whose
        rank only judges (a sideways 7 or 8 can read as a letter: it must not relabel a card)."""
        views = self._ranks([view for r in readings for view in index_views(bgr, r.detection)])
        read = [(views[2 * i], views[2 * i + 1]) for i in range(len(readings))]
        decides = [True] * len(read)
        # An index read nowhere in an about square box may have been cut a quarter turn off (a
        # card lying near 45 degrees): it is cut again turned a quarter, and those views judge
        # where they read a rank clearly.
        unread = [
            i
            for i, (pair, r) in enumerate(zip(read, readings, strict=True))
            if _clear(pair) < self.settings.agree and _squarish(r.detection.box)
        ]
        if unread:
            quarter = [index_views(bgr, readings[i].detection, quarter=True) for i in unread]
            again = self._ranks([view for pair in quarter for view in pair])
            for n, i in enumerate(unread):
                pair = (again[2 * n], again[2 * n + 1])
                if _clear(pair) >= self.settings.agree:
                    read[i], decides[i] = pair, False
        return [(pair, None, may) for pair, may in zip(read, decides, strict=True)]

    def _ranks(self, crops: list[np.ndarray]) -> np.ndarray:
        """Each crop's numeral probabilities (``SecondReading.numerals``), a spelling's (a
        German B) counted for its numeral (J)."""
        texts = self.texts + tuple(text for text, _numeral in self.settings.spellings)
        read = self.recogniser.numerals(crops, texts, INDEX_CANVAS)
        count = len(self.texts)
        numerals = read[:, : count + 1].copy()
        numerals[:, count] = read[:, -1]  # none
        for k, (_text, numeral) in enumerate(self.settings.spellings):
            numerals[:, self.texts.index(numeral)] += read[:, count + k]
        return numerals


INDEX_MARGIN = 0.15  # of the index box's sides, added round it before the rank is cut
INDEX_TOP = 0.55  # the share of the index (rank over suit) the rank takes
INDEX_HEIGHT = 96  # pixels the index is cut to, upright
SQUARISH = 1.3  # a box no longer than this times its width may hold an index either way
INDEX_CANVAS = 64  # the recogniser's canvas for a rank (one or two characters; 96: 1.5x work)


def index_views(
    bgr: np.ndarray, detection: Detection, quarter: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """A card index's rank, cut along the index's sides (``tile_angle``; portrait; ``quarter``:
    turned a quarter more): the top of the index as cut, and its bottom turned half a turn (the
    rank where the card lies the other way up)."""
    theta = tile_angle(bgr, detection.box)
    angle, w, h = cut_geometry(detection.box, theta)
    if quarter:
        angle += 90.0
    w, h = w * (1 + 2 * INDEX_MARGIN), h * (1 + 2 * INDEX_MARGIN)
    out_h = INDEX_HEIGHT
    out_w = max(8, round(out_h * w / max(h, 1.0)))
    matrix = cut_mapping(detection.box, angle, (w, h), (out_w, out_h)).astype(np.float32)
    index = cv2.warpAffine(
        bgr,
        matrix,
        (out_w, out_h),
        flags=cv2.WARP_INVERSE_MAP | cv2.INTER_AREA,
        borderMode=cv2.BORDER_REPLICATE,
    )
    top = round(INDEX_TOP * out_h)
    return index[:top].copy(), index[::-1, ::-1][:top].copy()


def _squarish(box) -> bool:
    """Whether a box is about square (an index near 45 degrees), so that the way its index
    lies (portrait or landscape) may have been taken a quarter turn wrong."""
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    return max(w, h) <= SQUARISH * max(min(w, h), 1e-9)


def _clear(views) -> float:
    """How surely the likelier of ``views`` reads some rank (its best numeral's probability)."""
    return max(float(v[:-1].max()) for v in views)


def _long(box: TextBox, shape: float) -> bool:
    w, h = box.rect[1]
    return max(w, h) >= shape * max(min(w, h), 1.0)


def face_numeral(bgr: np.ndarray, detection: Detection) -> tuple[np.ndarray, tuple | None]:
    """The numeral printed on the piece in ``detection``, cut upright: its own rectangle with a
    margin where it was found on a text line; else the piece cut square to its sides (portrait,
    ``FACE_SIZE``; upright or upside down), then its ink's extent (``digit_ink``) with a margin,
    or the whole face where no digit shows (a joker's picture, a blank). With it, the colour
    of that ink (``vision.inks.ink_of``; None where there is none)."""
    if detection.numeral is not None:
        crop, _matrix = upright_cut(bgr, detection.numeral, NUMERAL_MARGIN, NUMERAL_MARGIN)
        all_ink = ink_mask(crop)
        ink = digit_ink(crop, least=0.4, most=0.95, mask=all_ink)
        if ink is None:
            return crop, None
        # the neighbours' numerals reach into a cut of tiles packed on a rack
        return ink_only(crop, ink > 0, all_ink == 0), ink_of(crop, ink)
    if detection.rotated is not None:
        theta = (detection.rotated[2] + 45) % 90 - 45
        sides = _sides_at(detection.rotated, theta)
    else:
        theta, sides = tile_angle(bgr, detection.box), None
    square = cut_crop(bgr, detection.box, FACE_SIZE[1], margin=0.0, theta=theta, sides=sides)
    face = cv2.resize(square, FACE_SIZE, interpolation=cv2.INTER_AREA)
    ink = digit_ink(face)
    if ink is None:
        return face, None
    ys, xs = np.nonzero(ink)
    x1, y1, x2, y2 = xs.min(), ys.min(), xs.max() + 1, ys.max() + 1
    pad = round(NUMERAL_MARGIN * (y2 - y1))
    box = (slice(max(0, y1 - pad), y2 + pad), slice(max(0, x1 - pad), x2 + pad))
    return face[box], ink_of(face[box], ink[box])


def _sides_at(rotated, theta: float):
    _centre, (w, h), angle = rotated
    quarters = round((angle - theta) / 90.0)
    return (w, h) if quarters % 2 == 0 else (h, w)


def with_numerals(detections: list[Detection], numerals, settings: SecondReader) -> list[Detection]:
    """``detections`` with the numerals found on text lines (``find_numerals``). Each numeral
    is a tile: a box that holds it well (the numeral near the box's middle along its line) is
    kept for it; a box holding two numerals far apart (two tiles boxed as one) or one numeral
    far off its middle (a box astride two tiles) is replaced by the tiles around its numerals
    (``numeral_tile``), and so is a numeral no box holds."""
    numerals = [n for n in numerals if _tall_enough(n, detections, settings.least_share)]
    texts = {text for _cls, text in settings.numerals}
    numerals = _one_tile_pairs(numerals, _holders(numerals, detections), detections, texts)
    holders = _holders(numerals, detections)
    share, aspect = tile_shape(detections, numerals, holders, settings)
    replaced = set()
    for i, held in holders.items():
        d = detections[i]
        centre = np.array([(d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2])
        for n in held:
            numeral = numerals[n]
            along = np.radians(numeral.rect[2])
            width = numeral.height / share * aspect
            offset = abs(float(np.dot(centre - numeral.rect[0], (np.cos(along), np.sin(along)))))
            if len(held) >= 2 or offset > settings.off_middle * width:
                replaced.add(i)
    kept = [
        _with_numeral(d, numerals[holders[i][0]]) if i in holders else d
        for i, d in enumerate(detections)
        if i not in replaced
    ]
    held_by_kept = {n for i, held in holders.items() if i not in replaced for n in held}
    for n, numeral in enumerate(numerals):
        if n in held_by_kept:
            continue
        tile = numeral_tile(numeral, share, aspect)
        if all(_overlap(tile.box, d.box) < 0.5 for d in kept):
            kept.append(tile)
    return kept


def _holders(numerals, detections: list[Detection]) -> dict[int, list[int]]:
    """Each box's numerals: box index -> the indices of the numerals it holds."""
    holders: dict[int, list[int]] = {}
    for n, numeral in enumerate(numerals):
        for i in _holding(numeral, detections):
            holders.setdefault(i, []).append(n)
    return holders


# Two numerals of one line are one tile's two digits when their middles lie closer than this
# many of their heights (a tile is wider than its numeral is tall: two tiles' digits lie a
# tile's width apart), and the box holding both is shaped like one tile (along the line at most
# ``ONE_TILE_ASPECT`` times as long as across) or holds them closer than ``ONE_TILE_SHARE`` of
# its length (two tiles boxed as one hold theirs half its length apart)
ONE_TILE_HEIGHTS = 1.25
ONE_TILE_ASPECT = 1.1
ONE_TILE_SHARE = 0.4


def _one_tile_pairs(
    numerals: list[Numeral], holders: dict[int, list[int]], detections: list[Detection], texts
) -> list[Numeral]:
    """``numerals`` with each "1" and the digit after it on its line joined into one numeral
    ("11", "13") where one box holds both, too close to lie on two tiles: a printing whose
    digits stand apart reads as two numerals on its line (two tiles of 1, sure)."""
    joined: dict[int, Numeral] = {}
    dropped: set[int] = set()
    for i, held in holders.items():
        box = detections[i]
        for a in held:
            for b in held:
                first, second = numerals[a], numerals[b]
                if a == b or {a, b} & (dropped | set(joined)) or first.text != "1":
                    continue
                if first.text + second.text not in texts or first.rect[2] != second.rect[2]:
                    continue
                (x1, y1), (x2, y2) = first.rect[0], second.rect[0]
                matrix = cv2.getRotationMatrix2D((x1, y1), first.rect[2], 1.0)
                (u1, v1), (u2, v2) = cv2.transform(
                    np.array([[[x1, y1], [x2, y2]]], np.float32), matrix
                )[0]
                apart = float(u2 - u1)  # along the line, read the way up
                height = max(first.height, second.height)
                along, across = _sides_along(box, first.rect[2])
                one_tile = along <= ONE_TILE_ASPECT * across or apart < ONE_TILE_SHARE * along
                close = one_tile and 0 < apart < ONE_TILE_HEIGHTS * height
                if close and abs(float(v2 - v1)) < 0.5 * height:
                    joined[a] = _joined(first, second, matrix)
                    dropped.add(b)
    return [joined.get(n, numeral) for n, numeral in enumerate(numerals) if n not in dropped]


def _sides_along(detection: Detection, angle: float) -> tuple[float, float]:
    """A box's extents along a line at ``angle`` and across it (its rotated box's sides)."""
    if detection.rotated is None:
        x1, y1, x2, y2 = detection.box
        (w, h), box_angle = (x2 - x1, y2 - y1), 0.0
    else:
        (w, h), box_angle = detection.rotated[1], detection.rotated[2]
    turned = abs((angle - box_angle + 90) % 180 - 90)  # 0 .. 90 degrees
    return (float(w), float(h)) if turned < 45 else (float(h), float(w))


def _joined(first: Numeral, second: Numeral, matrix: np.ndarray) -> Numeral:
    """One numeral of two on a line (``matrix``: the photo stood upright along it)."""
    corners = np.concatenate([cv2.boxPoints(first.rect), cv2.boxPoints(second.rect)])
    upright = cv2.transform(corners[None].astype(np.float32), matrix)[0]
    (x1, y1), (x2, y2) = upright.min(axis=0), upright.max(axis=0)
    rect = photo_rect(matrix, (x1, y1, x2, y2), first.rect[2])
    way_up = first.way_up_read and second.way_up_read
    return Numeral(rect, first.text + second.text, first.line_score, way_up)


def _holding(numeral, detections: list[Detection]) -> list[int]:
    """The boxes a numeral's middle lies in: in their rotated boxes (the extents of two tiles
    lying askew side by side on a table hold each other's numerals), or where it lies in none,
    in their extents (a box astride two tiles of a rack holds half of the other one)."""
    x, y = (float(v) for v in numeral.rect[0])
    held = [
        i
        for i, d in enumerate(detections)
        if d.rotated is not None
        and cv2.pointPolygonTest(cv2.boxPoints(d.rotated).astype(np.float32), (x, y), False) >= 0
    ]
    return held or [
        i
        for i, d in enumerate(detections)
        if d.box[0] <= x <= d.box[2] and d.box[1] <= y <= d.box[3]
    ]


def _long_side(detection: Detection) -> float:
    if detection.rotated is not None:
        return float(max(detection.rotated[1]))
    x1, y1, x2, y2 = detection.box
    return float(max(x2 - x1, y2 - y1))


def _tall_enough(numeral, detections: list[Detection], share: float) -> bool:
    """Whether ``numeral`` is as tall as a tile's numeral (``SecondReader.least_share``) next
    to the box that holds it (the smallest), or to the photo's boxes where none does."""
    held = _holding(numeral, detections)
    sides = [_long_side(detections[i]) for i in held] or [_long_side(d) for d in detections]
    if not sides:
        return True
    tile = min(sides) if held else float(np.median(sides))
    return numeral.height >= share * tile


def _overlap(a, b) -> float:
    """The share of box ``a`` that box ``b`` covers."""
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    return w * h / max(1e-9, (a[2] - a[0]) * (a[3] - a[1]))


def tile_shape(detections, numerals, inside, settings: SecondReader) -> tuple[float, float]:
    """A tile's height over its numeral's, and its width over its height, measured on the boxes
    holding exactly one numeral (the median), else the settings' defaults."""
    shares, aspects = [], []
    for i, held in inside.items():
        if len(held) != 1 or detections[i].rotated is None:
            continue
        w, h = detections[i].rotated[1]
        long_side, short_side = max(w, h), min(w, h)
        shares.append(numerals[held[0]].height / long_side)
        aspects.append(short_side / long_side)
    if len(shares) >= 2:
        return float(np.median(shares)), float(np.median(aspects))
    return settings.numeral_share, settings.face_aspect


def numeral_tile(numeral, share: float, aspect: float) -> Detection:
    """The tile around a numeral: as tall as the numeral over ``share``, ``aspect`` as wide,
    upright along the numeral's line, centred on it."""
    (cx, cy), (_w, h), angle = numeral.rect
    tile_h = h / max(share, 0.2)
    tile_w = tile_h * aspect
    rect = ((cx, cy), (tile_w, tile_h), angle)
    tile = Detection(rect_box(rect), float(numeral.line_score), 0, rotated=rect)
    return _with_numeral(tile, numeral)


def _with_numeral(detection: Detection, numeral) -> Detection:
    return replace(detection, numeral=numeral.rect, numeral_way_up=numeral.way_up_read)


def _vetoing(numerals: np.ndarray, own: int, columns, blind, settings: SecondReader):
    """The second reading where the general recogniser only judges the piece reader's label
    (``SecondReader.relabel`` off): reading another numeral clearly, it disagrees and offers
    its own (``other``); reading the label's, it agrees; reading none, or on a class printed
    without a numeral, the piece reader's own sure rule stands (``unread_stands``)."""
    said = int(np.argmax(numerals[:-1]))
    read = float(numerals[said]) >= settings.agree
    if not read or own in blind:
        stands = None if settings.unread_stands else False
        return SecondReading(numerals, stands, None, False)
    agreed = columns[said] == own
    return SecondReading(numerals, agreed, None if agreed else columns[said], False)


def _text_likelihood(numerals: np.ndarray, classes: int, columns, settings) -> np.ndarray:
    """P_text of each first-head class from one view's numeral probabilities: reading no
    numeral says nothing for or against any class (a blurred crop, a joker's picture), so its
    probability is shared by all; a numeral read is evidence for its class, and a numeral read
    as its last digit ("3" for a 13 whose thin 1 the crop lost) for the two-digit one too
    (``SecondReader.lost_one``)."""
    text = np.full(classes, float(numerals[-1]) / classes + 1e-3)
    text[columns] += numerals[:-1]
    texts = [t for _cls, t in settings.numerals]
    for k, t in enumerate(texts):
        if len(t) == 2 and t[0] == "1" and t[1] in texts:
            text[columns[k]] += settings.lost_one * float(numerals[texts.index(t[1])])
    return text


def _unmistakable(text: str, settings: SecondReader, detection: Detection) -> bool:
    """Whether ``text`` read is that numeral and no other: not a part of a longer numeral the
    crop may have cut (a 1 of a 10 whose 0 it lost, the 3 of a 13), nor one of a pair each the
    other turned, but where its way up was read on a text line."""
    others = [t for _cls, t in settings.numerals if t != text]
    if any(t.startswith(text) or t.endswith(text) for t in others):
        return False
    twin = any(text in pair for pair in settings.turn_twins)
    return not twin or detection.numeral_way_up


def _way_up(turns: np.ndarray | None) -> tuple[float, float]:
    """How likely a piece stands as cut or turned half a turn, by the piece reader's turn head
    (``Reading.turns``: classes x the photo's quadrants, the first upright); even without one."""
    if turns is None:
        return 0.5, 0.5
    up, down = float(turns[:, 0].sum()), float(turns[:, 2].sum())
    if up + down <= 0:
        return 0.5, 0.5
    return up / (up + down), down / (up + down)


def fuse(
    reading: Reading,
    views: tuple[np.ndarray, ...],
    ink: np.ndarray | None,
    settings: SecondReader,
    first_classes,
    decides: bool = True,
) -> Reading:
    """``reading`` joined with the general recogniser's ``views`` (``SecondReaderModels.read``:
    in each, the probability of each numeral, the last of none) by a product of experts:
    P(class) proportional to P_piece(class) x P_text(class)^(1/piece_weight), where P_text of a
    class is that of its numeral plus an equal share of no numeral (which tells nothing: a
    joker's picture, a blurred crop). Of two views, the one
    reading no numeral less; where both read a numeral and they differ (a 6 and a 9), their
    mean, and each supports its own. They agree when the piece reader's best class is the
    fused best and the general recogniser supports it at least ``agree``. ``ink``: the colour
    the ink tells (``InkColours``); where given, it must name the second head's colour too for
    the readers to agree (but on a class printed without a numeral). It does not change the
    label: on the Original Rummikub photos (``rk5_``, warm light) it named colours worse than
    the colour head (F1 0.750 -> 0.625 when joined as the values are). ``decides``: whether
    the text may be the label where it disagrees (``SecondReader.text_decides``)."""
    columns = [first_classes.index(cls) for cls, _text in settings.numerals]
    blind = [first_classes.index(cls) for cls in settings.blind]
    numerals = min(views, key=lambda p: p[-1])
    support = numerals.copy()
    twins_both_ways = conflict = False
    if len(views) == 2:
        a, b = views
        read_a, read_b = int(np.argmax(a[:-1])), int(np.argmax(b[:-1]))
        conflict = max(a[-1], b[-1]) < 0.5 and read_a != read_b
        if conflict:
            numerals = (a + b) / 2
            support = np.maximum(a, b)
            pair = {settings.numerals[read_a][1], settings.numerals[read_b][1]}
            twins_both_ways = any(pair == set(twins) for twins in settings.turn_twins)
    first = reading.first.astype(np.float64)
    body = first[:-1]
    mass = float(body.sum())
    own = int(np.argmax(body))
    if not settings.relabel:
        # two views reading two numerals: the surer one judges, and cannot be the label
        judging = max(views, key=lambda v: float(v[:-1].max())) if conflict else numerals
        judged = _vetoing(judging, own, columns, blind, settings)
        relabelled = settings.text_decides and decides and not conflict
        if relabelled and judged.agreed is False and judged.other is not None:
            # the two ranks' probabilities swapped: the label is the text's, as confident as
            # the piece reader was of its own, which is offered first
            said = judged.other
            first[[own, said]] = first[[said, own]]
            judged = replace(judged, other=own)
            return replace(reading, first=first.astype(reading.first.dtype), second_reading=judged)
        return replace(reading, second_reading=judged)
    # each view's likelihood of each class, mixed by how likely the piece reader finds each way
    # up (a 7 turned reads "1", a 9 turned "6": the view the wrong way up must not decide); a 6
    # read one way and a 9 the other tell nothing of which it is, and the piece reader's way up
    # is already in its own 6 and 9: the views weigh the same, so that the text does not count
    # the piece reader's way up a second time (a 9 read as a 6 at 0.62 was fused to a sure 0.91)
    weights = (
        _way_up(reading.turns) if len(views) == 2 and not twins_both_ways else (0.5,) * len(views)
    )
    text = sum(
        w * _text_likelihood(v, len(body), columns, settings)
        for w, v in zip(weights, views, strict=True)
    )
    # P_piece^w x P_text ranks the classes as P_piece x P_text^(1/w); the latter keeps the
    # piece reader's own probabilities where the text tells nothing (no numeral read)
    joint = np.maximum(body, 1e-12) * np.power(text, 1.0 / settings.piece_weight)
    fused = joint / float(joint.sum()) * mass
    value = int(np.argmax(fused))
    if value in blind:
        agreed = own == value and float(numerals[-1]) >= settings.agree
    else:
        said = columns.index(value) if value in columns else None
        backed = 0.0 if said is None else float(support[said])
        alone = (
            settings.text_alone is not None
            and said is not None
            and backed >= settings.text_alone
            and _unmistakable(settings.numerals[said][1], settings, reading.detection)
        )
        agreed = (own == value or alone) and backed >= settings.agree
        if twins_both_ways and not reading.detection.numeral_way_up:
            # a 6 read one way and a 9 the other back either label; but where the piece
            # reader's turn head is sure of the way up, the view that way reads the label's
            # twin (an upright 6 the piece reader took for an upright 9 reads "6" as cut)
            up, down = _way_up(reading.turns)
            facing = views[0] if up >= down else views[1]
            read_facing = columns[int(np.argmax(facing[:-1]))]
            agreed = agreed and (max(up, down) < settings.twin_way_up or read_facing == value)
    first[:-1] = fused
    if ink is not None and value not in blind:
        colour = int(np.argmax(reading.second))
        agreed = agreed and float(ink[colour]) >= settings.agree
    p_text = float(numerals[:-1].max())
    read_one = 1.0 - float(numerals[-1])  # some numeral read (a 6 or a 9 turned: either)
    if read_one >= settings.agree and mass > 0 and reading.detection.numeral is not None:
        # a numeral found on a rack row and read clearly is a piece, whatever the piece reader
        # says: what it gave "none" goes to the classes, in the fused proportions (in a box of
        # its own, a numeral may be a tile's part showing above a tier, which is none)
        first[-1] = min(first[-1], 1.0 - read_one)
        first[:-1] = fused / mass * (1.0 - first[-1])
    settled = reading.detection.numeral_way_up and p_text >= settings.agree
    second = SecondReading(numerals, agreed, None if own == value else own, settled)
    return replace(reading, first=first.astype(reading.first.dtype), second_reading=second)
