"""One recogniser for every piece kind: detect -> read -> group, each kind's settings as data.

``Recogniser(settings)`` runs the same steps for tiles, dominoes and cards; what differs is a
``KindSettings`` (``vision/kinds.py``: model files, detector passes, looks, thresholds, label
vocabulary, grouping, sure rule). A new printing or piece kind is a new ``KindSettings`` and its
model files, not a new module. The settings types, the piece record the steps pass on
(``Piece``, reported as a dict only at the end) and the sure scores are ``vision.settings``'s;
this module is the top of that chain (settings -> per-kind hooks -> kinds -> recogniser).

1. **Load** the photo (``vision/imageio.py``): boxes are reported in the pixels of the image as
   displayed.
2. **Detect** (``DetectorPasses``): the whole photo, optionally zoomed out and in tiles, merged
   by NMS, and turned a quarter (``KindSettings.passes``; the tiles' scale and the zoomed-out
   pass may be chosen from the whole pass's boxes, ``SizedPasses``); then the kind's own box
   filter, if any (``drop_boxes``).
   With ``dark_faces``, a photo whose whole-photo pass finds surer boxes with its lightness
   inverted (a dark deck's light inks) is detected and read inverted (``DarkFaces``).
   With ``faint_boxes``, boxes scored under the threshold (down to a floor) are read too, and
   kept only when read clearly (step 4).
3. **Read** (``vision.twostage.read_boxes``): a crop cut square to each box, read as is and
   turned half a turn (averaged), with the kind's extra ``looks``; by the set's own reader
   where the set has one (``set_readers``: a card deck printing other index letters; its
   reading joined with what a second reader reads each box prints, ``JoinedGlyphs``), and a
   photo without colour by the grey photos' reader where the kind has one (``grey_photos``). A
   photo shaped like one piece may also be read whole (``whole_photo``).
4. **Label**: a reading whose "none" class is at least ``none_drop`` is dropped; the labels are
   ranked from the two heads (``Heads.rank``); a reading whose best label (among the whole
   vocabulary, before a set limits it) has probability x detector score^(1/4) under
   ``report_floor`` (or, for a label of ``label_floors``, under that label's floor) is not
   reported, nor a faint box read less surely than its ``read_floor``.
   With a set (``set_name``) the label is the most likely one
   the set contains, and its probability stays the one among all labels.
   ``confidence`` = that probability x detector score^(1/4); ``alternatives`` are the next
   ``MAX_ALTERNATIVES`` labels with probability >= ``ALTERNATIVE_FLOOR``.
5. **Once per piece** (``drop_repeats``): one piece found on two boxes is reported once; with
   ``repeat_doubted``, two readings of different labels on one place are neither sure
   (``doubt_repeats``).
6. **Group** (``KindSettings.group``): pieces into melds (rows, chains, hands); cards first
   merge the corner indices of one card into that card. With ``turn_pairs``, a 6 or a 9 is
   then settled by its meld's way up (``settle_turns``), and one its meld does not settle,
   turned against most of the photo, is never sure (``doubt_lone_turns``).
7. **Sure**: every piece gets ``"sure": score >= sure_threshold``, its score named by
   ``sure_score`` (``SURENESS``; a set reader's own where it names one; never for a label of
   ``never_sure``); the threshold is chosen by ``meldcam calibrate`` (``training/calibrate.py``)
   so that at least 99.5 % of sure pieces are right. Pieces read inverted (``dark_faces``) or on
   a photo without colour (``grey_photos``: where colour tells labels apart) have thresholds of
   their own.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import cast

import cv2
import numpy as np

from meldcam.vocabulary import AUTO_SET
from vision.crops import cut_crop, read_views
from vision.detector import Detection, OnnxDetector, file_sha256, open_session
from vision.errors import RecogniserUnavailable, UnknownSet
from vision.imageio import load_image
from vision.kinds import settings_of
from vision.labels import domino_label
from vision.pips import disagrees as pips_disagree
from vision.pips import domino_pips
from vision.second import SecondReaderModels, fuse
from vision.settings import (
    MODELS_DIR,
    NEVER_SURE,
    SURENESS,
    DarkFaces,
    FaintBoxes,
    GreyPhotos,
    Heads,
    JoinedGlyphs,
    KindSettings,
    Looks,
    Passes,
    Piece,
    SecondReader,
    SetGuess,
    SetReader,
    SizedPasses,
    WholePhoto,
    confidence,
)
from vision.twostage import (
    DetectorPasses,
    Reading,
    doubt_repeats,
    drop_repeats,
    moved_rotated,
    read_boxes,
    reader_crop_size,
    shared_box,
)

log = logging.getLogger(__name__)
# The output contract, the same for every kind.
MAX_ALTERNATIVES = 3
ALTERNATIVE_FLOOR = 0.01

# The recogniser, and the settings types it runs (``vision.settings``), for its callers.
__all__ = [
    "MODELS_DIR",
    "NEVER_SURE",
    "SURENESS",
    "DarkFaces",
    "FaintBoxes",
    "GreyPhotos",
    "Heads",
    "JoinedGlyphs",
    "KindSettings",
    "Looks",
    "Passes",
    "Piece",
    "Recogniser",
    "SetGuess",
    "SetReader",
    "SharedSessions",
    "SizedPasses",
    "WholePhoto",
    "confidence",
    "greyscale",
    "invert_lightness",
    "kind_settings",
]


def _boxes_grey(bgr: np.ndarray, detections: list[Detection], around: float = 0.0) -> float:
    """The median over ``detections`` of each box's median grey (0 black .. 255 white): high
    for indices printed on light faces, low on dark ones; 0 without a box. ``around``: of the
    band round each box instead, that many times the box's short side wide (what the box lies
    on: the face round an index)."""
    medians = []
    for detection in detections:  # only these pixels are made grey: this runs on every photo
        x1, y1, x2, y2 = detection.box
        pad = around * min(x2 - x1, y2 - y1)
        left, top = max(0, round(x1 - pad)), max(0, round(y1 - pad))
        crop = bgr[top : max(0, round(y2 + pad)), left : max(0, round(x2 + pad))]
        if not crop.size:
            continue
        grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        if around:
            inside = np.zeros(grey.shape, dtype=bool)
            inside[
                max(0, round(y1) - top) : round(y2) - top,
                max(0, round(x1) - left) : round(x2) - left,
            ] = True
            grey = grey[~inside]
        if grey.size:
            medians.append(float(np.median(grey)))
    return float(np.median(medians)) if medians else 0.0


def invert_lightness(bgr: np.ndarray) -> np.ndarray:
    """``bgr`` with its lightness (CIELAB's L) inverted and its hues kept: a dark face with
    light inks becomes a light face with dark inks, a red pip stays red."""
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB)
    lab[..., 0] = 255 - lab[..., 0]
    return cv2.cvtColor(lab, cv2.COLOR_LAB2BGR)


def greyscale(bgr: np.ndarray) -> np.ndarray:
    """``bgr`` as a photo without colour (three equal channels): what ``GreyPhotos`` tells."""
    return cv2.cvtColor(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)


kind_settings = settings_of  # the shipped settings of a kind (``vision.kinds``)


class SharedSessions:
    """The sessions a kind's recogniser shares with the recognisers of its sets
    (``Recogniser.for_set``), each opened on first use under ``lock``: the readers of photos
    read inverted or without colour (``DarkFaces.reader_file``, ``GreyPhotos.reader_file``), by
    file, and ``SetGuess.reader_file``'s (``guess_reader``)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.readers: dict[str, object] = {}
        self.guess_reader: object | None = None


class Recogniser:
    """``recognise(image)`` for one kind of piece (a ``KindSettings`` or a kind's name).

    ``set_name`` (constructor or ``recognise``): limit labels to that set (dominoes'
    "double-six", ...) and, for a set with a reader of its own (``set_readers``: cards' index
    letters), read with that reader, loaded on first use and sharing the detector;
    ``UnknownSet`` for a set the kind does not have. ``sessions``: a detector and a reader to
    use instead of the model files (tests). ``shared``: the sessions of the kind's recogniser
    (``for_set``)."""

    def __init__(
        self,
        settings: KindSettings | str,
        models_dir: Path = MODELS_DIR,
        set_name: str | None = None,
        sessions: tuple | None = None,
        shared: SharedSessions | None = None,
    ):
        if isinstance(settings, str):
            settings = kind_settings(settings)
        self.settings = settings
        self.kind = settings.kind
        self.set_name = set_name
        self.models_dir = Path(models_dir)
        self._check_set(set_name)
        if sessions is None:
            detector = self._detector()
            sessions = (detector, open_session(self._model_path(settings.reader_file)))
        self.detector, self.reader = sessions
        self.passes = DetectorPasses(self.detector)
        self.crop_size = settings.crop_size or reader_crop_size(self.reader)
        self._sure = SURENESS[settings.sure_score]
        self._set_recognisers: dict[str, Recogniser] = {}  # by set name
        self._shared = shared or SharedSessions()
        second = settings.second_reader
        self._second = None if second is None else SecondReaderModels(second, self._model_path)

    def _model_path(self, name: str) -> Path:
        path = self.models_dir / name
        if not path.is_file():
            raise RecogniserUnavailable(
                f"{self.kind} cannot be read from photos yet: the model {path.name} "
                f"is missing (train it with `{self.settings.train_command}`)"
            )
        return path

    def _detector(self) -> OnnxDetector:
        """The quantised detector where the models folder holds one quantised from its float
        detector; the float detector otherwise (with a warning where a quantised one is
        stale: a float detector trained since)."""
        float_path = self._model_path(self.settings.detector_file)
        name = self.settings.quantised_detector_file
        if name is None or not (self.models_dir / name).is_file():
            return OnnxDetector(float_path)
        quantised = OnnxDetector(self.models_dir / name)
        if quantised.quantised_from == file_sha256(float_path):
            return quantised
        log.warning(
            "%s was not quantised from this %s: running the float detector "
            "(make it with python -m training.quantise --kind %s)",
            name,
            float_path.name,
            self.kind,
        )
        return OnnxDetector(float_path)

    def for_set(self, set_name: str | None) -> Recogniser:
        """The recogniser that reads ``set_name``: this one, or (a set with a reader of its
        own) one with that reader and this one's detector, made once."""
        if not set_name:
            return self
        own = dict(self.settings.set_readers).get(set_name)
        if own is None:
            return self
        if own.glyphs is not None:
            self._glyph_reader()  # opened now: a missing model is told before any reading
        with self._shared.lock:
            made = self._set_recognisers.get(set_name)
            if made is None:
                settings = replace(
                    self.settings,
                    reader_file=own.reader_file,
                    sure_threshold=own.sure_threshold,
                    sure_score=own.sure_score or self.settings.sure_score,
                    set_readers=(),
                    glyphs=own.glyphs,
                    grey_photos=self.settings.grey_photos
                    and replace(self.settings.grey_photos, reader_file=None),
                    # its dark decks read by the kind's reader of inverted photos (which
                    # learned other letters inverted too), never sure (not calibrated per set)
                    dark_faces=self.settings.dark_faces
                    and replace(self.settings.dark_faces, sure_threshold=DarkFaces.sure_threshold),
                )
                # sets sharing a reader file share its session (each has its own threshold)
                reader = next(
                    (
                        r.reader
                        for r in self._set_recognisers.values()
                        if r.settings.reader_file == own.reader_file
                    ),
                    None,
                ) or open_session(self._model_path(own.reader_file))
                # one session for the set guess and for each reader of inverted or grey
                # photos, opened by either
                made = Recogniser(
                    settings,
                    self.models_dir,
                    sessions=(self.detector, reader),
                    shared=self._shared,
                )
                self._set_recognisers[set_name] = made
        return made

    # ----------------------------------------------------------------------------- public

    def recognise(
        self,
        image,
        channels: str = "rgb",
        set_name: str | None = None,
        untold: str | None = None,
    ) -> dict:
        """Read the pieces of one photo: a path, encoded bytes, or an HxWx3 uint8 array (RGB
        unless ``channels="bgr"``). ``set_name`` (or the recogniser's) limits the labels;
        ``AUTO_SET`` tells the set from the photo (``SetGuess``), the reading's "set" says which
        (None: not told, read as with no set). ``untold``: with ``AUTO_SET``, the set a photo
        that tells none is read as (a game's deck, told by its other photos): the same boxes
        read by that set's reader, "set" naming it and "set_from" saying "untold"."""
        started = time.perf_counter()
        set_name = set_name or self.set_name
        set_guess = self.settings.set_guess if set_name == AUTO_SET else None
        guessing = set_guess is not None
        allowed = self._check_set(set_name)  # None for AUTO_SET: no set yet
        if guessing and untold is not None:
            self._check_set(untold)  # an unknown set refused before any reading
        set_recogniser = self.for_set(set_name)
        if set_recogniser is not self:
            return set_recogniser.recognise(image, channels, set_name)
        loaded = load_image(image, channels)
        grey = self._grey(loaded.bgr)
        bgr, whole, inverted = self._faces(loaded.bgr)
        readings = self._detect_and_read(bgr, whole, self._reader_of(grey, inverted))
        reading = self  # the recogniser whose reader and thresholds the pieces have
        told = read_as = None
        if set_guess is not None:  # guessing
            detections = [r.detection for r in readings]
            glyphs = self._read_glyphs(bgr, detections)
            told = set_guess.guess(glyphs) if readings else None
            read_as = told or untold
            allowed = self._check_set(read_as)
            reading = self.for_set(read_as)
            if reading is not self:  # the same boxes, read by the set's own reader
                reader = reading._reader_of(grey, inverted)
                readings = reading._read(bgr, detections, reader, glyphs)
        s = reading.settings
        pieces = reading._pieces(readings, allowed, loaded)
        pieces = drop_repeats(pieces, s.repeat_overlap, any_label=s.repeat_any_label)
        if s.repeat_doubted is not None:
            pieces = doubt_repeats(pieces, s.repeat_doubted)
        pieces, melds = s.group(pieces)
        pieces = reading._pips_judged(pieces, bgr, loaded.scale, allowed)
        if s.turn_pairs:
            settle_turns(pieces, melds, s.heads, s.turn_pairs)
            pieces = doubt_lone_turns(pieces, melds, s.turn_pairs)
        result = {
            "kind": self.kind,
            "pieces": reading._finish(pieces, inverted, grey),
            "melds": melds,
            "ms": round((time.perf_counter() - started) * 1000, 1),
        }
        if guessing:
            result["set"] = read_as  # told from the photo (or untold); None: neither
            if told is None and untold is not None:
                result["set_from"] = "untold"
        return result

    def read_boxes(
        self, image, boxes, channels: str = "rgb", set_name: str | None = None
    ) -> list[dict]:
        """The pieces read in known boxes (image pixels as displayed), one per box, skipping
        the detector's boxes and every filter (detector score 1). With ``dark_faces`` the
        whole-photo pass still runs, to tell a dark deck (read inverted) from a light one."""
        set_name = set_name or self.set_name
        allowed = self._check_set(set_name)
        set_recogniser = self.for_set(set_name)
        if set_recogniser is not self:
            return set_recogniser.read_boxes(image, boxes, channels, set_name)
        loaded = load_image(image, channels)
        detections = [
            Detection(cast("tuple[float, float, float, float]", corners), 1.0, 0)
            for corners in (tuple(float(v) / loaded.scale for v in box) for box in boxes)
        ]
        grey = self._grey(loaded.bgr)
        bgr, _whole, inverted = self._faces(loaded.bgr)
        readings = self._read(bgr, detections, self._reader_of(grey, inverted))
        pieces = self._pieces(readings, allowed, loaded, keep=True)
        pieces = self._pips_judged(pieces, bgr, loaded.scale, allowed)
        return self._finish(pieces, inverted, grey)

    # ---------------------------------------------------------------------------- steps

    def _detection_score(self) -> float:
        s = self.settings
        return s.passes.score if s.faint_boxes is None else min(s.passes.score, s.faint_boxes.score)

    def _faces(self, bgr: np.ndarray) -> tuple[np.ndarray, list[Detection] | None, bool]:
        """The photo to detect and read in (``bgr``, or it inverted for dark faces), the
        whole-photo pass's boxes in it when already found, and whether it is inverted."""
        if self.settings.dark_faces is None:
            return bgr, None, False
        score, iou = self._detection_score(), self.settings.passes.iou
        whole = self.detector.detect(bgr, conf=score, iou=iou)
        found = sum(d.score for d in whole)
        dark_faces = self.settings.dark_faces
        if found >= dark_faces.light_from and _boxes_grey(bgr, whole) >= dark_faces.light_boxes:
            return bgr, whole, False
        # The inverted pass only decides, so it runs on the photo shrunk to the detector's
        # input (the same pixels the detector sees) and inverts a tenth of the pixels.
        h, w = bgr.shape[:2]
        size_h, size_w = self.detector.size
        ratio = min(1.0, size_h / h, size_w / w)
        small = cv2.resize(bgr, (round(w * ratio), round(h * ratio)), interpolation=cv2.INTER_AREA)
        inverted = self.detector.detect(invert_lightness(small), conf=score, iou=iou)
        # Dark faces: what the inverted pass finds is dark in the photo as it is. A burnt-out
        # photo of a light deck can sum more inverted, but on its white.
        if (
            sum(d.score for d in inverted) > found
            and _boxes_grey(small, inverted) < dark_faces.light_boxes
            and _boxes_grey(small, inverted, dark_faces.around) < dark_faces.light_boxes
        ):
            return invert_lightness(bgr), None, True
        return bgr, whole, False

    def _read_glyphs(self, bgr: np.ndarray, detections: list[Detection]) -> np.ndarray:
        """``SetGuess``'s reader's first head for each box (boxes x classes; as is and turned
        half a turn, averaged): what each index prints, which tells the set."""
        session = self._glyph_reader()
        if not detections:
            return np.zeros((0, 0), dtype=np.float32)
        set_guess = self.settings.set_guess
        assert set_guess is not None  # _glyph_reader opened its reader
        size = set_guess.crop_size or reader_crop_size(session)
        crops = [cut_crop(bgr, d.box, size) for d in detections]
        return read_views(session, crops)[0].mean(axis=0)

    def _glyph_reader(self):
        """``SetGuess.reader_file``'s session, opened on first use."""
        shared = self._shared
        with shared.lock:
            if shared.guess_reader is None:
                assert self.settings.set_guess is not None  # asked for by a set guess
                name = self.settings.set_guess.reader_file
                shared.guess_reader = open_session(self._model_path(name))
            return shared.guess_reader

    def _grey(self, bgr: np.ndarray) -> bool:
        """Whether ``bgr`` is a photo without colour, for a kind where that matters."""
        return self.settings.grey_photos is not None and self.settings.grey_photos.applies(bgr)

    def _reader_of(self, grey: bool, inverted: bool = False):
        """The reader of a photo: the kind's, or where the kind has one, the dark faces' own
        reader for a photo read inverted (``DarkFaces.reader_file``), else the grey photos'
        own reader for a photo without colour (``GreyPhotos.reader_file``)."""
        dark, colourless = self.settings.dark_faces, self.settings.grey_photos
        if inverted and dark is not None and dark.reader_file is not None:
            name = dark.reader_file
        elif grey and colourless is not None and colourless.reader_file is not None:
            name = colourless.reader_file
        else:
            return self.reader
        shared = self._shared
        with shared.lock:
            if name not in shared.readers:
                shared.readers[name] = open_session(self._model_path(name))
        return shared.readers[name]

    def _detect_and_read(
        self, bgr: np.ndarray, whole: list[Detection] | None = None, reader=None
    ) -> list[Reading]:
        """The readings of the pieces found in ``bgr`` (``whole``: its whole-photo pass's
        boxes, when already found) by ``reader`` (default: the kind's)."""
        s = self.settings
        passes = replace(s.passes, score=self._detection_score())
        detections = self.passes.detect(bgr, passes, whole=whole)
        if s.drop_boxes is not None:
            detections = s.drop_boxes(detections, bgr.shape[:2])
        if self._second is not None:
            detections = self._second.find(bgr, detections)
            if s.drop_boxes is not None:
                detections = s.drop_boxes(detections, bgr.shape[:2])
        h, w = bgr.shape[:2]
        whole_photo = s.whole_photo
        if whole_photo is not None and whole_photo.applies(w, h):
            box = Detection((0.0, 0.0, float(w), float(h)), whole_photo.score, 0)
            reading = self._read(bgr, [box], reader)[0]
            if reading.none < whole_photo.none_below or not detections:
                return [reading]
        return self._read(bgr, detections, reader)

    def _read(
        self, bgr: np.ndarray, detections: list[Detection], reader=None, glyphs=None
    ) -> list[Reading]:
        """The readings of ``detections`` by ``reader`` (default: the kind's), joined with the
        glyph reader's (``glyphs``: read already) for a set reader that joins it."""
        reader = reader or self.reader
        readings = read_boxes(reader, bgr, detections, self.crop_size, self.settings.looks)
        if self._second is not None:
            second = self._second.settings  # settings.second_reader
            chosen = [k for k, r in enumerate(readings) if _worth_reading(r, second, self.settings)]
            place = _one_per_place(readings, chosen) if second.reported_only else {}
            firsts = [k for k in chosen if place.get(k, k) == k]
            read = dict(
                zip(firsts, self._second.read(bgr, [readings[k] for k in firsts]), strict=True)
            )
            for k in chosen:
                views, ink, decides = read[place.get(k, k)]
                classes = self.settings.heads.first
                readings[k] = fuse(readings[k], views, ink, second, classes, decides=decides)
        joined = self.settings.glyphs
        if joined is None or not readings:
            return readings
        if glyphs is None:
            glyphs = self._read_glyphs(bgr, detections)
        return [
            join_glyphs(r, g, joined.classes) if g.max() >= joined.sure else r
            for r, g in zip(readings, glyphs, strict=True)
        ]

    def _pieces(self, readings, allowed, loaded, keep: bool = False) -> list[Piece]:
        """The pieces of ``readings``; ``keep``: every reading, whatever its "none" and
        confidence."""
        s = self.settings
        floors = dict(s.label_floors)
        pieces = []
        for reading in readings:
            if reading.none >= s.none_drop and not keep:
                continue
            ranked = s.heads.rank(reading.first, reading.second)
            score = reading.detection.score
            floor = max(s.report_floor, floors.get(ranked[0][0], 0.0))
            if confidence(ranked[0][1], score) < floor and not keep:
                continue
            faint = s.faint_boxes
            if faint and score < s.passes.score and ranked[0][1] < faint.read_floor and not keep:
                continue
            if allowed is not None:
                ranked = [item for item in ranked if item[0] in allowed]
            pieces.append(_entry(ranked, reading, loaded, s.heads))
        return pieces

    def _pips_judged(
        self,
        pieces: list[Piece],
        bgr: np.ndarray,
        scale: float,
        allowed: frozenset[str] | None = None,
    ) -> list[Piece]:
        """``pieces`` with each domino whose pips, counted on ``bgr`` (the photo as decoded,
        ``scale`` times the displayed one), clearly contradict its label marked as not agreed:
        never sure (``PipCheck``); where both halves were counted, that domino (in ``allowed``,
        the set's labels, if given) is offered first among the alternatives."""
        s = self.settings
        check = s.pip_check
        if check is None:
            return pieces
        judged = []
        for piece in pieces:
            if piece.agreed is not False and piece.label not in s.never_sure:
                box = [v / scale for v in piece.bbox]
                rotated = moved_rotated(piece.rotated, 0.0, 0.0, scale)
                counts = domino_pips(bgr, box, rotated, check)
                if pips_disagree(piece.label, counts):
                    piece = replace(piece, agreed=False)
                    top, bottom = counts
                    counted = None if top is None or bottom is None else domino_label(top, bottom)
                    offered = counted is not None and (allowed is None or counted in allowed)
                    if offered and piece.first is not None and piece.second is not None:
                        ranked = s.heads.rank(piece.first, piece.second)
                        ranked = [item for item in ranked if allowed is None or item[0] in allowed]
                        piece = _relabel(replace(piece, other=counted), ranked)
            judged.append(piece)
        return judged

    def _finish(
        self, pieces: list[Piece], inverted: bool = False, grey: bool = False
    ) -> list[dict]:
        """The pieces as reported (``Piece.reported``), each with its ``sure`` flag
        (``inverted``: read on a dark-faced photo inverted, sure by ``DarkFaces``' threshold;
        ``grey``: read on a photo without colour, sure by ``GreyPhotos``' threshold)."""
        s = self.settings
        threshold = s.dark_faces.sure_threshold if inverted and s.dark_faces else s.sure_threshold
        if grey and s.grey_photos is not None:
            threshold = max(threshold, s.grey_photos.sure_threshold)
        finished = []
        for piece in pieces:
            reported = piece.reported()
            never = piece.label in s.never_sure
            agreed = piece.agreed is not False  # with a second reader: both must agree
            reported["sure"] = not never and agreed and bool(self._sure(piece) >= threshold)
            finished.append(reported)
        return finished

    def _check_set(self, set_name: str | None) -> frozenset[str] | None:
        if set_name is None or (set_name == AUTO_SET and self.settings.set_guess is not None):
            return None
        sets = dict(self.settings.sets)
        if set_name not in sets:
            known = ", ".join(sets) if sets else f"none: {self.kind} have no sets"
            raise UnknownSet(f"unknown {self.kind} set {set_name!r}: use one of {known}")
        return sets[set_name]


def join_glyphs(
    reading: Reading, glyphs: np.ndarray, classes: tuple[tuple[int, ...], ...]
) -> Reading:
    """``reading`` with each first-head class but "none" weighed by the probability a second
    reader (``glyphs``: its classes' probabilities for the same box) gives what a piece of that
    class may show (``classes``, summed): two readers of one index, joined by Bayes as if
    independent. "none" keeps its probability (the classes share what is left, as before), so
    what is dropped as no piece is the reader's call alone."""
    weights = np.array([glyphs[list(shown)].sum() for shown in classes])
    n = len(classes)

    def joined(first: np.ndarray) -> np.ndarray:
        out = first.astype(np.float64)
        weighed = out[:n] * weights
        out[:n] = weighed * (out[:n].sum() / max(float(weighed.sum()), 1e-12))
        return out.astype(first.dtype)

    views = reading.first_views
    return replace(
        reading,
        first=joined(reading.first),
        first_views=None if views is None else np.stack([joined(v) for v in views]),
    )


def _entry(ranked: list[tuple[str, float]], reading: Reading, loaded, heads: Heads) -> Piece:
    """One piece: the best label, its box in the displayed image, its confidence (probability
    x detector score^(1/4)) and alternatives (``_relabel``), and what grouping and the sure
    flag use."""
    detection = reading.detection
    box = clip_box(detection.box, loaded.scale, loaded.width, loaded.height)
    other = None
    second = reading.second_reading
    if second is not None and second.other is not None:
        # the piece reader's own best label (its value with the best colour), shown first
        # among the alternatives where the readers differ
        value = heads.first[second.other]
        other = next((label for label, _p in ranked if _value_of(label, heads) == value), None)
    entry = Piece(
        label="",  # ``_relabel`` fills it in, with the confidence and alternatives
        bbox=box,
        first=reading.first,
        second=reading.second,
        turns=reading.turns,
        score=detection.score,
        views=_view_probabilities(ranked[0][0], reading, heads),
        edge=min(box[0], box[1], loaded.width - box[2], loaded.height - box[3]),
        rotated=moved_rotated(detection.rotated, 0.0, 0.0, 1 / loaded.scale),
        agreed=None if second is None else second.agreed,
        settled=second is not None and second.settled,
        other=other,
    )
    return _relabel(entry, ranked)


def _value_of(label: str, heads: Heads) -> str:
    """The first-head class a label names (a tile's value, a joker)."""
    for name, alone in heads.alone:
        if label == alone:
            return name
    for first in heads.first:
        for second in heads.second:
            if heads.label.format(first=first, second=second) == label:
                return first
    return ""


def _relabel(piece: Piece, ranked: list[tuple[str, float]]) -> Piece:
    """``piece`` (an ``_entry``) labelled from ``ranked``: its label, confidence, alternatives,
    and the probability and runner-up the sure scores use."""
    label, p = ranked[0]
    others = ranked[1:]
    other = piece.other
    if other is not None and other != label:  # the other reader's reading comes first
        others = sorted(others, key=lambda item: item[0] != other)
    return replace(
        piece,
        label=label,
        confidence=round(confidence(p, piece.score), 4),
        alternatives=[
            [alt, round(q, 4)]
            for k, (alt, q) in enumerate(others[:MAX_ALTERNATIVES])
            if q >= ALTERNATIVE_FLOOR or (k == 0 and alt == other)
        ],
        p=p,
        runner_up=ranked[1][1] if len(ranked) > 1 else 0.0,
    )


def way_up(pieces: list[Piece], witnesses: list[int]) -> np.ndarray | None:
    """How likely each quadrant of the photo (counter-clockwise from upright) is the way up of
    the ``witnesses``' meld, whose pieces lie the same way (a rack's row, a meld laid facing one
    player): each piece read with a turn head testifies with the probability it gives each
    quadrant, whatever its value, floored at 1 % (one wrong witness cannot veto). None without
    a witness."""
    said = [_turns(pieces[i])[:-1].sum(0) for i in witnesses]
    if not said:
        return None
    evidence = np.sum([np.log(w / max(1e-9, w.sum()) + 0.01) for w in said], axis=0)
    weights = np.exp(evidence - evidence.max())
    return weights / weights.sum()


def _turns(piece: Piece) -> np.ndarray:
    assert piece.turns is not None  # a witness was read with a turn head
    return piece.turns


def settle_turns(
    pieces: list[Piece], melds: list[list[int]], heads: Heads, pairs: tuple[tuple[str, str], ...]
) -> None:
    """A 6 and a 9 printed without a mark look alike turned half a turn; which one a tile is
    follows from the way up of its meld, which its other tiles show. For each piece of a meld
    read with a turn head, the probability its reading gives the pair is shared between the
    two classes by Bayes: the way up its meld's other pieces say (``way_up``) times what its
    own value x turn reading says (a tile whose mark shows its way up keeps it). A piece in no
    meld, or alone in one, is left as read (``pieces`` is changed in place: each piece settled
    is replaced by its new reading)."""
    for meld in melds:
        readers = [i for i in meld if pieces[i].turns is not None]
        for i in readers:
            if pieces[i].settled:  # its way up was read (``vision.second``)
                continue
            prior = way_up(pieces, [j for j in readers if j != i])
            if prior is None:
                continue
            piece = pieces[i]
            first = np.array(piece.first, dtype=np.float64)
            turns = _turns(piece)
            for a, b in pairs:
                ia, ib = heads.first.index(a), heads.first.index(b)
                for_a, for_b = float(turns[ia] @ prior), float(turns[ib] @ prior)
                if for_a + for_b <= 0:
                    continue
                mass = first[ia] + first[ib]
                first[ia], first[ib] = (mass * x / (for_a + for_b) for x in (for_a, for_b))
            assert piece.second is not None  # read by the kind's reader
            pieces[i] = _relabel(piece, heads.rank(first, piece.second))


# A lone 6 or 9 whose turn head finds it another way up than this share of the photo's other
# pieces is never sure (``doubt_lone_turns``)
LONE_TURN_MAJORITY = 0.8


def doubt_lone_turns(
    pieces: list[Piece], melds: list[list[int]], pairs: tuple[tuple[str, str], ...]
) -> list[Piece]:
    """``pieces`` with each piece of a turn pair (a 6, a 9) that its meld does not settle (in
    it fewer than two other pieces with a turn head, not 6s or 9s themselves; and its way up
    not read on a text line) marked not agreed, never sure, where its turn head finds it
    another way up than most of the photo's pieces (``LONE_TURN_MAJORITY``): on a rack every
    tile stands one way, and a lone 6 whose turn head took it for upside down reads as a 9,
    sure, by both readers (the general recogniser reads a 6 one way, a 9 the other)."""
    paired = {label for pair in pairs for label in pair}

    def witness(k: int) -> bool:  # another 6 or 9 cannot witness: it is as much in doubt
        return pieces[k].turns is not None and pieces[k].label.rsplit("-", 1)[-1] not in paired

    witnessed = {i for meld in melds for i in meld if sum(witness(k) for k in meld if k != i) >= 2}
    ways = [None if p.turns is None else int(np.argmax(p.turns.sum(0))) for p in pieces]
    doubted = []
    for i, piece in enumerate(pieces):
        value = piece.label.rsplit("-", 1)[-1]
        if value not in paired or i in witnessed or piece.settled or ways[i] is None:
            continue
        others = [w for k, w in enumerate(ways) if k != i and w is not None]
        if others:
            most = max(set(others), key=others.count)
            if most != ways[i] and others.count(most) >= LONE_TURN_MAJORITY * len(others):
                doubted.append(i)
    return [replace(p, agreed=False) if i in doubted else p for i, p in enumerate(pieces)]


def _view_probabilities(label: str, reading: Reading, heads: Heads) -> tuple[float, ...]:
    """The probability of ``label`` in each view of the reading (the crop, and it turned half
    a turn), whose mean the reading is."""
    if reading.first_views is None or reading.second_views is None:
        return ()
    return tuple(
        dict(heads.rank(first, second))[label]
        for first, second in zip(reading.first_views, reading.second_views, strict=True)
    )


def clip_box(box, scale: float, width: int, height: int) -> list[float]:
    """A detector box (in the decoded image) in the pixels of the image as displayed."""
    x1, y1, x2, y2 = (round(v * scale, 1) for v in box)
    return [min(x1, width), min(y1, height), min(x2, width), min(y2, height)]


def _worth_reading(reading: Reading, second: SecondReader, settings: KindSettings) -> bool:
    """Whether the second reader reads ``reading``: every one, or with ``reported_only``, one
    the piece reader keeps as a piece and reads at least as surely as a piece is reported."""
    if not second.reported_only:
        return True
    body = reading.first[:-1]
    best = float(body.max()) / max(1e-9, float(body.sum()))
    return reading.none < settings.none_drop and best >= settings.report_floor


def _one_per_place(readings: list[Reading], chosen: list[int]) -> dict[int, int]:
    """Each chosen reading's place: the reading with the highest detector score among those
    whose boxes share more than half of the smaller (one index boxed by several passes), which
    the second reader reads for all of them."""
    place: dict[int, int] = {}
    firsts: list[int] = []
    for k in sorted(chosen, key=lambda i: -readings[i].detection.score):
        box = readings[k].detection.box
        same = next((f for f in firsts if shared_box(box, readings[f].detection.box) > 0.5), None)
        if same is None:
            firsts.append(k)
        place[k] = k if same is None else same
    return place
