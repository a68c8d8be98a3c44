"""The types a piece kind's settings are made of (``KindSettings`` and its parts: ``Heads``,
``Passes``, ``Looks``, ``SecondReader``, ...), the piece record the recogniser passes between
its steps (``Piece``), and the sure scores (``SURENESS``, ``confidence``, ``NEVER_SURE``).

The bottom of ``vision``'s import chain: settings types (this module) -> per-kind hooks
(``vision.tiles``, ``vision.dominoes``, ``vision.cards``) -> the kinds' settings
(``vision.kinds``) -> the recogniser that runs them (``vision.pipeline``). It imports no other
module of ``vision`` at run time (only numpy), so any of them may import it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from vision.detector import Detection
    from vision.inks import InkColours

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"


@dataclass(frozen=True)
class SizedPasses:
    """The tiled and zoomed-out passes sized from the whole-photo pass's boxes scored at least
    ``score``, measured in the detector's input pixels: tiles cut at the scale that shows the
    smaller of them (the ``quantile``) ``tile_px`` across their short side, no finer than the
    ``tile_side`` asked for, none where the whole pass already shows them so (at least two
    boxes needed); the zoomed-out pass only where the whole pass boxes nothing or something at
    least ``zoom_px`` long (a close-up's pieces, which it shrinks to a table photo's size)."""

    tile_px: float
    zoom_px: float
    quantile: float = 0.1
    score: float = 0.5
    # No tiles where they would show the photo less than this many times larger than the
    # whole pass does (tiles of a 647 px canvas add nothing to a 640 px whole pass).
    least_gain: float = 1.0
    # The tiles overlap by this many times the whole pass's longest box at the tiles' scale
    # (None: ``Passes.tile_overlap``), at least ``least_overlap`` and at most
    # ``Passes.tile_overlap`` of a tile: a piece cut by one tile's edge then lies whole in the
    # next, at least its own size from that one's edge. Fewer tiles where pieces are small.
    overlap_boxes: float | None = None
    least_overlap: float = 0.05

    def choose(
        self,
        whole: list[Detection],
        shape: tuple[int, int],
        detector_side: int,
        zoom_out: float | None,
        tile_side: int | None,
        overlap: float = 0.25,
    ) -> tuple[float | None, int | None, float]:
        """(zoom_out, tile_side, tile overlap) for a photo of ``shape`` (h, w) whose whole
        pass found ``whole``, from the ones asked for."""
        long_side = max(shape)
        scale = min(1.0, detector_side / long_side)
        boxes = [d.box for d in whole if d.score >= self.score]
        if not boxes:
            return zoom_out, tile_side, overlap
        longest = max(max(x2 - x1, y2 - y1) for x1, y1, x2, y2 in boxes) * scale
        if longest < self.zoom_px:
            zoom_out = None
        if tile_side is not None and len(boxes) >= 2:
            shorts = [min(x2 - x1, y2 - y1) * scale for x1, y1, x2, y2 in boxes]
            small = float(np.quantile(shorts, self.quantile))
            side = round(long_side * scale * self.tile_px / max(small, 1e-6))
            tiled = side > detector_side * self.least_gain  # the whole pass's long side
            tile_side = min(tile_side, side) if tiled else None
            if tile_side is not None and self.overlap_boxes is not None:
                at_tile = longest * tile_side / (long_side * scale)
                wanted = self.overlap_boxes * at_tile / detector_side
                overlap = min(overlap, max(self.least_overlap, wanted))
        return zoom_out, tile_side, overlap


@dataclass(frozen=True)
class Passes:
    """Where the detector looks (``DetectorPasses.detect``): its score threshold and NMS IoU,
    and the optional zoomed-out and tiled passes."""

    score: float
    iou: float = 0.6
    zoom_out: float | None = None
    tile_side: int | None = None
    tile_overlap: float = 0.25  # of a tile: at least this shared by neighbouring tiles
    quarter_turn: bool = False  # the whole photo turned a quarter too
    sized: SizedPasses | None = None  # the tiles and zoomed-out pass sized from the whole pass
    zoom_further: float | None = None  # a close-up still at ``zoom_out``: shrunk this much too
    # A rotated box this many degrees or more off the photo's axes: the photo turned 45 degrees
    # too, a box of that pass on one of the others its twin (``with_twins``).
    diagonal_beyond: float | None = None


@dataclass(frozen=True)
class Looks:
    """How each box is read (``read_boxes``).

    - ``angle``: the angle a box is cut at: ``"box"``, a rotated box's own angle (the edge
      estimate for a box without one); ``"edges"``, always the angle estimated from the edges
      around the box (``vision.crops.tile_angle``);
    - ``square_beyond`` (degrees, None: off): a box without a rotated box whose estimated angle
      is further than this from its axes is also read cut square to the box;
    - ``estimate_beyond`` (degrees, None: off): a rotated box whose angle is further than this
      from the angle estimated from its edges is also read cut at the estimate;
    - ``turned`` (degrees): a box read less surely than ``turned_below`` (of a piece and of
      "none") is also read cut at its angle turned by each of these;
    - ``halves_below`` (None: off): a two-half piece (a domino) read less surely than this is
      also read half by half, each half with its own image turned half a turn in place of the
      other (a double), and what the two counts say merged into its reading
      (``merged_with_halves``): a half whose pips the reader takes for another count beside a
      particular other half (a ring of ten pressed together, read as eight) is read alone.

    Of all looks at a box, the surest reading is kept."""

    angle: str = "box"
    square_beyond: float | None = None
    estimate_beyond: float | None = None
    turned: tuple[float, ...] = ()
    turned_below: float = 1.0
    halves_below: float | None = None


@dataclass(frozen=True)
class SecondReader:
    """A kind's second reader (``KindSettings.second_reader``).

    ``numerals``: for each first-head class the general recogniser can read, the text printed
    (a tile's "1" .. "17"); ``blind``: first-head classes printed without a numeral (a joker),
    where it must read none. ``agree``: see ``fuse``. ``find``: whether
    the text detector looks for pieces the piece detector missed (``with_numerals``); a line
    counts when its long side is at least ``line_shape`` times its short side (a row of
    numerals, not one)."""

    numerals: tuple[tuple[str, str], ...]
    blind: tuple[str, ...] = ()
    recogniser_file: str = "text_recogniser.onnx"
    detector_file: str = "text_detector.onnx"
    agree: float = 0.5
    find: bool = True
    line_shape: float = 2.2
    # the text detector reads the photo shrunk to this long side (960, its training size, read
    # the dev photos no better and took a third longer)
    detector_side: int = 736
    # a tile's height over its numeral's (and its width over its height), where the photo's
    # own boxes do not tell (``tile_shape``)
    numeral_share: float = 0.5
    face_aspect: float = 0.75
    # a box whose numeral lies more than this share of a tile's width off its middle (along
    # the numeral's line) sits astride two tiles
    off_middle: float = 0.3
    # a numeral shorter than this share of the tile holding it (or, held by none, of the
    # photo's boxes' median long side) is small print (a maker's name read as digits), no tile's
    least_share: float = 0.25
    # numerals that are each other turned half a turn: the general recogniser cannot tell
    # which a piece shows (the piece reader and its meld's way up do)
    turn_twins: tuple[tuple[str, str], ...] = (("6", "9"),)
    # how often the general recogniser misses the thin leading 1 of a "1x" (reading "x"): its
    # read x counts this much for 1x, so it does not outvote a piece reader sure of 1x
    lost_one: float = 0.3
    # ... unless the piece reader's turn head finds it upright at least this surely (the turned
    # view would weigh under 5 %: ``fuse``)
    upright: float = 0.95
    # a view reading no numeral more than this is read turned half a turn too
    clear: float = 0.2
    # a 6 or a 9 read both ways: where the turn head finds a way up this surely, the view
    # that way must read the label (``fuse``)
    twin_way_up: float = 0.8
    # the piece reader's probabilities are raised to this power before they are multiplied by
    # the general recogniser's (it learned the printings it reads; tempered, a confident
    # misreading of a printing it never saw does not outvote a clear numeral)
    piece_weight: float = 0.5
    # the general recogniser reading the fused class's numeral at least this surely makes the
    # readers agree though the piece reader's own best class was another (None: never)
    text_alone: float | None = None
    # the colour from the ink (None: the piece reader's alone)
    inks: InkColours | None = None
    # other texts printed for a class's numeral, (text, numeral): a card's jack is W, B or V
    # in Polish, German and French decks, its queen D, its king R in French (the letters never
    # collide, so one reader reads every deck)
    spellings: tuple[tuple[str, str], ...] = ()
    # what is read: "numeral", a tile's numeral (``face_numeral``); "index", the rank at the
    # top of a card's corner index, the index cut along its sides and read as cut and turned
    # half a turn (``index_views``)
    cut: str = "numeral"
    # whether the two readings are fused into the label (``fuse``); else the general
    # recogniser only judges the piece reader's label: a clear other numeral disagrees
    # (never sure, its numeral offered first), no numeral read leaves the piece reader's own
    # sure rule standing where ``unread_stands`` (a small or blurred index), else never sure
    relabel: bool = True
    unread_stands: bool = False
    # ... and where it disagrees, its numeral is the label (never sure; the piece reader's
    # offered first), not the piece reader's
    text_decides: bool = False
    # read only the readings the piece reader keeps as pieces (``none_drop``) and reads at
    # least the kind's ``report_floor`` surely (``vision.pipeline._worth_reading``)
    reported_only: bool = False


@dataclass(frozen=True)
class PipCheck:
    """A domino's pips counted on each half (``vision.pips``) to judge the reader's label
    (``KindSettings.pip_check``): a half counted clearly otherwise makes it unsure. Each share
    is of what its comment names: the cut, the box in it (the face), or the domino's pip."""

    width: int = 64  # the cut's width in pixels (its height twice that)
    # the box cut with this share of its short side round it (pips past a box cut short show)
    margin: float = 0.15
    # a half is counted where its face (with its pips) fills at least this share of its convex
    # hull (nothing lies over it) and runs along the domino at least this share of its width
    # (not cut short by the photo's edge)
    solid: float = 0.9
    square: float = 0.8
    # ... and its outline has no notch deeper than this share of a pip's width
    notch: float = 0.25
    # the dividing line: runs this share of the cut's width long, at most this many degrees off
    # level and this share of it thick, crossing at least this share of the face's width within
    # this share of the height of the middle
    line_length: float = 0.3
    line_slope: int = 8
    line_thickness: float = 0.12
    line_across: float = 0.4
    line_from_middle: float = 0.2
    # a pip: a mark of at least this share of the face (no speck) and at most this (glare or
    # a shadow, which spoils its half), filling at least this share of its bounding box
    smallest: float = 0.003
    largest: float = 0.08
    fill: float = 0.45
    # within a half: marks under this share of the domino's typical pip are specks; a half
    # whose pips differ in area more than this many times is not counted
    speck: float = 0.4
    sizes: float = 2.5
    # a domino whose dividing line lies more than this many degrees off level in its cut is cut
    # again along its line (its box's angle was off) and counted so
    askew: float = 2.0
    # a round mark of a pip's size outside the face within this many pips' widths of the box's
    # sides (or anywhere past its ends) spoils its half
    reach: float = 0.5


@dataclass(frozen=True)
class Heads:
    """A two-head reader's label vocabulary.

    ``first``: the first head's classes, before its last one ("none": not a piece); ``second``:
    the second head's. A label is ``label.format(first=..., second=...)``. ``alone``: first-head
    classes that are a label by themselves (class, label), whatever the second head says (a
    joker has no colour). ``pairs``: the heads read the smaller and the larger of an unordered
    pair (a domino's halves), and the labels are the pairs first <= second."""

    first: tuple[str, ...]
    second: tuple[str, ...]
    label: str
    alone: tuple[tuple[str, str], ...] = ()
    pairs: bool = False

    def rank(self, first: np.ndarray, second: np.ndarray) -> list[tuple[str, float]]:
        """Every label with its probability, most likely first (ties in vocabulary order),
        renormalised without the "none" class."""
        n = len(self.first)
        real = first[:n] / max(1e-9, float(first[:n].sum()))
        alone, pairs = _labels(self)
        if self.pairs:
            joint = np.triu(np.outer(real, second[: len(self.second)]))
            joint = joint / max(1e-12, float(joint.sum()))
            scored = [(label, float(joint[i, j])) for i, j, label in pairs]
        else:
            scored = [(label, float(real[i])) for i, label in alone]
            scored += [(label, float(real[i] * second[j])) for i, j, label in pairs]
        scored.sort(key=lambda item: -item[1])
        return scored

    def vocabulary(self) -> list[str]:
        alone, pairs = _labels(self)
        return [label for _i, label in alone] + [label for _i, _j, label in pairs]


@lru_cache(maxsize=16)
def _labels(heads: Heads):
    """(alone: [(first index, label)], pairs: [(first index, second index, label)]), in the
    order the labels are ranked in when equally likely."""
    alone_names = dict(heads.alone)
    alone = [(heads.first.index(name), label) for name, label in heads.alone]
    pairs = [
        (i, j, heads.label.format(first=a, second=b))
        for i, a in enumerate(heads.first)
        if a not in alone_names
        for j, b in enumerate(heads.second)
        if not heads.pairs or j >= i
    ]
    return alone, pairs


@dataclass(frozen=True)
class WholePhoto:
    """A photo shaped like one piece (short side ``shape`` of the long side) may be a tight crop
    of a single piece, which fills the frame unlike anything the detector learned (it finds
    nothing, or parts of it). Such a photo is also read whole, as a box of detector score
    ``score``, and it is that one piece when its "none" is below ``none_below`` or when the
    detector found nothing (then "none" decides as for any box)."""

    none_below: float
    score: float = 0.5
    shape: tuple[float, float] = (0.38, 0.62)

    def applies(self, width: int, height: int) -> bool:
        low, high = self.shape
        return low <= min(width, height) / max(width, height) <= high


@dataclass(frozen=True)
class FaintBoxes:
    """Boxes the detector scores under its threshold (``Passes.score``) but at least ``score``
    are read too, and kept only when the reader is this sure of them: their best label's
    probability at least ``read_floor`` (and "none" under ``none_drop``). A piece the detector
    is unsure of (a low, oblique camera; an unusual set) is found when its reading is clear,
    while the faint boxes on background, which the reader learned as "none", stay dropped."""

    score: float
    read_floor: float


# A piece's sureness score, by name (``KindSettings.sure_score``), from its reading:
# - "probability": the reported label's probability (before the detector term);
# - "confidence": the reported confidence, probability x detector score^(1/4);
# - "margin": the probability less the runner-up label's;
# - "views": the label's probability in the less sure of the two half-turn views x detector
#   score^(1/4) (both views must name it);
# - "joint": probability x detector score;
# - "framed": "joint", and 0 for a piece whose box touches the photo's edge (within
#   ``FRAME_MARGIN`` px: a piece cut off by the frame may hide what tells it);
# - "margin_confidence": the margin x detector score^(1/4), as "confidence" is the probability
#   x that: the margin tells a reading torn between two labels, the detector term a confident
#   reading of something the detector doubts is a piece at all.
# A sure threshold no score reaches (scores are at most 1): nothing sure, where uncalibrated.
NEVER_SURE = 1.01


def confidence(probability: float, score: float) -> float:
    """A reading's reported confidence: its probability times the detector's score tempered to
    its fourth root (a confident reading of a box the detector doubts is still doubted, but a
    faint box's score does not swamp a clear reading)."""
    return probability * score**0.25


FRAME_MARGIN = 2.0
SURENESS: dict[str, Callable[[Piece], float]] = {
    "probability": lambda piece: piece.p,
    "confidence": lambda piece: confidence(piece.p, piece.score),
    "margin": lambda piece: piece.p - piece.runner_up,
    "views": lambda piece: confidence(min(piece.views, default=piece.p), piece.score),
    "joint": lambda piece: piece.p * piece.score,
    "framed": lambda piece: piece.p * piece.score * (piece.edge > FRAME_MARGIN),
    "margin_confidence": lambda piece: confidence(piece.p - piece.runner_up, piece.score),
}


@dataclass(frozen=True)
class DarkFaces:
    """Pieces with dark faces printed in light inks (a black card deck): the models learned light
    faces with dark inks, so such a photo is detected and read with its lightness inverted
    (``invert_lightness``, the hues kept). A photo is taken for one when the whole-photo pass
    on it inverted finds surer boxes (the sum of their scores) than on it as it is: on 25 real
    photos of light decks and 30 rendered scenes of dark ones, every photo was told right, the
    two sums at least 3x apart (docs/experiments/cards.md, "Dark faces"). Pieces read on an inverted
    photo are sure from ``sure_threshold`` (uncalibrated: never), by the kind's sure score;
    a set with a reader of its own reads them never sure."""

    # A photo whose whole-photo pass already sums this much, in boxes that are light (the
    # median of their median grey at least ``light_boxes``), is light and not looked at
    # inverted (a tenth of the time saved on table photos). The sum alone no longer tells: the
    # detector's fourth round learned some dark decks and sums up to 12 on dark scenes, whose
    # boxes' grey is 11-113 (light photos' 110-250; docs/experiments/cards.md, "Dark faces").
    # Nor is a photo read inverted unless the inverted pass's boxes are dark (under
    # ``light_boxes``) in the photo as it is: 12-109 on dark scenes, 254 on a burnt-out photo of
    # a light deck.
    light_from: float = 4.0
    light_boxes: float = 150.0
    # ... and unless what those boxes lie on is dark too (the band round each, this many times
    # its short side wide, under ``light_boxes``): a dark deck's face round its indices, where
    # a light card filling the frame, whose dark pips the inverted pass boxes, is white round
    # them (dark scenes 10-110, felts 20-97, light close-ups 238-251;
    # docs/experiments/cards.md, "Scale").
    around: float = 0.5
    sure_threshold: float = NEVER_SURE
    # The reader of a photo read inverted (None: the kind's).
    reader_file: str | None = None


@dataclass(frozen=True)
class GreyPhotos:
    """A photo without colour (a greyscale photo, a black-and-white filter) where colour is
    part of a label (a tile's colour) or tells labels apart (a card's red or black suit): its
    pieces are sure from ``sure_threshold`` (uncalibrated: never). Read grey, the shipped tile
    reader named a tile's colour right about a quarter of the time and flagged nine tenths
    sure; the card reader took every red card for a black one (docs/choices/vision.md, "Grey
    photos"). A photo is grey when 99 % of its pixels (every few, ``SIDE`` along its long side)
    have their three channels within ``spread_below`` of each other: 0 on greyscale photos and
    JPEGs, at least 26 on every real colour photo measured."""

    spread_below: float = 8.0
    sure_threshold: float = NEVER_SURE
    # A reader that learned grey views too, reading such photos instead of the kind's own
    # (loaded on first use; None: the kind's). A set with a reader of its own (``SetReader``)
    # reads them with that one.
    reader_file: str | None = None

    SIDE = 256

    def applies(self, bgr: np.ndarray) -> bool:
        step = max(1, max(bgr.shape[:2]) // self.SIDE)  # every step-th pixel: no resampling
        small = bgr[::step, ::step]
        spread = small.max(axis=2).astype(np.int16) - small.min(axis=2)
        return bool(np.count_nonzero(spread >= self.spread_below) < 0.01 * spread.size)


@dataclass(frozen=True, eq=False)
class Piece:
    """One piece found and read, as the recogniser's steps pass it on: what is reported
    (``label``, ``bbox`` in the pixels of the image as displayed, ``confidence``,
    ``alternatives``, and a card's index boxes, ``corners``) and what grouping, the 6/9 rule
    and the sure flag use. ``reported()`` is the public dict, without ``sure``."""

    label: str
    bbox: list[float]
    confidence: float = 0.0  # ``confidence(p, score)``, rounded
    alternatives: list[list[Any]] = field(default_factory=list)  # [label, probability]
    corners: list[list[float]] | None = None  # cards: the index boxes merged into the card
    p: float = 0.0  # the label's probability (before the detector term)
    runner_up: float = 0.0  # the next label's probability
    score: float = 1.0  # the detector's
    first: np.ndarray | None = None  # the reading's first head (its last class "none")
    second: np.ndarray | None = None  # ... and second head
    turns: np.ndarray | None = None  # ``vision.twostage.Reading.turns``
    views: tuple[float, ...] = ()  # the label's probability in each view read
    edge: float = float("inf")  # px between the box and the photo's nearest edge
    rotated: Any = None  # the rotated box ((cx, cy), (w, h), angle), where the detector gave one
    agreed: bool | None = None  # with a second reader: whether both read the label
    settled: bool = False  # its way up read by the second reader (a 6 or a 9)
    other: str | None = None  # the piece reader's own best label, where the second reader differs

    def reported(self) -> dict[str, Any]:
        """The piece as ``recognise`` reports it (the sure flag aside)."""
        out: dict[str, Any] = {
            "label": self.label,
            "bbox": self.bbox,
            "confidence": self.confidence,
            "alternatives": self.alternatives,
        }
        if self.corners is not None:
            out["corners"] = self.corners
        return out


def _no_groups(pieces: list[Piece]) -> tuple[list[Piece], list[list[int]]]:
    return pieces, []


@dataclass(frozen=True)
class JoinedGlyphs:
    """A set reader's reading joined with ``set_guess``'s reader's, which reads the letter an
    index prints (``join_glyphs``): ``classes``, for each first-head class but "none", that
    reader's classes a piece of it may show; joined only where it reads one class at least
    ``sure`` (on a fragment or a small box its reading is no evidence)."""

    classes: tuple[tuple[int, ...], ...]
    sure: float


@dataclass(frozen=True)
class SetReader:
    """A reader of its own for one set of a kind (a deck printing other index letters), with
    the sure threshold ``meldcam calibrate --set`` chose for it, of its own sureness score
    (None: the kind's)."""

    reader_file: str  # in the models folder
    sure_threshold: float
    sure_score: str | None = None
    glyphs: JoinedGlyphs | None = None  # None: this reader alone


@dataclass(frozen=True)
class SetGuess:
    """Which set a photo shows, told from the photo where the game does not say (``recognise``
    with ``set_name`` ``AUTO_SET``): ``reader_file`` (a two-head crop reader; its first head is
    used) reads what each box found prints, and ``guess`` turns those probabilities (boxes x
    classes, each box read as it is and turned half a turn, averaged) into a set's name, or None
    where they do not tell (the kind's own reading stands)."""

    reader_file: str  # in the models folder
    guess: Callable[[np.ndarray], str | None]
    crop_size: int | None = None  # its crop side (None: its input's size)


@dataclass(frozen=True)
class KindSettings:
    """Everything that makes one piece kind (or one printing of it): see the module docstring
    for the steps each field drives. ``vision/kinds.py`` holds the shipped kinds."""

    kind: str  # "tiles", "dominoes", "cards": the JSON's "kind"
    detector_file: str  # in the models folder
    reader_file: str
    train_command: str  # how to make the model files (told when one is missing)
    heads: Heads
    passes: Passes
    # The detector quantised to 8-bit integers (``python -m training.quantise``), run instead of
    # ``detector_file`` where the models folder holds one made from that very file (its
    # metadata names that file's SHA-256); otherwise the float one is run.
    quantised_detector_file: str | None = None
    looks: Looks = field(default_factory=Looks)
    crop_size: int | None = None  # the reader's crop side (None: its input's size)
    # Boxes dropped before reading (detections, (height, width)) -> detections.
    drop_boxes: Callable[[list[Detection], tuple[int, int]], list[Detection]] | None = None
    whole_photo: WholePhoto | None = None
    dark_faces: DarkFaces | None = None
    grey_photos: GreyPhotos | None = None
    faint_boxes: FaintBoxes | None = None
    none_drop: float = 0.5  # a reading whose "none" is at least this is no piece
    report_floor: float = 0.3  # a piece is reported when its best confidence is at least this
    # Labels that need more: (label, floor), a piece read as it reported only when its
    # confidence is at least its floor (a card joker: court-card art read as one).
    label_floors: tuple[tuple[str, float], ...] = ()
    repeat_overlap: float = 0.5  # ``drop_repeats``
    repeat_any_label: bool = False
    # two pieces of different labels sharing more than this of the smaller box are never sure
    # (``doubt_repeats``; None: no such rule)
    repeat_doubted: float | None = None
    # Label sets (``set_name``): name -> the labels the set contains.
    sets: tuple[tuple[str, frozenset[str]], ...] = ()
    # Sets read by a reader of their own (name -> ``SetReader``); the others by ``reader_file``.
    set_readers: tuple[tuple[str, SetReader], ...] = ()
    # Telling the set from the photo (``set_name`` ``AUTO_SET``); None: the set must be given.
    set_guess: SetGuess | None = None
    # Pieces (``Piece``, in reported order) -> (pieces, melds as lists of indices).
    group: Callable[[list[Piece]], tuple[list[Piece], list[list[int]]]] = _no_groups
    sure_score: str = "probability"  # a key of SURENESS
    # A piece is sure when its score is at least this; chosen by ``meldcam calibrate``.
    sure_threshold: float = NEVER_SURE
    # Labels never flagged sure, whatever their score: what something else looks like too (a
    # blank double, the back of a domino); ``meldcam calibrate`` leaves them out.
    never_sure: frozenset[str] = frozenset()
    # First-head classes that are each other turned half a turn (a 6 and a 9): with a reader's
    # ``value_turn`` head, settled by the way up its meld agrees on (``settle_turns``).
    turn_pairs: tuple[tuple[str, str], ...] = ()
    # A set reader's ``SetReader.glyphs`` (set by ``Recogniser.for_set``).
    glyphs: JoinedGlyphs | None = None
    # A general text recogniser reading each piece's numeral too (``vision.second``): it finds
    # rows the detector missed, and a piece is sure only where it and the reader agree.
    second_reader: SecondReader | None = None
    # A domino's pips counted on each half (``vision.pips``): a sure label must not contradict
    # a half counted clearly.
    pip_check: PipCheck | None = None
