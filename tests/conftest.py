"""Shared fixtures for the vision tests, and the order of the suite's files on several
processes."""

from __future__ import annotations

import os

import numpy as np
import pytest

# Files whose tests take minutes (the training smoke runs: 8 of the suite's 22 minutes serially,
# on 2 loaded cores): on several processes (pytest-xdist, scripts/test.sh: --dist loadfile
# --no-loadscope-reorder, files in this order) they go first, so that they do not run alone at
# the end.
LONG_FIRST = ("test_training_smoke.py", "test_recover.py", "test_letter_glyphs.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=lambda item: item.path.name not in LONG_FIRST)  # stable: else as found


@pytest.fixture(scope="session")
def tiles():
    """The shipped tile recogniser (loaded once for the whole session)."""
    from vision.api import get_recogniser

    return get_recogniser("tiles")


@pytest.fixture(scope="session")
def dominoes():
    """The shipped domino recogniser."""
    from vision.api import get_recogniser

    return get_recogniser("dominoes")


@pytest.fixture(scope="session")
def cards():
    """The shipped card recogniser."""
    from vision.api import get_recogniser

    return get_recogniser("cards")


# ---------------------------------------------------------------------- stand-in models


class _Detector:
    """Finds the given boxes, whatever the photo."""

    size = (64, 64)

    def __init__(self, detections):
        self.detections = detections

    def detect(self, _bgr, conf=0.25, iou=0.6):
        return [d for d in self.detections if d.score >= conf]


class _Reader:
    """Reads a crop by its mean grey level: ``answers`` maps a grey level to (first, second)."""

    def __init__(self, answers):
        self.answers = answers

    def run(self, _names, feeds):
        crops = feeds["crops"]
        firsts, seconds = [], []
        for crop in crops:
            grey = round(float(crop.mean()) * 255)
            level = min(self.answers, key=lambda g: abs(g - grey))
            first, second = self.answers[level]
            firsts.append(first)
            seconds.append(second)
        return np.array(firsts, np.float32), np.array(seconds, np.float32)


def _tile_heads(value: int, colour: int, p: float, none: float = 0.0):
    first = np.zeros(19, np.float32)
    first[value], first[(value + 1) % 17] = p * (1 - none), (1 - p) * (1 - none)
    first[18] = none
    second = np.zeros(4, np.float32)
    second[colour] = 1.0
    return first, second


def _photo_and_models(settings):
    """A photo of three grey patches read as a sure red-5, an unsure blue-9 and "none", on a
    dark ground of a little colour (a photo without any is never sure: ``GreyPhotos``)."""
    from dataclasses import replace

    from vision.detector import Detection

    image = np.full((120, 360, 3), (22, 30, 38), np.uint8)
    boxes = []
    for k, grey in enumerate((200, 120, 60)):
        x = 20 + 120 * k
        image[20:100, x : x + 60] = grey
        boxes.append(Detection((float(x), 20.0, float(x + 60), 100.0), 0.9, 0))
    answers = {
        200: _tile_heads(4, 0, 0.999),
        120: _tile_heads(8, 2, 0.8),
        60: _tile_heads(2, 3, 1.0, none=0.9),
    }
    # the second reader reads printed numerals (``tests/vision/test_second_reader.py``); these
    # grey patches print none
    settings = replace(settings, crop_size=32, second_reader=None)
    return image, settings, (_Detector(boxes), _Reader(answers))


@pytest.fixture
def stand_in():
    """(photo, tile settings with 32 px crops, (detector, reader)): a photo of three grey
    patches that stand-in models read as a sure red-5, an unsure blue-9 and "none"."""
    from vision.kinds import TILES

    return _photo_and_models(TILES)
