"""The pip count (``vision.pips``): each half of a domino counted from its round marks, which
judges the domino reader's label: a half counted clearly otherwise makes the domino unsure; a
half it cannot count clearly leaves the reader's sure rule standing."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import cv2
import numpy as np
import pytest

from datasets.dominoes_synth import random_style, render_domino
from vision.kinds import DOMINOES
from vision.pipeline import Recogniser
from vision.pips import disagrees, domino_pips
from vision.settings import Piece, PipCheck

CHECK = PipCheck()
CENTRE = 200.0


def _photo(
    halves: tuple[int, int], seed: int, angle: float = 0.0, width: int = 70
) -> tuple[np.ndarray, tuple]:
    """A rendered domino lying at ``angle`` degrees in the middle of a plain table, and its
    rotated box ((cx, cy), (w, h), angle)."""
    rng = np.random.default_rng(seed)
    domino = render_domino(random_style(rng), halves, width)
    h, w = domino.shape[:2]
    table = np.full((400, 400, 3), rng.integers(20, 200, 3), np.uint8)
    y0, x0 = int(CENTRE) - h // 2, int(CENTRE) - w // 2
    alpha = domino[:, :, 3:4] / 255.0
    face = domino[:, :, 2::-1]  # RGBA -> BGR
    region = table[y0 : y0 + h, x0 : x0 + w]
    table[y0 : y0 + h, x0 : x0 + w] = (region * (1 - alpha) + face * alpha).astype(np.uint8)
    turn = cv2.getRotationMatrix2D((CENTRE, CENTRE), angle, 1.0)
    photo = cv2.warpAffine(table, turn, (400, 400), borderMode=cv2.BORDER_REPLICATE)
    return photo, ((CENTRE, CENTRE), (float(w), float(h)), -angle)


def test_rendered_dominoes_at_any_angle_are_counted_right_or_not_at_all() -> None:
    tally: Counter[str] = Counter()
    rng = np.random.default_rng(11)
    for seed in range(80):
        halves = int(rng.integers(1, 13)), int(rng.integers(1, 13))
        photo, box = _photo(halves, seed, angle=float(rng.uniform(-30, 30)))
        for truth, counted in zip(halves, domino_pips(photo, None, box, CHECK), strict=True):
            tally["unclear" if counted is None else "right" if counted == truth else "wrong"] += 1
    assert tally["wrong"] == 0
    assert tally["right"] >= 0.9 * 160


def test_a_box_a_few_degrees_off_is_cut_again_along_the_dividing_line() -> None:
    photo, ((cx, cy), sides, angle) = _photo((5, 9), seed=3, angle=9.0)
    assert domino_pips(photo, None, ((cx, cy), sides, angle + 9.0), CHECK) == (5, 9)


def test_a_blank_half_is_not_counted() -> None:
    photo, box = _photo((0, 4), seed=4)
    assert domino_pips(photo, None, box, CHECK) == (None, 4)


def test_a_covered_half_is_not_counted() -> None:
    photo, box = _photo((6, 8), seed=5)
    covered = photo.copy()
    cv2.circle(covered, (int(CENTRE) + 30, int(CENTRE) + 50), 35, (30, 30, 30), -1)
    assert domino_pips(photo, None, box, CHECK) == (6, 8)
    assert domino_pips(covered, None, box, CHECK) == (6, None)


def test_a_domino_reaching_past_the_photos_edge_is_not_counted() -> None:
    photo, ((cx, cy), sides, angle) = _photo((3, 7), seed=6)
    shifted = np.ascontiguousarray(photo[:, 180:])  # the photo's left edge through the domino
    assert domino_pips(shifted, None, ((cx - 180, cy), sides, angle), CHECK) == (None, None)


@pytest.mark.parametrize(
    ("label", "counts", "contradicts"),
    [
        ("3-7", (3, 7), False),
        ("3-7", (7, 3), False),
        ("3-7", (3, 6), True),
        ("3-7", (None, 6), True),
        ("3-7", (None, 7), False),
        ("7-7", (7, None), False),
        ("0-5", (4, None), True),
        ("0-5", (None, None), False),
    ],
)
def test_only_a_half_counted_clearly_otherwise_contradicts_the_label(
    label, counts, contradicts
) -> None:
    assert disagrees(label, counts) is contradicts


def test_a_label_the_pips_contradict_is_never_sure(dominoes) -> None:
    photo, box = _photo((4, 8), seed=8)
    recogniser = dominoes
    centre, (w, h), _angle = box
    bbox = [centre[0] - w / 2, centre[1] - h / 2, centre[0] + w / 2, centre[1] + h / 2]
    read = Piece(label="4-8", bbox=bbox, rotated=box)
    misread = replace(read, label="4-7")
    judged = recogniser._pips_judged([read, misread], photo, 1.0)
    assert [p.agreed for p in judged] == [None, False]
    sessions = (dominoes.detector, dominoes.reader)
    unjudged = Recogniser(replace(DOMINOES, pip_check=None), sessions=sessions)
    assert unjudged._pips_judged([misread], photo, 1.0)[0].agreed is None


def test_a_domino_counted_otherwise_is_offered_first(dominoes) -> None:
    photo, box = _photo((4, 8), seed=8)
    centre, (w, h), _angle = box
    bbox = [centre[0] - w / 2, centre[1] - h / 2, centre[0] + w / 2, centre[1] + h / 2]
    counts = DOMINOES.heads.first
    smaller, larger = np.full(len(counts) + 1, 0.001), np.full(len(counts), 0.001)  # + "none"
    smaller[counts.index("4")], larger[counts.index("7")], larger[counts.index("9")] = 0.9, 0.8, 0.1
    ranked = DOMINOES.heads.rank(smaller, larger)
    read = Piece(label=ranked[0][0], bbox=bbox, rotated=box, first=smaller, second=larger)
    read = replace(read, alternatives=[[label, p] for label, p in ranked[1:3]])
    assert read.label == "4-7" and read.alternatives[0][0] == "4-9"
    [judged] = dominoes._pips_judged([read], photo, 1.0)
    assert judged.label == "4-7" and judged.agreed is False
    assert judged.alternatives[0][0] == "4-8"  # the count's domino, however unlikely to the reader
    [in_set] = dominoes._pips_judged([read], photo, 1.0, allowed=frozenset({"4-7", "4-9"}))
    assert in_set.agreed is False and in_set.alternatives == read.alternatives
