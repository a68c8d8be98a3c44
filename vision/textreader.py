"""A general text recogniser and text detector that have never seen a game piece: PP-OCRv4's
(``models/text_recogniser.onnx``, ``models/text_detector.onnx``, Apache-2.0, taken unchanged
from the ``rapidocr-onnxruntime`` 1.4.4 wheel; ``models/text_reader.md``), run by onnxruntime.

They learned from millions of real text images, not from any printing of tiles or cards, so what
they read does not depend on the set: the second reader of ``vision.pipeline`` (``SecondReader``).

- ``TextRecogniser.numerals``: for crops of one numeral each, the probability that the digits the
  recogniser reads there spell each of the given numerals ("1" .. "17"), and what is left (no
  numeral, or another). The recogniser is a CTC model over 6,623 characters; every character but
  the digits counts as a gap, so a printed brand name or a mark beside the numeral does not
  change which numeral is read, and a joker's face reads as no numeral. The probabilities are
  CTC's own: the sum over every frame path that spells the numeral (``ctc_probability``).
- ``TextDetector.detect``: the rotated boxes of text regions (numerals on any printing), from the
  DB segmentation map (threshold, contours, each contour's rotated rectangle widened by DB's
  unclip distance).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.detector import open_session

REC_HEIGHT = 48  # the recogniser's input height
GAP = 0  # the CTC blank's class


class TextRecogniser:
    """PP-OCR's recogniser on crops (BGR uint8, any size), read in one batch."""

    def __init__(self, path: Path, width: int = 96):
        self.session = open_session(path)
        meta = self.session.get_modelmeta().custom_metadata_map
        # the class list: the CTC blank, the characters the model's metadata lists, a space
        self.characters = ["", *meta["character"].split("\n"), " "]
        self.width = width  # every crop is fitted into REC_HEIGHT x width, centred
        # each digit's classes: the ASCII digit and its other forms, whose compatibility form
        # holds that one digit (full-width "１", circled "③", parenthesised "⑶"); each capital
        # letter's (a card index's A, K, Q, J, D, W, B, V, R): the letter in either case and
        # its other forms
        self.digit_class: dict[str, list[int]] = {d: [] for d in "0123456789"}
        letters: dict[str, list[int]] = {c: [] for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}
        for i, ch in enumerate(self.characters):
            form = unicodedata.normalize("NFKC", ch)
            held = [c for c in form if c.isdigit()]
            if len(held) == 1 and held[0] in self.digit_class:
                self.digit_class[held[0]].append(i)
            if len(form) == 1 and form.upper() in letters:
                letters[form.upper()].append(i)
        self.character_class = {**self.digit_class, **letters}

    def probabilities(self, crops: list[np.ndarray], width: int | None = None) -> np.ndarray:
        """Each crop's per-frame class probabilities (N x frames x classes), each fitted into
        ``width`` (default: the recogniser's)."""
        if not crops:
            return np.zeros((0, 0, len(self.characters)), np.float32)
        batch = np.stack([self._fit(c, width or self.width) for c in crops])
        return self.session.run(None, {self.session.get_inputs()[0].name: batch})[0]

    def _fit(self, crop: np.ndarray, width: int) -> np.ndarray:
        """``crop`` scaled to REC_HEIGHT (at most ``width`` wide) and centred on a canvas of the
        crop's border colour, normalised as PP-OCR learned (BGR, -1..1, CHW)."""
        h, w = crop.shape[:2]
        new_w = max(1, min(width, round(REC_HEIGHT * w / max(h, 1))))
        new_h = REC_HEIGHT if new_w < width else max(1, round(width * h / max(w, 1)))
        scaled = cv2.resize(crop, (new_w, new_h), interpolation=cv2.INTER_AREA)
        border = np.median(np.concatenate([scaled[:, 0], scaled[:, -1]]), axis=0)
        canvas = np.empty((REC_HEIGHT, width, 3), np.uint8)
        canvas[:] = border.astype(np.uint8)
        top, left = (REC_HEIGHT - new_h) // 2, (width - new_w) // 2
        canvas[top : top + new_h, left : left + new_w] = scaled
        return (canvas.astype(np.float32).transpose(2, 0, 1) / 127.5) - 1.0

    def text(self, crops: list[np.ndarray], width: int | None = None) -> list[tuple[str, float]]:
        """The best path's text of each crop and its mean character probability (as PP-OCR
        reports it)."""
        out = []
        for frames in self.probabilities(crops, width):
            best = frames.argmax(1)
            chars, probs, last = [], [], GAP
            for t, c in enumerate(best):
                if c != GAP and c != last:
                    chars.append(self.characters[c])
                    probs.append(float(frames[t, c]))
                last = c
            out.append(("".join(chars), float(np.mean(probs)) if probs else 0.0))
        return out

    def numerals(
        self, crops: list[np.ndarray], numerals: tuple[str, ...], width: int | None = None
    ) -> np.ndarray:
        """N x (len(numerals) + 1): the probability that the digits read in each crop spell
        each numeral, then what is left (no digits, or digits spelling none of them)."""
        if not crops:
            return np.zeros((0, len(numerals) + 1))
        frames = self.probabilities(crops, width)
        return numeral_probabilities(frames, numerals, self.character_class)


def numeral_probabilities(
    frames: np.ndarray, numerals: tuple[str, ...], character_class: dict[str, list[int]]
) -> np.ndarray:
    """``TextRecogniser.numerals`` from per-frame probabilities (N x T x classes): the classes
    of each character the numerals spell (``character_class``: digits, capital letters) summed,
    every other class folded into the gap before CTC's forward sum."""
    order = "".join(sorted({c for numeral in numerals for c in numeral}))
    digits = np.stack([frames[:, :, character_class[d]].sum(axis=2) for d in order], axis=2)
    gap = np.clip(1.0 - digits.sum(axis=2, keepdims=True), 0.0, 1.0)
    folded = np.concatenate([gap, digits], axis=2).astype(np.float64)  # class 0: gap
    out = np.zeros((frames.shape[0], len(numerals) + 1))
    for i, numeral in enumerate(numerals):
        out[:, i] = ctc_probability(folded, [1 + order.index(d) for d in numeral])
    out[:, -1] = np.clip(1.0 - out[:, :-1].sum(axis=1), 0.0, 1.0)
    return out


def ctc_probability(frames: np.ndarray, label: list[int]) -> np.ndarray:
    """CTC's probability of ``label`` (class indices, none the gap 0) for each of N sequences of
    per-frame probabilities (N x T x classes): the forward sum over the extended label
    (gap, c1, gap, c2, ..., gap)."""
    n, steps, _ = frames.shape
    extended = [GAP]
    for c in label:
        extended += [c, GAP]
    size = len(extended)
    emit = frames[:, :, extended]  # N x T x S
    alpha = np.zeros((n, size))
    alpha[:, 0] = emit[:, 0, 0]
    if size > 1:
        alpha[:, 1] = emit[:, 0, 1]
    # a skip over a gap is allowed between two different characters
    skip = np.array(
        [s >= 2 and extended[s] != GAP and extended[s] != extended[s - 2] for s in range(size)]
    )
    for t in range(1, steps):
        moved = alpha.copy()
        moved[:, 1:] += alpha[:, :-1]
        moved[:, 2:] += np.where(skip[2:], alpha[:, :-2], 0.0)
        alpha = moved * emit[:, t]
    return alpha[:, -1] + (alpha[:, -2] if size > 1 else 0.0)


@dataclass(frozen=True)
class TextBox:
    """A text region: its rotated rectangle ((cx, cy), (w, h), angle) in photo pixels, its
    four corners, and the detector's mean probability inside it."""

    rect: tuple
    corners: np.ndarray
    score: float


class TextDetector:
    """PP-OCR's DB text detector on a photo shrunk to ``side`` pixels on its long side."""

    def __init__(
        self,
        path: Path,
        side: int = 960,
        threshold: float = 0.3,
        box_threshold: float = 0.5,
        unclip: float = 1.6,
    ):
        self.session = open_session(path)
        self.side, self.threshold = side, threshold
        self.box_threshold, self.unclip = box_threshold, unclip

    def probability_map(self, bgr: np.ndarray) -> tuple[np.ndarray, tuple[float, float]]:
        """The detector's text probability per pixel of the shrunk photo, and its scales (x, y)."""
        h, w = bgr.shape[:2]
        ratio = min(1.0, self.side / max(h, w))
        new_h = max(32, round(h * ratio / 32) * 32)
        new_w = max(32, round(w * ratio / 32) * 32)
        small = cv2.resize(bgr, (new_w, new_h), interpolation=cv2.INTER_AREA)
        batch = ((small.astype(np.float32) / 127.5) - 1.0).transpose(2, 0, 1)[None]
        prob = self.session.run(None, {self.session.get_inputs()[0].name: batch})[0][0, 0]
        return prob, (new_w / w, new_h / h)

    def detect(self, bgr: np.ndarray) -> list[TextBox]:
        prob, (sx, sy) = self.probability_map(bgr)
        mask = (prob > self.threshold).astype(np.uint8)
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        boxes = []
        for contour in contours:
            if len(contour) < 4:
                continue
            (cx, cy), (w, h), angle = cv2.minAreaRect(contour)
            if min(w, h) < 3:
                continue
            x, y, bw, bh = cv2.boundingRect(contour)
            inside = np.zeros((bh, bw), np.uint8)
            cv2.fillPoly(inside, [contour - [x, y]], 1)
            score = float(cv2.mean(prob[y : y + bh, x : x + bw], inside)[0])
            if score < self.box_threshold:
                continue
            # DB's unclip: the shrunk text kernel widened by area x ratio / perimeter
            grow = w * h * self.unclip / (2 * (w + h))
            small_rect = ((cx, cy), (w + 2 * grow, h + 2 * grow), angle)
            corners: np.ndarray = cv2.boxPoints(small_rect) / np.array([sx, sy], np.float32)
            rect = cv2.minAreaRect(corners)
            boxes.append(TextBox(rect, corners, score))
        return boxes
